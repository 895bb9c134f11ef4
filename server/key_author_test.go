package server_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

// TestKeyAuthor: a key carries a display name and its own e-mail, and
// the commits made with it (the write API's, Decap's saves and notes)
// read "Mira Hofer <mira@example.com>"; a key without them (an old keys
// file's) commits as its id with the box's --write-author-email.
func TestKeyAuthor(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, decapSite)
	w := startDecapWriter(t, "file://"+repo.bare)
	scopes := []string{server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite}
	mira, err := w.keys.CreateKey(server.KeySpec{DisplayName: "Mira Hofer", Email: "mira@example.com", Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	// A second editor of the same name is a key of another id.
	if _, err := w.keys.CreateKey(server.KeySpec{DisplayName: "Mira Hofer", Email: "mira@example.com", Scopes: scopes}); err == nil || !strings.Contains(err.Error(), "--id") {
		t.Fatalf("a second key mira-hofer: %v", err)
	}
	if _, err := w.keys.CreateKey(server.KeySpec{ID: "mira-2", DisplayName: "Mira Hofer", Email: "mira.h@example.com", Scopes: scopes}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []server.KeySpec{
		{DisplayName: "Eve <eve@evil>", Scopes: scopes},
		{DisplayName: "Eve\nBad", Scopes: scopes},
		{DisplayName: "Eve", Email: "Eve <eve@example.com>", Scopes: scopes},
		{DisplayName: "Eve", Email: "not an address", Scopes: scopes},
		{DisplayName: "   ", Scopes: scopes},
	} {
		if _, err := w.keys.CreateKey(bad); err == nil {
			t.Errorf("CreateKey(%+v) was accepted", bad)
		}
	}
	// An old key: a name (the id) and no e-mail.
	old := w.key(t, "marketing", scopes...)
	// The keys file keeps the id apart from the display name.
	b, err := os.ReadFile(w.keysFile)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, "name: mira-hofer\n") || !strings.Contains(s, "displayName: Mira Hofer\n") || !strings.Contains(s, "email: mira@example.com\n") {
		t.Fatalf("keys file:\n%s", s)
	}

	author := func(ref string) string { return git(t, repo.bare, "log", "-1", "--format=%an <%ae>", ref) }

	// The write API.
	r := wr(t, "POST", w.URL+"/api/v1/content/posts", mira, `{"title": "By Mira", "body": "Text."}`)
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	if got := author("main"); got != "Mira Hofer <mira@example.com>" {
		t.Fatalf("write API commit author: %q", got)
	}
	r = wr(t, "POST", w.URL+"/api/v1/content/posts", old, `{"title": "By marketing", "body": "Text."}`)
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	if got := author("main"); got != "marketing <editors@example.com>" {
		t.Fatalf("old key's commit author: %q", got)
	}

	// Decap: a save, and a note of the editorial workflow.
	wantOK(t, rpcOpened(t, w.URL, mira, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "hello", "path": "content/posts/hello.md", "raw": "---\ntitle: Hello\n---\nEdited by Mira.\n"}},
		"assets":    []any{}, "options": map[string]any{"commitMessage": "Update hello", "useWorkflow": false}}))
	if got := author("main"); got != "Mira Hofer <mira@example.com>" {
		t.Fatalf("Decap commit author: %q", got)
	}
	wantOK(t, rpcOpened(t, w.URL, mira, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "hello", "path": "content/posts/hello.md", "raw": "---\ntitle: Hello\n---\nA workflow edit.\n"}},
		"assets":    []any{}, "options": map[string]any{"collectionName": "posts", "commitMessage": "Update hello", "useWorkflow": true, "status": "draft"}}))
	if got := author("cms/posts/hello"); got != "Mira Hofer <mira@example.com>" {
		t.Fatalf("workflow commit author: %q", got)
	}
	r = rpc(t, w.URL, mira, "addNote", map[string]any{"branch": "main", "collection": "posts", "slug": "hello", "note": map[string]any{"content": "Check the intro."}})
	wantOK(t, r)
	n := r.json(t)["note"].(map[string]any)
	if n["author"] != "Mira Hofer" || n["isOwn"] != true {
		t.Fatalf("note: %s", r.Body)
	}
	if got := author("cms/posts/hello"); got != "Mira Hofer <mira@example.com>" {
		t.Fatalf("note commit author: %q", got)
	}
	// The other Mira Hofer (another key, another e-mail) does not own it.
	other, err := w.keys.CreateKey(server.KeySpec{ID: "mira-3", DisplayName: "Mira Hofer", Email: "someone@example.com", Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	r = rpc(t, w.URL, other, "getNotes", map[string]any{"branch": "main", "collection": "posts", "slug": "hello"})
	wantOK(t, r)
	if ns := r.json(t)["notes"].([]any); len(ns) != 1 || ns[0].(map[string]any)["isOwn"] != false {
		t.Fatalf("notes for another key of the same name: %s", r.Body)
	}
	wantError(t, rpc(t, w.URL, other, "deleteNote", map[string]any{"branch": "main", "collection": "posts", "slug": "hello", "noteId": n["id"]}), http.StatusForbidden, "FORBIDDEN")
}
