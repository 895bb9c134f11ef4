package server_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// TestPreviewLinkInBrowser: a front end on another origin, as a Next.js or
// Nuxt draft mode would, reads a branch through a preview link with no API
// key: on the public surface (any origin) and on a keyed route (its origin
// in --cors-origins).
func TestPreviewLinkInBrowser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	front := frontEnd(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	folio := "http://" + ln.Addr().String()
	repo := newRepo(t, map[string]string{
		"folio.yaml":         "types:\n  posts:\n    public: true\n",
		"content/posts/a.md": "---\ntitle: A\n---\nA\n",
	})
	git(t, repo.work, "checkout", "-q", "-b", "redesign")
	repo.write(map[string]string{"content/posts/a.md": "---\ntitle: A redesigned\n---\nA\n"})
	git(t, repo.work, "commit", "-qam", "redesign")
	git(t, repo.work, "push", "-q", "origin", "redesign")
	ts := startServerOn(t, ln, repo.bare, withCORS(t, front.URL), func(_ *engine.Config, sc *server.Config) { sc.PreviewSecret = "p" })
	key := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentPreview)
	r := do(t, http.MethodPost, folio+"/api/v1/previews", key, strings.NewReader(`{"ref":"redesign"}`), "Content-Type", "application/json")
	var tok struct{ Token string }
	if err := json.Unmarshal(r.Body, &tok); err != nil || r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	read := func(path, token string) string {
		return evalAs[string](t, b, fmt.Sprintf(`fetch(%q + %q + "?preview=" + encodeURIComponent(%q))
  .then(r => r.json().then(j => r.status + " " + (j.title || j.error) + " " + r.headers.get("Cache-Control")), e => "blocked: " + e.message)`, folio, path, token))
	}
	b.run(t, "open the front end", chromedp.Navigate(front.URL))
	for _, path := range []string{"/api/v1/public/collections/posts/a", "/api/v1/content/posts/a"} {
		if got := read(path, tok.Token); got != "200 A redesigned private, no-store" {
			t.Errorf("%s with the preview token from %s: %s", path, front.URL, got)
		}
		if got := read(path, tok.Token+"x"); !strings.HasPrefix(got, "401 ") {
			t.Errorf("%s with a tampered token: %s", path, got)
		}
	}
	b.check(t)
}
