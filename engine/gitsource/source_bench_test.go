package gitsource

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/folio-cms/folio/content"
)

// benchEngineSite is the 10k-file site of the engine benchmarks: the
// folio-gen site named by FOLIO_BENCH_SITE (a bare repository, e.g.
// bench/out/data/site-n10000-s1/site.git, cloned so pushes never change
// it), else benchSite's generated one.
func benchEngineSite(b *testing.B) string {
	if dir := os.Getenv("FOLIO_BENCH_SITE"); dir != "" {
		bare := filepath.Join(b.TempDir(), "site.git")
		srcGit(b, filepath.Dir(bare), "clone", "-q", "--bare", dir, bare)
		return bare
	}
	return benchSite(b, 10000, 50)
}

// benchParser is content.Parse when it works, else (or with
// FOLIO_BENCH_STANDIN=1, to measure the source alone) the test stand-in.
func benchParser(b *testing.B) (func(string, []byte) (*content.Doc, error), func(string) bool) {
	if os.Getenv("FOLIO_BENCH_STANDIN") != "" {
		return (&srcTestParser{}).parse, srcRelevant
	}
	if _, err := content.Parse("x.md", []byte("---\ntitle: T\n---\nbody\n")); err == nil && content.Relevant("content/posts/x.md") {
		return content.Parse, content.Relevant
	}
	b.Log("content.Parse not usable yet: measuring with the stand-in parser")
	return (&srcTestParser{}).parse, srcRelevant
}

// BenchmarkSource measures a 10k-file site: a cold start with nothing
// cached, with one worker, a restart with the persisted cache, and a reload
// after a one-file push.
func BenchmarkSource(b *testing.B) {
	if testing.Short() {
		b.Skip("generates a 78 MB repository")
	}
	const files = 10000
	site := benchSite(b, files, 50)
	parse, relevant := benchParser(b)
	ctx := context.Background()
	open := func(b *testing.B, cacheDir string, workers int) *Source {
		src, err := OpenSource(ctx, SourceConfig{Site: site, CacheDir: cacheDir, Parse: parse, Relevant: relevant, Workers: workers, CacheKey: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		return src
	}
	load := func(b *testing.B, src *Source) *Tree {
		commit, err := src.Resolve("main")
		if err != nil {
			b.Fatal(err)
		}
		tree, err := src.Load(ctx, commit)
		if err != nil {
			b.Fatal(err)
		}
		if tree.Files.Len() != files {
			b.Fatalf("%d files, want %d", tree.Files.Len(), files)
		}
		return tree
	}

	for _, workers := range []int{1, 0} {
		b.Run(fmt.Sprintf("Cold/workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				load(b, open(b, "", workers))
			}
		})
	}

	cacheDir := b.TempDir()
	warm := open(b, cacheDir, 0)
	load(b, warm)
	if err := warm.Close(); err != nil {
		b.Fatal(err)
	}
	b.Run("Restart", func(b *testing.B) {
		for b.Loop() {
			src := open(b, cacheDir, 0)
			load(b, src)
			if st := src.Stats(); st.Parsed != 0 {
				b.Fatalf("restart parsed %d files", st.Parsed)
			}
		}
	})

	b.Run("SaveCache", func(b *testing.B) {
		src := open(b, b.TempDir(), 0)
		load(b, src)
		for b.Loop() {
			src.docs.mu.Lock()
			src.docs.dirty, src.docs.onDisk = true, false
			src.docs.mu.Unlock()
			if err := src.SaveCache(); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("ReloadOneFile", func(b *testing.B) {
		src := open(b, "", 0)
		load(b, src)
		work := filepath.Join(b.TempDir(), "work")
		srcGit(b, filepath.Dir(work), "clone", "-q", site, work)
		r := &srcTestRepo{TB: b, Dir: work, Bare: site}
		n := 0
		for b.Loop() {
			b.StopTimer()
			n++
			r.Commit(srcT0.AddDate(1, 0, n), map[string]string{"content/posts/post-05000.md": fmt.Sprintf("---\ntitle: edit %d\n---\nbody\n", n)})
			r.Push(false)
			b.StartTimer()
			load(b, src)
			if st := src.Stats(); st.LastParsed != 1 {
				b.Fatalf("reload parsed %d files, want 1", st.LastParsed)
			}
		}
	})
}

// BenchmarkRestartSite measures a restart (a Load with the persisted
// parse cache warm) of the folio-gen site FOLIO_BENCH_SITE (e.g. the
// 100k one; a clone: nothing is written to it, but a run may be long),
// with, when FOLIO_BENCH_PROFILE names a file prefix, a CPU profile of
// the restarts alone (<prefix>cpu.pb.gz) and the allocations before
// and after them (<prefix>mem0.pb.gz, <prefix>mem1.pb.gz: compare with
// pprof -diff_base):
//
//	FOLIO_BENCH_SITE=/tmp/site.git FOLIO_BENCH_PROFILE=/tmp/restart- go test -run '^$' \
//	  -bench BenchmarkRestartSite -benchtime 5x ./engine/gitsource/
func BenchmarkRestartSite(b *testing.B) {
	site := os.Getenv("FOLIO_BENCH_SITE")
	if site == "" {
		b.Skip("FOLIO_BENCH_SITE names no site")
	}
	ctx := context.Background()
	cacheDir := b.TempDir()
	open := func() *Source {
		src, err := OpenSource(ctx, SourceConfig{Site: site, CacheDir: cacheDir, Parse: content.Parse, Relevant: content.Relevant, CacheKey: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		return src
	}
	load := func(src *Source) {
		commit, err := src.Resolve("main")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := src.Load(ctx, commit); err != nil {
			b.Fatal(err)
		}
	}
	warm := open()
	load(warm)
	if err := warm.Close(); err != nil {
		b.Fatal(err)
	}
	prof := os.Getenv("FOLIO_BENCH_PROFILE")
	if prof != "" {
		runtime.GC()
		writeHeapProfile(b, prof+"mem0.pb.gz")
		f, err := os.Create(prof + "cpu.pb.gz")
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
			runtime.GC()
			writeHeapProfile(b, prof+"mem1.pb.gz")
		}()
	}
	b.ReportAllocs()
	for b.Loop() {
		src := open()
		load(src)
		if st := src.Stats(); st.Parsed != 0 {
			b.Fatalf("restart parsed %d files", st.Parsed)
		}
		src.Close()
	}
}

func writeHeapProfile(b *testing.B, name string) {
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}
