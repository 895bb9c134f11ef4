package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

func withSearch(ec *engine.Config, _ *server.Config) { ec.Search = true }

type searchBody struct {
	Items []struct {
		Kind, Type, ID, Slug, Title, Snippet string
		Score                                float64
	}
	Total, Limit, Offset int
}

// search GETs path (with its query) and decodes a 200 answer.
func searchFor(t *testing.T, ts *testServer, path, key string, header ...string) searchBody {
	t.Helper()
	r := get(t, ts.URL+path, key, header...)
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	var b searchBody
	if err := json.Unmarshal(r.Body, &b); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, r.Body)
	}
	return b
}

// hits are "kind:type/slug" of each result, sorted.
func (b searchBody) hits() []string {
	out := []string{}
	for _, it := range b.Items {
		out = append(out, it.Kind+":"+it.Type+"/"+it.Slug)
	}
	slices.Sort(out)
	return out
}

func wantSearch(t *testing.T, ts *testServer, path, key string, want ...string) searchBody {
	t.Helper()
	b := searchFor(t, ts, path, key)
	if want == nil {
		want = []string{}
	}
	slices.Sort(want)
	if got := b.hits(); !slices.Equal(got, want) {
		t.Errorf("GET %s = %v, want %v", path, got, want)
	}
	return b
}

func q(words string) string { return url.QueryEscape(words) }

var searchSite = map[string]string{
	"folio.yaml": "language: en\ntypes:\n  posts: {public: true}\n  notes: {}\n",
	"content/posts/run.md": "---\ntitle: Morning run\ndate: 2026-01-01\n---\nI run along the river every day.\n\n" +
		"{{< youtube id=\"dQw4\" title=\"otters\" >}}\n",
	"content/posts/secret.md":   "---\ntitle: Secret river plans\ndraft: true\ndate: 2026-01-01\n---\nThe river party.\n",
	"content/notes/river.md":    "---\ntitle: River note\ndate: 2026-01-01\n---\nA private note.\n",
	"pages/about.md":            "---\ntitle: About\n---\nWe live by the river.\n",
	"content/posts/blog/a/b.md": "---\ntitle: Nested\ndate: 2026-01-01\n---\nDeep in a section, by the river.\n",
}

