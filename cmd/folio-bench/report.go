package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// report renders the results as Markdown: the machine, the command, the
// table and the notes that say what each figure includes.
func (b *bench) report(args []string, started time.Time, loadBefore string, bins []*folioBin) string {
	var s strings.Builder
	fmt.Fprintf(&s, "# folio benchmarks\n\n")
	fmt.Fprintf(&s, "- date: %s (took %s)\n", started.UTC().Format(time.RFC3339), time.Since(started).Round(time.Second))
	fmt.Fprintf(&s, "- machine: %s, %d cores, %s RAM, %s\n", cpuModel(), runtime.NumCPU(), memTotal(), osRelease())
	fmt.Fprintf(&s, "- load average before / after: %s / %s (other work on the machine skews every figure)\n", loadBefore, loadAvg())
	fmt.Fprintf(&s, "- folio: %s; %s\n", strings.ReplaceAll(folioVersion(b.folio), "\n", "; "), runtime.Version())
	for i, bin := range bins[1:] {
		fmt.Fprintf(&s, "- against %d: %s (%s)\n", i+1, bin.path, strings.ReplaceAll(folioVersion(bin.path), "\n", "; "))
	}
	if len(bins) > 1 {
		fmt.Fprintf(&s, "- each group run %d times with each binary in turn, the order rotating; medians of the runs' medians, min–max of this binary's\n", b.runs)
	}
	fmt.Fprintf(&s, "- command: `folio-bench %s` (runs %d, load %s at %d connections)\n\n", strings.Join(args, " "), b.runs, b.dur, b.conns)
	if len(bins) > 1 {
		fmt.Fprintf(&s, "| figure | median | min–max |")
		for i := range bins[1:] {
			fmt.Fprintf(&s, " against %d | ratio |", i+1)
		}
		fmt.Fprintf(&s, "\n|---|---:|---:|%s\n", strings.Repeat("---:|---:|", len(bins)-1))
		for _, r := range b.rows {
			fmt.Fprintf(&s, "| %s | %s | %s–%s |", r.Figure, r.Unit.format(r.Sum.Median), r.Unit.format(r.Sum.Min), r.Unit.format(r.Sum.Max))
			for i := range bins[1:] {
				if i < len(r.Against) {
					fmt.Fprintf(&s, " %s | %.2f× |", r.Unit.format(r.Against[i].Median), r.ratio(i))
				} else {
					fmt.Fprintf(&s, " | |")
				}
			}
			fmt.Fprintf(&s, "\n")
		}
	} else {
		fmt.Fprintf(&s, "| figure | median | min | max | target | ok? |\n|---|---:|---:|---:|---|---|\n")
		for _, r := range b.rows {
			fmt.Fprintf(&s, "| %s | %s | %s | %s | %s | %s |\n", r.Figure,
				r.Unit.format(r.Sum.Median), r.Unit.format(r.Sum.Min), r.Unit.format(r.Sum.Max), r.Target, r.OK)
		}
	}
	var notes []string
	for _, r := range b.rows {
		if r.Note != "" {
			notes = append(notes, "- "+r.Figure+": "+r.Note)
		}
	}
	for _, n := range b.notes {
		notes = append(notes, "- "+n)
	}
	if len(notes) > 0 {
		fmt.Fprintf(&s, "\nNotes:\n\n%s\n", strings.Join(notes, "\n"))
	}
	return s.String()
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func memTotal() string {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return "?"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && k == "MemTotal" {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(v), "%f", &kb)
			return fmt.Sprintf("%.0f GB", kb/1024/1024)
		}
	}
	return "?"
}

func osRelease() string {
	data, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return runtime.GOOS
	}
	return "Linux " + strings.TrimSpace(string(data))
}

func folioVersion(bin string) string {
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}
