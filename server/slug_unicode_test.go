package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

// TestUnicodeSlugs: slugs in any script (Hugo and Decap make them from
// titles and file names) are read, served at their percent-encoded URLs,
// linked as such, and made by the write API; invisible characters and
// punctuation stay refused.
func TestUnicodeSlugs(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":                      "locales: [en, uk]\ndefaultLocale: en\nlayout: folder\n",
		"content/en/posts/hello.md":       "---\ntitle: Hello\n---\nHello.\n",
		"content/uk/posts/hello.md":       "---\ntitle: Привіт\nslug: привіт\n---\nПривіт.\n",
		"content/en/privacy.md":           "---\ntitle: Privacy\n---\nPrivacy.\n",
		"content/uk/privacy.md":           "---\ntitle: Політика приватності\nslug: приватність\n---\nТекст.\n",
		"content/uk/posts/новини/2026.md": "---\ntitle: Новини 2026\n---\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	reader := ts.reader(t)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)

	esc := func(s string) string { return (&url.URL{Path: s}).EscapedPath() }
	for _, p := range []string{"/api/v1/content/posts/привіт?locale=uk", "/api/v1/pages/приватність?locale=uk", "/api/v1/content/posts/новини/2026?locale=uk"} {
		path, query, _ := strings.Cut(p, "?")
		g := get(t, ts.URL+esc(path)+"?"+query, reader)
		if g.Status != http.StatusOK || !strings.Contains(string(g.Body), `"locale":"uk"`) {
			t.Fatalf("GET %s: %d %s", p, g.Status, g.Body)
		}
	}
	// The en document links the uk one by a URL a client can use as it is.
	g := get(t, ts.URL+"/api/v1/content/posts/hello?locale=en", reader)
	want := `"url":"/api/v1/content/posts/%D0%BF%D1%80%D0%B8%D0%B2%D1%96%D1%82?locale=uk"`
	if !strings.Contains(string(g.Body), want) {
		t.Fatalf("translation link: want %s in %s", want, g.Body)
	}

	// A create in uk without a slug takes it from the title, in Cyrillic.
	r := wr(t, "POST", ts.URL+"/api/v1/content/posts?locale=uk", editor, `{"title": "Нова стаття", "body": "Текст."}`)
	if r.Status != http.StatusCreated || r.Header.Get("Location") != "/api/v1/content/posts/"+esc("нова-стаття")+"?locale=uk" {
		t.Fatalf("create: %d %v %s", r.Status, r.Header, r.Body)
	}
	if got := remoteFile(t, repo.bare, "content/uk/posts/нова-стаття.md"); !strings.Contains(got, "title: Нова стаття") {
		t.Fatalf("created file: %q", got)
	}

	// Invisible and punctuation characters are not slugs: 400, nothing written.
	for _, bad := range []string{"a\u200db", "a\u202eb", "a\u00a0b", "a\uff0fb"} {
		wantError(t, get(t, ts.URL+"/api/v1/content/posts/"+url.PathEscape(bad), reader), http.StatusBadRequest, "BAD_REQUEST")
		wantError(t, wr(t, "POST", ts.URL+"/api/v1/content/posts?locale=uk", editor, `{"title": "X", "slug": "`+bad+`"}`), http.StatusUnprocessableEntity, "VALIDATION")
	}
}