// TestSearch_FollowsPushes: real pushes into a bare repository; the index
// follows each one (a search waits for the index to reach the snapshot
// being served, so no sleeping here).
func TestSearch_FollowsPushes(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, searchSite)
	ts := startServer(t, repo.bare, withSearch)
	key := ts.reader(t)

	b := wantSearch(t, ts, "/api/v1/search?q=river", key,
		"item:posts/run", "item:notes/river", "page:/about", "item:posts/blog/a/b")
	st := get(t, ts.URL+"/api/v1/status", key).json(t)
	if s, _ := st["search"].(map[string]any); s["caughtUp"] != true || s["commit"] != st["commit"] {
		t.Errorf("status search = %v, commit %v", st["search"], st["commit"])
	}
	if b.Total != 4 || b.Limit != 20 || b.Offset != 0 {
		t.Errorf("total %d limit %d offset %d", b.Total, b.Limit, b.Offset)
	}
	for _, it := range b.Items {
		if it.ID == "" || it.Title == "" || it.Score <= 0 || !strings.Contains(it.Snippet, "<mark>") {
			t.Errorf("hit %+v", it)
		}
	}
	// Stemming (language: en): "running" finds "run".
	b = wantSearch(t, ts, "/api/v1/search?q=running", key, "item:posts/run")
	if s := b.Items[0].Snippet; !strings.Contains(s, "<mark>run</mark>") {
		t.Errorf("snippet %q", s)
	}
	// Shortcodes are not words.
	wantSearch(t, ts, "/api/v1/search?q=otters", key)
	wantSearch(t, ts, "/api/v1/search?q=youtube", key)
	// Type filter, paging.
	wantSearch(t, ts, "/api/v1/search?q=river&type=notes", key, "item:notes/river")
	b = searchFor(t, ts, "/api/v1/search?q=river&limit=2&offset=3", key)
	if len(b.Items) != 1 || b.Total != 4 || b.Limit != 2 || b.Offset != 3 {
		t.Errorf("paged: %+v", b)
	}
	b = searchFor(t, ts, "/api/v1/search?q=river&limit=1000", key, outsideSpec, "clamped")
	if b.Limit != 100 {
		t.Errorf("limit = %d, want clamped to 100", b.Limit)
	}

	// A new post, an edited one, a drafted one, a deleted page.
	repo.commit("changes", map[string]string{
		"content/posts/kayak.md":  "---\ntitle: Kayak\ndate: 2026-01-02\n---\nPaddling down the river.\n",
		"content/posts/run.md":    "---\ntitle: Morning swim\ndate: 2026-01-01\n---\nI swim in the lake.\n",
		"content/notes/river.md":  "---\ntitle: River note\ndraft: true\n---\nA private note.\n",
		"pages/about.md":          "",
		"content/posts/secret.md": "---\ntitle: Secret river plans\ndraft: true\ndate: 2026-01-01\n---\nThe river party, moved.\n",
	})
	eventually(t, "the push", func() bool {
		return get(t, ts.URL+"/api/v1/content/posts/kayak", key).Status == http.StatusOK
	})
	wantSearch(t, ts, "/api/v1/search?q=river", key, "item:posts/kayak", "item:posts/blog/a/b")
	wantSearch(t, ts, "/api/v1/search?q=paddle", key, "item:posts/kayak")
	wantSearch(t, ts, "/api/v1/search?q=running", key)
	b = wantSearch(t, ts, "/api/v1/search?q=swimming", key, "item:posts/run")
	if b.Items[0].Title != "Morning swim" {
		t.Errorf("title %q", b.Items[0].Title)
	}
	wantSearch(t, ts, "/api/v1/search?q=private", key)
}

// TestSearch_Drafts: draft=true needs content:draft, as content routes do.
func TestSearch_Drafts(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, searchSite)
	ts := startServer(t, repo.bare, withSearch)
	reader := ts.reader(t)
	drafter := ts.key(t, "drafter", server.ScopeContentRead, server.ScopeContentDraft)

	wantError(t, get(t, ts.URL+"/api/v1/search?q=party&draft=true", ""), http.StatusUnauthorized, server.CodeUnauthorized)
	wantError(t, get(t, ts.URL+"/api/v1/search?q=party&draft=true", reader), http.StatusForbidden, server.CodeForbidden)
	wantSearch(t, ts, "/api/v1/search?q=party", drafter)
	wantSearch(t, ts, "/api/v1/search?q=party&draft=true", drafter, "item:posts/secret")
	r := get(t, ts.URL+"/api/v1/search?q=party&draft=true", drafter)
	if cc := r.Header.Get("Cache-Control"); cc != "private, no-store" {
		t.Errorf("draft Cache-Control %q", cc)
	}
}

// TestSearch_DraftBranch: with --draft-branch, draft=true searches that
// branch (its index is built on the first draft search) and follows it.
func TestSearch_DraftBranch(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, searchSite)
	git(t, repo.work, "push", "-q", "origin", "HEAD:draft")
	ts := startServer(t, repo.bare, withSearch, func(ec *engine.Config, _ *server.Config) { ec.DraftBranch = "draft" })
	drafter := ts.key(t, "drafter", server.ScopeContentRead, server.ScopeContentDraft)

	wantSearch(t, ts, "/api/v1/search?q=heron&draft=true", drafter)
	repo.write(map[string]string{"content/posts/heron.md": "---\ntitle: Heron\ndraft: true\n---\nA grey heron.\n"})
	git(t, repo.work, "add", "-A")
	git(t, repo.work, "commit", "-q", "-m", "heron")
	git(t, repo.work, "push", "-q", "origin", "HEAD:draft")
	eventually(t, "the draft push", func() bool {
		return get(t, ts.URL+"/api/v1/content/posts/heron?draft=true", drafter).Status == http.StatusOK
	})
	wantSearch(t, ts, "/api/v1/search?q=heron&draft=true", drafter, "item:posts/heron")
	wantSearch(t, ts, "/api/v1/search?q=heron", drafter)
}

