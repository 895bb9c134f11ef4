package engine

import (
	"context"
	"os"
	"testing"
)

// BenchmarkEngineRestart is a restart on a warm parse cache of the site
// FOLIO_BENCH_SITE names (a folio-gen bare repository, e.g.
// bench/out/data/site-n100000-s1/site.git): Open up to the published
// view, without search. With -cpuprofile it says where a restart's time
// goes at scale; `make bench-scale` measures it end to end.
func BenchmarkEngineRestart(b *testing.B) {
	if os.Getenv("FOLIO_BENCH_SITE") == "" {
		b.Skip("FOLIO_BENCH_SITE names no site")
	}
	site := benchEngineSite(b)
	cache := b.TempDir()
	ctx := context.Background()
	e, err := Open(ctx, Config{Site: site, CacheDir: cache})
	if err != nil {
		b.Fatal(err)
	}
	e.Close()
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
