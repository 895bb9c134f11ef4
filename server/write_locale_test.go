package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

// The write API in a locale (?locale=), for each layout, end to end with
// real git: the write goes to that locale's file, is served in that
// locale, and links to its translations.

const localeModel = "types:\n  posts:\n    fields:\n      title: {kind: string, required: true}\n      rating: {kind: integer, min: 0}\n"

func TestWriteLocaleFolderLayout(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":                "locales: [en, fr, de]\ndefaultLocale: en\nlayout: folder\n" + localeModel,
		"content/en/posts/hello.md": "---\ntitle: Hello\nrating: 3\n---\nHello.\n",
		"content/en/about.md":       "---\ntitle: About\n---\nAbout.\n",
		"globals.yaml":              "siteName: Site\nnav: []\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "marketing", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	reader := ts.reader(t)
	enHello := remoteFile(t, repo.bare, "content/en/posts/hello.md")

	// A translation with a slug of its own: at the same path in fr, linked.
	r := wr(t, "POST", ts.URL+"/api/v1/content/posts?locale=fr&translationOf=hello", editor, `{"title": "Bonjour", "slug": "bonjour", "rating": 4, "body": "Salut."}`)
	if r.Status != http.StatusCreated || r.Header.Get("Location") != "/api/v1/content/posts/bonjour?locale=fr" || r.Header.Get("Content-Language") != "fr" {
		t.Fatalf("create fr: %d %v %s", r.Status, r.Header, r.Body)
	}
	if got := remoteFile(t, repo.bare, "content/fr/posts/hello.md"); got != "---\ntitle: Bonjour\nslug: bonjour\nrating: 4\n---\nSalut.\n" {
		t.Fatalf("fr file: %q", got)
	}
	g := get(t, ts.URL+"/api/v1/content/posts/hello?locale=en", reader)
	if !strings.Contains(string(g.Body), `"fr":{"slug":"bonjour"`) {
		t.Fatalf("en document does not link its translation: %s", g.Body)
	}
	g = get(t, ts.URL+"/api/v1/content/posts/bonjour?locale=fr", reader)
	if g.Status != 200 || !strings.Contains(string(g.Body), `"locale":"fr"`) || strings.Contains(string(g.Body), `"fallback":true`) {
		t.Fatalf("served fr: %d %s", g.Status, g.Body)
	}
	// Creating it again is a conflict, in its slug or its path.
	wantError(t, wr(t, "POST", ts.URL+"/api/v1/content/posts?locale=fr", editor, `{"title": "Bonjour"}`), http.StatusConflict, "CONFLICT")
	wantError(t, wr(t, "POST", ts.URL+"/api/v1/content/posts?locale=fr&translationOf=hello", editor, `{"title": "Autre"}`), http.StatusConflict, "CONFLICT")
	wantError(t, wr(t, "POST", ts.URL+"/api/v1/content/posts?locale=fr&translationOf=nope", editor, `{"title": "X"}`), http.StatusNotFound, "NOT_FOUND")

	// PATCH in fr by the en slug, with the fr ETag: the fr file only.
	etag := g.Header.Get("ETag")
	r = wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?locale=fr", editor, `{"data": {"rating": 5}}`, "If-Match", etag)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"rating":5`) || !strings.Contains(string(r.Body), `"locale":"fr"`) {
		t.Fatalf("patch fr: %d %s", r.Status, r.Body)
	}
	if got := remoteFile(t, repo.bare, "content/fr/posts/hello.md"); !strings.Contains(got, "rating: 5") {
		t.Fatalf("fr file: %q", got)
	}
	if remoteFile(t, repo.bare, "content/en/posts/hello.md") != enHello {
		t.Fatal("a fr write changed the en file")
	}
	// The fr ETag is stale now; the en one is not the fr document's.
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/content/posts/bonjour?locale=fr", editor, `{"data": {"rating": 6}}`, "If-Match", etag), http.StatusPreconditionFailed, "PRECONDITION_FAILED")
	enTag := get(t, ts.URL+"/api/v1/content/posts/hello", reader).Header.Get("ETag")
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/content/posts/bonjour?locale=fr", editor, `{"data": {"rating": 6}}`, "If-Match", enTag), http.StatusPreconditionFailed, "PRECONDITION_FAILED")
	// The model validates the fr document.
	r = wr(t, "PATCH", ts.URL+"/api/v1/content/posts/bonjour?locale=fr", editor, `{"data": {"rating": -1}}`)
	wantError(t, r, http.StatusUnprocessableEntity, "VALIDATION")
	// An unknown locale is 400 naming the known ones, nothing written.
	head := git(t, repo.bare, "rev-parse", "main")
	r = wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?locale=es", editor, `{"data": {"rating": 1}}`)
	wantError(t, r, http.StatusBadRequest, "BAD_REQUEST")
	if !strings.Contains(string(r.Body), "en, fr, de") {
		t.Fatalf("unknown locale: %s", r.Body)
	}
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?locale=", editor, `{"data": {"rating": 1}}`), http.StatusBadRequest, "BAD_REQUEST")
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?locale=..%2Ffr", editor, `{"data": {"rating": 1}}`), http.StatusBadRequest, "BAD_REQUEST")
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/globals?locale=xx", editor, `{"siteName": "X"}`), http.StatusBadRequest, "BAD_REQUEST")
	wantError(t, wr(t, "POST", ts.URL+"/api/v1/content/posts?locale=fr&translationOf=..%2Fhello", editor, `{"title": "X"}`), http.StatusBadRequest, "BAD_REQUEST")
	wantError(t, wr(t, "POST", ts.URL+"/api/v1/content/posts?locale=fr", editor, `{"title": "X", "slug": "../x"}`), http.StatusUnprocessableEntity, "VALIDATION")
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?translationOf=x", editor, `{"data": {"rating": 1}}`), http.StatusBadRequest, "BAD_REQUEST")
	// A document the locale lacks is 404 for a PATCH (no write to a fallback).
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?locale=de", editor, `{"data": {"rating": 1}}`), http.StatusNotFound, "NOT_FOUND")
	if git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatal("a refused write was committed")
	}

	// The default locale, with or without ?locale=, writes the en file.
	r = wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello", editor, `{"data": {"rating": 7}}`)
	if r.Status != 200 || !strings.Contains(remoteFile(t, repo.bare, "content/en/posts/hello.md"), "rating: 7") {
		t.Fatalf("default write: %d %s", r.Status, r.Body)
	}
	// A new document in a locale without a translation: its locale's folder.
	r = wr(t, "POST", ts.URL+"/api/v1/content/posts?locale=de", editor, `{"title": "Nur Deutsch"}`)
	if r.Status != http.StatusCreated || remoteFile(t, repo.bare, "content/de/posts/nur-deutsch.md") == "" {
		t.Fatalf("create de: %d %s", r.Status, r.Body)
	}
	// A page translated: content/fr/about.md, a root file of the locale.
	r = wr(t, "POST", ts.URL+"/api/v1/pages?locale=fr&translationOf=about", editor, `{"title": "À propos", "slug": "a-propos"}`)
	if r.Status != http.StatusCreated || !strings.Contains(remoteFile(t, repo.bare, "content/fr/about.md"), "slug: a-propos") {
		t.Fatalf("create fr page: %d %s", r.Status, r.Body)
	}
	if g := get(t, ts.URL+"/api/v1/pages/about?locale=en", reader); !strings.Contains(string(g.Body), `"fr":{"slug":"a-propos"`) {
		t.Fatalf("en page does not link its translation: %s", g.Body)
	}

	// Globals in a locale: globals.fr.yaml, over the default's key by key.
	r = wr(t, "PATCH", ts.URL+"/api/v1/globals?locale=fr", editor, `{"siteName": "Site FR"}`)
	if r.Status != 200 || remoteFile(t, repo.bare, "globals.fr.yaml") != "siteName: Site FR\n" || remoteFile(t, repo.bare, "globals.yaml") != "siteName: Site\nnav: []\n" {
		t.Fatalf("globals fr: %d %s / %q", r.Status, r.Body, remoteFile(t, repo.bare, "globals.fr.yaml"))
	}
	if g := get(t, ts.URL+"/api/v1/globals?locale=fr", reader); !strings.Contains(string(g.Body), `"siteName":"Site FR"`) {
		t.Fatalf("served fr globals: %s", g.Body)
	}
	if g := get(t, ts.URL+"/api/v1/globals", reader); !strings.Contains(string(g.Body), `"siteName":"Site"`) {
		t.Fatalf("served en globals: %s", g.Body)
	}

	// DELETE in fr removes the fr file only.
	if r := do(t, "DELETE", ts.URL+"/api/v1/content/posts/bonjour?locale=fr", editor, nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete fr: %d %s", r.Status, r.Body)
	}
	if remoteFile(t, repo.bare, "content/fr/posts/hello.md") != "" || remoteFile(t, repo.bare, "content/en/posts/hello.md") == "" {
		t.Fatal("delete fr: wrong files")
	}
}

