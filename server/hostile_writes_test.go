package server_test

import (
	"fmt"
	"net/http"
	"testing"

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
