package server_test

import (
	"net/http"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/folio-cms/folio/server"
)

// TestAdminMediaUsage drives the media detail panel in Chromium: it shows
// the item's id and copies media:<id> to the clipboard, lists the pages
// and items that use the item (drafts too, for a key that may read them),
// and the delete confirmation says how many ("1 page and 3 posts use this
// image"); the Status tab lists the references to missing media.
func TestAdminMediaUsage(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	repo := newRepo(t, map[string]string{
		"folio.yaml":    "types:\n  posts: {}\n",
		"pages/home.md": "---\ntitle: Home\nisHomepage: true\n---\nHi.\n",
	})
	root := t.TempDir()
	ms := mediaServerOf(t, startServer(t, repo.bare, withLocalMedia(t, root)), root)
	img := ms.uploadOK(t, filePart("lake.png", pngBytes(t, 64, 48)))[0]
	unused := ms.uploadOK(t, filePart("hill.png", pngBytes(t, 32, 32)))[0]
	repo.commit("use the lake", map[string]string{
		"content/posts/a.md": "---\ntitle: Post A\ncover: media:" + img.ID + "\n---\nA\n",
		"content/posts/b.md": "---\ntitle: Post B\ngallery: [" + img.URL + "]\n---\nB\n",
		"content/posts/c.md": "---\ntitle: Post C\ndraft: true\ncover: media:" + img.ID + "\n---\nC\n",
		"content/posts/d.md": "---\ntitle: Post D\ncover: media:zzzzzzzzzzzzzzzzzzzzzzzzzz\n---\nD\n",
		"pages/about.md":     "---\ntitle: About\nsections:\n  - type: hero\n    image: media:" + img.ID + "\n---\n",
	})
	key := ms.key(t, "editor", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeMediaRead, server.ScopeMediaWrite, server.ScopeMediaDelete)
	eventually(t, "the push to be served", func() bool {
		return get(t, ms.URL+"/api/v1/pages/about", key).Status == http.StatusOK
	})
	// The page may write to and read the clipboard (a user's click does
	// the writing; the test reads it back), in this test's browser context.
	bc := chromedp.FromContext(b.ctx)
	for _, name := range []string{"clipboard-write", "clipboard-read"} {
		if _, err := cdp.Call(b.ctx, bc.Browser, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: name}, Setting: cdpbrowser.PermissionSettingGranted, Origin: ms.URL,
			BrowserContextID: bc.BrowserContextID}); err != nil {
			t.Fatalf("grant %s: %v", name, err)
		}
	}

	b.run(t, "open the admin page", chromedp.Navigate(ms.URL+"/admin/"), chromedp.WaitVisible(chromedp.ID("key-form")))
	b.run(t, "send the key", chromedp.SendKeys(chromedp.ID("key-input"), key), chromedp.Click(chromedp.ID("key-use")))
	b.waitJS(t, "the library", `!document.getElementById("app").hidden && document.getElementById("count").textContent === "2 items"`)

	b.run(t, "open the lake", chromedp.Click(chromedp.CSS(`#grid .tile[data-id="`+img.ID+`"]`)))
	b.waitJS(t, "the lake's panel", `!document.getElementById("detail").hidden && document.getElementById("detail-title").textContent === "lake.png"`)

	t.Run("UsedBy", func(t *testing.T) {
		b.waitJS(t, "the users", `document.getElementById("usage-msg").textContent === "1 page and 3 posts use this image."`)
		got := evalAs[string](t, b, `[...document.querySelectorAll("#usage-list li")].map(li => li.textContent).join("\n")`)
		want := "Page about “About” sections.0.data.image\nposts / a “Post A” data.cover\nposts / b “Post B” data.gallery.0\nposts / c “Post C” data.cover"
		if got != want {
			t.Errorf("used by:\n%s\nwant:\n%s", got, want)
		}
		b.shot(t, "used-by")
	})

	t.Run("CopyReference", func(t *testing.T) {
		if v := evalAs[string](t, b, `document.getElementById("media-ref").value`); v != "media:"+img.ID {
			t.Fatalf("the id field holds %q", v)
		}
		b.run(t, "copy the reference", chromedp.Click(chromedp.ID("copy-ref")))
		b.waitJS(t, "the copy", `document.getElementById("copy-msg").textContent.startsWith("Copied media:")`)
		if got := evalAs[string](t, b, `navigator.clipboard.readText()`); got != "media:"+img.ID {
			t.Errorf("clipboard = %q, want media:%s", got, img.ID)
		}
	})

	t.Run("DeleteConfirmation", func(t *testing.T) {
		b.run(t, "ask to delete", chromedp.Click(chromedp.ID("delete")), chromedp.WaitVisible(chromedp.ID("confirm")))
		got := evalAs[string](t, b, `document.getElementById("confirm-text").textContent`)
		if want := "Delete lake.png for good? 1 page and 3 posts use this image. They will show a broken image."; got != want {
			t.Errorf("confirmation: %q, want %q", got, want)
		}
		b.run(t, "cancel", chromedp.Click(chromedp.ID("confirm-cancel")))
		b.run(t, "close", chromedp.Click(chromedp.ID("detail-close")))
	})

	t.Run("Unused", func(t *testing.T) {
		b.run(t, "open the hill", chromedp.Click(chromedp.CSS(`#grid .tile[data-id="`+unused.ID+`"]`)))
		b.waitJS(t, "the hill's panel", `document.getElementById("detail-title").textContent === "hill.png"`)
		b.waitJS(t, "no users", `document.getElementById("usage-msg").textContent === "No page or item uses this image."`)
		if evalAs[string](t, b, `document.getElementById("media-ref").value`) != "media:"+unused.ID {
			t.Error("the hill's id field")
		}
		b.run(t, "ask to delete", chromedp.Click(chromedp.ID("delete")), chromedp.WaitVisible(chromedp.ID("confirm")))
		if got := evalAs[string](t, b, `document.getElementById("confirm-text").textContent`); got != "Delete hill.png for good? No page or item uses this image." {
			t.Errorf("confirmation: %q", got)
		}
		b.run(t, "cancel", chromedp.Click(chromedp.ID("confirm-cancel")))
		b.run(t, "close", chromedp.Click(chromedp.ID("detail-close")))
	})

	t.Run("StatusMissingMedia", func(t *testing.T) {
		b.run(t, "open the Status tab", chromedp.Click(chromedp.ID("tab-status")))
		b.waitJS(t, "the missing media", `document.getElementById("missing-media").textContent.includes("zzzzzzzzzzzzzzzzzzzzzzzzzz")`)
		got := evalAs[string](t, b, `document.getElementById("missing-media").textContent`)
		if !strings.Contains(got, "posts / d data.cover: media:zzzzzzzzzzzzzzzzzzzzzzzzzz") || strings.Contains(got, img.ID) {
			t.Errorf("missing media: %q", got)
		}
		b.shot(t, "status")
	})
	b.check(t)
}
