package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

// TestHugoSectionPages: in a multilingual Hugo site, the home page
// (content/<lang>/_index.md) is the homepage "index" and a section's own
// _index.md the page named by the section, in each language, linked as
// translations, and written in place by the write API.
func TestHugoSectionPages(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"hugo.toml":                   "defaultContentLanguage = 'en'\n[languages.en]\ncontentDir = 'content/en'\n[languages.fr]\ncontentDir = 'content/fr'\n",
		"content/en/_index.md":        "---\ntitle: Welcome\n---\nHome.\n",
		"content/fr/_index.md":        "---\ntitle: Bienvenue\n---\nAccueil.\n",
		"content/en/blog/_index.md":   "---\ntitle: Blog\ndescription: News\n---\n",
		"content/en/blog/hello.md":    "---\ntitle: Hello\n---\nHi.\n",
		"content/en/docs/a/_index.md": "---\ntitle: Branch bundle\n---\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	reader := ts.reader(t)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)

	g := get(t, ts.URL+"/api/v1/pages?fields=slug,isHomepage", reader)
	if g.Status != http.StatusOK || !strings.Contains(string(g.Body), `{"slug":"index","isHomepage":true}`) || !strings.Contains(string(g.Body), `{"slug":"blog","isHomepage":false}`) {
		t.Fatalf("pages: %d %s", g.Status, g.Body)
	}
	fr := get(t, ts.URL+"/api/v1/pages/index?locale=fr", reader)
	if fr.Status != http.StatusOK || !strings.Contains(string(fr.Body), `"title":"Bienvenue"`) || !strings.Contains(string(fr.Body), `"en":{"slug":"index"`) {
		t.Fatalf("fr home: %d %s", fr.Status, fr.Body)
	}
	if it := get(t, ts.URL+"/api/v1/content/blog/hello", reader); it.Status != http.StatusOK {
		t.Fatalf("blog item: %d %s", it.Status, it.Body)
	}
	if it := get(t, ts.URL+"/api/v1/content/docs/a", reader); it.Status != http.StatusOK {
		t.Fatalf("branch bundle item: %d %s", it.Status, it.Body)
	}
	r := wr(t, "PATCH", ts.URL+"/api/v1/pages/blog", editor, `{"title": "The blog"}`)
	if r.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	if got := remoteFile(t, repo.bare, "content/en/blog/_index.md"); got != "---\ntitle: The blog\ndescription: News\n---\n" {
		t.Fatalf("section page file: %q", got)
	}
}
