package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/search"
)

// storeQueries are searches whose answers a kept index must give exactly
// as a build does: published, draft, public, by type, scheduled.
var storeQueries = []search.SearchQuery{
	{Text: "lake"}, {Text: "lake", Draft: true}, {Text: "lake", PublicOnly: true},
	{Text: "lake", Type: "posts"}, {Text: "kayak"}, {Text: "running"}, {Text: "future", Draft: true},
}

func storeAnswers(t *testing.T, e *Engine) [][]string {
	t.Helper()
	var out [][]string
	for _, q := range storeQueries {
		out = append(out, searchIDs(t, e, q))
	}
	return out
}

// storedDirs are the index directories in the store of e's site.
func storedDirs(t *testing.T, cache string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(cache, "search-*", "idx-*"))
	return m
}

// TestEngine_SearchIndexKept: Close keeps the published branch's index in
// the cache directory; a start on the same commit opens it (no build) and
// answers exactly as a build does; a push after that updates it and the
// next Close keeps the new one; a start on another commit, or with a
// damaged copy, builds afresh.
func TestEngine_SearchIndexKept(t *testing.T) {
	ctx := context.Background()
	r := newSrcBareSite(t)
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r.Commit(day, map[string]string{
		"folio.yaml":              "language: en\ntypes:\n  posts: {public: true}\n",
		"content/posts/hello.md":  "---\ntitle: Hello world\ndate: 2026-01-01\n---\nWe went running by the lake.\n",
		"content/posts/secret.md": "---\ntitle: Secret lake plans\ndraft: true\ndate: 2026-01-01\n---\nThe lake party.\n",
		"content/posts/later.md":  "---\ntitle: Later\ndate: 2030-01-01\n---\nA lake in the future.\n",
		"content/notes/trip.md":   "---\ntitle: Trip notes\ndate: 2026-01-02\n---\nA boat on the lake.\n",
		"pages/about.md":          "---\ntitle: About the lake\n---\nWho we are.\n",
	})
	r.Push(false)
	cache := t.TempDir()
	open := func() *Engine { return openSearchEngine(t, r, cache, day) }
	e := open()
	built := storeAnswers(t, e)
	if restoredAfterClose(e) {
		t.Fatal("the first start claims a kept index")
	}
	if d := storedDirs(t, cache); len(d) != 1 {
		t.Fatalf("kept copies after the first Close: %v", d)
	}

	// Same commit: the copy is opened, the answers are the same.
	e = open()
	if got := storeAnswers(t, e); !slices.EqualFunc(got, built, slices.Equal) {
		t.Errorf("kept index answers %v, a build %v", got, built)
	}
	if !restoredAfterClose(e) {
		t.Fatal("a restart on the same commit built the index again")
	}
	if d := storedDirs(t, cache); len(d) != 1 {
		t.Errorf("an unchanged kept index was copied again: %v", d)
	}

	// A push while the kept index is open: it follows, and the next
	// start opens the copy of the new commit.
	e = open()
	r.Commit(day, map[string]string{
		"content/posts/new.md":   "---\ntitle: Fresh\ndate: 2026-02-01\n---\nA kayak on the lake.\n",
		"content/posts/hello.md": "---\ntitle: Hello world\ndate: 2026-01-01\n---\nWe went cycling.\n",
	}, "pages/about.md")
	r.Push(false)
	if err := e.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	pushed := storeAnswers(t, e)
	if slices.EqualFunc(pushed, built, slices.Equal) || !slices.Contains(pushed[4], "item:posts/new") {
		t.Fatalf("after the push: %v", pushed)
	}
	e.Close()
	if cur := storedCommit(t, filepath.Dir(storedDirs(t, cache)[0])); cur != e.Published().Commit {
		t.Fatalf("current copy of commit %q, want %s", cur, e.Published().Commit)
	}
	e = open()
	if got := storeAnswers(t, e); !slices.EqualFunc(got, pushed, slices.Equal) {
		t.Errorf("kept index after a push answers %v, want %v", got, pushed)
	}
	if !restoredAfterClose(e) {
		t.Error("the copy of the pushed commit was not used")
	}
	if d := storedDirs(t, cache); len(d) != 1 {
		t.Errorf("old copies left: %v", d)
	}

	// Another commit pushed while no box ran: built afresh, right.
	r.Commit(day, map[string]string{"content/posts/new.md": "---\ntitle: Fresh\ndate: 2026-02-01\n---\nA canoe.\n"})
	r.Push(false)
	e = open()
	if got := searchIDs(t, e, search.SearchQuery{Text: "canoe"}); !slices.Equal(got, []string{"item:posts/new"}) {
		t.Errorf("canoe after a push while stopped: %v", got)
	}
	if got := searchIDs(t, e, search.SearchQuery{Text: "kayak"}); len(got) != 0 {
		t.Errorf("kayak after a push while stopped: %v", got)
	}
	if restoredAfterClose(e) {
		t.Error("a copy of another commit was used")
	}

	// A damaged copy: the start builds, and says so, rather than fail.
	for _, f := range []string{"store/root.bolt"} {
		dirs := storedDirs(t, cache)
		if len(dirs) != 1 {
			t.Fatalf("copies: %v", dirs)
		}
		if err := os.WriteFile(filepath.Join(dirs[0], f), []byte("not bolt"), 0o644); err != nil {
			t.Fatal(err)
		}
		e = open()
		if got := searchIDs(t, e, search.SearchQuery{Text: "canoe"}); !slices.Equal(got, []string{"item:posts/new"}) {
			t.Errorf("canoe with a damaged copy: %v", got)
		}
		if restoredAfterClose(e) {
			t.Error("a damaged copy was used")
		}
	}
}

