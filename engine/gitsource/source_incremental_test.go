package gitsource

import (
	"fmt"
	"github.com/folio-cms/folio/engine/internal/gittest"
	"slices"
	"testing"
)

// TestSource_IncrementalLoadMatchesCold checks that a Load after each kind
// of push gives exactly the tree a fresh source (empty cache, no earlier
// Load) gives for that commit: paths, order, documents, problems, and
// Updated times.
func TestSource_IncrementalLoadMatchesCold(t *testing.T) {
	r := newSrcBareSite(t)
	initial, steps := gittest.IncrementalSteps()
	day := 0
	r.Commit(srcDay(day), initial)
	r.Push(false)
	src := openSrc(t, r.Site(), t.TempDir(), &srcTestParser{})
	srcLoad(t, src, "main")
	for _, st := range steps {
		st.Apply(t, r, &day)
		got := srcLoad(t, src, "main")
		want := srcLoad(t, openSrc(t, r.Site(), t.TempDir(), &srcTestParser{}), "main")
		if d := srcTreeDiff(got, want); d != "" {
			t.Fatalf("%s: %s", st.Name, d)
		}
		// Tree order is path order: Load needs no sort.
		var files []gitFile
		src.lastRoot.collect(&files)
		if !slices.IsSortedFunc(files, gitFileOrder) || len(files) != src.lastRoot.total {
			t.Fatalf("%s: %d files collected out of path order (total %d)", st.Name, len(files), src.lastRoot.total)
		}
	}
}

// TestSource_IncrementalLoadAlternatingBranches loads a published and a
// draft branch in turn, as a server with a draft branch does: what a Load
// reuses from the last one (the other branch's) must not leak.
func TestSource_IncrementalLoadAlternatingBranches(t *testing.T) {
	r := newSrcBareSite(t)
	initial, _ := gittest.IncrementalSteps()
	r.Commit(srcDay(0), initial)
	r.Push(false)
	srcGit(t, r.Dir, "push", "-q", "origin", "HEAD:refs/heads/draft")
	src := openSrc(t, r.Site(), t.TempDir(), &srcTestParser{})
	for i := 1; i <= 4; i++ {
		branch := "main"
		if i%2 == 0 {
			branch = "draft"
		}
		r.Commit(srcDay(i), map[string]string{
			"content/posts/a.md":                   gittest.Post(fmt.Sprintf("A%d", i)),
			fmt.Sprintf("content/posts/n%d.md", i): gittest.Post("N"),
		})
		srcGit(t, r.Dir, "push", "-q", "origin", "HEAD:refs/heads/"+branch)
		for _, b := range []string{"main", "draft"} {
			got := srcLoad(t, src, b)
			want := srcLoad(t, openSrc(t, r.Site(), t.TempDir(), &srcTestParser{}), b)
			if d := srcTreeDiff(got, want); d != "" {
				t.Fatalf("push %d, branch %s: %s", i, b, d)
			}
		}
	}
}
