package gitsource

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/content"
)

// A loaded document keeps its Markdown body in the repository, not in
// memory, and reads it from there however the objects are stored: loose
// after a push, packed (with deltas) after a repack that deleted the
// files the first reads came from.
func TestSource_BodiesReadFromRepository(t *testing.T) {
	r := newSrcBareSite(t)
	long := strings.Repeat("Words of a post that repeat, so a repack stores deltas. ", 200)
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c"} {
		files["content/posts/"+n+".md"] = "---\ntitle: " + n + "\n---\n# " + n + "\n\n" + long
	}
	r.Commit(srcDay(0), files)
	r.Push(false)
	src, err := OpenSource(t.Context(), SourceConfig{Site: r.Site(), CacheKey: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	check := func(tree *Tree, files map[string]string) {
		t.Helper()
		for _, f := range tree.Files.All() {
			if f.Doc == nil {
				t.Fatalf("%s: %v", f.Path, f.Err)
			}
			if !f.Doc.Body.Lazy() {
				t.Fatalf("%s: body held in memory", f.Path)
			}
			want := strings.SplitN(files[f.Path], "---\n", 3)[2]
			if got := f.Doc.Body.Source(); got != want {
				t.Fatalf("%s: body %.40q…, want %.40q…", f.Path, got, want)
			}
			if !strings.Contains(f.Doc.Body.HTML(), "<h1 ") {
				t.Fatalf("%s: HTML %.60q", f.Path, f.Doc.Body.HTML())
			}
		}
	}
	tree := srcLoad(t, src, "main")
	check(tree, files)

	// New versions, pushed (loose objects), then everything repacked
	// into one pack with deltas and the loose objects and old pack
	// deleted: the bodies already served read from the new pack.
	files2 := map[string]string{}
	for p, body := range files {
		files2[p] = body + "\n\nOne more line.\n"
	}
	r.Commit(srcDay(1), files2)
	r.Push(false)
	tree2 := srcLoad(t, src, "main")
	check(tree2, files2)
	srcGit(t, r.Site(), "repack", "-a", "-d", "-f", "-q", "--depth=10")
	srcGit(t, r.Site(), "prune-packed")
	srcGit(t, r.Site(), "prune", "--expire=now")
	check(srcLoad(t, src, "main"), files2)
	check(tree, files) // older blobs, still in the repository, repacked
}

// A body whose blob left the repository (a force push and a gc that
// pruned it while it was served) is an error the document reports, not
// a crash and not an empty body served as if it were the content.
func TestSource_BodyBlobGone(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{"content/posts/a.md": "---\ntitle: A\n---\nfirst body\n"})
	r.Push(false)
	src, err := OpenSource(t.Context(), SourceConfig{Site: r.Site(), CacheKey: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	doc := srcFile(t, srcLoad(t, src, "main"), "content/posts/a.md").Doc

	// Rewrite history without the blob and prune it.
	srcGit(t, r.Dir, "checkout", "-q", "--orphan", "other")
	r.Commit(srcDay(1), map[string]string{"content/posts/a.md": "---\ntitle: A\n---\nanother body\n"})
	srcGit(t, r.Dir, "push", "-q", "--force", "origin", "HEAD:refs/heads/main")
	srcGit(t, r.Site(), "reflog", "expire", "--expire=now", "--all")
	srcGit(t, r.Site(), "gc", "-q", "--prune=now")

	if s, err := doc.Body.SourceErr(); err == nil || s != "" {
		t.Fatalf("SourceErr = %q, %v; want an error", s, err)
	}
	if _, err := doc.Body.MarshalJSON(); err == nil {
		t.Fatal("an unreadable body encoded")
	}
}

// A parse cache cut short (a write killed before its end, or a file
// whose tail was lost) is ignored as a whole: the next start parses as a
// cold one would, and serves the same. The temporary file a killed write
// leaves is removed once it is old enough not to be another writer's.
func TestSource_PartialCache(t *testing.T) {
	r := newSrcBareSite(t)
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files["content/posts/"+n+".md"] = "---\ntitle: " + n + "\n---\npost " + n + "\n"
	}
	r.Commit(srcDay(0), files)
	r.Push(false)
	cacheDir := t.TempDir()
	first := openSrc(t, r.Site(), cacheDir, &srcTestParser{})
	want := srcLoad(t, first, "main")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(first.cache)
	if err != nil {
		t.Fatal(err)
	}

	// Every length of the file, and a stale and a fresh temporary file.
	stale := first.cache + ".tmp123"
	fresh := first.cache + ".tmp456"
	for _, n := range []int{0, 1, len(cacheMagic), len(full) / 3, len(full) / 2, len(full) - 5, len(full) - 1} {
		if err := os.WriteFile(first.cache, full[:n], 0o600); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{stale, fresh} {
			if err := os.WriteFile(p, full[:len(full)/2], 0o600); err != nil {
				t.Fatal(err)
			}
		}
		old := time.Now().Add(-2 * staleTempAge)
		if err := os.Chtimes(stale, old, old); err != nil {
			t.Fatal(err)
		}
		p := &srcTestParser{}
		src := openSrc(t, r.Site(), cacheDir, p)
		if st := src.Stats(); st.LoadedFromDisk != 0 {
			t.Fatalf("%d of %d bytes: %d documents taken from a partial cache", n, len(full), st.LoadedFromDisk)
		}
		got := srcLoad(t, src, "main")
		if d := srcTreeDiff(got, want); d != "" {
			t.Fatalf("%d of %d bytes: %s", n, len(full), d)
		}
		if st := src.Stats(); st.Parsed != len(files) {
			t.Fatalf("%d of %d bytes: parsed %d, want %d", n, len(full), st.Parsed, len(files))
		}
		if _, err := os.Stat(stale); !os.IsNotExist(err) {
			t.Fatalf("stale temporary file left: %v", err)
		}
		if _, err := os.Stat(fresh); err != nil {
			t.Fatalf("a fresh temporary file (maybe another writer's) was removed: %v", err)
		}
		// Closing writes a whole cache again, which the next start uses.
		if err := src.Close(); err != nil {
			t.Fatal(err)
		}
		again := openSrc(t, r.Site(), cacheDir, &srcTestParser{})
		if st := again.Stats(); st.LoadedFromDisk != len(files) {
			t.Fatalf("after a partial cache: the rewritten cache had %d documents, want %d", st.LoadedFromDisk, len(files))
		}
		again.Close()
	}
	// A cache of the previous version (which held every body) is not
	// read, however large.
	if err := os.WriteFile(first.cache, append([]byte("folio-parsed-docs/2\n"), full[len(cacheMagic):]...), 0o600); err != nil {
		t.Fatal(err)
	}
	if st := openSrc(t, r.Site(), cacheDir, &srcTestParser{}).Stats(); st.LoadedFromDisk != 0 {
		t.Fatalf("%d documents taken from a version 2 cache", st.LoadedFromDisk)
	}
	if tmps, _ := filepath.Glob(first.cache + ".tmp*"); len(tmps) != 1 || tmps[0] != fresh {
		t.Fatalf("temporary files left: %v", tmps)
	}
}

// BenchmarkBodyRead is what reading a body back from the repository
// costs (a first render, a search snippet, the search index build): one
// document's Markdown source per op, round robin over the 10k-file site
// (FOLIO_BENCH_SITE names a folio-gen bare repository).
func BenchmarkBodyRead(b *testing.B) {
	if testing.Short() {
		b.Skip("generates a large repository")
	}
	site := benchEngineSite(b)
	src, err := OpenSource(b.Context(), SourceConfig{Site: site, CacheKey: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	tree := srcLoad(b, src, "main")
	var docs []*content.Doc
	for _, f := range tree.Files.All() {
		if f.Doc != nil && f.Doc.Body.Lazy() {
			docs = append(docs, f.Doc)
		}
	}
	if len(docs) == 0 {
		b.Fatal("no document with a body")
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; b.Loop(); i++ {
		n += len(docs[i%len(docs)].Body.Source())
	}
	b.ReportMetric(float64(n)/float64(b.N), "bytes/op")
}
