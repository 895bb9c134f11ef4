package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

// A Hugo site whose about page is a leaf bundle (content/about/index.md)
// and whose post b is one with a resource beside it (notes.md).
var bundleSite = map[string]string{
	"hugo.toml":                "title = \"x\"\nbaseURL = \"https://x/\"\n",
	"content/about/index.md":   "---\ntitle: About\n---\nHi.\n",
	"content/posts/a.md":       "---\ntitle: A\n---\nA.\n",
	"content/posts/b/index.md": "---\ntitle: B\n---\nB.\n",
	"content/posts/b/notes.md": "---\ntitle: Notes\n---\nNotes.\n",
}

// The page of a leaf bundle is served as a page and written in its
// index file, by the write API and by Decap's RPC alike: never a new
// content/about.md or pages/about.md; a bundle's resource is no document.
func TestWriteLeafBundlePage(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, bundleSite)
	ts := startDecapWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	reader := ts.reader(t)
	if g := get(t, ts.URL+"/api/v1/pages/about", reader); g.Status != 200 || !strings.Contains(string(g.Body), `"path":"/about/"`) {
		t.Fatalf("read about: %d %s", g.Status, g.Body)
	}
	for _, u := range []string{"/api/v1/content/about", "/api/v1/content/about/index", "/api/v1/content/posts/b/notes"} {
		if g := get(t, ts.URL+u, reader); g.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d %s", u, g.Status, g.Body)
		}
	}
	noOtherFile := func(when string) {
		t.Helper()
		for _, p := range []string{"content/about.md", "pages/about.md", "content/about/about.md"} {
			if remoteFile(t, repo.bare, p) != "" {
				t.Fatalf("%s: %s was written", when, p)
			}
		}
	}

	r := wr(t, "PATCH", ts.URL+"/api/v1/pages/about", editor, `{"title": "About us"}`)
	if r.Status != 200 || !strings.Contains(remoteFile(t, repo.bare, "content/about/index.md"), "title: About us") {
		t.Fatalf("patch: %d %s\n%s", r.Status, r.Body, remoteFile(t, repo.bare, "content/about/index.md"))
	}
	noOtherFile("patch")
	r = wr(t, "PUT", ts.URL+"/api/v1/pages/about", editor, `{"title": "About", "sections": [{"type": "richText", "data": {"html": "Hello."}}]}`)
	if r.Status != 200 || !strings.Contains(remoteFile(t, repo.bare, "content/about/index.md"), "title: About\n") {
		t.Fatalf("put: %d %s\n%s", r.Status, r.Body, remoteFile(t, repo.bare, "content/about/index.md"))
	}
	noOtherFile("put")
	if g := get(t, ts.URL+"/api/v1/pages/about", reader); g.Status != 200 || !strings.Contains(string(g.Body), `"title":"About"`) {
		t.Fatalf("read after the writes: %d %s", g.Status, g.Body)
	}

	// Decap reads and writes the same file
	key := ts.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	g := rpc(t, ts.URL, key, "getEntry", map[string]any{"branch": "main", "path": "content/about/index.md"})
	if wantOK(t, g); !strings.Contains(string(g.Body), "title: About") {
		t.Fatalf("getEntry: %s", g.Body)
	}
	wantOK(t, rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "about", "path": "content/about/index.md", "raw": "---\ntitle: About Decap\n---\nFrom Decap.\n"}},
		"options":   map[string]any{"commitMessage": "Update about"}}))
	if !strings.Contains(remoteFile(t, repo.bare, "content/about/index.md"), "About Decap") {
		t.Fatal("Decap did not write content/about/index.md")
	}
	noOtherFile("Decap")
	if g := get(t, ts.URL+"/api/v1/pages/about", reader); g.Status != 200 || !strings.Contains(string(g.Body), `"title":"About Decap"`) {
		t.Fatalf("read after Decap: %d %s", g.Status, g.Body)
	}

	// a slug another page has is refused, as for any page
	wr(t, "POST", ts.URL+"/api/v1/pages", editor, `{"title": "Contact", "slug": "contact"}`)
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/pages/about", editor, `{"slug": "contact"}`), http.StatusConflict, "CONFLICT")
	r = rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "about", "path": "content/about/index.md", "raw": "---\ntitle: About\nslug: contact\n---\n"}},
		"options":   map[string]any{"commitMessage": "Rename about"}})
	if r.Status != http.StatusConflict || strings.Contains(remoteFile(t, repo.bare, "content/about/index.md"), "slug: contact") {
		t.Fatalf("Decap's rename to a taken slug: %d %s", r.Status, r.Body)
	}
}

