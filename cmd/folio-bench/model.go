package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
)

// modelGroup measures what a content model costs a start: the same
// generated site (folio-gen -model) served without a model (its commit
// before the model's) and with one of 10 fields per type (required,
// lengths, datetime, enum, list, url, pattern, unique, two defaults that
// every item gets), first starts on an empty cache then restarts on the
// cache the first left, the two interleaved run by run so that the
// machine's other load falls on both alike. The sizes are those of
// -sizes from 10k up.
func (b *bench) modelGroup() error {
	var errs []error
	for _, n := range b.sizes {
		if n < 10000 {
			continue
		}
		if err := b.modelAt(n); err != nil {
			errs = append(errs, fmt.Errorf("%s files: %w", sizeLabel(n), err))
		}
	}
	return errors.Join(errs...)
}

// modelVersion is the folio-gen version whose -model site the group
// needs (the manifest's noModelCommit).
const modelVersion = 2

func (b *bench) modelAt(n int) error {
	dir, m, err := b.generated(fmt.Sprintf("site-n%d-s%d-model", n, b.seed), modelVersion, "-files", strconv.Itoa(n), "-media", "0", "-model")
	if err != nil {
		return err
	}
	if m.NoModelCommit == "" {
		return fmt.Errorf("%s: the manifest names no commit without the model", dir)
	}
	media, err := b.scratch("model-media")
	if err != nil {
		return err
	}
	// Two bare clones of the site: one at the commit with the model, one
	// with main moved back to the commit before it.
	variants := []string{"no model", "model"}
	sites := make([]string, 2)
	for i := range variants {
		tmp, bare, _, err := b.scratchClone(dir, "model", false)
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if i == 0 {
			if err := git(bare, "update-ref", "refs/heads/main", m.NoModelCommit); err != nil {
				return err
			}
		}
		sites[i] = bare
	}
	first := make([][]float64, 2)
	warm := make([][]float64, 2)
	caches := make([]string, 2)
	// order alternates which variant starts first in a run
	order := func(run int) []int {
		if run%2 == 0 {
			return []int{0, 1}
		}
		return []int{1, 0}
	}
	for run := range b.runs {
		for _, v := range order(run) {
			cache, err := b.scratch("model-cache")
			if err != nil {
				return err
			}
			st, err := b.startOnce(sites[v], media, cache)
			if err != nil {
				return fmt.Errorf("%s, first start: %w", variants[v], err)
			}
			first[v] = append(first[v], st.ready)
			if caches[v] == "" {
				caches[v] = cache // the restarts' cache
			} else {
				os.RemoveAll(cache)
			}
		}
	}
	for run := range b.runs {
		for _, v := range order(run) {
			st, err := b.startOnce(sites[v], media, caches[v])
			if err != nil {
				return fmt.Errorf("%s, restart: %w", variants[v], err)
			}
			warm[v] = append(warm[v], st.ready)
		}
	}
	for _, c := range caches {
		os.RemoveAll(c)
	}
	label := sizeLabel(n)
	for _, k := range []struct {
		name   string
		t      [][]float64
		target bool // the issue's: a 10k first start, a 100k restart
		notes  bool
	}{{"first start (empty cache)", first, n == 10000, true}, {"restart (warm cache)", warm, n == 100000, false}} {
		none, with := summarize(k.t[0]), summarize(k.t[1])
		noneRow := row{Figure: "model: " + label + " files, " + k.name + ", no model", Sum: none, Unit: unitMS}
		withRow := row{Figure: "model: " + label + " files, " + k.name + ", 10-field model", Sum: with, Unit: unitMS}
		if k.notes {
			noneRow.Note = "folio-gen -model's site at the commit before its model (folio.yaml declares no field), served from a bare clone; exec of `folio serve` to the first 200 of GET /api/v1/pages; the no-model and model starts interleaved, restarts after a clean stop"
			withRow.Note = "the same site with folio.yaml declaring 10 fields per type (required, maxLength, datetime, enum, list, url, pattern, unique, two defaults every item gets)"
		}
		b.add(noneRow)
		b.add(withRow)
		// the ratio of the medians; min and max are those of the runs'
		// pairs (run i without and with, started one after the other)
		pairs := make([]float64, 0, len(k.t[1]))
		for i := range min(len(k.t[0]), len(k.t[1])) {
			pairs = append(pairs, ratio(k.t[1][i], k.t[0][i]))
		}
		ps := summarize(pairs)
		r := row{Figure: "model: " + label + " files, " + k.name + ", model / no model", Unit: unitX,
			Sum: summary{Median: ratio(with.Median, none.Median), Min: ps.Min, Max: ps.Max, N: ps.N}}
		if k.target {
			// at most 20% slower than without a model
			r = r.check("≤ 1.20×", r.Sum.Median <= 1.2)
		}
		b.add(r)
	}
	return nil
}

// ratio is a/b, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