func TestWriteLocaleFileLayout(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":             "locales: [en, fr]\nlayout: file\n" + localeModel,
		"content/posts/hello.md": "---\ntitle: Hello\ntranslationKey: greeting\n---\nHello.\n",
		"pages/about.md":         "---\ntitle: About\n---\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "marketing", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	reader := ts.reader(t)

	// The same slug in fr: hello.fr.md beside hello.md, with its
	// translationKey.
	r := wr(t, "POST", ts.URL+"/api/v1/content/posts?locale=fr", editor, `{"title": "Bonjour", "slug": "hello", "body": "Salut."}`)
	if r.Status != http.StatusCreated {
		t.Fatalf("create fr: %d %s", r.Status, r.Body)
	}
	if got := remoteFile(t, repo.bare, "content/posts/hello.fr.md"); got != "---\ntitle: Bonjour\ntranslationKey: greeting\n---\nSalut.\n" {
		t.Fatalf("fr file: %q", got)
	}
	if g := get(t, ts.URL+"/api/v1/content/posts/hello", reader); !strings.Contains(string(g.Body), `"fr":{"slug":"hello"`) {
		t.Fatalf("not linked: %s", g.Body)
	}
	r = wr(t, "PUT", ts.URL+"/api/v1/content/posts/hello?locale=fr", editor, `{"title": "Bonjour!", "body": "Re."}`)
	if r.Status != 200 || remoteFile(t, repo.bare, "content/posts/hello.fr.md") != "---\ntitle: Bonjour!\n---\nRe.\n" {
		t.Fatalf("replace fr: %d %s / %q", r.Status, r.Body, remoteFile(t, repo.bare, "content/posts/hello.fr.md"))
	}
	if !strings.Contains(remoteFile(t, repo.bare, "content/posts/hello.md"), "title: Hello\n") {
		t.Fatal("the en file changed")
	}
	r = wr(t, "POST", ts.URL+"/api/v1/pages?locale=fr", editor, `{"title": "À propos", "slug": "about"}`)
	if r.Status != http.StatusCreated || remoteFile(t, repo.bare, "pages/about.fr.md") == "" {
		t.Fatalf("create fr page: %d %s", r.Status, r.Body)
	}
	r = wr(t, "PUT", ts.URL+"/api/v1/globals?locale=fr", editor, `{"siteName": "Le site"}`)
	if r.Status != 200 || remoteFile(t, repo.bare, "globals.fr.yaml") != "siteName: Le site\n" {
		t.Fatalf("globals fr: %d %s", r.Status, r.Body)
	}
}

