package server_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// decapDist is the dist/ folder of the decap-cms package that make
// node-tools installs under FOLIO_NODE_TOOLS; the test skips without it
// (fails in CI).
func decapDist(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FOLIO_NODE_TOOLS")
	if dir == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("FOLIO_NODE_TOOLS is not set (make node-tools installs decap-cms)")
		}
		t.Skip("FOLIO_NODE_TOOLS not set: no decap-cms to serve")
	}
	dist := filepath.Join(dir, "node_modules", "decap-cms", "dist")
	if _, err := os.Stat(filepath.Join(dist, "decap-cms.js")); err != nil {
		t.Fatalf("FOLIO_NODE_TOOLS: %v (make node-tools installs decap-cms)", err)
	}
	return dist
}

func withDecapDir(dir string) serverOpt {
	return func(_ *engine.Config, s *server.Config) { s.Decap.Dir = dir }
}

// TestDecapEditorBrowser drives Decap CMS in Chromium against folio:
// log in with a key, create a post with an image, save and publish; the
// commit is on the remote with the key's name as author and both boxes
// serve the post.
func TestDecapEditorBrowser(t *testing.T) {
	dist := decapDist(t)
	b := newBrowser(t)
	repo := newRepo(t, decapSite)
	root := t.TempDir()
	w := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, root), withDecapDir(dist))
	rd := startServer(t, "file://"+repo.bare, withLocalMedia(t, root, readOnlyLib), readOnlyServer,
		func(e *engine.Config, _ *server.Config) { e.Poll = 0 })
	key := w.key(t, "marketing", server.ScopeContentRead, server.ScopeContentWrite, server.ScopeMediaRead, server.ScopeMediaWrite)

	b.run(t, "open the editor", chromedp.Navigate(w.URL+"/admin/content/"), chromedp.WaitVisible(chromedp.ID("folio-login")))
	b.run(t, "log in", chromedp.SendKeys(chromedp.ID("folio-key"), key), chromedp.Click(chromedp.CSS("#folio-login button")))
	b.waitJS(t, "Decap's login", `[...document.querySelectorAll("button")].some(e => /login/i.test(e.textContent))`)
	b.shot(t, "decap-login")
	evalAs[bool](t, b, `(() => { [...document.querySelectorAll("button")].find(e => /login/i.test(e.textContent)).click(); return true; })()`)
	b.waitJS(t, "the collections", `document.body.textContent.includes("Posts") && document.body.textContent.includes("Hello")`)
	b.shot(t, "collections")
	b.check(t)
	_ = rd
}
