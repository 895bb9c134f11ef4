package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/search"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/s3/s3test"
)

// openBucketSearchEngine opens r's published branch with search, an
// empty cache directory of its own (a fresh box) and the bucket's state.
func openBucketSearchEngine(t *testing.T, r *srcTestRepo, state media.StateStore, day time.Time) *Engine {
	t.Helper()
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir(), Search: true,
		Now: func() time.Time { return day }, SearchState: state})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// waitPublished waits until e has published n snapshots (in the
// background, after its build).
func waitPublished(t *testing.T, e *Engine, n int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for e.search.pub.Published() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the index was not published (%d of %d)", e.search.pub.Published(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// latestSnapshotKey is the key the pointer names.
func latestSnapshotKey(t *testing.T, state media.StateStore) string {
	t.Helper()
	var keys []string
	err := state.List(context.Background(), "search/", "", func(o media.StateObject) error {
		keys = append(keys, o.Key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.HasSuffix(k, "/latest") {
			b, _, err := state.Get(context.Background(), k)
			if err != nil {
				t.Fatal(err)
			}
			var p struct{ Key string }
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatal(err)
			}
			return p.Key
		}
	}
	t.Fatalf("no pointer among %v", keys)
	return ""
}

// TestEngine_SearchIndexFromBucket: box A builds the index and publishes
// it to the bucket; box B, with an empty cache directory, fetches it
// instead of building and answers exactly as A; box C, on a later commit,
// fetches A's snapshot and catches up (edited, added, removed documents);
// a truncated snapshot is detected, not served: the next box builds, and
// its publish replaces the damaged object.
func TestEngine_SearchIndexFromBucket(t *testing.T) {
	_, state := s3test.Open(t, s3test.NewServer(t).NewBucket(t))
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

	a := openBucketSearchEngine(t, r, state, day)
	built := storeAnswers(t, a)
	waitPublished(t, a, 1)
	a.Close()
	if a.search.pub.Fetched() {
		t.Fatal("box A, on an empty bucket, claims a fetched index")
	}

	b := openBucketSearchEngine(t, r, state, day)
	if got := storeAnswers(t, b); !slices.EqualFunc(got, built, slices.Equal) {
		t.Errorf("fetched index answers %v, a build %v", got, built)
	}
	b.Close()
	if !b.search.pub.Fetched() || b.search.pub.Published() != 0 {
		t.Fatalf("box B: fetched %v, published %d; want the bucket's index, no build", b.search.pub.Fetched(), b.search.pub.Published())
	}

	// A later commit: C fetches A's snapshot and catches up.
	r.Commit(day, map[string]string{
		"content/posts/new.md":   "---\ntitle: Fresh\ndate: 2026-02-01\n---\nA kayak on the lake.\n",
		"content/posts/hello.md": "---\ntitle: Hello world\ndate: 2026-01-01\n---\nWe went cycling.\n",
	}, "pages/about.md")
	r.Push(false)
	c := openBucketSearchEngine(t, r, state, day)
	caught := storeAnswers(t, c)
	c.Close()
	if !c.search.pub.Fetched() {
		t.Fatal("box C built instead of fetching and catching up")
	}
	d := openSearchEngine(t, r, t.TempDir(), day) // no bucket: builds
	want := storeAnswers(t, d)
	d.Close()
	// The same hits; their order may differ, as after any push (the
	// scores count the documents a push deleted until a rebuild).
	for i := range caught {
		slices.Sort(caught[i])
		slices.Sort(want[i])
	}
	if !slices.EqualFunc(caught, want, slices.Equal) {
		t.Errorf("caught-up index answers %v, a build %v", caught, want)
	}
	if !slices.Contains(caught[4], "item:posts/new") || slices.Contains(caught[5], "item:posts/hello") {
		t.Errorf("caught-up index misses the push: %v", caught)
	}

	// A truncated snapshot: not served; the box builds and republishes.
	key := latestSnapshotKey(t, state)
	obj, etag, err := state.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := state.Replace(ctx, key, obj[:len(obj)/2], etag); err != nil {
		t.Fatal(err)
	}
	r.Commit(day, map[string]string{"content/posts/new.md": "---\ntitle: Fresh\ndate: 2026-02-01\n---\nA canoe.\n"})
	r.Push(false)
	e := openBucketSearchEngine(t, r, state, day)
	wantHits(t, e, search.SearchQuery{Text: "canoe"}, "item:posts/new")
	waitPublished(t, e, 1)
	e.Close()
	if e.search.pub.Fetched() {
		t.Fatal("a truncated snapshot was served")
	}
	// A damaged (same length) one of the same commit as the box.
	key = latestSnapshotKey(t, state)
	obj, etag, err = state.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	obj = slices.Clone(obj)
	obj[len(obj)/2] ^= 0xff
	if _, err := state.Replace(ctx, key, obj, etag); err != nil {
		t.Fatal(err)
	}
	f := openBucketSearchEngine(t, r, state, day)
	wantHits(t, f, search.SearchQuery{Text: "canoe"}, "item:posts/new")
	waitPublished(t, f, 1) // replaces the damaged object
	f.Close()
	if f.search.pub.Fetched() {
		t.Fatal("a damaged snapshot was served")
	}
	g := openBucketSearchEngine(t, r, state, day)
	wantHits(t, g, search.SearchQuery{Text: "canoe"}, "item:posts/new")
	g.Close()
	if !g.search.pub.Fetched() {
		t.Error("the republished snapshot was not fetched")
	}
}