func TestWriteLocaleFieldsLayout(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":             "locales: [en, fr]\nlayout: fields\n" + localeModel,
		"content/posts/hello.md": "---\ntitle: {en: Hello, fr: Bonjour}\n# kept\nrating: 3\n---\nHello.\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "marketing", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	reader := ts.reader(t)

	etag := get(t, ts.URL+"/api/v1/content/posts/hello?locale=fr", reader).Header.Get("ETag")
	r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?locale=fr", editor, `{"title": "Salut", "data": {"rating": 4}}`, "If-Match", etag)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"title":"Salut"`) {
		t.Fatalf("patch fr: %d %s", r.Status, r.Body)
	}
	got := remoteFile(t, repo.bare, "content/posts/hello.md")
	if !strings.Contains(got, "fr: Salut") || !strings.Contains(got, "en: Hello") || !strings.Contains(got, "# kept") || !strings.Contains(got, "rating:") || !strings.HasSuffix(got, "---\nHello.\n") {
		t.Fatalf("file: %q", got)
	}
	if g := get(t, ts.URL+"/api/v1/content/posts/hello?locale=en", reader); !strings.Contains(string(g.Body), `"title":"Hello"`) || !strings.Contains(string(g.Body), `"rating":3`) {
		t.Fatalf("en document changed: %s", g.Body)
	}
	if g := get(t, ts.URL+"/api/v1/content/posts/hello?locale=fr", reader); !strings.Contains(string(g.Body), `"rating":4`) {
		t.Fatalf("fr rating: %s", g.Body)
	}
	// The model validates the fr values.
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?locale=fr", editor, `{"data": {"rating": -2}}`), http.StatusUnprocessableEntity, "VALIDATION")
	// DELETE in fr removes the fr values only.
	if r := do(t, "DELETE", ts.URL+"/api/v1/content/posts/hello?locale=fr", editor, nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete fr: %d %s", r.Status, r.Body)
	}
	got = remoteFile(t, repo.bare, "content/posts/hello.md")
	if strings.Contains(got, "fr:") || strings.Contains(got, "Salut") || !strings.Contains(got, "Hello") {
		t.Fatalf("after delete fr: %q", got)
	}
}

