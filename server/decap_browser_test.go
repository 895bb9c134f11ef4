package server_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
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
	t.Parallel()
	dist := decapDist(t)
	b := newBrowser(t)
	repo := newRepo(t, decapSite)
	root := t.TempDir()
	w := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, root), withDecapDir(dist))
	rd := startServer(t, "file://"+repo.bare, withLocalMedia(t, root, readOnlyLib), readOnlyServer,
		func(e *engine.Config, _ *server.Config) { e.Poll = 0 })
	photo := filepath.Join(t.TempDir(), "spring.jpg")
	if err := os.WriteFile(photo, jpegBytes(t, 800, 450), 0o644); err != nil {
		t.Fatal(err)
	}
	key := w.key(t, "marketing", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite, server.ScopeMediaRead, server.ScopeMediaWrite)

	b.run(t, "open the editor", chromedp.Navigate(w.URL+"/admin/content/"), chromedp.WaitVisible(chromedp.ID("folio-login")))
	b.run(t, "log in", chromedp.SendKeys(chromedp.ID("folio-key"), key), chromedp.Click(chromedp.CSS("#folio-login button")))
	b.waitJS(t, "Decap's login", `[...document.querySelectorAll("button")].some(e => /login/i.test(e.textContent))`)
	b.shot(t, "decap-login")
	evalAs[bool](t, b, `(() => { [...document.querySelectorAll("button")].find(e => /login/i.test(e.textContent)).click(); return true; })()`)
	b.waitJS(t, "the collections", `document.body.textContent.includes("Posts") && document.body.textContent.includes("Hello")`)
	b.shot(t, "collections")
	b.check(t)

	b.run(t, "open a new post", chromedp.Navigate(w.URL+"/admin/content/#/collections/posts/new"))
	b.waitJS(t, "the form", `document.querySelector('input[id^="title-field"]') !== null`)
	b.run(t, "write the title", chromedp.SendKeys(chromedp.CSS(`input[id^="title-field"]`), "Spring launch"))
	b.run(t, "write the body", chromedp.Click(chromedp.CSS(`[data-slate-editor]`)), chromedp.KeyEvent("We launched in spring."))
	clickText(t, b, "Choose an image")
	b.waitJS(t, "the media library", `document.querySelector('input[type="file"]') !== null`)
	b.shot(t, "media-library")
	b.run(t, "upload the image", chromedp.SetUploadFiles(chromedp.CSS(`input[type="file"]`), []string{photo}))
	b.waitJS(t, "the upload", `document.body.textContent.includes("spring.jpg")`)
	b.shot(t, "uploaded")
	clickText(t, b, "Choose selected")
	b.waitJS(t, "the chosen image", `document.querySelector('img[src^="blob:"]') !== null && document.body.textContent.includes("spring.jpg")`)
	b.shot(t, "chosen")
	clickText(t, b, "Publish")
	clickText(t, b, "Publish now")
	b.waitJS(t, "the save", `location.hash.includes("/entries/spring-launch")`)
	b.shot(t, "published")
	b.check(t)

	// The commit is on the remote, authored by the key's name.
	if got := git(t, repo.bare, "log", "-1", "--format=%an <%ae>|%cn", "main"); got != "marketing <editors@example.com>|folio" {
		t.Fatalf("remote head: %q", got)
	}
	stored := git(t, repo.bare, "show", "main:content/posts/spring-launch.md")
	m := regexp.MustCompile(`cover: (/uploads/\d{4}/\d{2}/spring\.jpg)`).FindStringSubmatch(stored)
	if m == nil || !strings.Contains(stored, "title: Spring launch") || !strings.Contains(stored, "We launched in spring.") {
		t.Fatalf("the stored post:\n%s", stored)
	}
	// The image is in the media library, with its derivatives.
	list := decode[struct{ Data []mItem }](t, get(t, w.URL+"/api/v1/media", key))
	if len(list.Data) != 1 || list.Data[0].URL != m[1] || len(list.Data[0].Sizes) == 0 {
		t.Fatalf("the library: %+v (want the image at %s, with derivatives)", list.Data, m[1])
	}
	// Both boxes serve the post.
	if g := get(t, w.URL+"/api/v1/content/posts/spring-launch", key); g.Status != 200 || !strings.Contains(string(g.Body), m[1]) {
		t.Fatalf("writer: %d %s", g.Status, g.Body)
	}
	rkey := rd.reader(t)
	eventually(t, "the read-only box serves the post", func() bool {
		rd.Engine.Sync(t.Context())
		g := get(t, rd.URL+"/api/v1/content/posts/spring-launch", rkey)
		return g.Status == 200 && strings.Contains(string(g.Body), "Spring launch")
	})
}

// clickText clicks the first visible button (or link) whose text is text.
func clickText(t *testing.T, b *browser, text string) {
	t.Helper()
	b.waitJS(t, "a button "+text, `[...document.querySelectorAll("button, a, [role=button], [role=menuitem]")].some(e => e.textContent.trim() === `+jsString(text)+` && e.offsetParent !== null)`)
	evalAs[bool](t, b, `(() => { [...document.querySelectorAll("button, a, [role=button], [role=menuitem]")].find(e => e.textContent.trim() === `+jsString(text)+` && e.offsetParent !== null).click(); return true; })()`)
}

