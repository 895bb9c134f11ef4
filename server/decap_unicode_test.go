package server_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

// TestDecapUnicodeSlug: Decap's default slug encoding ("unicode") makes a
// file named by a Cyrillic title; folio commits it, serves it at its
// percent-encoded URL and lists it back to Decap.
func TestDecapUnicodeSlug(t *testing.T) {
	t.Parallel()
	repo, w, _ := decapBoxes(t)
	key := w.key(t, "olena", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	raw := "---\ntitle: Привіт, світ\npublishedAt: 2024-05-01T09:00:00Z\n---\nПерший допис.\n"
	wantOK(t, rpcOpened(t, w.URL, key, map[string]any{
		"branch":    "main",
		"dataFiles": []map[string]any{{"slug": "привіт-світ", "path": "content/posts/привіт-світ.md", "raw": raw}},
		"assets":    []map[string]any{},
		"options":   map[string]any{"commitMessage": "Create Posts “привіт-світ”", "useWorkflow": false, "status": ""},
	}))
	if got := git(t, repo.bare, "show", "main:content/posts/привіт-світ.md"); got != strings.TrimSpace(raw) {
		t.Fatalf("stored: %q", got)
	}
	if g := get(t, w.URL+"/api/v1/content/posts/"+url.PathEscape("привіт-світ"), key); g.Status != 200 || !strings.Contains(string(g.Body), `"slug":"привіт-світ"`) {
		t.Fatalf("GET: %d %s", g.Status, g.Body)
	}
	r := rpc(t, w.URL, key, "entriesByFolder", map[string]any{"branch": "main", "folder": "content/posts", "extension": "md", "depth": 1})
	wantOK(t, r)
	if !strings.Contains(string(r.Body), `"path":"content/posts/привіт-світ.md"`) {
		t.Fatalf("entriesByFolder: %s", r.Body)
	}
}
