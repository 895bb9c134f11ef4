package engine

import (
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/search"
)

// TestEngine_SearchBuildAfterStart: the published index is neither built
// nor opened while the server starts (Open, then the first requests):
// the first search builds it at once, and without a search the build
// starts firstSearchDelay after Open.
func TestEngine_SearchBuildAfterStart(t *testing.T) {
	t.Parallel()
	r := newSrcBareSite(t)
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r.Commit(day, map[string]string{
		"folio.yaml":             "language: en\ntypes:\n  posts: {public: true}\n",
		"content/posts/hello.md": "---\ntitle: Hello world\ndate: 2026-01-01\n---\nWe went running by the lake.\n",
		"pages/about.md":         "---\ntitle: About the lake\n---\nWho we are.\n",
	})
	r.Push(false)

	built := func(e *Engine) bool {
		st := e.Status()
		return st.Search != nil && st.Search.CaughtUp
	}
	e := openSearchEngine(t, r, t.TempDir(), day)
	time.Sleep(300 * time.Millisecond) // a build of this site takes a few ms
	if built(e) {
		t.Fatal("the search index was built during the start")
	}
	wantHits(t, e, search.SearchQuery{Text: "running"}, "item:posts/hello")
	if !built(e) {
		t.Error("a search did not bring the index")
	}
	e.Close()

	e = openSearchEngine(t, r, t.TempDir(), day)
	defer e.Close()
	start := time.Now()
	for !built(e) {
		if time.Since(start) > firstSearchDelay+20*time.Second {
			t.Fatal("the search index was never built without a search")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := time.Since(start); d < firstSearchDelay/2 {
		t.Errorf("built %v after Open, want about %v", d, firstSearchDelay)
	}
}
