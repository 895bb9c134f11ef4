package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// One Decap save sends one data file per locale of the site; each is a
// commit, a push and a reload made while every other save waits. A
// persistEntry of 20,000 tiny data files (2 MB) held the write lock for
// minutes and left thousands of commits when the client went away. More
// data files than the site has locales is 400, nothing committed.
func TestHostileDecapManyDataFiles(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	ts := startWriter(t, "file://"+repo.bare)
	key := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	before := git(t, repo.bare, "rev-parse", "main")
	var files []map[string]any
	for i := range 3 {
		p := fmt.Sprintf("content/posts/many-%d.md", i)
		files = append(files, map[string]any{"slug": fmt.Sprintf("many-%d", i), "path": p, "raw": "---\ntitle: Many\n---\nText.\n"})
	}
	params := map[string]any{"branch": "main", "dataFiles": files, "assets": []any{}, "options": map[string]any{}}
	wantError(t, rpc(t, ts.URL, key, "persistEntry", params), http.StatusBadRequest, server.CodeBadRequest)
	if got := git(t, repo.bare, "rev-parse", "main"); got != before {
		t.Fatalf("a refused save committed: %s", git(t, repo.bare, "log", "--stat", "-1", "main"))
	}
	// One data file is a save.
	params["dataFiles"] = files[:1]
	if r := rpc(t, ts.URL, key, "persistEntry", params); r.Status != http.StatusOK {
		t.Fatalf("one data file: %d %s", r.Status, r.Body)
	}
}

// A preview link grants no more than its key: revoking a leaked key ends
// its links too (they showed the key's drafts for up to 7 days after),
// and so does its expiry; a key made again under the same id does not
// bring the old links back.
func TestHostilePreviewOfRevokedKey(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":         "types:\n  posts:\n    public: true\n",
		"content/posts/a.md": "---\ntitle: A\ndate: 2024-01-01\n---\nA\n",
		"content/posts/d.md": "---\ntitle: D\ndate: 2024-01-01\ndraft: true\n---\nD\n",
	})
	clk := newClock(time.Now())
	ts := startServer(t, repo.bare, func(e *engine.Config, s *server.Config) {
		s.PreviewSecret = "s3cret"
		s.Now, e.Now = clk.Now, clk.Now
	})
	mint := func(name string) string {
		t.Helper()
		k := ts.key(t, name, server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentPreview)
		r := do(t, http.MethodPost, ts.URL+"/api/v1/previews", k, strings.NewReader(`{"ref":"main"}`), "Content-Type", "application/json")
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		return r.json(t)["token"].(string)
	}
	draft := func(tok string) int {
		t.Helper()
		return get(t, ts.URL+"/api/v1/content/posts/d?draft=true&preview="+tok, "").Status
	}
	tok := mint("leaked")
	if s := draft(tok); s != http.StatusOK {
		t.Fatalf("a draft through a live key's link: %d", s)
	}
	if err := ts.keys.Revoke("leaked"); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"/api/v1/content/posts/d?draft=true&", "/api/v1/public/collections/posts/a?", "/api/v1/content/posts/a?"} {
		wantError(t, get(t, ts.URL+u+"preview="+tok, ""), http.StatusUnauthorized, server.CodeUnauthorized)
	}
	delete(ts.secret, "leaked")
	_ = mint("leaked") // the same id, a new key
	if s := draft(tok); s != http.StatusUnauthorized {
		t.Fatalf("the revoked key's link through a new key of its id: %d", s)
	}
	// An expired key's links end with it.
	tok = mint("temp")
	if err := ts.keys.SetAccount("temp", "", clk.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if s := draft(tok); s != http.StatusOK {
		t.Fatalf("before the key expires: %d", s)
	}
	clk.Add(2 * time.Minute)
	if s := draft(tok); s != http.StatusUnauthorized {
		t.Fatalf("after the key expired: %d", s)
	}
}

