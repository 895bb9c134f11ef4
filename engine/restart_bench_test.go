package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkEngineRestart is a restart on a warm parse cache of the site
// FOLIO_BENCH_SITE names (a folio-gen bare repository, e.g.
// bench/out/data/site-n100000-s1/site.git): Open up to the published
// view, without search. With -cpuprofile it says where a restart's time
// goes at scale; `make bench-scale` measures it end to end.
// FOLIO_BENCH_KEEP names a folder that keeps the clone and its warm cache
// between runs: a profile then holds restarts only (no cold open, no
// history index built in the background).
func BenchmarkEngineRestart(b *testing.B) {
	if os.Getenv("FOLIO_BENCH_SITE") == "" {
		b.Skip("FOLIO_BENCH_SITE names no site")
	}
	ctx := context.Background()
	site, cache, warm := benchRestartSite(b)
	if !warm {
		e, err := Open(ctx, Config{Site: site, CacheDir: cache})
		if err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
	for b.Loop() {
		e, err := Open(ctx, Config{Site: site, CacheDir: cache})
		if err != nil {
			b.Fatal(err)
		}
		if len(e.View(false).Pages()) == 0 {
			b.Fatal("no pages")
		}
		b.StopTimer()
		e.Close()
		b.StartTimer()
	}
}

// BenchmarkEngineFirstStart is the first start of the site
// FOLIO_BENCH_SITE names: Open on an empty parse cache up to the
// published view, without search (every file parsed). With -cpuprofile
// and -memprofile it says where a first start's time and memory go.
func BenchmarkEngineFirstStart(b *testing.B) {
	if os.Getenv("FOLIO_BENCH_SITE") == "" {
		b.Skip("FOLIO_BENCH_SITE names no site")
	}
	site := benchEngineSite(b)
	ctx := context.Background()
	for b.Loop() {
		e, err := Open(ctx, Config{Site: site, CacheDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		if len(e.View(false).Pages()) == 0 {
			b.Fatal("no pages")
		}
		b.StopTimer()
		e.Close()
		b.StartTimer()
	}
}

// benchRestartSite is the site and cache folder of BenchmarkEngineRestart,
// and whether the cache is warm already (FOLIO_BENCH_KEEP holds them).
func benchRestartSite(b *testing.B) (site, cache string, warm bool) {
	keep := os.Getenv("FOLIO_BENCH_KEEP")
	if keep == "" {
		return benchEngineSite(b), b.TempDir(), false
	}
	site, cache = filepath.Join(keep, "site.git"), filepath.Join(keep, "cache")
	if _, err := os.Stat(filepath.Join(keep, "warm")); err == nil {
		return site, cache, true
	}
	os.RemoveAll(keep)
	if err := os.MkdirAll(cache, 0o755); err != nil {
		b.Fatal(err)
	}
	srcGit(b, keep, "clone", "-q", "--bare", os.Getenv("FOLIO_BENCH_SITE"), site)
	e, err := Open(context.Background(), Config{Site: site, CacheDir: cache})
	if err != nil {
		b.Fatal(err)
	}
	e.Close()
	if err := os.WriteFile(filepath.Join(keep, "warm"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return site, cache, true
}
