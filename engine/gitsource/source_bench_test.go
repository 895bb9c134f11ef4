package gitsource

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/content"
)

// benchSite generates a 10k-file site (about 78 MB, like the measurements in
// docs/performance.md) with git fast-import: one commit adding everything, then
// `edits` commits changing one file each. It returns the bare repository.
func benchSite(b testing.TB, files, edits int) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "site.git")
	srcGit(b, filepath.Dir(dir), "init", "-q", "--bare", dir)

	var in bytes.Buffer
	para := strings.Repeat("Lorem ipsum dolor sit amet, *consectetur* adipiscing elit, sed do eiusmod [tempor](/x) incididunt. ", 8)
	fileBody := func(i, rev int) string {
		var s strings.Builder
		fmt.Fprintf(&s, "---\ntitle: Post %d rev %d\ndate: 2024-01-%02dT10:00:00Z\ntags: [go, cms, t%d]\ndraft: false\nweight: %d\n---\n", i, rev, 1+i%28, i%50, i)
		for s.Len() < 7600 {
			fmt.Fprintf(&s, "\n## Section %d\n\n%s\n\n- item one\n- item two\n", s.Len(), para)
		}
		return s.String()
	}
	path := func(i int) string {
		switch {
		case i == 0:
			return "globals.yaml"
		case i < 1000:
			return fmt.Sprintf("pages/page-%04d.md", i)
		case i < 4000:
			return fmt.Sprintf("content/docs/section-%02d/doc-%05d.md", i%30, i)
		default:
			return fmt.Sprintf("content/posts/post-%05d.md", i)
		}
	}
	commit := func(n int, when time.Time, changes map[string]string) {
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter Bench <b@folio.invalid> %d +0000\ndata 7\ncommit%d\n", when.Unix(), n%10)
		for p, body := range changes {
			fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(body), body)
		}
		in.WriteString("\n")
	}
	all := map[string]string{}
	for i := range files {
		if i == 0 {
			all[path(i)] = "siteName: Bench\n"
			continue
		}
		all[path(i)] = fileBody(i, 0)
	}
	all["README.md"] = "# not content\n"
	commit(0, srcT0, all)
	for e := 1; e <= edits; e++ {
		i := 1 + (e*7919)%(files-1)
		commit(e, srcT0.Add(time.Duration(e)*time.Hour), map[string]string{path(i): fileBody(i, e)})
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Env = srcGitEnv(time.Time{})
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v\n%s", err, out)
	}
	// One pack with deltas, as a real repository after gc.
	srcGit(b, dir, "repack", "-a", "-d", "-q")
	return dir
}

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
		if len(tree.Files) != files {
			b.Fatalf("%d files, want %d", len(tree.Files), files)
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
		r := &srcTestRepo{tb: b, dir: work, bare: site}
		n := 0
		for b.Loop() {
			b.StopTimer()
			n++
			r.commit(srcT0.AddDate(1, 0, n), map[string]string{"content/posts/post-05000.md": fmt.Sprintf("---\ntitle: edit %d\n---\nbody\n", n)})
			r.push(false)
			b.StartTimer()
			load(b, src)
			if st := src.Stats(); st.LastParsed != 1 {
				b.Fatalf("reload parsed %d files, want 1", st.LastParsed)
			}
		}
	})
}