// Decap's rename racing an edit: the old file changed after the editor
// opened it. The rename is refused (412) and leaves one entry, the
// edited one: it wrote the new file, then refused the removal of the old,
// and the 412 left two entries. Raced many times, a rename either moves
// the file or leaves it where it was, never both.
func TestHostileDecapRenameRacingAnEdit(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	ts := startWriter(t, "file://"+repo.bare)
	key := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	open := func(p string) (raw, id string) {
		t.Helper()
		r := rpc(t, ts.URL, key, "getEntry", map[string]any{"branch": "main", "path": p})
		if r.Status != http.StatusOK {
			t.Fatalf("getEntry: %d %s", r.Status, r.Body)
		}
		m := r.json(t)
		return m["data"].(string), m["file"].(map[string]any)["id"].(string)
	}
	rename := func(from, to, raw, base string) response {
		return rpc(t, ts.URL, key, "persistEntry", map[string]any{"branch": "main", "dataFiles": []map[string]any{{
			"slug": strings.TrimSuffix(to[len("content/posts/"):], ".md"), "path": from, "newPath": to, "raw": raw, "base": base}},
			"assets": []any{}, "options": map[string]any{}})
	}
	exists := func(p string) bool {
		_, err := gitOut(repo.bare, "cat-file", "-e", "main:"+p)
		return err == nil
	}
	raw, id := open("content/posts/hello.md")
	if r := wr(t, http.MethodPatch, ts.URL+"/api/v1/content/posts/hello", key, `{"rating":4}`); r.Status != http.StatusOK {
		t.Fatalf("the edit: %d %s", r.Status, r.Body)
	}
	wantError(t, rename("content/posts/hello.md", "content/posts/hello-2.md", raw, id), http.StatusPreconditionFailed, server.CodePreconditionFailed)
	if exists("content/posts/hello-2.md") || !strings.Contains(remoteFile(t, repo.bare, "content/posts/hello.md"), "rating: 4") {
		t.Fatalf("a refused rename changed the branch: %s", git(t, repo.bare, "log", "--stat", "-2", "main"))
	}
	// Raced: an edit and a rename sent at once, from one version.
	for i := range 4 {
		from, to := fmt.Sprintf("content/posts/r%d.md", i), fmt.Sprintf("content/posts/r%d-moved.md", i)
		if r := wr(t, http.MethodPost, ts.URL+"/api/v1/content/posts", key, fmt.Sprintf(`{"slug":"r%d","title":"R"}`, i)); r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		raw, id := open(from)
		var moved response
		done := make(chan struct{})
		go func() { moved = rename(from, to, raw, id); close(done) }()
		wr(t, http.MethodPatch, ts.URL+fmt.Sprintf("/api/v1/content/posts/r%d", i), key, `{"rating":1}`)
		<-done
		if exists(from) == exists(to) {
			t.Fatalf("round %d: rename %d %s; old there %v, new there %v", i, moved.Status, moved.Body, exists(from), exists(to))
		}
		if (moved.Status == http.StatusOK) != exists(to) {
			t.Fatalf("round %d: rename answered %d %s, new file there: %v", i, moved.Status, moved.Body, exists(to))
		}
	}
}

// On a site without locales, <type>/_index.md is Hugo's list page of the
// section, which no route serves: a create of the slug _index answered
// 201 with a document nobody could read, and a DELETE removed the
// section's page. Now 422 and 404, nothing committed.
func TestHostileWriteSectionIndex(t *testing.T) {
	t.Parallel()
	site := map[string]string{"content/posts/_index.md": "---\ntitle: All posts\n---\n"}
	for k, v := range writeSite {
		site[k] = v
	}
	repo := newRepo(t, site)
	ts := startWriter(t, "file://"+repo.bare)
	key := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	before := git(t, repo.bare, "rev-parse", "main")
	wantError(t, wr(t, http.MethodPost, ts.URL+"/api/v1/pages", key, `{"slug":"_index","title":"Index"}`), http.StatusUnprocessableEntity, server.CodeValidation)
	wantError(t, wr(t, http.MethodPost, ts.URL+"/api/v1/content/posts", key, `{"slug":"_index","title":"Index"}`), http.StatusUnprocessableEntity, server.CodeValidation)
	wantError(t, do(t, http.MethodDelete, ts.URL+"/api/v1/content/posts/_index", key, nil), http.StatusNotFound, server.CodeNotFound)
	wantError(t, wr(t, http.MethodPatch, ts.URL+"/api/v1/content/posts/_index", key, `{"title":"X"}`), http.StatusNotFound, server.CodeNotFound)
	if got := git(t, repo.bare, "rev-parse", "main"); got != before {
		t.Fatalf("a refused write committed: %s", git(t, repo.bare, "log", "--stat", "-1", "main"))
	}
}
