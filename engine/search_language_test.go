package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/search"
)

// TestEngine_SearchSiteLanguage: without `language:` in folio.yaml the
// search language is the Hugo config's (languageCode), so "camp" finds
// "camping"; the last word matches as a prefix as the user types; a site
// that says no language keeps its plain words, prefixes included.
func TestEngine_SearchSiteLanguage(t *testing.T) {
	ctx := context.Background()
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	docs := map[string]string{
		"content/posts/trip.md":   "---\ntitle: Weekend away\ndate: 2026-01-01\n---\nWe went camping by the river.\n",
		"content/posts/ground.md": "---\ntitle: The campground guide\ndate: 2026-01-01\n---\nWhere to pitch a tent.\n",
		"content/posts/other.md":  "---\ntitle: Cameras\ndate: 2026-01-01\n---\nLenses and light.\n",
	}
	open := func(t *testing.T, files map[string]string) *Engine {
		t.Helper()
		r := newSrcBareSite(t)
		all := map[string]string{}
		for k, v := range docs {
			all[k] = v
		}
		for k, v := range files {
			all[k] = v
		}
		r.Commit(day, all)
		r.Push(false)
		e, err := Open(ctx, Config{Site: r.Site(), CacheDir: t.TempDir(), Search: true, Now: func() time.Time { return day }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}

	t.Run("hugo languageCode", func(t *testing.T) {
		e := open(t, map[string]string{"hugo.toml": "baseURL = 'https://example.org/'\nlanguageCode = 'en-us'\ntitle = 'Trips'\n"})
		if got := e.Published().Site.Config.Language; got != "en" {
			t.Fatalf("language = %q, want en", got)
		}
		// Stemming: camp finds camping (and, as a prefix, campground).
		wantHitsAnyOrder(t, e, search.SearchQuery{Text: "camp"}, "item:posts/trip", "item:posts/ground")
		wantHits(t, e, search.SearchQuery{Text: "camps "}, "item:posts/trip")
		// The last word as typed is a prefix; a finished word is not.
		wantHits(t, e, search.SearchQuery{Text: "campgr"}, "item:posts/ground")
		wantHits(t, e, search.SearchQuery{Text: "campgr "})
		wantHits(t, e, search.SearchQuery{Text: "river campgr"})
		wantHits(t, e, search.SearchQuery{Text: "tent campgr"}, "item:posts/ground")
		wantHitsAnyOrder(t, e, search.SearchQuery{Text: "cam"}, "item:posts/trip", "item:posts/ground", "item:posts/other")
		// Two letters are too few to be a prefix.
		wantHits(t, e, search.SearchQuery{Text: "ca"})
		res, err := e.Search(ctx, search.SearchQuery{Text: "campgr", Limit: 5})
		if err != nil || len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Snippet, "<mark>campground</mark>") {
			t.Errorf("campgr: %+v, %v", res, err)
		}
	})
	t.Run("hugo defaultContentLanguage", func(t *testing.T) {
		e := open(t, map[string]string{"config/_default/hugo.yaml": "defaultContentLanguage: en\n"})
		wantHitsAnyOrder(t, e, search.SearchQuery{Text: "camps "}, "item:posts/trip")
	})
	t.Run("folio.yaml wins", func(t *testing.T) {
		e := open(t, map[string]string{"hugo.toml": "languageCode = 'en-us'\n", "folio.yaml": "language: de\n"})
		if got := e.Published().Site.Config.Language; got != "de" {
			t.Fatalf("language = %q, want de", got)
		}
	})
	t.Run("no language", func(t *testing.T) {
		e := open(t, nil)
		if got := e.Published().Site.Config.Language; got != "" {
			t.Fatalf("language = %q, want none", got)
		}
		// No stemming: a finished word finds itself only.
		wantHits(t, e, search.SearchQuery{Text: "camps "})
		wantHits(t, e, search.SearchQuery{Text: "camping "}, "item:posts/trip")
		wantHitsAnyOrder(t, e, search.SearchQuery{Text: "camp"}, "item:posts/trip", "item:posts/ground")
	})
}
