package gitsource

import (
	"fmt"
	"slices"
	"testing"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine/internal/gittest"
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
	last := srcLoad(t, src, "main")
	patched := 0
	for _, st := range steps {
		st.Apply(t, r, &day)
		got := srcLoad(t, src, "main")
		want := srcLoad(t, openSrc(t, r.Site(), t.TempDir(), &srcTestParser{}), "main")
		if d := srcTreeDiff(got, want); d != "" {
			t.Fatalf("%s: %s", st.Name, d)
		}
		// A patched Load names what changed since the last one.
		if got.Base != "" {
			patched++
			if got.Base != last.Commit {
				t.Fatalf("%s: Base %s, want the last Load's commit %s", st.Name, got.Base, last.Commit)
			}
			if want := srcChangedPaths(last, got); !slices.Equal(got.Changed, want) {
				t.Fatalf("%s: Changed %q, want %q", st.Name, got.Changed, want)
			}
		}
		last = got
		// Tree order is path order: Load needs no sort.
		var files []gitFile
		src.lastRoot.collect(&files)
		if !slices.IsSortedFunc(files, gitFileOrder) || len(files) != src.lastRoot.total {
			t.Fatalf("%s: %d files collected out of path order (total %d)", st.Name, len(files), src.lastRoot.total)
		}
	}
	if patched < len(steps)/2 {
		t.Fatalf("%d of %d Loads patched the last one's lists", patched, len(steps))
	}
}

// srcChangedPaths are the paths whose file differs between two trees
// (added, deleted, another blob or problem), in path order.
func srcChangedPaths(a, b *Tree) []string {
	at := map[string]content.File{}
	for _, f := range a.Files.All() {
		at[f.Path] = *f
	}
	var out []string
	for _, f := range b.Files.All() {
		old, ok := at[f.Path]
		if !ok || old.Blob != f.Blob || (old.Err == nil) != (f.Err == nil) || !old.Updated.Equal(f.Updated) {
			out = append(out, f.Path)
		}
		delete(at, f.Path)
	}
	for p := range at {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
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

// TestSource_IncrementalLoadSiblingBranches loads branches that are each
// one commit ahead of the served one, in turn, as a server asked for
// them does: each Load patches the last one's lists (a sibling's) and
// must give the times a fresh source gives, also for a file two
// siblings changed alike (the same blob, two times).
func TestSource_IncrementalLoadSiblingBranches(t *testing.T) {
	r := newSrcBareSite(t)
	initial, _ := gittest.IncrementalSteps()
	r.Commit(srcDay(0), initial)
	r.Push(false)
	src := openSrc(t, r.Site(), t.TempDir(), &srcTestParser{})
	last := srcLoad(t, src, "main")
	patched := 0
	for i := 1; i <= 4; i++ {
		files := map[string]string{fmt.Sprintf("content/posts/n%d.md", i): gittest.Post("N")}
		if i >= 2 {
			files["content/posts/same.md"] = gittest.Post("Same, changed alike") // as the sibling before did
		}
		r.Commit(srcDay(i), files)
		branch := fmt.Sprintf("ahead%d", i)
		srcGit(t, r.Dir, "push", "-q", "origin", "HEAD:refs/heads/"+branch)
		srcGit(t, r.Dir, "reset", "-q", "--hard", "HEAD~1")
		got := srcLoad(t, src, branch)
		want := srcLoad(t, openSrc(t, r.Site(), t.TempDir(), &srcTestParser{}), branch)
		if d := srcTreeDiff(got, want); d != "" {
			t.Fatalf("branch %s: %s", branch, d)
		}
		if got.Base != "" {
			patched++
			if want := srcChangedPaths(last, got); !slices.Equal(got.Changed, want) {
				t.Fatalf("branch %s: Changed %q, want %q", branch, got.Changed, want)
			}
		}
		last = got
	}
	if patched < 3 {
		t.Fatalf("%d of 4 sibling Loads patched the last one's lists", patched)
	}
}
