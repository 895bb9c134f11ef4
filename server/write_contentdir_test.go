package server_test

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

// A Hugo site whose French contentDir is outside content/ (content_fr):
// writes in French go there, through the write API and Decap's RPC; a
// path outside the site's content folders stays refused.

var contentDirSite = map[string]string{
	"hugo.toml":                 "defaultContentLanguage = 'en'\n[languages.en]\ncontentDir = 'content'\nweight = 1\n[languages.fr]\ncontentDir = 'content_fr'\nweight = 2\n",
	"folio.yaml":                localeModel,
	"content/posts/hello.md":    "---\ntitle: Hello\nrating: 3\n---\nHello.\n",
	"content_fr/posts/hello.md": "---\ntitle: Bonjour\nslug: bonjour\nrating: 3\n---\nBonjour.\n",
	"content_fr/about.md":       "---\ntitle: À propos\n---\n",
}

func TestWriteLocaleContentDirOutside(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, contentDirSite)
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	reader := ts.reader(t)
	if g := get(t, ts.URL+"/api/v1/content/posts/bonjour?locale=fr", reader); g.Status != 200 {
		t.Fatalf("read fr: %d %s", g.Status, g.Body)
	}
	r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/bonjour?locale=fr", editor, `{"title": "Bonjour !"}`)
	if r.Status != 200 || !strings.Contains(remoteFile(t, repo.bare, "content_fr/posts/hello.md"), "title: Bonjour !") {
		t.Fatalf("patch fr: %d %s", r.Status, r.Body)
	}
	for _, w := range []struct{ url, body, file string }{
		{"/api/v1/content/posts?locale=fr", `{"title": "Nouveau"}`, "content_fr/posts/nouveau.md"},
		{"/api/v1/pages?locale=fr", `{"title": "Contact", "slug": "contact"}`, "content_fr/contact.md"},
		{"/api/v1/content/posts", `{"title": "New"}`, "content/posts/new.md"},
		{"/api/v1/content/posts?locale=fr&translationOf=new", `{"title": "Neuf", "slug": "neuf"}`, "content_fr/posts/new.md"},
	} {
		r := wr(t, "POST", ts.URL+w.url, editor, w.body)
		if r.Status != http.StatusCreated || remoteFile(t, repo.bare, w.file) == "" {
			t.Fatalf("POST %s: %d %s (want %s)", w.url, r.Status, r.Body, w.file)
		}
	}
	if g := get(t, ts.URL+"/api/v1/content/posts/neuf?locale=fr", reader); g.Status != 200 || !strings.Contains(string(g.Body), `"en":{"slug":"new"`) {
		t.Fatalf("served fr: %d %s", g.Status, g.Body)
	}
	// A French rename to a slug another French document has is refused.
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/content/posts/bonjour?locale=fr", editor, `{"slug": "nouveau"}`), http.StatusConflict, "CONFLICT")
	// The model validates the French file.
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/content/posts/bonjour?locale=fr", editor, `{"data": {"rating": -1}}`), http.StatusUnprocessableEntity, "VALIDATION")
	if r := do(t, "DELETE", ts.URL+"/api/v1/content/posts/nouveau?locale=fr", editor, nil); r.Status != http.StatusNoContent || remoteFile(t, repo.bare, "content_fr/posts/nouveau.md") != "" {
		t.Fatalf("delete fr: %d %s", r.Status, r.Body)
	}
}