// TestSearch_Public: only the public types, no key, CORS, never drafts.
func TestSearch_Public(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, searchSite)
	ts := startServer(t, repo.bare, withSearch)

	wantSearch(t, ts, "/api/v1/public/search?q=river", "", "item:posts/run", "item:posts/blog/a/b")
	wantSearch(t, ts, "/api/v1/public/search?q=river&type=posts", "", "item:posts/run", "item:posts/blog/a/b")
	r := get(t, ts.URL+"/api/v1/public/search?q=river", "", "Origin", "https://site.example")
	if r.Header.Get("Access-Control-Allow-Origin") == "" {
		t.Error("no CORS header")
	}
	if cc := r.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "public, max-age=60") {
		t.Errorf("Cache-Control %q", cc)
	}
	if sk := r.Header.Get("Surrogate-Key"); sk != "type:posts" {
		t.Errorf("Surrogate-Key %q", sk)
	}
	if r2 := get(t, ts.URL+"/api/v1/public/search?q=river", "", "If-None-Match", r.Header.Get("ETag")); r2.Status != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", r2.Status)
	}
	wantError(t, get(t, ts.URL+"/api/v1/public/search?q=river&type=notes", ""), http.StatusNotFound, server.CodeNotFound)
	wantError(t, get(t, ts.URL+"/api/v1/public/search?q=river&draft=true", ""), http.StatusBadRequest, server.CodeBadRequest)
}

// TestSearch_BadInput: every bad parameter is a 400 (an unknown type 404)
// in the error shape.
func TestSearch_BadInput(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, searchSite)
	ts := startServer(t, repo.bare, withSearch)
	key := ts.reader(t)
	for _, base := range []string{"/api/v1/search", "/api/v1/public/search"} {
		for _, query := range []string{
			"", "?q=", "?q=%20%20", "?type=posts",
			"?q=" + strings.Repeat("a", 501),
			"?q=%ff%fe",
			"?q=river&limit=abc", "?q=river&limit=0", "?q=river&limit=-1",
			"?q=river&offset=-1", "?q=river&offset=x",
			"?q=river&type=Bad!", "?q=river&draft=maybe",
		} {
			wantError(t, get(t, ts.URL+base+query, key), http.StatusBadRequest, server.CodeBadRequest)
		}
		wantError(t, get(t, ts.URL+base+"?q=river&type=nope", key), http.StatusNotFound, server.CodeNotFound)
	}
	wantError(t, get(t, ts.URL+"/api/v1/search?q=river", ""), http.StatusUnauthorized, server.CodeUnauthorized)
	wantError(t, get(t, ts.URL+"/api/v1/search?q=river", ts.key(t, "media", server.ScopeMediaRead)), http.StatusForbidden, server.CodeForbidden)
	// 500 bytes is fine; words that are all stop words find nothing.
	searchFor(t, ts, "/api/v1/search?q="+strings.Repeat("a", 500), key)
	wantSearch(t, ts, "/api/v1/search?q="+q("the and of"), key)
	wantSearch(t, ts, "/api/v1/search?q="+q(`"river" +* ~ \ : -`), key, "item:posts/run", "item:notes/river", "page:/about", "item:posts/blog/a/b")
	if b := searchFor(t, ts, "/api/v1/search?q=river&offset=1000000000000000000000", key, outsideSpec, "clamped"); len(b.hits()) != 0 {
		t.Errorf("an offset past the end found %v", b.hits())
	}
}

// TestSearch_Off: without search the routes answer 404.
func TestSearch_Off(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, searchSite)
	ts := startServer(t, repo.bare)
	wantError(t, get(t, ts.URL+"/api/v1/search?q=river", ts.reader(t)), http.StatusNotFound, server.CodeNotFound)
	wantError(t, get(t, ts.URL+"/api/v1/public/search?q=river", ""), http.StatusNotFound, server.CodeNotFound)
}