// In a site with locales, a locale's leaf bundle page (in a contentDir
// outside content/, or named for its language) is written in its own
// index file.
func TestWriteLeafBundlePageLocales(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"hugo.toml":                 "defaultContentLanguage = 'en'\n[languages.en]\ncontentDir = 'content'\nweight = 1\n[languages.fr]\ncontentDir = 'content_fr'\nweight = 2\n",
		"content/about/index.md":    "---\ntitle: About\n---\nHi.\n",
		"content_fr/about/index.md": "---\ntitle: À propos\n---\nSalut.\n",
		"content_fr/contact.md":     "---\ntitle: Contact\n---\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	for _, w := range []struct{ loc, title, file string }{
		{"fr", "À propos de nous", "content_fr/about/index.md"},
		{"en", "About us", "content/about/index.md"},
	} {
		r := wr(t, "PATCH", ts.URL+"/api/v1/pages/about?locale="+w.loc, editor, `{"title": "`+w.title+`"}`)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"slug":"about"`) || !strings.Contains(remoteFile(t, repo.bare, w.file), "title: "+w.title) {
			t.Fatalf("patch %s: %d %s", w.loc, r.Status, r.Body)
		}
	}
	for _, p := range []string{"content_fr/about.md", "content/about.md", "pages/about.md", "content/fr/about/index.md"} {
		if remoteFile(t, repo.bare, p) != "" {
			t.Fatalf("%s was written", p)
		}
	}
	if g := get(t, ts.URL+"/api/v1/pages/about?locale=fr", ts.reader(t)); g.Status != 200 || !strings.Contains(string(g.Body), "À propos de nous") {
		t.Fatalf("read fr: %d %s", g.Status, g.Body)
	}
	// the French page is read as a page: a slug another French page has
	// is refused
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/pages/about?locale=fr", editor, `{"slug": "contact"}`), http.StatusConflict, "CONFLICT")
}

// A folder folio.yaml declares a type stays one: its index.md is the
// item index, written as an item is.
func TestWriteLeafBundleDeclaredType(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"hugo.toml":              "title = \"x\"\n",
		"folio.yaml":             "types:\n  about: {public: true}\n",
		"content/about/index.md": "---\ntitle: About\n---\n",
		"content/about/team.md":  "---\ntitle: Team\n---\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	if g := get(t, ts.URL+"/api/v1/pages/about", ts.reader(t)); g.Status != http.StatusNotFound {
		t.Fatalf("page about: %d %s", g.Status, g.Body)
	}
	r := wr(t, "PATCH", ts.URL+"/api/v1/content/about/index", editor, `{"title": "About us"}`)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"slug":"index"`) || !strings.Contains(remoteFile(t, repo.bare, "content/about/index.md"), "title: About us") {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/content/about/index", editor, `{"slug": "team"}`), http.StatusConflict, "CONFLICT")
}

