package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

// The fields layout with a body per locale: a write in a locale writes
// that locale's body where the file keeps its locale's values (Decap's
// fr: {body: …}, else body: {fr: …}), and every write reads back through
// content as written.

func TestWriteLocaleFieldsBody(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":             "locales: [en, fr]\nlayout: fields\n" + localeModel,
		"content/posts/hello.md": "---\ntitle: {en: Hello, fr: Bonjour}\nrating: 3\n---\nHello.\n",
		"content/posts/decap.md": "---\nen:\n  title: Hi\n  rating: 2\n  body: Hi *there*.\nfr:\n  title: Salut\n  body: Salut *à tous*.\n---\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "marketing", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	reader := ts.reader(t)
	served := func(slug, loc string) string {
		t.Helper()
		g := get(t, ts.URL+"/api/v1/content/posts/"+slug+"?locale="+loc, reader)
		if g.Status != 200 {
			t.Fatalf("GET %s in %s: %d %s", slug, loc, g.Status, g.Body)
		}
		return string(g.Body)
	}

	// Per-key maps: the French body is body: {fr: …}; the English one
	// stays after the front matter.
	r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?locale=fr", editor, `{"body": "Texte *français*."}`)
	if r.Status != 200 || !strings.Contains(string(r.Body), "Texte") {
		t.Fatalf("patch fr body: %d %s", r.Status, r.Body)
	}
	got := remoteFile(t, repo.bare, "content/posts/hello.md")
	if !strings.Contains(got, "fr: Texte *français*.") || !strings.HasSuffix(got, "---\nHello.\n") || !strings.Contains(got, "en: Hello") {
		t.Fatalf("file: %q", got)
	}
	if fr, en := served("hello", "fr"), served("hello", "en"); !strings.Contains(fr, "Texte") || strings.Contains(fr, "Hello.") || !strings.Contains(en, "Hello.") || strings.Contains(en, "Texte") {
		t.Fatalf("served:\nfr %s\nen %s", fr, en)
	}
	// A second write changes that map's French value.
	if r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?locale=fr", editor, `{"body": "Autre texte."}`); r.Status != 200 {
		t.Fatalf("patch fr body again: %d %s", r.Status, r.Body)
	}
	if fr := served("hello", "fr"); !strings.Contains(fr, "Autre texte") {
		t.Fatalf("fr: %s", fr)
	}
	// The default locale's writes keep the other locales' values.
	if r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello", editor, `{"title": "Hello!", "body": "Hello again."}`); r.Status != 200 {
		t.Fatalf("patch en: %d %s", r.Status, r.Body)
	}
	if fr, en := served("hello", "fr"), served("hello", "en"); !strings.Contains(fr, `"title":"Bonjour"`) || !strings.Contains(fr, "Autre texte") || !strings.Contains(en, `"title":"Hello!"`) || !strings.Contains(en, "Hello again.") {
		t.Fatalf("after en write:\nfr %s\nen %s\nfile %q", fr, en, remoteFile(t, repo.bare, "content/posts/hello.md"))
	}

	// Decap's form: each locale's body in its map.
	if r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/decap?locale=fr", editor, `{"body": "Nouveau."}`); r.Status != 200 {
		t.Fatalf("patch fr body (decap): %d %s", r.Status, r.Body)
	}
	if r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/decap", editor, `{"title": "Hi!", "body": "New."}`); r.Status != 200 {
		t.Fatalf("patch en (decap): %d %s", r.Status, r.Body)
	}
	got = remoteFile(t, repo.bare, "content/posts/decap.md")
	if !strings.Contains(got, "body: Nouveau.") || !strings.Contains(got, "body: New.") || !strings.Contains(got, "title: Salut") || !strings.HasSuffix(got, "---\n") {
		t.Fatalf("decap file: %q", got)
	}
	if fr, en := served("decap", "fr"), served("decap", "en"); !strings.Contains(fr, "Nouveau.") || !strings.Contains(fr, `"rating":2`) || !strings.Contains(en, "New.") || !strings.Contains(en, `"title":"Hi!"`) {
		t.Fatalf("decap served:\nfr %s\nen %s", fr, en)
	}
	// The French reading is validated by the model: nothing written.
	head := git(t, repo.bare, "rev-parse", "main")
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/content/posts/decap?locale=fr", editor, `{"data": {"rating": -2}}`), http.StatusUnprocessableEntity, "VALIDATION")
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?locale=fr", editor, `{"body": "Texte.", "data": {"rating": -1}}`), http.StatusUnprocessableEntity, "VALIDATION")
	if git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatal("a refused write changed the branch")
	}
	// A DELETE in fr removes the French body with the other values.
	if r := do(t, "DELETE", ts.URL+"/api/v1/content/posts/hello?locale=fr", editor, nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete fr: %d %s", r.Status, r.Body)
	}
	if got := remoteFile(t, repo.bare, "content/posts/hello.md"); strings.Contains(got, "fr:") || strings.Contains(got, "Autre") || !strings.Contains(got, "Hello again.") {
		t.Fatalf("after delete fr: %q", got)
	}
}
