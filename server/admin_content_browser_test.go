package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// TestAdminContentTab drives the Content tab in Chromium: pick a type,
// open a post (fields, rendered body with its markup made harmless,
// history), diff two versions, switch to a branch, and make a preview
// link that serves the branch without a key.
func TestAdminContentTab(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	repo := newRepo(t, map[string]string{
		"pages/home.md":      "---\ntitle: Home\nisHomepage: true\n---\nHi.\n",
		"content/posts/a.md": "---\ntitle: A\ndate: 2024-01-01\ntags: [x]\n---\nFirst **bold** words.\n\n<img src=\"https://tracker.invalid/p.gif\" onerror=\"alert(1)\" alt=\"pixel\">\n",
	})
	repo.commit("retitle", map[string]string{"content/posts/a.md": "---\ntitle: A2\ndate: 2024-01-01\ntags: [x]\n---\nFirst **bold** words.\n\n<img src=\"https://tracker.invalid/p.gif\" onerror=\"alert(1)\" alt=\"pixel\">\n"})
	git(t, repo.work, "checkout", "-q", "-b", "feature")
	repo.write(map[string]string{"content/posts/a.md": "---\ntitle: A on feature\ndate: 2024-01-01\n---\nBranch body.\n"})
	git(t, repo.work, "commit", "-qam", "feature")
	git(t, repo.work, "push", "-q", "origin", "feature")
	ts := startServer(t, repo.bare, withLocalMedia(t, t.TempDir()), func(_ *engine.Config, sc *server.Config) { sc.PreviewSecret = "p" })
	key := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentPreview, server.ScopeMediaRead)

	b.run(t, "open the admin page", chromedp.Navigate(ts.URL+"/admin/"), chromedp.WaitVisible(chromedp.ID("key-form")))
	b.run(t, "send the key", chromedp.SendKeys(chromedp.ID("key-input"), key), chromedp.Click(chromedp.ID("key-use")))
	b.waitJS(t, "the library", `!document.getElementById("app").hidden`)
	b.run(t, "open the Content tab", chromedp.Click(chromedp.ID("tab-content")))
	b.waitJS(t, "the types and pages", `[...document.getElementById("ct-kind").options].some(o => o.value === "posts") && document.querySelectorAll("#ct-list button").length === 1`)
	b.setValue(t, "ct-kind", "posts")
	b.waitJS(t, "the posts", `document.querySelector("#ct-list button") && document.querySelector("#ct-list button").textContent === "A2"`)
	b.run(t, "open the post", chromedp.Click(chromedp.CSS("#ct-list button")))
	b.waitJS(t, "the post and its history", `document.getElementById("ct-title").textContent === "A2" && document.querySelectorAll("#ct-history li").length === 2`)
	if got := evalAs[string](t, b, `document.querySelector("#ct-rendered strong").textContent`); got != "bold" {
		t.Errorf("rendered body: <strong> %q", got)
	}
	if got := evalAs[string](t, b, `document.getElementById("ct-rendered").innerHTML`); strings.Contains(got, "<img") || strings.Contains(got, "onerror") {
		t.Errorf("the rendered body kept markup it must drop: %s", got)
	}
	if !strings.Contains(evalAs[string](t, b, `document.getElementById("ct-fields").textContent`), `"tags"`) {
		t.Error("the fields do not show data.tags")
	}
	b.run(t, "diff with the previous version", chromedp.Click(chromedp.CSS("#ct-history li button")))
	b.waitJS(t, "the diff", `!document.getElementById("ct-diff-box").hidden && document.querySelector("#ct-diff tbody").textContent.includes("title")`)
	if got := evalAs[string](t, b, `document.querySelector("#ct-diff tbody").textContent`); !strings.Contains(got, "A2") || !strings.Contains(got, "modified") {
		t.Errorf("diff table: %q", got)
	}

	b.setValue(t, "ct-ref", "feature")
	b.waitJS(t, "the branch's posts", `document.querySelector("#ct-list button") && document.querySelector("#ct-list button").textContent === "A on feature"`)
	b.run(t, "open the branch's post", chromedp.Click(chromedp.CSS("#ct-list button")))
	b.waitJS(t, "the branch's post", `document.getElementById("ct-title").textContent === "A on feature"`)
	b.run(t, "make a preview link", chromedp.Click(chromedp.ID("ct-preview")))
	b.waitJS(t, "the preview link", `document.getElementById("ct-preview-url").value.includes("preview=")`)
	link := evalAs[string](t, b, `document.getElementById("ct-preview-url").value`)
	r := get(t, link, "")
	if r.Status != http.StatusOK || r.json(t)["title"] != "A on feature" {
		t.Fatalf("the preview link %s: %d %s", link, r.Status, r.Body)
	}
	b.shot(t, "content-tab")
	b.check(t)
}