// A write may not change which files of a leaf bundle are documents: a
// new document inside a bundle's folder would be a resource (answered
// 201, never served), and an index file written into a folder of other
// documents would make them resources (one POST of slug "index" into
// posts took every post off the site). Both are a 409 that writes
// nothing; the bundle's own index and documents outside stay writable.
func TestWriteLeafBundleConflicts(t *testing.T) {
	t.Parallel()
	site := map[string]string{}
	for k, v := range bundleSite {
		site[k] = v
	}
	site["content/posts/c/x.md"] = "---\ntitle: X\n---\nX.\n"
	repo := newRepo(t, site)
	ts := startDecapWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	reader := ts.reader(t)
	head := git(t, repo.bare, "rev-parse", "main")

	wantError(t, wr(t, "POST", ts.URL+"/api/v1/content/posts", editor, `{"title": "Extra", "slug": "b/extra"}`), http.StatusConflict, "CONFLICT")
	wantError(t, wr(t, "POST", ts.URL+"/api/v1/content/posts", editor, `{"title": "Idx", "slug": "index"}`), http.StatusConflict, "CONFLICT")
	key := ts.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	g := rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "c", "path": "content/posts/c/index.md", "raw": "---\ntitle: C\n---\nC.\n"}},
		"options":   map[string]any{"commitMessage": "c"}})
	if g.Status != http.StatusConflict {
		t.Fatalf("Decap's c/index.md beside c/x.md: %d %s", g.Status, g.Body)
	}
	if h := git(t, repo.bare, "rev-parse", "main"); h != head {
		t.Fatalf("a refused write committed: %s -> %s", head, h)
	}
	for _, u := range []string{"/api/v1/content/posts/a", "/api/v1/content/posts/b", "/api/v1/content/posts/c/x", "/api/v1/pages/about"} {
		if g := get(t, ts.URL+u, reader); g.Status != 200 {
			t.Errorf("GET %s after the refused writes: %d %s", u, g.Status, g.Body)
		}
	}

	// still writable: the bundle's own index, a document outside, a new
	// bundle in an empty folder
	if r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/b", editor, `{"title": "B2"}`); r.Status != 200 {
		t.Fatalf("patch b: %d %s", r.Status, r.Body)
	}
	if r := wr(t, "POST", ts.URL+"/api/v1/content/posts", editor, `{"title": "D", "slug": "d"}`); r.Status != 201 {
		t.Fatalf("post d: %d %s", r.Status, r.Body)
	}
	wantOK(t, rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "e", "path": "content/posts/e/index.md", "raw": "---\ntitle: E\n---\nE.\n"}},
		"options":   map[string]any{"commitMessage": "e"}}))
}

// Whether a write changes what a leaf bundle holds is the loader's own
// decision, not a folder's name: a nested bundle named like its type
// (content/posts/posts/index.md) is a bundle, so a new post inside it is
// a 409; a declared type's folder stays a type even with an index file,
// so a guide with slug index is written and served, the other guides
// with it. On a Zola site a bundle's .md files are pages: a new post
// beside b/index.md is written and served.
func TestWriteLeafBundleByLoader(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"hugo.toml":                    "title = \"x\"\nbaseURL = \"https://x/\"\n",
		"folio.yaml":                   "types:\n  guides:\n    public: true\n",
		"content/guides/a.md":          "---\ntitle: GA\n---\nA.\n",
		"content/posts/a.md":           "---\ntitle: A\n---\nA.\n",
		"content/posts/posts/index.md": "---\ntitle: PP\n---\nPP.\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	reader := ts.reader(t)
	head := git(t, repo.bare, "rev-parse", "main")
	wantError(t, wr(t, "POST", ts.URL+"/api/v1/content/posts", editor, `{"title": "In", "slug": "posts/in"}`), http.StatusConflict, "CONFLICT")
	if h := git(t, repo.bare, "rev-parse", "main"); h != head {
		t.Fatalf("a refused write committed: %s -> %s", head, h)
	}
	if r := wr(t, "POST", ts.URL+"/api/v1/content/guides", editor, `{"title": "GI", "slug": "index"}`); r.Status != 201 {
		t.Fatalf("post guides/index: %d %s", r.Status, r.Body)
	}
	for _, u := range []string{"/api/v1/content/guides/a", "/api/v1/content/guides/index", "/api/v1/content/posts/posts"} {
		if g := get(t, ts.URL+u, reader); g.Status != 200 {
			t.Errorf("GET %s: %d %s", u, g.Status, g.Body)
		}
	}

	zola := newRepo(t, map[string]string{
		"config.toml":              "base_url = \"https://z/\"\n",
		"content/posts/_index.md":  "+++\ntitle = \"Posts\"\n+++\n",
		"content/posts/b/index.md": "+++\ntitle = \"B\"\n+++\nB.\n",
		"content/posts/b/notes.md": "+++\ntitle = \"N\"\n+++\nN.\n",
	})
	zs := startWriter(t, "file://"+zola.bare)
	zed := zs.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	if r := wr(t, "POST", zs.URL+"/api/v1/content/posts", zed, `{"title": "Extra", "slug": "b/extra"}`); r.Status != 201 {
		t.Fatalf("zola post b/extra: %d %s", r.Status, r.Body)
	}
	for _, u := range []string{"/api/v1/content/posts/b", "/api/v1/content/posts/b/notes", "/api/v1/content/posts/b/extra"} {
		if g := get(t, zs.URL+u, zs.reader(t)); g.Status != 200 {
			t.Errorf("zola GET %s: %d %s", u, g.Status, g.Body)
		}
	}
}
