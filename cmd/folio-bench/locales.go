package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// localeDocs is the number of documents of the locales group's site; each
// is written in localeCount locales (30k files), as issue 21 asks.
const (
	localeDocs  = 10000
	localeCount = 3
)

// localeDataset is dataset for a site of n documents in k locales
// (folio-gen -locales), folder per locale.
func (b *bench) localeDataset(n, k int) (string, manifest, error) {
	return b.generated(fmt.Sprintf("site-n%d-l%d-s%d", n, k, b.seed), 0, "-files", strconv.Itoa(n), "-locales", strconv.Itoa(k))
}

// localesGroup measures a site of localeDocs documents in localeCount
// locales against the same documents in one locale: first start and
// restart to ready with the peak RSS, push to serve of a French file,
// and single-document throughput of GET /content/posts/{slug}?locale=fr
// beside the same request without locale. Figures per file are the
// lead's to compare (issue 21: at most 1.2× the per-file cost).
func (b *bench) localesGroup() error {
	n := localeDocs
	if len(b.sizes) > 0 && b.sizes[0] < n {
		n = b.sizes[0] // a smaller run (-sizes) checks the group works
	}
	dir, m, err := b.localeDataset(n, localeCount)
	if err != nil {
		return err
	}
	if len(m.Posts) == 0 {
		return fmt.Errorf("the generated site has no published post")
	}
	files := n * localeCount
	label := fmt.Sprintf("%s documents × %d locales (%s files)", sizeLabel(n), localeCount, sizeLabel(files))
	media, err := b.scratch("locales-media")
	if err != nil {
		return err
	}
	site := filepath.Join(dir, "site")
	var firstT, firstRSS, warmT, warmRSS []float64
	cache, err := b.scratch("locales-cache")
	if err != nil {
		return err
	}
	for i := range b.runs {
		c := cache
		if i > 0 {
			if c, err = b.scratch("locales-cache"); err != nil {
				return err
			}
		}
		st, err := b.startOnce(site, media, c)
		if err != nil {
			return fmt.Errorf("locales, first start: %w", err)
		}
		firstT, firstRSS = append(firstT, st.ready), append(firstRSS, st.peak)
		if i > 0 {
			os.RemoveAll(c)
		}
	}
	for range b.runs {
		st, err := b.startOnce(site, media, cache)
		if err != nil {
			return fmt.Errorf("locales, restart: %w", err)
		}
		warmT, warmRSS = append(warmT, st.ready), append(warmRSS, st.peak)
	}
	perFile := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = x * 1000 / float64(files)
		}
		return out
	}
	b.add(row{Figure: "locales: cold start " + label + ", first start", Sum: summarize(firstT), Unit: unitMS,
		Note: "as the cold group (exec to the first 200 of GET /api/v1/pages), on a folio-gen -locales site laid out folder per locale"})
	b.add(row{Figure: "… per 1k files, first start", Sum: summarize(perFile(firstT)), Unit: unitMS})
	b.add(row{Figure: "locales: cold start " + label + ", restart", Sum: summarize(warmT), Unit: unitMS})
	b.add(row{Figure: "… per 1k files, restart", Sum: summarize(perFile(warmT)), Unit: unitMS})
	b.add(row{Figure: "locales: peak RSS at ready, " + label + ", first start", Sum: summarize(firstRSS), Unit: unitMB})
	b.add(row{Figure: "… per 1k files", Sum: summarize(perFile(firstRSS)), Unit: unit{" MB", 2}})
	b.add(row{Figure: "locales: peak RSS at ready, " + label + ", restart", Sum: summarize(warmRSS), Unit: unitMB})

	// Push to serve of one French file, and ?locale=fr throughput.
	s, work, err := b.serveClone(dir, "locales-push", media)
	if err != nil {
		return err
	}
	defer s.stop()
	slug := m.Posts[0]
	file := filepath.Join(work, "content", "fr", "posts", slug+".md")
	url := s.base + "/api/v1/content/posts/" + slug + "?locale=fr"
	var toServe []float64
	for i := range pushes {
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		marker := fmt.Sprintf("Modifié %d-%d", i, time.Now().UnixNano())
		data = titleLine.ReplaceAll(data, []byte(`title: "`+marker+`"`))
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return err
		}
		if err := git(work, "commit", "-q", "-a", "-m", marker); err != nil {
			return err
		}
		t0 := time.Now()
		if err := git(work, "push", "-q", "origin", "main"); err != nil {
			return err
		}
		seen, err := b.pollFor(url, marker, t0, 30*time.Second)
		if err != nil {
			return fmt.Errorf("locales push %d: %w (log: %s)", i, err, s.logf.Name())
		}
		toServe = append(toServe, ms(seen))
	}
	b.add(row{Figure: "locales: push to serve, " + label + ", p50", Sum: summarize(toServe), Unit: unitMS,
		Note: fmt.Sprintf("as the push group, a French post's title (content/fr/posts/…), %d pushes", pushes)})

	gen := &loadGen{wrk: b.wrk, conns: b.conns, threads: 2, tmp: b.tmp, client: newClient(b.conns)}
	defer gen.client.CloseIdleConnections()
	for _, ep := range []struct{ name, url string }{
		{"GET /content/posts/{slug} (default locale)", s.base + "/api/v1/content/posts/" + slug},
		{"GET /content/posts/{slug}?locale=fr", url},
	} {
		if _, err := gen.run([]string{ep.url}, b.key, "", max(time.Second, b.dur/4)); err != nil {
			return err
		}
		var rps []float64
		for range b.runs {
			res, err := gen.run([]string{ep.url}, b.key, "", b.dur)
			if err != nil {
				return err
			}
			if res.Errors > 0 {
				return fmt.Errorf("%s: %d errors", ep.name, res.Errors)
			}
			rps = append(rps, res.RPS)
		}
		b.add(row{Figure: "locales: " + ep.name + ", " + label, Sum: summarize(rps), Unit: unitRPS,
			Note: fmt.Sprintf("%d connections, %s", b.conns, gen.name())})
	}
	return nil
}