// TestEngine_SearchIndexKeptOneUser: two engines on one cache directory
// (a deploy that starts the new box before it stops the old one): the
// second neither opens the first one's copy nor touches the store, and
// answers all the same from an index of its own.
func TestEngine_SearchIndexKeptOneUser(t *testing.T) {
	r := newSrcBareSite(t)
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r.Commit(day, map[string]string{"content/posts/a.md": "---\ntitle: Otter\ndate: 2026-01-01\n---\nOtters swim.\n"})
	r.Push(false)
	cache := t.TempDir()
	open := func() *Engine { return openSearchEngine(t, r, cache, day) }
	first := open()
	wantHits(t, first, search.SearchQuery{Text: "otters"}, "item:posts/a")
	first.Close()

	a := open() // opens the copy in place
	wantHits(t, a, search.SearchQuery{Text: "otters"}, "item:posts/a")
	b := open()
	wantHits(t, b, search.SearchQuery{Text: "otters"}, "item:posts/a")
	dirs := storedDirs(t, cache)
	b.Close()
	if b.search.pub.Restored() || b.search.pub.Stored() {
		t.Error("the second engine used the store")
	}
	if got := storedDirs(t, cache); !slices.Equal(got, dirs) {
		t.Errorf("the second engine changed the store: %v, was %v", got, dirs)
	}
	a.Close()
	if !a.search.pub.Restored() {
		t.Error("the first engine did not open the copy")
	}
	c := open()
	wantHits(t, c, search.SearchQuery{Text: "otters"}, "item:posts/a")
	if !restoredAfterClose(c) {
		t.Error("the copy was lost")
	}
}

// openSearchEngine opens r's published branch with search and cache.
func openSearchEngine(t *testing.T, r *srcTestRepo, cache string, day time.Time) *Engine {
	t.Helper()
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: cache, Search: true, Now: func() time.Time { return day }})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// restoredAfterClose closes e and tells whether its index was opened
// from the store's copy (the worker is gone then: its fields may be read).
func restoredAfterClose(e *Engine) bool {
	e.Close()
	return e.search.pub.Restored()
}

// storedCommit is the commit of the store's current copy (its
// current.json), "" when it has none.
func storedCommit(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "current.json"))
	if err != nil {
		return ""
	}
	var cur struct {
		Commit string `json:"commit"`
	}
	if err := json.Unmarshal(data, &cur); err != nil {
		t.Fatal(err)
	}
	return cur.Commit
}
