package gitsource

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestSource_PushSharesLists checks that a Load of a one-file push makes
// its lists (the files, their content.Files, their cache entries) from
// the last Load's by sharing every chunk the change does not fall in, and
// allocates in proportion to the change: a copy of the lists was 150
// bytes a file (17 MB of every push's reload at 100k files).
func TestSource_PushSharesLists(t *testing.T) {
	r := newSrcBareSite(t)
	srcGit(t, r.Dir, "config", "gc.auto", "0") // no gc in the background of a commit of 10k files
	files := map[string]string{}
	for d := range 40 {
		for i := range 250 {
			files[fmt.Sprintf("content/posts/d%02d/p%03d.md", d, i)] = fmt.Sprintf("---\ntitle: P%d %d\n---\n", d, i)
		}
	}
	r.Commit(srcDay(0), files)
	r.Push(false)
	parser := &srcTestParser{}
	src := openSrc(t, r.Site(), t.TempDir(), parser)
	first := srcLoad(t, src, "main")
	r.Commit(srcDay(1), map[string]string{"content/posts/d20/p100.md": "---\ntitle: edited\n---\n"})
	r.Push(false)
	lastDocs, lastFiles := src.last.docs, src.last.files
	// what every Load allocates to read the repository's pack index
	// (go-git's), whatever it loads: not this test's
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	st := src.openStorage(cache.NewObjectLRU(loadCacheSize))
	if _, err := object.GetCommit(st, plumbing.NewHash(first.Commit)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	runtime.ReadMemStats(&after)
	index := after.TotalAlloc - before.TotalAlloc
	runtime.GC()
	runtime.ReadMemStats(&before)
	next := srcLoad(t, src, "main")
	runtime.ReadMemStats(&after)
	if next.Files.Len() != 10000 || next.Base != first.Commit || len(next.Changed) != 1 {
		t.Fatalf("%d files, base %s, changed %v", next.Files.Len(), next.Base, next.Changed)
	}
	if f := srcFile(t, next, "content/posts/d20/p100.md"); f.Doc == nil || parser.count(f.Path) != 2 {
		t.Fatalf("the changed file: %+v, parsed %d times", f, parser.count(f.Path))
	}
	for name, shared := range map[string][2]int{
		"Files":   {next.Files.Shared(first.Files), first.Files.Chunks()},
		"entries": {src.last.docs.Shared(lastDocs), lastDocs.Chunks()},
		"files":   {src.last.files.Shared(lastFiles), lastFiles.Chunks()},
	} {
		if shared[0] < shared[1]-2 {
			t.Errorf("%s: %d of %d chunks shared", name, shared[0], shared[1])
		}
	}
	// a copy of the lists would be 1.6 MB
	n := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes allocated by the Load of a one-file push of 10000 files, %d of them the pack index's", n, index)
	if n > index+512<<10 {
		t.Fatalf("%d bytes allocated by the Load of a one-file push of 10000 files beside the pack index's %d", n-index, index)
	}
}
