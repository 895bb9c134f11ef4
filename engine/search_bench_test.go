package engine

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/search"
)

// BenchmarkContentSearch searches a generated site (FOLIO_BENCH_SITE, a
// repository written by cmd/folio-gen, e.g. bench/out/data/site-n10000-s1/site;
// skipped without it). It reports the time the first build of the index
// took (wall and CPU time) and the heap it holds, then times searches of
// words of every selectivity, highlighted snippets included.
func BenchmarkContentSearch(b *testing.B) {
	site := os.Getenv("FOLIO_BENCH_SITE")
	if site == "" {
		b.Skip("FOLIO_BENCH_SITE is not set")
	}
	cache := os.Getenv("FOLIO_BENCH_CACHE") // parsed documents kept across runs
	if cache == "" {
		cache = b.TempDir()
	}
	ctx := context.Background()
	e, err := Open(ctx, Config{Site: site, CacheDir: cache})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	runtime.GC()
	var noIndex runtime.MemStats
	runtime.ReadMemStats(&noIndex)
	// FOLIO_BENCH_BUILD_PROFILE: a CPU profile of the build alone (the
	// -cpuprofile of the test binary holds the site's parse too).
	if p := os.Getenv("FOLIO_BENCH_BUILD_PROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
	}
	hwmBefore := peakRSS()
	cpuBefore := cpuTime()
	start := time.Now()
	e.search = &contentSearch{pub: search.NewContentIndex(e.cfg.Logger, e.cfg.Now, "", nil)}
	e.search.pub.Follow(e.published.Load().forSearch)
	for {
		_, err := e.Search(ctx, search.SearchQuery{Text: "trail", Limit: 1})
		if err == nil {
			break
		}
		if err != search.ErrSearchBusy {
			b.Fatal(err)
		}
	}
	built := time.Since(start)
	builtCPU := cpuTime() - cpuBefore
	if os.Getenv("FOLIO_BENCH_BUILD_PROFILE") != "" {
		pprof.StopCPUProfile()
	}
	hwmAfter := peakRSS()
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	words := []string{"glacier", "canyon", "summit tent", "paddle", "warranty shipping", "ultralight quilt"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Search(ctx, search.SearchQuery{Text: words[i%len(words)], Limit: 20}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(built.Milliseconds()), "build-ms")
	b.ReportMetric(float64(builtCPU.Milliseconds()), "build-cpu-ms")
	b.ReportMetric(float64(after.HeapInuse-noIndex.HeapInuse)/(1<<20), "index-MB")
	b.ReportMetric(hwmAfter-hwmBefore, "peakRSS-growth-MB")
}

// cpuTime is the CPU time (user and system) the process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is the process's VmHWM in MB; 0 where /proc does not tell.
func peakRSS() float64 {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(v), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkContentSearchPrefix measures what matching the last word as a
// prefix costs, on one index (FOLIO_BENCH_SITE, as BenchmarkContentSearch):
// "words" ends each query with a space (no prefix: the query as before),
// "typed" does not (the last word also matches as a prefix), "short"
// types 3 letters of the last word (the widest prefixes allowed).
func BenchmarkContentSearchPrefix(b *testing.B) {
	site := os.Getenv("FOLIO_BENCH_SITE")
	if site == "" {
		b.Skip("FOLIO_BENCH_SITE is not set")
	}
	ctx := context.Background()
	e, err := Open(ctx, Config{Site: site, CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	e.search = &contentSearch{pub: search.NewContentIndex(e.cfg.Logger, e.cfg.Now, "", nil)}
	e.search.pub.Follow(e.published.Load().forSearch)
	for {
		_, err := e.Search(ctx, search.SearchQuery{Text: "trail", Limit: 1})
		if err == nil {
			break
		}
		if err != search.ErrSearchBusy {
			b.Fatal(err)
		}
	}
	words := []string{"glacier", "canyon", "summit tent", "paddle", "warranty shipping", "ultralight quilt"}
	run := func(b *testing.B, qs []string) {
		for i := 0; b.Loop(); i++ {
			if _, err := e.Search(ctx, search.SearchQuery{Text: qs[i%len(qs)], Limit: 20}); err != nil {
				b.Fatal(err)
			}
		}
	}
	spaced := make([]string, len(words))
	short := make([]string, len(words))
	for i, w := range words {
		spaced[i] = w + " "
		cut := strings.LastIndexByte(w, ' ') + 1
		short[i] = w[:cut+3]
	}
	b.Run("words", func(b *testing.B) { run(b, spaced) })
	b.Run("typed", func(b *testing.B) { run(b, words) })
	b.Run("short", func(b *testing.B) { run(b, short) })
}
