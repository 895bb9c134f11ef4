package engine

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// The pushes of package gitsource's incremental-load tests
// (source_incremental_test.go there), served by an engine.

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

// TestEngine_IncrementalReloadMatchesCold is gitsource's
// TestSource_IncrementalLoadMatchesCold with real content:
// every resource the reloaded engine serves is byte for byte what an
// engine opened cold on that commit serves.
func TestEngine_IncrementalReloadMatchesCold(t *testing.T) {
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	cfg := func() Config {
		return Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now }}
	}
	initial, steps := incrementalSteps()
	day := 0
	r.Commit(srcDay(day), initial)
	r.Push(false)
	e, err := Open(context.Background(), cfg())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, st := range steps {
		st.apply(t, r, &day)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		cold, err := Open(context.Background(), cfg())
		if err != nil {
			t.Fatal(err)
		}
		if e.Published().Commit != cold.Published().Commit {
			t.Fatalf("%s: reloaded to %s, cold engine at %s", st.name, e.Published().Commit, cold.Published().Commit)
		}
		for _, draft := range []bool{false, true} {
			if got, want := viewDump(t, e, draft), viewDump(t, cold, draft); got != want {
				t.Fatalf("%s draft=%v: reloaded engine serves\n%s\ncold engine serves\n%s", st.name, draft, got, want)
			}
		}
		cold.Close()
	}
}
