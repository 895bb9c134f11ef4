package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestSigninDecapBrowser: in Chromium, an editor signs in to the Decap
// editor through the OpenID provider (its own login page), edits a post
// and publishes it; the remote commit is authored by that person, and the
// editor never saw a key.
func TestSigninDecapBrowser(t *testing.T) {
	t.Parallel()
	dist := decapDist(t)
	b := newBrowser(t)
	s := startSigninSiteWith(t, decapSite, withDecapDir(dist))

	b.run(t, "open the editor", chromedp.Navigate(s.ts.URL+"/admin/content/"), chromedp.WaitVisible(chromedp.CSS("a.folio-provider")))
	if got := evalAs[string](t, b, `document.querySelector("a.folio-provider").textContent`); got != "Sign in with Test ID" {
		t.Fatalf("the sign-in button: %q", got)
	}
	b.check(t)
	b.run(t, "sign in", chromedp.Click(chromedp.CSS("a.folio-provider")), chromedp.WaitVisible(chromedp.ID("username")))
	b.run(t, "the provider's login", chromedp.SendKeys(chromedp.ID("username"), "bob"), chromedp.SendKeys(chromedp.ID("password"), "pw"),
		chromedp.Click(chromedp.CSS(`button[type="submit"]`)))
	waitAcrossNavigations(t, b, "back in the editor", `location.pathname === "/admin/content/" && [...document.querySelectorAll("button")].some(e => /login/i.test(e.textContent))`)
	if evalAs[bool](t, b, `!document.getElementById("folio-login").hidden`) {
		t.Fatal("signed in, the editor still asks for a key")
	}
	clickText(t, b, "Login")
	b.waitJS(t, "the collections", `document.body.textContent.includes("Posts") && document.body.textContent.includes("Hello")`)
	b.check(t)

	b.run(t, "open the post", chromedp.Navigate(s.ts.URL+"/admin/content/#/collections/posts/entries/hello"))
	b.waitJS(t, "the form", `document.querySelector('input[id^="title-field"]') !== null && document.querySelector('input[id^="title-field"]').value === "Hello"`)
	b.run(t, "change the title", chromedp.SendKeys(chromedp.CSS(`input[id^="title-field"]`), kb.End+" again"))
	clickText(t, b, "Publish")
	clickText(t, b, "Publish now")
	b.waitJS(t, "the save", `document.body.textContent.includes("Entry saved") || document.body.textContent.includes("Published")`)
	b.check(t)

	var head string
	defer func() { t.Logf("remote head: %s", head) }()
	eventually(t, "the commit on the remote (by the name the provider gave)", func() bool {
		head = git(t, s.repo.bare, "log", "-1", "--format=%an <%ae>|%cn|%s", "main")
		return strings.HasPrefix(head, "Bob B <bob@example.com>|folio|")
	})
	if stored := git(t, s.repo.bare, "show", "main:content/posts/hello.md"); !strings.Contains(stored, "title: Hello again") {
		t.Fatalf("the stored post:\n%s", stored)
	}
	if keys := evalAs[string](t, b, `sessionStorage.getItem("folio.apiKey") || ""`); keys != "" {
		t.Fatalf("a key in the tab: %q", keys)
	}

	// The media admin pages use the same session; an admin sees who has
	// which role.
	// Decap asks before the page is left ("leave the entry?"): yes.
	if err := chromedp.Listen(b.ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			go chromedp.Call(b.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}); err != nil {
		t.Fatal(err)
	}
	b.run(t, "open the media library", chromedp.Navigate(s.ts.URL+"/admin/"), chromedp.WaitVisible(chromedp.ID("app")))
	if who := evalAs[string](t, b, `document.getElementById("who").textContent`); !strings.Contains(who, "Bob B (admin)") {
		t.Fatalf("the signed-in person: %q", who)
	}
	b.run(t, "the status tab", chromedp.Click(chromedp.ID("tab-status")))
	b.waitJS(t, "the editors", `document.getElementById("editors-list").textContent.includes("Ana Lefèvre <ana@example.com>")`)
	if row := evalAs[string](t, b, `[...document.querySelectorAll("#editors-list tr")].find(r => r.textContent.includes("ana@")).textContent`); row != "Ana Lefèvre <ana@example.com>editallfr" {
		t.Fatalf("ana's row: %q", row)
	}
	b.check(t)
	b.run(t, "sign out", chromedp.Click(chromedp.ID("sign-out")))
	waitAcrossNavigations(t, b, "signed out", `document.readyState === "complete" && !document.getElementById("signin").hidden && document.getElementById("app").hidden`)
}

// waitAcrossNavigations is waitJS through page loads (a redirect chain
// between sites): an evaluation cut off by a navigation is tried again.
func waitAcrossNavigations(t *testing.T, b *browser, what, cond string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
		cancel()
		if err == nil && ok {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.shot(t, "timeout")
	t.Fatalf("waiting for %s (%s)%s", what, cond, b.report())
}
