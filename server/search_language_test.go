package server_test

import "testing"

// TestSearch_HugoLanguageAndPrefix: a Hugo site's languageCode is the
// search language when folio.yaml names none ("camp" finds "camping"),
// and the last word of q matches as a prefix unless q ends with a space.
func TestSearch_HugoLanguageAndPrefix(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"hugo.toml":               "languageCode = 'en-us'\ntitle = 'Trips'\n",
		"folio.yaml":              "types:\n  posts: {public: true}\n",
		"content/posts/trip.md":   "---\ntitle: Weekend away\ndate: 2024-01-01\n---\nWe went camping by the river.\n",
		"content/posts/ground.md": "---\ntitle: The campground guide\ndate: 2024-01-01\n---\nWhere to pitch a tent.\n",
	})
	ts := startServer(t, repo.bare, withSearch)
	key := ts.reader(t)
	wantSearch(t, ts, "/api/v1/search?q="+q("camp "), key, "item:posts/trip")
	wantSearch(t, ts, "/api/v1/public/search?q="+q("campgr"), "", "item:posts/ground")
	wantSearch(t, ts, "/api/v1/public/search?q="+q("campgr "), "")
	wantSearch(t, ts, "/api/v1/search?q="+q("  river  campin "), key)
	wantSearch(t, ts, "/api/v1/search?q="+q("river camping "), key, "item:posts/trip")
}
