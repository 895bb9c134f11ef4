package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/server"
)

// The hostile pass of issue 29 on the bounded write queue: behind a
// push that hangs, a Decap save, a Decap delete, a workflow publish and
// POST /api/v1/publish are each a 503 with Retry-After, nothing written,
// as the write API's PATCH is (TestWriteQueueBounded).
func TestHostileQueueBoundsDecapAndPublish(t *testing.T) {
	repo := newRepo(t, writeSite)
	git(t, repo.bare, "branch", "draft", "main")
	ts := startWriterCfg(t, "file://"+repo.bare, func(e *engine.Config, w *write.Config) {
		e.DraftBranch = "draft"
		w.QueueWait, w.PushTimeout = time.Second, 60*time.Second
	})
	key := ts.key(t, "ed", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	blob := func(path string) string { return git(t, repo.bare, "rev-parse", "draft:"+path) }
	rpc := func(action string, params map[string]any) string {
		params["branch"] = "draft"
		b, _ := json.Marshal(map[string]any{"action": action, "params": params})
		return string(b)
	}
	// A workflow entry to publish, made before the remote hangs.
	if r := wr(t, "POST", ts.URL+"/api/v1/decap", key, rpc("persistEntry", map[string]any{
		"dataFiles": []map[string]any{{"slug": "about", "path": "pages/about.md", "raw": "---\ntitle: About us\n---\nAbout.\n", "base": blob("pages/about.md")}},
		"assets":    []any{}, "options": map[string]any{"collectionName": "pages", "commitMessage": "about", "useWorkflow": true, "status": "pending_publish"}})); r.Status != 200 {
		t.Fatalf("workflow entry: %d %s", r.Status, r.Body)
	}
	if r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?branch=draft", key, `{"title": "Drafted"}`); r.Status != 200 {
		t.Fatalf("draft write: %d %s", r.Status, r.Body)
	}
	before := git(t, repo.bare, "for-each-ref", "--format=%(refname) %(objectname)")

	marks := t.TempDir()
	block, started := filepath.Join(marks, "block"), filepath.Join(marks, "started")
	hook := fmt.Sprintf("#!/bin/sh\ntouch %s\nwhile [ -e %s ]; do sleep 0.02; done\nexit 0\n", started, block)
	if err := os.WriteFile(block, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo.bare, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(block)
	held := make(chan response, 1)
	go func() { held <- wr(t, "PATCH", ts.URL+"/api/v1/globals", key, `{"siteName": "Held"}`) }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the push never reached the remote's hook")
		}
	}
	behind := map[string][2]string{
		"decap persistEntry": {"/api/v1/decap", rpc("persistEntry", map[string]any{
			"dataFiles": []map[string]any{{"slug": "hello", "path": "content/posts/hello.md", "raw": "---\ntitle: Behind\nrating: 3\n---\nHello.\n", "base": blob("content/posts/hello.md")}},
			"assets":    []any{}, "options": map[string]any{"collectionName": "posts", "commitMessage": "x", "useWorkflow": false, "status": ""}})},
		"decap deleteFiles": {"/api/v1/decap", rpc("deleteFiles", map[string]any{"paths": []string{"content/posts/hello.md"},
			"bases": map[string]string{"content/posts/hello.md": blob("content/posts/hello.md")}})},
		"decap publishUnpublishedEntry": {"/api/v1/decap", rpc("publishUnpublishedEntry", map[string]any{"collection": "pages", "slug": "about"})},
		"decap updateUnpublishedEntryStatus": {"/api/v1/decap", rpc("updateUnpublishedEntryStatus", map[string]any{
			"collection": "pages", "slug": "about", "newStatus": "draft"})},
		"decap deleteUnpublishedEntry": {"/api/v1/decap", rpc("deleteUnpublishedEntry", map[string]any{"collection": "pages", "slug": "about"})},
		"publish":                      {"/api/v1/publish", `{}`},
	}
	for name, c := range behind {
		done := make(chan response, 1)
		go func() { done <- wr(t, "POST", ts.URL+c[0], key, c[1]) }()
		select {
		case r := <-done:
			t.Logf("%s behind a hanging push: %d %s", name, r.Status, r.Body)
			if r.Status != 503 {
				t.Errorf("%s behind a hanging push: %d %s, want 503", name, r.Status, r.Body)
				continue
			}
			wantError(t, r, 503, "GIT_UNAVAILABLE")
			if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 {
				t.Errorf("%s: Retry-After %q", name, r.Header.Get("Retry-After"))
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("%s waited more than 15 s behind a hanging push", name)
		}
	}
	os.Remove(block)
	if r := <-held; r.Status != 200 {
		t.Fatalf("the held write: %d %s", r.Status, r.Body)
	}
	// Only the held write landed: one commit on draft, main and the
	// workflow entry as they were.
	after := git(t, repo.bare, "for-each-ref", "--format=%(refname) %(objectname)")
	for _, ref := range []string{"refs/heads/main", "refs/heads/cms/pages/about"} {
		if refOf(after, ref) != refOf(before, ref) || refOf(after, ref) == "" {
			t.Errorf("a refused write moved %s:\n%s\n%s", ref, before, after)
		}
	}
	if n := git(t, repo.bare, "rev-list", "--count", refOf(before, "refs/heads/draft")+"..draft"); n != "1" {
		t.Errorf("%s commits on draft since the hang, want 1 (the held write)", n)
	}
}

func refOf(list, ref string) string {
	for _, l := range splitLines(list) {
		if len(l) > len(ref) && l[:len(ref)+1] == ref+" " {
			return l[len(ref)+1:]
		}
	}
	return ""
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}
