package server_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/folio-cms/folio/server"
)

// TestDecapConstraintsBrowser: in Chromium, with the generated config,
// Decap itself stops a save the model would refuse (a title over the
// model's maxLength) and says why; nothing reaches the repository. A
// post written with Hugo's date: opens with its date.
func TestDecapConstraintsBrowser(t *testing.T) {
	t.Parallel()
	dist := decapDist(t)
	b := newBrowser(t)
	site := map[string]string{}
	for k, v := range decapSite {
		site[k] = v
	}
	// A site whose posts are dated as Hugo's are.
	site["content/posts/hello.md"] = "---\ntitle: Hello\ndate: 2024-01-01\n---\nHello, world.\n"
	site["content/posts/hugo.md"] = "---\ntitle: Hugo style\ndate: 2023-04-05\n---\nDated the Hugo way.\n"
	repo := newRepo(t, site)
	w := startDecapWriter(t, "file://"+repo.bare, withDecapDir(dist))
	key := w.key(t, "marketing", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite, server.ScopeMediaRead)
	head := git(t, repo.bare, "rev-parse", "main")

	b.run(t, "open the editor", chromedp.Navigate(w.URL+"/admin/content/"), chromedp.WaitVisible(chromedp.ID("folio-login")))
	b.run(t, "log in", chromedp.SendKeys(chromedp.ID("folio-key"), key), chromedp.Click(chromedp.CSS("#folio-login button")))
	clickText(t, b, "Login")
	b.waitJS(t, "the collections", `document.body.textContent.includes("Posts") && document.body.textContent.includes("Hello")`)

	// A post of the site opens with the date its front matter has.
	b.run(t, "open the Hugo-style post", chromedp.Navigate(w.URL+"/admin/content/#/collections/posts/entries/hugo"))
	b.waitJS(t, "its date", `(() => { const i = document.querySelector('input[id^="date-field"]'); return i !== null && i.value === "2023-04-05"; })()`)
	b.shot(t, "dated")

	b.run(t, "open a new post", chromedp.Navigate(w.URL+"/admin/content/#/collections/posts/new"))
	b.waitJS(t, "the form", `document.querySelector('input[id^="title-field"]') !== null`)
	b.run(t, "write a long title", chromedp.SendKeys(chromedp.CSS(`input[id^="title-field"]`), strings.Repeat("Long ", 30)+"end"))
	b.run(t, "write the body", chromedp.Click(chromedp.CSS(`[data-slate-editor]`)), chromedp.KeyEvent("Some text."))
	b.check(t) // (Decap's refusal below leaves a rejected promise)
	clickText(t, b, "Publish")
	clickText(t, b, "Publish now")
	b.waitJS(t, "Decap's refusal", `document.body.textContent.includes("Title didn't match the pattern: at most 120 characters.")`)
	b.shot(t, "stopped")
	if got := git(t, repo.bare, "rev-parse", "main"); got != head {
		t.Fatal("Decap saved a title over the model's maxLength")
	}

	// Shortened, and dated today, it is saved, its date as the site
	// writes them (no time).
	// (React's input: its own value setter, then the input event.)
	evalAs[bool](t, b, `(() => { const e = document.querySelector('input[id^="title-field"]');
Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(e, "Short");
e.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
	clickText(t, b, "Now")
	clickText(t, b, "Publish")
	clickText(t, b, "Publish now")
	b.waitJS(t, "the save", `location.hash.includes("/entries/short")`)
	stored := git(t, repo.bare, "show", "main:content/posts/short.md")
	if !regexp.MustCompile(`(?m)^date: '?\d{4}-\d{2}-\d{2}'?$`).MatchString(stored) || !strings.Contains(stored, "title: Short") {
		t.Fatalf("the stored post:\n%s", stored)
	}
}
