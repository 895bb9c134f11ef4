package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/folio-cms/folio/server"
)

// TestDecapTwoEditorsBrowser is issue 29's first lost update in Decap
// itself: two editors (two browsers) open one post; one changes the
// title and saves, the other the rating and saves. Both changes are in
// the file (the second save, made from the version before the first, is
// merged with it). When the second then changes the title too, its save
// is refused and Decap shows folio's reason; the file keeps the first
// editor's title.
func TestDecapTwoEditorsBrowser(t *testing.T) {
	t.Parallel()
	dist := decapDist(t)
	repo := newRepo(t, decapSite)
	var logs syncBuffer
	w := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, t.TempDir()), withDecapDir(dist), withLog(&logs))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the remote's file:\n%s", remoteFile(t, repo.bare, "content/posts/hello.md"))
		}
	})
	key := w.key(t, "marketing", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite, server.ScopeMediaRead, server.ScopeMediaWrite)
	open := func(b *browser) {
		b.run(t, "open the editor", chromedp.Navigate(w.URL+"/admin/content/"), chromedp.WaitVisible(chromedp.ID("folio-login")))
		b.run(t, "log in", chromedp.SendKeys(chromedp.ID("folio-key"), key), chromedp.Click(chromedp.CSS("#folio-login button")))
		clickText(t, b, "Login")
		b.waitJS(t, "the collections", `document.body.textContent.includes("Posts") && document.body.textContent.includes("Hello")`)
		b.run(t, "open the post", chromedp.Navigate(w.URL+"/admin/content/#/collections/posts/entries/hello"))
		b.waitJS(t, "the form", `(document.querySelector('input[id^="title-field"]') || {}).value === "Hello"`)
	}
	save := func(b *browser) {
		clickText(t, b, "Publish")
		clickText(t, b, "Publish now")
	}
	ann, bob := newBrowser(t), newBrowser(t)
	open(ann)
	open(bob)

	b := ann
	b.run(t, "change the title", chromedp.SendKeys(chromedp.CSS(`input[id^="title-field"]`), kb.End+" from Ann"))
	save(ann)
	eventually(t, "Ann's save on the remote", func() bool {
		return strings.Contains(remoteFile(t, repo.bare, "content/posts/hello.md"), "title: Hello from Ann")
	})
	b = bob
	b.run(t, "change the rating", chromedp.SendKeys(chromedp.CSS(`input[id^="rating-field"]`), "4"))
	save(bob)
	eventually(t, "Bob's save on the remote", func() bool {
		return strings.Contains(remoteFile(t, repo.bare, "content/posts/hello.md"), "rating: 4")
	})
	if got := remoteFile(t, repo.bare, "content/posts/hello.md"); !strings.Contains(got, "title: Hello from Ann") {
		t.Fatalf("Bob's save reverted Ann's title:\n%s", got)
	}
	bob.shot(t, "merged")

	// Bob's form still shows the old title; changing it too is refused.
	// Decap reloads the entry after a save: keys typed before that reload
	// are lost with the old form, and Publish stays hidden. So the save
	// must have finished, and the change must show as unsaved (Publish),
	// typed again if a late reload dropped it.
	bob.waitJS(t, "Bob's save done", `document.body.textContent.includes("Entry saved")`)
	before := remoteFile(t, repo.bare, "content/posts/hello.md")
	const publishShown = `[...document.querySelectorAll("button, a, [role=button], [role=menuitem]")].some(e => e.textContent.trim() === "Publish" && e.offsetParent !== null)`
	for attempt := 1; ; attempt++ {
		b.run(t, "change the title too", chromedp.SendKeys(chromedp.CSS(`input[id^="title-field"]`), kb.End+" by Bob"))
		ctx, cancel := context.WithTimeout(bob.ctx, 5*time.Second)
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](publishShown, chromedp.WithPollingInterval(50*time.Millisecond)))
		cancel()
		if err == nil || attempt == 3 {
			break
		}
	}
	save(bob)
	bob.waitJS(t, "the refusal", `document.body.innerText.includes("Failed to persist entry") && document.body.innerText.includes("changed since it was opened")`)
	bob.shot(t, "refused")
	if got := remoteFile(t, repo.bare, "content/posts/hello.md"); got != before {
		t.Fatalf("a refused save changed the file:\n%s", got)
	}
}