// TestDecapWorkflowBrowser drives Decap's editorial workflow in Chromium:
// a post is saved as a draft (a cms/posts/<slug> branch on the remote,
// main untouched), set to ready, then published (merged into main and
// served by both boxes, the branch deleted).
func TestDecapWorkflowBrowser(t *testing.T) {
	t.Parallel()
	dist := decapDist(t)
	b := newBrowser(t)
	site := map[string]string{}
	for k, v := range decapSite {
		site[k] = v
	}
	site["folio.yaml"] += "decap: {publishMode: editorial_workflow}\n"
	repo := newRepo(t, site)
	root := t.TempDir()
	w := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, root), withDecapDir(dist))
	rd := startServer(t, "file://"+repo.bare, withLocalMedia(t, root, readOnlyLib), readOnlyServer,
		func(e *engine.Config, _ *server.Config) { e.Poll = 0 })
	key := w.key(t, "marketing", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite, server.ScopeMediaRead, server.ScopeMediaWrite)
	mainBefore := git(t, repo.bare, "rev-parse", "main")

	b.run(t, "open the editor", chromedp.Navigate(w.URL+"/admin/content/"), chromedp.WaitVisible(chromedp.ID("folio-login")))
	b.run(t, "log in", chromedp.SendKeys(chromedp.ID("folio-key"), key), chromedp.Click(chromedp.CSS("#folio-login button")))
	clickText(t, b, "Login")
	b.waitJS(t, "the collections", `document.body.textContent.includes("Posts") && document.body.textContent.includes("Hello")`)
	b.run(t, "open a new post", chromedp.Navigate(w.URL+"/admin/content/#/collections/posts/new"))
	b.waitJS(t, "the form", `document.querySelector('input[id^="title-field"]') !== null`)
	b.run(t, "write the title", chromedp.SendKeys(chromedp.CSS(`input[id^="title-field"]`), "Summer plans"))
	b.run(t, "write the body", chromedp.Click(chromedp.CSS(`[data-slate-editor]`)), chromedp.KeyEvent("Plans for the summer."))
	clickText(t, b, "Save")
	b.waitJS(t, "the save", `location.hash.includes("/entries/summer-plans")`)
	b.shot(t, "saved")
	if got := git(t, repo.bare, "rev-parse", "main"); got != mainBefore {
		t.Fatal("a draft save moved main")
	}
	if got := git(t, repo.bare, "log", "-1", "--format=%an|%(trailers:key=Decap-Status,valueonly)", "cms/posts/summer-plans"); !strings.HasPrefix(got, "marketing|draft") {
		t.Fatalf("the draft branch: %q", got)
	}
	// A note on the unpublished entry: a commit on its branch.
	// The notes pane is Decap's first right pane when notes are on (the
	// generated config turns them on with the workflow).
	b.waitJS(t, "the notes pane", `document.querySelector('textarea[placeholder="Add a note..."]') !== null`)
	b.run(t, "write a note", chromedp.SendKeys(chromedp.CSS(`textarea[placeholder="Add a note..."]`), "Add a date, please."))
	clickText(t, b, "Add Note")
	b.waitJS(t, "the note", `[...document.querySelectorAll("p, div, span")].some(e => e.children.length === 0 && e.textContent.trim() === "Add a date, please.")`)
	b.shot(t, "note")
	if got := git(t, repo.bare, "log", "-1", "--format=%an|%(trailers:key=Decap-Note,valueonly)", "cms/posts/summer-plans"); !strings.HasPrefix(got, "marketing|") || !strings.Contains(got, "Add a date, please.") {
		t.Fatalf("the note on the branch: %q", got)
	}
	clickText(t, b, "Status: Draft")
	clickText(t, b, "Ready")
	b.waitJS(t, "the status", `[...document.querySelectorAll("button, [role=button]")].some(e => e.textContent.trim() === "Status: Ready")`)
	eventually(t, "the status on the branch", func() bool {
		out, _ := gitOut(repo.bare, "log", "-1", "--format=%(trailers:key=Decap-Status,valueonly)", "cms/posts/summer-plans")
		return out == "pending_publish"
	})
	b.shot(t, "ready")
	// Decap asks "Are you sure…?" with window.confirm: the editor says yes.
	evalAs[bool](t, b, `(() => { window.confirm = () => true; return true; })()`)
	clickText(t, b, "Publish")
	clickText(t, b, "Publish now")
	b.waitJS(t, "the publication", `[...document.querySelectorAll("button, [role=button]")].some(e => e.textContent.trim() === "Published")`)
	b.shot(t, "published")
	b.check(t)

	if got := git(t, repo.bare, "log", "-1", "--format=%an|%P", "main"); !strings.HasPrefix(got, "marketing|"+mainBefore+" ") {
		t.Fatalf("main after publishing: %q (want a merge on %s)", got, mainBefore)
	}
	if _, err := gitOut(repo.bare, "rev-parse", "--verify", "-q", "refs/heads/cms/posts/summer-plans"); err == nil {
		t.Fatal("the published entry's branch is still on the remote")
	}
	if g := get(t, w.URL+"/api/v1/content/posts/summer-plans", key); g.Status != 200 || !strings.Contains(string(g.Body), "Summer plans") {
		t.Fatalf("writer: %d %s", g.Status, g.Body)
	}
	rkey := rd.reader(t)
	eventually(t, "the read-only box serves the post", func() bool {
		rd.Engine.Sync(t.Context())
		return get(t, rd.URL+"/api/v1/content/posts/summer-plans", rkey).Status == 200
	})
}
