package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/folio-cms/folio/server"
)

// TestDecapSaveRefusalMessage: a save the model refuses answers 422 with
// words an editor acts on: the field, what the model wants, what the
// entry has, what to do. Nothing is committed.
func TestDecapSaveRefusalMessage(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, decapSite)
	w := startDecapWriter(t, "file://"+repo.bare)
	key := w.key(t, "ann", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	head := git(t, repo.bare, "rev-parse", "main")
	r := rpcOpened(t, w.URL, key, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "hello", "path": "content/posts/hello.md", "raw": "---\ntitle: " + strings.Repeat("x", 151) + "\nrating: 9\n---\nx\n"}},
		"assets":    []any{}, "options": map[string]any{"commitMessage": "Update hello"}})
	wantError(t, r, http.StatusUnprocessableEntity, "VALIDATION")
	body := r.json(t)
	fs, _ := body["fields"].([]any)
	want := map[string]string{"title": "at most 120 characters, this has 151: shorten it by 31", "rating": "at most 5, this is 9"}
	if len(fs) != len(want) {
		t.Fatalf("fields: %s", r.Body)
	}
	for _, f := range fs {
		f := f.(map[string]any)
		if want[f["path"].(string)] != f["message"] {
			t.Errorf("field %v: %q, want %q", f["path"], f["message"], want[f["path"].(string)])
		}
	}
	if msg, _ := body["message"].(string); !strings.Contains(msg, "title: at most 120 characters, this has 151") {
		t.Errorf("message: %q", msg)
	}
	if got := git(t, repo.bare, "rev-parse", "main"); got != head {
		t.Fatal("a refused save committed")
	}
}

// decapOwnConfigSite is a site whose own Decap config lets a long title
// through (Decap does not stop the save), while folio.yaml's model
// refuses it: the refusal is the server's.
var decapOwnConfigSite = map[string]string{
	"folio.yaml": "types:\n  posts:\n    fields:\n      title: {kind: string, required: true, maxLength: 120}\n      body: {kind: markdown}\n",
	"static/admin/config.yml": `backend: {name: git-gateway}
media_folder: static/img
collections:
  - name: posts
    label: Posts
    folder: content/posts
    create: true
    fields:
      - {label: Title, name: title, widget: string}
      - {label: Body, name: body, widget: markdown, required: false}
`,
	"content/posts/hello.md": "---\ntitle: Hello\n---\nHello, world.\n",
}

// TestDecapRefusalInEditorBrowser: in Chromium, a save the server refuses
// shows the editor the server's words (which field, why, what to do), not
// "API_ERROR: VALIDATION".
func TestDecapRefusalInEditorBrowser(t *testing.T) {
	t.Parallel()
	dist := decapDist(t)
	b := newBrowser(t)
	repo := newRepo(t, decapOwnConfigSite)
	w := startDecapWriter(t, "file://"+repo.bare, withDecapDir(dist))
	key := w.key(t, "marketing", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite, server.ScopeMediaRead)
	head := git(t, repo.bare, "rev-parse", "main")

	b.run(t, "open the editor", chromedp.Navigate(w.URL+"/admin/content/"), chromedp.WaitVisible(chromedp.ID("folio-login")))
	b.run(t, "log in", chromedp.SendKeys(chromedp.ID("folio-key"), key), chromedp.Click(chromedp.CSS("#folio-login button")))
	clickText(t, b, "Login")
	b.waitJS(t, "the collections", `document.body.textContent.includes("Posts") && document.body.textContent.includes("Hello")`)
	b.run(t, "open a new post", chromedp.Navigate(w.URL+"/admin/content/#/collections/posts/new"))
	b.waitJS(t, "the form", `document.querySelector('input[id^="title-field"]') !== null`)
	b.run(t, "write a long title", chromedp.SendKeys(chromedp.CSS(`input[id^="title-field"]`), strings.Repeat("Long ", 30)+"end"))
	clickText(t, b, "Publish")
	clickText(t, b, "Publish now")
	b.waitJS(t, "the server's words in a notice", `[...document.querySelectorAll("div, span, p")].some(e => e.offsetParent !== null && e.getBoundingClientRect().height > 0 &&
		e.textContent.includes("Failed to persist entry") && e.textContent.includes("title: at most 120 characters, this has 153: shorten it by 33. Correct this field and save again."))`)
	if b.shotsDir != "" {
		time.Sleep(500 * time.Millisecond) // the notice slides in, for the screenshot
	}
	b.shot(t, "refused")
	if evalAs[bool](t, b, `document.body.textContent.includes("API_ERROR: VALIDATION")`) {
		t.Fatal("the editor sees the bare code")
	}
	if got := git(t, repo.bare, "rev-parse", "main"); got != head {
		t.Fatal("a refused save committed")
	}
}