func TestDecapI18nContentDirOutside(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, contentDirSite)
	ts := startDecapWriter(t, "file://"+repo.bare)
	key := ts.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	es := decapEntries(t, rpc(t, ts.URL, key, "entriesByFolder", map[string]any{"branch": "main", "folder": "content/posts", "extension": "md", "depth": 2}))
	if len(es) != 2 || !strings.Contains(es["content/posts/en/hello.md"], "Hello") || !strings.Contains(es["content/posts/fr/hello.md"], "Bonjour") {
		t.Fatalf("entriesByFolder: %v", es)
	}
	r := rpc(t, ts.URL, key, "getEntry", map[string]any{"branch": "main", "path": "content/posts/fr/hello.md"})
	if wantOK(t, r); !strings.Contains(string(r.Body), "Bonjour") {
		t.Fatalf("getEntry: %s", r.Body)
	}
	r = rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{
			{"slug": "launch", "path": "content/posts/en/launch.md", "raw": "---\ntitle: Launch\n---\nWe launched.\n"},
			{"slug": "launch", "path": "content/posts/fr/launch.md", "raw": "---\ntitle: Lancement\n---\nLancé.\n"},
		},
		"options": map[string]any{"commitMessage": "Create launch"}})
	wantOK(t, r)
	if !strings.Contains(remoteFile(t, repo.bare, "content_fr/posts/launch.md"), "Lancement") || remoteFile(t, repo.bare, "content/posts/launch.md") == "" || remoteFile(t, repo.bare, "content/posts/fr/launch.md") != "" {
		t.Fatal("the locales' files are not where the site keeps them")
	}
	if g := get(t, ts.URL+"/api/v1/content/posts/launch?locale=fr", ts.reader(t)); !strings.Contains(string(g.Body), `"title":"Lancement"`) {
		t.Fatalf("served fr: %s", g.Body)
	}
	r = rpc(t, ts.URL, key, "deleteFiles", map[string]any{"branch": "main", "paths": []string{"content/posts/en/launch.md", "content/posts/fr/launch.md"}})
	wantOK(t, r)
	if remoteFile(t, repo.bare, "content_fr/posts/launch.md") != "" || remoteFile(t, repo.bare, "content/posts/launch.md") != "" {
		t.Fatal("delete left a locale's file")
	}
	// A path outside the site's content folders stays refused.
	head := git(t, repo.bare, "rev-parse", "main")
	for _, p := range []string{"content_de/posts/x.md", "other/posts/x.md"} {
		r = rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
			"dataFiles": []map[string]any{{"slug": "x", "path": p, "raw": "---\ntitle: X\n---\n"}},
			"options":   map[string]any{"commitMessage": "x"}})
		if r.Status != http.StatusBadRequest {
			t.Fatalf("persist %s: %d %s", p, r.Status, r.Body)
		}
	}
	if git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatal("a refused path was written")
	}
}

// TestDecapI18nWorkflowContentDirOutside: under the editorial workflow,
// an entry's French file is on its branch in content_fr/, named by
// Decap's path in the diffs, read as its data file and published there.
func TestDecapI18nWorkflowContentDirOutside(t *testing.T) {
	t.Parallel()
	site := maps.Clone(contentDirSite)
	site["folio.yaml"] = "decap: {publishMode: editorial_workflow}\n" + localeModel
	repo := newRepo(t, site)
	ts := startDecapWriter(t, "file://"+repo.bare)
	key := ts.key(t, "grace", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	wantOK(t, rpcOpened(t, ts.URL, key, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{
			{"slug": "launch", "path": "content/posts/en/launch.md", "raw": "---\ntitle: Launch\n---\nWe launched.\n"},
			{"slug": "launch", "path": "content/posts/fr/launch.md", "raw": "---\ntitle: Lancement\n---\nLancé.\n"},
		},
		"options": map[string]any{"collectionName": "posts", "commitMessage": "Create launch", "useWorkflow": true, "status": "draft"}}))
	if _, err := gitOut(repo.bare, "show", "cms/posts/launch:content_fr/posts/launch.md"); err != nil {
		t.Fatal("the French file is not in content_fr/ on the entry's branch")
	}
	r := rpc(t, ts.URL, key, "unpublishedEntry", map[string]any{"branch": "main", "id": "posts/launch"})
	wantOK(t, r)
	var paths []string
	for _, d := range r.json(t)["diffs"].([]any) {
		paths = append(paths, d.(map[string]any)["path"].(string))
	}
	slices.Sort(paths)
	if !slices.Equal(paths, []string{"content/posts/en/launch.md", "content/posts/fr/launch.md"}) {
		t.Fatalf("diffs: %s", r.Body)
	}
	r = rpc(t, ts.URL, key, "unpublishedEntryDataFile", map[string]any{"branch": "main", "collection": "posts", "slug": "launch", "id": "x", "path": "content/posts/fr/launch.md"})
	if wantOK(t, r); !strings.Contains(r.json(t)["data"].(string), "Lancement") {
		t.Fatalf("data file: %s", r.Body)
	}
	wantOK(t, rpc(t, ts.URL, key, "publishUnpublishedEntry", map[string]any{"branch": "main", "collection": "posts", "slug": "launch"}))
	if !strings.Contains(remoteFile(t, repo.bare, "content_fr/posts/launch.md"), "Lancement") || remoteFile(t, repo.bare, "content/posts/launch.md") == "" {
		t.Fatal("published files not on main")
	}
}
