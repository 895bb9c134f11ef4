package gitsource

import (
	"fmt"
	"slices"
	"testing"
)

// incrementalStep is one push of the incremental-load tests: commits (each
// a set of writes and removals) made before one push.
type incrementalStep struct {
	name    string
	commits []incrementalCommit
	orphan  bool // the commits start a new, unrelated history (force push)
}

type incrementalCommit struct {
	files map[string]string
	rm    []string
}

func incrPost(title string) string {
	return "---\ntitle: " + title + "\n---\nBody of " + title + "\n"
}

// incrementalSteps cover what a Load reuses from the last one: unchanged
// folders, files with unchanged blobs, the parent's Updated times. Names
// like a.md, a-b.md, a0.md and the folder a/ check that files come out
// in path order (Git orders a folder as if its name ended in "/").
func incrementalSteps() (initial map[string]string, steps []incrementalStep) {
	initial = map[string]string{
		"globals.yaml":                "siteName: A\n",
		"pages/index.md":              "---\ntitle: Index\n---\nWelcome\n",
		"content/posts/a.md":          incrPost("A"),
		"content/posts/a-b.md":        incrPost("AB"),
		"content/posts/a0.md":         incrPost("A0"),
		"content/posts/a/b.md":        incrPost("A slash B"),
		"content/posts/b.md":          incrPost("B"),
		"content/posts/q":             "not content",
		"content/docs/guide/intro.md": incrPost("Intro"),
		"content/docs/guide/more.md":  incrPost("More"),
		"content/docs/top.md":         incrPost("Top"),
		"content/events/e.yaml":       "title: E\n",
		"content/posts/bad.md":        "---\ntitle: [BROKEN\n---\n",
		"content/posts/bad2.md":       "---\ntitle: [BROKEN\n---\n", // the same blob
	}
	steps = []incrementalStep{
		{name: "broken file fixed, another broken", commits: []incrementalCommit{{files: map[string]string{"content/posts/bad.md": incrPost("Fixed"), "content/posts/bad3.md": "BROKEN"}}}},
		{name: "edit", commits: []incrementalCommit{{files: map[string]string{"content/posts/a.md": incrPost("A2")}}}},
		{name: "add", commits: []incrementalCommit{{files: map[string]string{"content/posts/c.md": incrPost("C"), "content/posts/a/c.md": incrPost("AC")}}}},
		{name: "delete", commits: []incrementalCommit{{rm: []string{"content/posts/b.md"}}}},
		{name: "rename", commits: []incrementalCommit{{files: map[string]string{"content/posts/c2.md": incrPost("C")}, rm: []string{"content/posts/c.md"}}}},
		{name: "only the commit time", commits: []incrementalCommit{{files: map[string]string{"README.md": "x"}}}},
		{name: "folder deleted", commits: []incrementalCommit{{rm: []string{"content/docs/guide"}}}},
		{name: "file becomes folder", commits: []incrementalCommit{{rm: []string{"content/posts/q"}}, {files: map[string]string{"content/posts/q/x.md": incrPost("QX")}}}},
		{name: "many commits", commits: []incrementalCommit{
			{files: map[string]string{"content/posts/m1.md": incrPost("M1")}},
			{files: map[string]string{"content/posts/a.md": incrPost("A3"), "content/docs/top.md": incrPost("Top2")}},
			{rm: []string{"content/posts/m1.md"}},
			{files: map[string]string{"content/posts/a.md": incrPost("A"), "content/events/f.yaml": "title: F\n"}}, // an older blob again
		}},
		{name: "force push, unrelated history", orphan: true, commits: []incrementalCommit{
			{files: map[string]string{"globals.yaml": "siteName: New\n", "content/posts/a.md": incrPost("A"), "content/posts/n.md": incrPost("N")}},
			{files: map[string]string{"content/docs/top.md": incrPost("Top")}},
		}},
		{name: "edit after force push", commits: []incrementalCommit{{files: map[string]string{"content/posts/n.md": incrPost("N2")}}}},
	}
	return initial, steps
}

// apply makes the step's commits (day by day from *day) and pushes them.
func (st incrementalStep) apply(t *testing.T, r *srcTestRepo, day *int) {
	t.Helper()
	if st.orphan {
		srcGit(t, r.Dir, "checkout", "-q", "--orphan", fmt.Sprintf("new%d", *day))
		srcGit(t, r.Dir, "rm", "-q", "-r", "-f", ".")
	}
	for _, c := range st.commits {
		*day++
		r.Commit(srcDay(*day), c.files, c.rm...)
	}
	r.Push(st.orphan)
}

// TestSource_IncrementalLoadMatchesCold checks that a Load after each kind
// of push gives exactly the tree a fresh source (empty cache, no earlier
// Load) gives for that commit: paths, order, documents, problems, and
// Updated times.
func TestSource_IncrementalLoadMatchesCold(t *testing.T) {
	r := newSrcBareSite(t)
	initial, steps := incrementalSteps()
	day := 0
	r.Commit(srcDay(day), initial)
	r.Push(false)
	src := openSrc(t, r.Site(), t.TempDir(), &srcTestParser{})
	srcLoad(t, src, "main")
	for _, st := range steps {
		st.apply(t, r, &day)
		got := srcLoad(t, src, "main")
		want := srcLoad(t, openSrc(t, r.Site(), t.TempDir(), &srcTestParser{}), "main")
		if d := srcTreeDiff(got, want); d != "" {
			t.Fatalf("%s: %s", st.name, d)
		}
		// Tree order is path order: Load needs no sort.
		var files []gitFile
		src.lastRoot.collect(&files)
		if !slices.IsSortedFunc(files, gitFileOrder) || len(files) != src.lastRoot.total {
			t.Fatalf("%s: %d files collected out of path order (total %d)", st.name, len(files), src.lastRoot.total)
		}
	}
}

// TestSource_IncrementalLoadAlternatingBranches loads a published and a
// draft branch in turn, as a server with a draft branch does: what a Load
// reuses from the last one (the other branch's) must not leak.
func TestSource_IncrementalLoadAlternatingBranches(t *testing.T) {
	r := newSrcBareSite(t)
	initial, _ := incrementalSteps()
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
			"content/posts/a.md":                   incrPost(fmt.Sprintf("A%d", i)),
			fmt.Sprintf("content/posts/n%d.md", i): incrPost("N"),
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