func TestWriteLocaleOnSiteWithout(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "marketing", server.ScopeContentRead, server.ScopeContentWrite)
	r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?locale=fr", editor, `{"data": {"rating": 1}}`)
	wantError(t, r, http.StatusBadRequest, "BAD_REQUEST")
	if !strings.Contains(string(r.Body), "no locales") {
		t.Fatalf("message: %s", r.Body)
	}
}

// TestWriteLocaleDraftAndPublish: a write in a locale on a site with a
// draft branch lands on the draft branch; publishing that document by
// its locale publishes that locale's file only.
func TestWriteLocaleDraftAndPublish(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":                "locales: [en, fr]\nlayout: folder\n" + localeModel,
		"content/en/posts/hello.md": "---\ntitle: Hello\n---\n",
		"content/fr/posts/hello.md": "---\ntitle: Bonjour\nslug: bonjour\n---\n",
	})
	ts := startWriterWith(t, "file://"+repo.bare, "draft")
	boss := ts.key(t, "boss", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	reader := ts.reader(t)
	for _, w := range []struct{ url, body string }{
		{"/api/v1/content/posts/bonjour?locale=fr", `{"title": "Bonjour !"}`},
		{"/api/v1/content/posts/hello", `{"title": "Hello!"}`},
	} {
		if r := wr(t, "PATCH", ts.URL+w.url, boss, w.body); r.Status != 200 {
			t.Fatalf("draft write %s: %d %s", w.url, r.Status, r.Body)
		}
	}
	wantError(t, wr(t, "POST", ts.URL+"/api/v1/publish", boss, `{"documents": [{"type": "posts", "slug": "bonjour", "locale": "es"}]}`), http.StatusBadRequest, "BAD_REQUEST")
	r := wr(t, "POST", ts.URL+"/api/v1/publish", boss, `{"documents": [{"type": "posts", "slug": "hello", "locale": "fr"}]}`)
	if r.Status != 200 || r.json(t)["published"] != true {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	if !strings.Contains(remoteFile(t, repo.bare, "content/fr/posts/hello.md"), "title: Bonjour !") || !strings.Contains(remoteFile(t, repo.bare, "content/en/posts/hello.md"), "title: Hello\n") {
		t.Fatal("publish by locale: wrong files on main")
	}
	if g := get(t, ts.URL+"/api/v1/content/posts/bonjour?locale=fr", reader); !strings.Contains(string(g.Body), "Bonjour !") {
		t.Fatalf("published fr not served: %s", g.Body)
	}
}

// TestWriteLocaleContentDir: a Hugo site with a contentDir per language
// (no folio.yaml): a translation goes to its language's contentDir.
func TestWriteLocaleContentDir(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"hugo.toml":                      "defaultContentLanguage = 'en'\n[languages.en]\ncontentDir = 'content/english'\nweight = 1\n[languages.fr]\ncontentDir = 'content/french'\nweight = 2\n",
		"content/english/posts/hello.md": "---\ntitle: Hello\n---\nHello.\n",
		"content/english/about.md":       "---\ntitle: About\n---\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	reader := ts.reader(t)
	for _, w := range []struct{ url, body, file string }{
		{"/api/v1/content/posts?locale=fr&translationOf=hello", `{"title": "Bonjour", "slug": "bonjour"}`, "content/french/posts/hello.md"},
		{"/api/v1/pages?locale=fr", `{"title": "À propos", "slug": "about"}`, "content/french/about.md"},
		{"/api/v1/content/posts?locale=fr", `{"title": "Nouveau"}`, "content/french/posts/nouveau.md"},
		{"/api/v1/content/posts", `{"title": "New"}`, "content/english/posts/new.md"},
	} {
		r := wr(t, "POST", ts.URL+w.url, editor, w.body)
		if r.Status != http.StatusCreated || remoteFile(t, repo.bare, w.file) == "" {
			t.Fatalf("POST %s: %d %s (want %s)", w.url, r.Status, r.Body, w.file)
		}
	}
	if g := get(t, ts.URL+"/api/v1/content/posts/hello", reader); !strings.Contains(string(g.Body), `"fr":{"slug":"bonjour"`) {
		t.Fatalf("not linked: %s", g.Body)
	}
}

// TestWriteLocaleGlobalsFolder: a site keeping its globals in a folder
// per locale (globals/en.yaml): a locale's globals go to globals/<code>.yaml.
func TestWriteLocaleGlobalsFolder(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":                "locales: [en, fr]\nlayout: folder\n" + localeModel,
		"globals/en.yaml":           "siteName: Site\n",
		"content/en/posts/hello.md": "---\ntitle: Hello\n---\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	if r := wr(t, "PATCH", ts.URL+"/api/v1/globals?locale=fr", editor, `{"siteName": "Le site"}`); r.Status != 200 || remoteFile(t, repo.bare, "globals/fr.yaml") != "siteName: Le site\n" {
		t.Fatalf("fr globals: %d %s", r.Status, r.Body)
	}
	if r := wr(t, "PATCH", ts.URL+"/api/v1/globals", editor, `{"siteName": "The site"}`); r.Status != 200 || remoteFile(t, repo.bare, "globals/en.yaml") != "siteName: The site\n" || remoteFile(t, repo.bare, "globals.yaml") != "" {
		t.Fatalf("en globals: %d %s", r.Status, r.Body)
	}
	if g := get(t, ts.URL+"/api/v1/globals?locale=fr", ts.reader(t)); !strings.Contains(string(g.Body), `"siteName":"Le site"`) {
		t.Fatalf("served fr globals: %s", g.Body)
	}
}

// TestWriteLocaleUnique: a unique field is unique within a locale: a
// translation shares its document's value, another document of the
// locale may not.
func TestWriteLocaleUnique(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":               "locales: [en, fr]\nlayout: folder\ntypes:\n  products:\n    fields:\n      title: {kind: string, required: true}\n      sku: {kind: string, unique: true}\n",
		"content/en/products/a.md": "---\ntitle: A\nsku: ABC-1\n---\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	if r := wr(t, "POST", ts.URL+"/api/v1/content/products?locale=fr&translationOf=a", editor, `{"title": "A fr", "slug": "a-fr", "data": {"sku": "ABC-1"}}`); r.Status != http.StatusCreated {
		t.Fatalf("translation with its document's sku: %d %s", r.Status, r.Body)
	}
	r := wr(t, "POST", ts.URL+"/api/v1/content/products?locale=fr", editor, `{"title": "B fr", "data": {"sku": "ABC-1"}}`)
	wantError(t, r, http.StatusUnprocessableEntity, "VALIDATION")
	if !strings.Contains(string(r.Body), "products/a-fr") {
		t.Fatalf("unique in fr: %s", r.Body)
	}
}
