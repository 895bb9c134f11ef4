package gittest

import (
	"fmt"
	"testing"
)

// IncrementalStep is one push of the incremental-load tests: commits (each
// a set of writes and removals) made before one push.
type IncrementalStep struct {
	Name    string
	Commits []IncrementalCommit
	Orphan  bool // the commits start a new, unrelated history (force push)
}

// IncrementalCommit is one commit of a step: files written, paths removed.
type IncrementalCommit struct {
	Files map[string]string
	Rm    []string
}

// Post is a document titled title, with a body.
func Post(title string) string {
	return "---\ntitle: " + title + "\n---\nBody of " + title + "\n"
}

// IncrementalSteps cover what a Load reuses from the last one: unchanged
// folders, files with unchanged blobs, the parent's Updated times. Names
// like a.md, a-b.md, a0.md and the folder a/ check that files come out
// in path order (Git orders a folder as if its name ended in "/").
func IncrementalSteps() (initial map[string]string, steps []IncrementalStep) {
	initial = map[string]string{
		"globals.yaml":                "siteName: A\n",
		"pages/index.md":              "---\ntitle: Index\n---\nWelcome\n",
		"content/posts/a.md":          Post("A"),
		"content/posts/a-b.md":        Post("AB"),
		"content/posts/a0.md":         Post("A0"),
		"content/posts/a/b.md":        Post("A slash B"),
		"content/posts/b.md":          Post("B"),
		"content/posts/q":             "not content",
		"content/docs/guide/intro.md": Post("Intro"),
		"content/docs/guide/more.md":  Post("More"),
		"content/docs/top.md":         Post("Top"),
		"content/events/e.yaml":       "title: E\n",
		"content/posts/bad.md":        "---\ntitle: [BROKEN\n---\n",
		"content/posts/bad2.md":       "---\ntitle: [BROKEN\n---\n", // the same blob
	}
	steps = []IncrementalStep{
		{Name: "broken file fixed, another broken", Commits: []IncrementalCommit{{Files: map[string]string{"content/posts/bad.md": Post("Fixed"), "content/posts/bad3.md": "BROKEN"}}}},
		{Name: "edit", Commits: []IncrementalCommit{{Files: map[string]string{"content/posts/a.md": Post("A2")}}}},
		{Name: "add", Commits: []IncrementalCommit{{Files: map[string]string{"content/posts/c.md": Post("C"), "content/posts/a/c.md": Post("AC")}}}},
		{Name: "delete", Commits: []IncrementalCommit{{Rm: []string{"content/posts/b.md"}}}},
		{Name: "rename", Commits: []IncrementalCommit{{Files: map[string]string{"content/posts/c2.md": Post("C")}, Rm: []string{"content/posts/c.md"}}}},
		{Name: "only the commit time", Commits: []IncrementalCommit{{Files: map[string]string{"README.md": "x"}}}},
		{Name: "folder deleted", Commits: []IncrementalCommit{{Rm: []string{"content/docs/guide"}}}},
		{Name: "file becomes folder", Commits: []IncrementalCommit{{Rm: []string{"content/posts/q"}}, {Files: map[string]string{"content/posts/q/x.md": Post("QX")}}}},
		{Name: "many commits", Commits: []IncrementalCommit{
			{Files: map[string]string{"content/posts/m1.md": Post("M1")}},
			{Files: map[string]string{"content/posts/a.md": Post("A3"), "content/docs/top.md": Post("Top2")}},
			{Rm: []string{"content/posts/m1.md"}},
			{Files: map[string]string{"content/posts/a.md": Post("A"), "content/events/f.yaml": "title: F\n"}}, // an older blob again
		}},
		{Name: "force push, unrelated history", Orphan: true, Commits: []IncrementalCommit{
			{Files: map[string]string{"globals.yaml": "siteName: New\n", "content/posts/a.md": Post("A"), "content/posts/n.md": Post("N")}},
			{Files: map[string]string{"content/docs/top.md": Post("Top")}},
		}},
		{Name: "edit after force push", Commits: []IncrementalCommit{{Files: map[string]string{"content/posts/n.md": Post("N2")}}}},
	}
	return initial, steps
}

// Apply makes the step's commits (day by day from *day) and pushes them.
func (st IncrementalStep) Apply(t testing.TB, r *Repo, day *int) {
	t.Helper()
	if st.Orphan {
		Git(t, r.Dir, "checkout", "-q", "--orphan", fmt.Sprintf("new%d", *day))
		Git(t, r.Dir, "rm", "-q", "-r", "-f", ".")
	}
	for _, c := range st.Commits {
		*day++
		r.Commit(Day(*day), c.Files, c.Rm...)
	}
	r.Push(st.Orphan)
}
