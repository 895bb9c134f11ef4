package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
)

// binary is one folio binary the bench runs: -folio, and with -against
// the one it is compared with. Each has its own keys file (an older
// release may not read a newer one's).
type folioBin struct {
	name                string // "this" or "against": names its scratch files
	path, keysFile, key string
	// flags are the `folio serve` flags the binary has; nil means all
	// (it is not checked).
	flags map[string]bool
	// dropped are the flags the bench passed that the binary lacks, left
	// out of its command lines.
	dropped map[string]bool
}

// use makes bin the binary the groups start.
func (b *bench) use(bin *folioBin) {
	b.folio, b.keysFile, b.key, b.cur = bin.path, bin.keysFile, bin.key, bin
}

var serveFlag = regexp.MustCompile(`(?m)^\s+-{1,2}([a-z][a-z0-9-]*)`)

// serveFlags lists the flags of `folio serve` as its help prints them.
func serveFlags(folio string) (map[string]bool, error) {
	out, _ := exec.Command(folio, "serve", "--help").CombinedOutput()
	flags := map[string]bool{}
	for _, m := range serveFlag.FindAllStringSubmatch(string(out), -1) {
		flags[m[1]] = true
	}
	if len(flags) == 0 {
		return nil, fmt.Errorf("%s serve --help lists no flag: %.200s", folio, out)
	}
	return flags, nil
}

// keepFlags drops from args the flags bin lacks (with their value, when
// the next argument is not a flag), so an older release starts on the
// same command line less what it does not know.
func (bin *folioBin) keepFlags(args []string) []string {
	if bin == nil || bin.flags == nil {
		return args
	}
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || bin.flags[name] {
			out = append(out, a)
			continue
		}
		bin.dropped[name] = true
		if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
		}
	}
	return out
}

// sampled is one figure's per-run medians of each binary.
type sampled struct {
	first row // unit, note and target of the figure
	runs  [][]float64
}

// runAgainst runs step once per run with each binary in turn (the order
// rotating from run to run, so that a drift in the machine's load weighs
// on all alike), each time as a run of one, and adds a row per figure
// with the median of this binary's runs and of each other's.
func (b *bench) runAgainst(group string, step func() error, bins []*folioBin) {
	runs, kept := b.runs, b.rows
	defer func() { b.runs = runs; b.use(bins[0]) }()
	var order []string
	figures := map[string]*sampled{}
	for i := range runs {
		for j := range bins {
			k := (i + j) % len(bins)
			b.use(bins[k])
			b.runs, b.rows = 1, nil
			b.logf("%s run %d of %d: %s", group, i+1, runs, bins[k].path)
			err := step()
			b.stopFull()
			if err != nil {
				b.logf("%s failed with %s: %v", group, bins[k].path, err)
				b.notes = append(b.notes, fmt.Sprintf("**%s failed** with %s (run %d): %v", group, bins[k].path, i+1, err))
			}
			for _, r := range b.rows {
				f := figures[r.Figure]
				if f == nil {
					f = &sampled{first: r, runs: make([][]float64, len(bins))}
					figures[r.Figure] = f
					order = append(order, r.Figure)
				}
				f.runs[k] = append(f.runs[k], r.Sum.Median)
			}
		}
	}
	b.rows = kept
	for _, name := range order {
		f := figures[name]
		r := f.first
		r.Sum = summarize(f.runs[0])
		r.Against = nil
		for _, v := range f.runs[1:] {
			r.Against = append(r.Against, summarize(v))
		}
		r.Target, r.OK = "", ""
		b.rows = append(b.rows, r)
		b.logf("  %s: median %s against %s", r.Figure, r.Unit.format(r.Sum.Median), r.againstText())
	}
}

// ratio is this binary's median over the i-th other's; 0 without one.
func (r row) ratio(i int) float64 {
	if i >= len(r.Against) || r.Against[i].Median == 0 {
		return 0
	}
	return r.Sum.Median / r.Against[i].Median
}

func (r row) againstText() string {
	var parts []string
	for i, a := range r.Against {
		parts = append(parts, fmt.Sprintf("%s (%.2f×)", r.Unit.format(a.Median), r.ratio(i)))
	}
	return strings.Join(parts, ", ")
}
