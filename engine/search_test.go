package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/search"
)

// searchIDs runs q and returns "kind:type/slug" of each hit, in order.
func searchIDs(t *testing.T, e *Engine, q search.SearchQuery) []string {
	t.Helper()
	if q.Limit == 0 {
		q.Limit = 20
	}
	res, err := e.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.Kind+":"+h.Type+"/"+h.Slug)
	}
	if res.Total < len(out) {
		t.Errorf("total %d < %d hits", res.Total, len(out))
	}
	return out
}

func wantHits(t *testing.T, e *Engine, q search.SearchQuery, want ...string) {
	t.Helper()
	got := searchIDs(t, e, q)
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("search %q (type %q, draft %v, public %v) = %v, want %v", q.Text, q.Type, q.Draft, q.PublicOnly, got, want)
	}
}

func wantHitsAnyOrder(t *testing.T, e *Engine, q search.SearchQuery, want ...string) {
	t.Helper()
	got := searchIDs(t, e, q)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("search %q (type %q, draft %v, public %v) = %v, want %v in any order", q.Text, q.Type, q.Draft, q.PublicOnly, got, want)
	}
}

// TestEngine_Search follows pushes into a bare repository with real git:
// added, edited, drafted and deleted documents, a scheduled one, the
// language's stemming, shortcodes and links.
func TestEngine_Search(t *testing.T) {
	ctx := context.Background()
	r := newSrcBareSite(t)
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r.Commit(day, map[string]string{
		"folio.yaml": "language: en\ntypes:\n  posts: {public: true}\n",
		"content/posts/hello.md": "---\ntitle: Hello world\ndate: 2026-01-01\n---\nWe went running by the lake.\n" +
			"{{< figure src=\"heron.jpg\" caption=\"a grey heron\" >}}\n{{% notice %}}Mind the swans{{% /notice %}}\n" +
			"See [the harbour](https://example.com/marina).\n",
		"content/posts/secret.md":      "---\ntitle: Secret lake plans\ndraft: true\ndate: 2026-01-01\n---\nThe lake party.\n",
		"content/posts/later.md":       "---\ntitle: Later\ndate: 2030-01-01\n---\nA lake in the future.\n",
		"content/notes/trip/index.md":  "---\ntitle: Trip notes\ndate: 2026-01-02\ntags: [lake, boat]\n---\nNested bundle.\n",
		"pages/about.md":               "---\ntitle: About the lake\n---\nWho we are.\n",
		"pages/guides/install.yaml":    "title: Install\nsections:\n  - type: hero\n    heading: Install the lake kit\n",
		"content/posts/unrelated.yaml": "title: Mountains\ndate: 2026-01-01\nsummary: Nothing wet here.\n",
	})
	r.Push(false)
	e, err := Open(ctx, Config{Site: r.Site(), CacheDir: t.TempDir(), Search: true, Now: func() time.Time { return day }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	// A title word ranks first (boosted); drafts and later posts are not
	// published.
	wantHitsAnyOrder(t, e, search.SearchQuery{Text: "lake"}, "page:/about", "item:notes/trip", "page:/guides/install", "item:posts/hello")
	if got := searchIDs(t, e, search.SearchQuery{Text: "lake"}); got[0] != "page:/about" {
		t.Errorf("lake: %v, want the page titled so first", got)
	}
	wantHitsAnyOrder(t, e, search.SearchQuery{Text: "lake", Draft: true}, "item:posts/secret", "page:/about", "item:notes/trip", "page:/guides/install", "item:posts/hello", "item:posts/later")
	wantHits(t, e, search.SearchQuery{Text: "lake", Type: "posts"}, "item:posts/hello")
	wantHits(t, e, search.SearchQuery{Text: "lake", PublicOnly: true}, "item:posts/hello")
	// Stemming (en): "runs" and "running" find "running".
	wantHits(t, e, search.SearchQuery{Text: "runs"}, "item:posts/hello")
	// Every word must match.
	wantHits(t, e, search.SearchQuery{Text: "lake running"}, "item:posts/hello")
	wantHits(t, e, search.SearchQuery{Text: "lake mountains"})
	// Shortcodes and their arguments are not words; the text between a
	// pair is. Link destinations are not words.
	wantHits(t, e, search.SearchQuery{Text: "heron"})
	wantHits(t, e, search.SearchQuery{Text: "figure"})
	wantHits(t, e, search.SearchQuery{Text: "swans"}, "item:posts/hello")
	wantHits(t, e, search.SearchQuery{Text: "marina"})
	wantHits(t, e, search.SearchQuery{Text: "harbour"}, "item:posts/hello")
	// Stop words only: nothing to look for.
	wantHits(t, e, search.SearchQuery{Text: "the"})

	res, err := e.Search(ctx, search.SearchQuery{Text: "running", Limit: 5})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("running: %+v, %v", res, err)
	}
	if h := res.Hits[0]; !strings.Contains(h.Snippet, "<mark>running</mark>") || h.Title != "Hello world" || h.ID == "" || h.Score <= 0 {
		t.Errorf("hit = %+v", h)
	}

	// Paging: total counts every hit.
	res, _ = e.Search(ctx, search.SearchQuery{Text: "lake", Limit: 2, Offset: 1})
	if res.Total != 4 || len(res.Hits) != 2 {
		t.Errorf("paged: total %d, %d hits", res.Total, len(res.Hits))
	}

	// A push: a new post, an edited one, a drafted one, a deleted page.
	r.Commit(day, map[string]string{
		"content/posts/new.md":        "---\ntitle: Fresh\ndate: 2026-02-01\n---\nA kayak on the lake.\n",
		"content/posts/hello.md":      "---\ntitle: Hello world\ndate: 2026-01-01\n---\nWe went cycling.\n",
		"content/notes/trip/index.md": "---\ntitle: Trip notes\ndraft: true\ntags: [lake]\n---\nNested bundle.\n",
	}, "pages/about.md")
	r.Push(false)
	if err := e.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	wantHits(t, e, search.SearchQuery{Text: "kayak"}, "item:posts/new")
	wantHits(t, e, search.SearchQuery{Text: "running"})
	wantHits(t, e, search.SearchQuery{Text: "cycle"}, "item:posts/hello")
	wantHitsAnyOrder(t, e, search.SearchQuery{Text: "lake"}, "page:/guides/install", "item:posts/new")

	// The language changes: the index is rebuilt with the new rules.
	r.Commit(day, map[string]string{"folio.yaml": "types:\n  posts: {public: true}\n"})
	r.Push(false)
	if err := e.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	wantHits(t, e, search.SearchQuery{Text: "cycle"})
	wantHits(t, e, search.SearchQuery{Text: "cycling"}, "item:posts/hello")
}

// TestEngine_SearchOff: without Config.Search there is no index.
func TestEngine_SearchOff(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(time.Now(), map[string]string{"content/posts/a.md": "---\ntitle: A\n---\nx\n"})
	r.Push(false)
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Search(context.Background(), search.SearchQuery{Text: "x", Limit: 1}); err != ErrSearchOff {
		t.Fatalf("err = %v, want ErrSearchOff", err)
	}
}

// TestContentIndex_LagNeverLeaks searches an index that still holds an
// older snapshot against the view of a newer one: documents drafted,
// deleted or retitled since are never shown as they were.
func TestContentIndex_LagNeverLeaks(t *testing.T) {
	ctx := context.Background()
	r := newSrcBareSite(t)
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r.Commit(day, map[string]string{
		"content/posts/a.md": "---\ntitle: Otter one\ndate: 2026-01-01\n---\nOtters swim.\n",
		"content/posts/b.md": "---\ntitle: Otter two\ndate: 2026-01-01\n---\nOtters sleep.\n",
		"content/posts/c.md": "---\ntitle: Otter three\ndate: 2026-01-01\n---\nOtters eat.\n",
		"pages/otters.md":    "---\ntitle: Otters\n---\nAll about otters.\n",
	})
	r.Push(false)
	now := func() time.Time { return day }
	e, err := Open(ctx, Config{Site: r.Site(), CacheDir: t.TempDir(), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	old := e.Published()
	ci := search.NewContentIndex(e.cfg.Logger, now, "", nil)
	defer ci.Close()
	ci.Follow(old.forSearch)
	q := search.SearchQuery{Text: "otters", Limit: 10}
	res, err := ci.Search(ctx, q, old.forSearch, old.View(false, day), day)
	if err != nil || len(res.Hits) != 4 || res.Total != 4 {
		t.Fatalf("before: %+v, %v", res, err)
	}

	r.Commit(day, map[string]string{
		"content/posts/a.md": "---\ntitle: Otter one\ndraft: true\n---\nOtters swim.\n",
		"content/posts/c.md": "---\ntitle: Renamed\ndate: 2026-01-01\n---\nOtters eat.\n",
	}, "content/posts/b.md", "pages/otters.md")
	r.Push(false)
	if err := e.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	cur := e.Published()
	// ci was never told of cur: it lags behind by one push.
	res, err = ci.Search(ctx, q, cur.forSearch, cur.View(false, day), day)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 || res.Total != 0 {
		t.Errorf("lagging index showed %+v (total %d)", res.Hits, res.Total)
	}
}

// TestEngine_SearchSchedule: a scheduled post is found from its publish
// instant and an expiring one until its expiry, with no push between.
func TestEngine_SearchSchedule(t *testing.T) {
	ctx := context.Background()
	r := newSrcBareSite(t)
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r.Commit(day, map[string]string{
		"content/posts/soon.md":   "---\ntitle: Soon\ndate: 2026-03-02T00:00:00Z\n---\nA comet.\n",
		"content/posts/brief.md":  "---\ntitle: Brief\ndate: 2026-01-01\nexpiryDate: 2026-03-03T00:00:00Z\n---\nA comet too.\n",
		"content/posts/always.md": "---\ntitle: Always\ndate: 2026-01-01\n---\nA comet again.\n",
	})
	r.Push(false)
	now := day
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e, err := Open(ctx, Config{Site: r.Site(), CacheDir: t.TempDir(), Search: true, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	wantHitsAnyOrder(t, e, search.SearchQuery{Text: "comet"}, "item:posts/brief", "item:posts/always")
	mu.Lock()
	now = day.Add(24 * time.Hour)
	mu.Unlock()
	wantHitsAnyOrder(t, e, search.SearchQuery{Text: "comet"}, "item:posts/soon", "item:posts/brief", "item:posts/always")
	mu.Lock()
	now = day.Add(72 * time.Hour)
	mu.Unlock()
	wantHitsAnyOrder(t, e, search.SearchQuery{Text: "comet"}, "item:posts/soon", "item:posts/always")
	wantHitsAnyOrder(t, e, search.SearchQuery{Text: "comet", Draft: true}, "item:posts/soon", "item:posts/brief", "item:posts/always")
}

// TestEngine_SearchSkipsReferences: reference values (media:<id>,
// <type>/<slug>, /uploads/ paths, a bare slug in a field the model
// declares a reference) are not words of a document: no search finds
// them and no snippet shows them.
func TestEngine_SearchSkipsReferences(t *testing.T) {
	ctx := context.Background()
	r := newSrcBareSite(t)
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r.Commit(day, map[string]string{
		"folio.yaml":                    "types:\n  posts:\n    public: true\n    fields:\n      editor: {kind: reference, to: team}\n  team: {}\n",
		"content/team/maria-schmidt.md": "---\ntitle: Maria\n---\nAn editor.\n",
		"content/team/jo-quartz.md":     "---\ntitle: Jo\n---\nAn editor.\n",
		"content/posts/a.md": "---\ntitle: Lake trip\ndate: 2026-01-01\nauthor: team/maria-schmidt\neditor: jo-quartz\n" +
			"cover: media:zq81kx0abc\ngallery: [/uploads/2026/01/heron-lake.jpg]\ncaption: A heron by the lake\n---\nWe walked round the lake.\n",
	})
	r.Push(false)
	e, err := Open(ctx, Config{Site: r.Site(), CacheDir: t.TempDir(), Search: true, Now: func() time.Time { return day }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, w := range []string{"schmidt", "zq81kx0abc", "quartz"} {
		wantHits(t, e, search.SearchQuery{Text: w, PublicOnly: true})
	}
	wantHits(t, e, search.SearchQuery{Text: "heron", PublicOnly: true}, "item:posts/a")
	res, err := e.Search(ctx, search.SearchQuery{Text: "lake", PublicOnly: true, Limit: 10})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("search lake: %+v %v", res, err)
	}
	for _, s := range []string{"schmidt", "media:", "uploads", "quartz"} {
		if strings.Contains(res.Hits[0].Snippet, s) {
			t.Errorf("snippet %q shows %q", res.Hits[0].Snippet, s)
		}
	}
}
