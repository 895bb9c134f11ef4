package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/server"
)

// startWriter is folio serving the remote repository site (a file://
// URL: the engine clones it, as a box does a real remote) with the write
// API on.
func startWriter(t *testing.T, site string) *testServer {
	t.Helper()
	return startWriterWith(t, site, "")
}

// startWriterWith is startWriter for a site with a draft branch.
func startWriterWith(t *testing.T, site, draft string) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	eng, err := engine.Open(ctx, engine.Config{Site: site, CacheDir: t.TempDir(), DraftBranch: draft})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	keys, err := server.OpenKeys(keysFile)
	if err != nil {
		t.Fatal(err)
	}
	w := write.New(write.Config{GitDir: eng.GitDir(), Remote: eng.RemoteSite(), RefLock: eng.RefLock(), Branch: eng.Branch(), DraftBranch: eng.DraftBranch(),
		JournalDir: t.TempDir(), Snapshot: eng.SnapshotOf,
		Written: func(ctx context.Context, branch, commit string) { eng.Reload(ctx) }})
	srv := server.New(server.Config{Engine: eng, Keys: keys, Writer: w, AllowMissingKeys: true})
	registerFolio(t, ln.Addr().String())
	done := make(chan struct{}, 2)
	go func() { eng.Run(ctx); done <- struct{}{} }()
	go func() { srv.Serve(ctx, ln); done <- struct{}{} }()
	t.Cleanup(func() {
		cancel()
		<-done
		<-done
		eng.Close()
	})
	return &testServer{URL: "http://" + ln.Addr().String(), Handler: srv, Engine: eng, keys: keys, keysFile: keysFile, secret: map[string]string{}}
}

var writeSite = map[string]string{
	"folio.yaml":             "types:\n  posts:\n    fields:\n      title: {kind: string, required: true}\n      rating: {kind: integer, min: 0}\n",
	"content/posts/hello.md": "---\ntitle: Hello\n# a comment\nrating: 3\n---\nHello.\n",
	"pages/about.md":         "---\ntitle: About\n---\nAbout.\n",
	"globals.yaml":           "siteName: Site\n",
}

// wr sends a write with a JSON body.
func wr(t *testing.T, method, url, key, body string, header ...string) response {
	t.Helper()
	return do(t, method, url, key, strings.NewReader(body), append([]string{"Content-Type", "application/json"}, header...)...)
}

func remoteFile(t *testing.T, bare, p string) string {
	out, err := exec.Command("git", "--git-dir="+bare, "show", "main:"+p).Output()
	if err != nil {
		return ""
	}
	return string(out)
}

func TestWriteAPIEndToEnd(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "marketing", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	reader := ts.reader(t)

	// Create: served at once by the writing box, committed and pushed.
	r := wr(t, "POST", ts.URL+"/api/v1/content/posts", editor, (`{"title": "New post", "rating": 4, "body": "Some *text*."}`))
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	if r.Header.Get("Location") != "/api/v1/content/posts/new-post" || !strings.Contains(string(r.Body), `"title":"New post"`) {
		t.Fatalf("create answer: %v %s", r.Header, r.Body)
	}
	if got := remoteFile(t, repo.bare, "content/posts/new-post.md"); got != "---\ntitle: New post\nrating: 4\n---\nSome *text*.\n" {
		t.Fatalf("remote file: %q", got)
	}
	if who := git(t, repo.bare, "log", "-1", "--format=%an|%cn|%s", "main"); who != "marketing|folio|Create posts/new-post" {
		t.Fatalf("commit: %s", who)
	}
	g := get(t, ts.URL+"/api/v1/content/posts/new-post", reader)
	if g.Status != 200 || strings.TrimSuffix(g.Header.Get("ETag"), `-gz"`) != strings.TrimSuffix(r.Header.Get("ETag"), `"`) || !strings.Contains(string(g.Body), "<em>text</em>") {
		t.Fatalf("served: %d %s %s / %s", g.Status, g.Header.Get("ETag"), r.Header.Get("ETag"), g.Body)
	}
	r = wr(t, "POST", ts.URL+"/api/v1/content/posts", editor, (`{"title": "New post"}`))
	wantError(t, r, http.StatusConflict, "CONFLICT")

	// PATCH with the ETag read; then the same ETag is stale.
	etag := get(t, ts.URL+"/api/v1/content/posts/hello", reader).Header.Get("ETag")
	r = wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello", editor, (`{"data": {"rating": 5}}`), "If-Match", etag)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"rating":5`) {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	if got := remoteFile(t, repo.bare, "content/posts/hello.md"); got != "---\ntitle: Hello\n# a comment\nrating: 5\n---\nHello.\n" {
		t.Fatalf("patched file: %q", got)
	}
	r = wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello", editor, (`{"data": {"rating": 6}}`), "If-Match", etag)
	wantError(t, r, http.StatusPreconditionFailed, "PRECONDITION_FAILED")

	// The model refuses a bad field: 422 per field, nothing committed.
	head := git(t, repo.bare, "rev-parse", "main")
	r = wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello", editor, (`{"data": {"rating": -1}}`))
	wantError(t, r, http.StatusUnprocessableEntity, "VALIDATION")
	if fs, _ := r.json(t)["fields"].([]any); len(fs) != 1 || fs[0].(map[string]any)["path"] != "rating" {
		t.Fatalf("fields: %s", r.Body)
	}
	r = wr(t, "PUT", ts.URL+"/api/v1/content/posts/hello", editor, (`{"data": {"rating": 1}}`))
	wantError(t, r, http.StatusUnprocessableEntity, "VALIDATION") // title is required
	if git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatal("a refused write was committed")
	}

	// A document read and written back as it is served keeps its file:
	// the publishedAt filled in from the commit is not written.
	got := get(t, ts.URL+"/api/v1/content/posts/hello", reader)
	var doc map[string]any
	if err := json.Unmarshal(got.Body, &doc); err != nil {
		t.Fatal(err)
	}
	doc["body"] = "Hello.\n"
	back, _ := json.Marshal(doc)
	r = wr(t, "PUT", ts.URL+"/api/v1/content/posts/hello", editor, string(back), "If-Match", got.Header.Get("ETag"))
	if r.Status != 200 || r.Header.Get("X-Folio-Commit") != "" {
		out, _ := exec.Command("git", "--git-dir="+repo.bare, "show", "main").Output()
		t.Fatalf("PUT of the document as read: %d %v %s\n%s", r.Status, r.Header, r.Body, out)
	}
	if git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatal("writing a document back as read made a commit")
	}

	// Bad input: 4xx, nothing committed.
	for _, tc := range []struct {
		method, path, body string
		status             int
	}{
		{"PATCH", "/api/v1/content/posts/a..b/../x", `{}`, 400},
		{"PATCH", "/api/v1/content/posts/a%01b", `{}`, 400},
		{"POST", "/api/v1/content/posts", `{"slug": "../../etc", "title": "x"}`, 422},
		{"POST", "/api/v1/content/posts", `{"title": "big", "body": "` + strings.Repeat("x", 6<<20) + `"}`, 413},
		{"POST", "/api/v1/content/posts", `{"title": `, 400},
		{"POST", "/api/v1/content/posts", `[1]`, 400},
		{"POST", "/api/v1/content/posts", `{"title": "x", "body": 3}`, 422},
		{"PATCH", "/api/v1/content/posts/nope", `{"title": "x"}`, 404},
		{"PATCH", "/api/v1/content/posts/hello?branch=main..x", `{"title": "x"}`, 400},
		{"PATCH", "/api/v1/content/posts/hello?branch=other", `{"title": "x"}`, 403},
	} {
		r := wr(t, tc.method, ts.URL+tc.path, editor, tc.body)
		if r.Status != tc.status {
			t.Errorf("%s %s %.40s: %d %s, want %d", tc.method, tc.path, tc.body, r.Status, r.Body, tc.status)
		}
	}
	if git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatal("bad input was committed")
	}
	// content:write is needed.
	r = wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello", reader, (`{"title": "x"}`))
	wantError(t, r, http.StatusForbidden, "FORBIDDEN")

	// Pages and globals.
	r = wr(t, "PATCH", ts.URL+"/api/v1/pages/about", editor, (`{"title": "About us", "body": "We."}`))
	if r.Status != 200 || remoteFile(t, repo.bare, "pages/about.md") != "---\ntitle: About us\n---\nWe.\n" {
		t.Fatalf("page: %d %s", r.Status, r.Body)
	}
	r = wr(t, "PATCH", ts.URL+"/api/v1/globals", editor, (`{"siteName": "New name"}`))
	if r.Status != 200 || remoteFile(t, repo.bare, "globals.yaml") != "siteName: New name\n" {
		t.Fatalf("globals: %d %s", r.Status, r.Body)
	}
	// A cms/ branch: written there, main untouched.
	main := git(t, repo.bare, "rev-parse", "main")
	r = wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello?branch=cms/posts/hello&message=Review+this", editor, (`{"title": "Draft title"}`))
	if r.Status != 200 || git(t, repo.bare, "rev-parse", "main") != main || git(t, repo.bare, "log", "-1", "--format=%s", "cms/posts/hello") != "Review this" {
		t.Fatalf("cms branch: %d %s", r.Status, r.Body)
	}

	// Delete.
	r = do(t, "DELETE", ts.URL+"/api/v1/content/posts/new-post", editor, nil)
	if r.Status != http.StatusNoContent || remoteFile(t, repo.bare, "content/posts/new-post.md") != "" {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/new-post", reader), http.StatusNotFound, "NOT_FOUND")
}

// Two boxes write one document at once from the same read: one wins, the
// other gets 412, and the file is the winner's, whole.
func TestWriteConcurrentBoxes(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	a := startWriter(t, "file://"+repo.bare)
	b := startWriter(t, "file://"+repo.bare)
	ka := a.key(t, "a", server.ScopeContentRead, server.ScopeContentWrite)
	kb := b.key(t, "b", server.ScopeContentRead, server.ScopeContentWrite)
	for round := 0; round < 5; round++ {
		etag := get(t, a.URL+"/api/v1/content/posts/hello", ka).Header.Get("ETag")
		if etagB := get(t, b.URL+"/api/v1/content/posts/hello", kb); etagB.Header.Get("ETag") != etag {
			// b has not loaded a's last write yet: let it fetch.
			b.Engine.Sync(context.Background())
			etag = get(t, a.URL+"/api/v1/content/posts/hello", ka).Header.Get("ETag")
		}
		var wg sync.WaitGroup
		res := make([]response, 2)
		for i, box := range []struct {
			ts  *testServer
			key string
		}{{a, ka}, {b, kb}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := fmt.Sprintf(`{"data": {"rating": %d}}`, round*10+i)
				res[i] = wr(t, "PATCH", box.ts.URL+"/api/v1/content/posts/hello", box.key, body, "If-Match", etag)
			}()
		}
		wg.Wait()
		ok, stale := 0, 0
		winner := -1
		for i, r := range res {
			switch r.Status {
			case 200:
				ok++
				winner = i
			case 409, 412:
				stale++
			default:
				t.Fatalf("round %d box %d: %d %s", round, i, r.Status, r.Body)
			}
		}
		if ok != 1 || stale != 1 {
			t.Fatalf("round %d: %d won, %d refused", round, ok, stale)
		}
		want := fmt.Sprintf("---\ntitle: Hello\n# a comment\nrating: %d\n---\nHello.\n", round*10+winner)
		if got := remoteFile(t, repo.bare, "content/posts/hello.md"); got != want {
			t.Fatalf("round %d: file %q, want %q", round, got, want)
		}
		a.Engine.Sync(context.Background())
		b.Engine.Sync(context.Background())
	}
}

func TestPublishRoute(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	ts := startWriterWith(t, "file://"+repo.bare, "draft")
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	boss := ts.key(t, "boss", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	reader := ts.reader(t)
	r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello", editor, `{"title": "Drafted"}`)
	if r.Status != 200 {
		t.Fatalf("draft write: %d %s", r.Status, r.Body)
	}
	if strings.Contains(string(get(t, ts.URL+"/api/v1/content/posts/hello", reader).Body), "Drafted") {
		t.Fatal("the draft is published")
	}
	wantError(t, wr(t, "POST", ts.URL+"/api/v1/publish", editor, `{}`), http.StatusForbidden, "FORBIDDEN")
	wantError(t, wr(t, "POST", ts.URL+"/api/v1/publish", boss, `{"documents": [{"slug": "x"}]}`), http.StatusBadRequest, "BAD_REQUEST")
	r = wr(t, "POST", ts.URL+"/api/v1/publish", boss, `{"documents": [{"type": "posts", "slug": "hello"}]}`)
	if r.Status != 200 || r.json(t)["published"] != true {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	if !strings.Contains(string(get(t, ts.URL+"/api/v1/content/posts/hello", reader).Body), "Drafted") {
		t.Fatal("published, not served")
	}
	if !strings.Contains(remoteFile(t, repo.bare, "content/posts/hello.md"), "title: Drafted") {
		t.Fatal("not on the remote's main")
	}
}

// The globals' ETag is tied to their file's blob too: a GET's ETag is a
// valid If-Match, and a stale one is 412.
func TestWriteGlobalsIfMatch(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	etag := get(t, ts.URL+"/api/v1/globals", editor).Header.Get("ETag")
	r := wr(t, "PUT", ts.URL+"/api/v1/globals", editor, `{"siteName": "One"}`, "If-Match", etag)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"siteName":"One"`) {
		t.Fatalf("put: %d %s", r.Status, r.Body)
	}
	wantError(t, wr(t, "PATCH", ts.URL+"/api/v1/globals", editor, `{"siteName": "Two"}`, "If-Match", etag), http.StatusPreconditionFailed, "PRECONDITION_FAILED")
	if got := remoteFile(t, repo.bare, "globals.yaml"); got != "siteName: One\n" {
		t.Fatalf("globals file %q", got)
	}
}

// A page read and written back as it is served makes no commit; one with
// sections keeps them as the file has them.
func TestWritePageAsRead(t *testing.T) {
	t.Parallel()
	site := map[string]string{
		"pages/about.md":  "---\ntitle: About\n---\nAbout.\n",
		"pages/home.yaml": "title: Home\nisHomepage: true\nseo:\n  title: Home page\nsections:\n  - type: hero\n    data:\n      heading: Hi\n  - type: text\n    data:\n      body: Text\n",
	}
	repo := newRepo(t, site)
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	head := git(t, repo.bare, "rev-parse", "main")
	for _, slug := range []string{"about", "home"} {
		got := get(t, ts.URL+"/api/v1/pages/"+slug, editor)
		var doc map[string]any
		if err := json.Unmarshal(got.Body, &doc); err != nil {
			t.Fatal(err)
		}
		if slug == "about" {
			doc["body"] = "About.\n"
		}
		back, _ := json.Marshal(doc)
		r := wr(t, "PUT", ts.URL+"/api/v1/pages/"+slug, editor, string(back), "If-Match", got.Header.Get("ETag"))
		if r.Status != 200 || r.Header.Get("X-Folio-Commit") != "" {
			out, _ := exec.Command("git", "--git-dir="+repo.bare, "show", "main").Output()
			t.Fatalf("%s: %d %s\n%s", slug, r.Status, r.Body, out)
		}
	}
	if git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatal("pages written back as read made a commit")
	}
}

// A local repository (a path, not a URL) is written in place: the
// branch ref moves by compare-and-swap, and the box serves the write at
// once.
func TestWriteLocalRepository(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	ts := startWriter(t, repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	r := wr(t, "POST", ts.URL+"/api/v1/content/posts", editor, `{"title": "Local", "rating": 1}`)
	if r.Status != http.StatusCreated || !strings.Contains(string(r.Body), `"title":"Local"`) {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	if remoteFile(t, repo.bare, "content/posts/local.md") != "---\ntitle: Local\nrating: 1\n---\n" {
		t.Fatal("not in the repository")
	}
	if g := get(t, ts.URL+"/api/v1/content/posts/local", editor); g.Status != 200 {
		t.Fatalf("not served: %d", g.Status)
	}
}

// A field the model declares unique is checked against the other items of
// the type before the commit: a second item with the same value is 422
// naming the field and the item holding the value, and nothing is
// committed; the item keeping its own value, or taking a free one, writes.
func TestWriteUniqueField(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":            "types:\n  products:\n    fields:\n      title: {kind: string, required: true}\n      sku: {kind: string, unique: true}\n",
		"content/products/a.md": "---\ntitle: A\nsku: ABC-1\n---\n",
		"content/products/b.md": "---\ntitle: B\nsku: ABC-2\n---\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "marketing", server.ScopeContentRead, server.ScopeContentWrite)
	head := git(t, repo.bare, "rev-parse", "main")
	for _, w := range []struct{ method, path, body string }{
		{"POST", "/api/v1/content/products", `{"title": "C", "data": {"sku": "ABC-1"}}`},
		{"PATCH", "/api/v1/content/products/b", `{"data": {"sku": "ABC-1"}}`},
	} {
		r := wr(t, w.method, ts.URL+w.path, editor, w.body)
		wantError(t, r, http.StatusUnprocessableEntity, "VALIDATION")
		fs, _ := r.json(t)["fields"].([]any)
		if len(fs) != 1 || fs[0].(map[string]any)["path"] != "sku" || !strings.Contains(fmt.Sprint(fs[0]), "products/a") {
			t.Errorf("%s %s: fields %s", w.method, w.path, r.Body)
		}
	}
	if git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatal("a write with a taken unique value was committed")
	}
	if r := wr(t, "PATCH", ts.URL+"/api/v1/content/products/a", editor, `{"title": "A2", "data": {"sku": "ABC-1"}}`); r.Status != http.StatusOK {
		t.Errorf("keeping its own value: %d %s", r.Status, r.Body)
	}
	if r := wr(t, "POST", ts.URL+"/api/v1/content/products", editor, `{"title": "C", "data": {"sku": "ABC-3"}}`); r.Status != http.StatusCreated {
		t.Errorf("a free value: %d %s", r.Status, r.Body)
	}
}

// TestWriteUniqueRace: two boxes on one remote take the same new unique
// value. Box a has not seen b's write (no poll): its snapshot check
// passes, its push is refused, and the check on the fetched head refuses
// the write (422 naming b's item); nothing of a's is pushed.
func TestWriteUniqueRace(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":            "types:\n  products:\n    fields:\n      title: {kind: string, required: true}\n      sku: {kind: string, unique: true}\n",
		"content/products/a.md": "---\ntitle: A\nsku: ABC-1\n---\n",
	})
	a := startWriter(t, "file://"+repo.bare)
	b := startWriter(t, "file://"+repo.bare)
	ka := a.key(t, "a", server.ScopeContentRead, server.ScopeContentWrite)
	kb := b.key(t, "b", server.ScopeContentRead, server.ScopeContentWrite)
	if r := wr(t, "POST", b.URL+"/api/v1/content/products", kb, `{"title": "B", "data": {"sku": "NEW-1"}}`); r.Status != http.StatusCreated {
		t.Fatalf("b: %d %s", r.Status, r.Body)
	}
	head := git(t, repo.bare, "rev-parse", "main")
	for _, w := range []struct{ method, path, body string }{
		{"POST", "/api/v1/content/products", `{"title": "C", "data": {"sku": "NEW-1"}}`},
		{"PATCH", "/api/v1/content/products/a", `{"data": {"sku": "NEW-1"}}`},
	} {
		r := wr(t, w.method, a.URL+w.path, ka, w.body)
		wantError(t, r, http.StatusUnprocessableEntity, "VALIDATION")
		fs, _ := r.json(t)["fields"].([]any)
		if len(fs) != 1 || fs[0].(map[string]any)["path"] != "sku" || !strings.Contains(fmt.Sprint(fs[0]), "products/b") {
			t.Errorf("%s %s: fields %s", w.method, w.path, r.Body)
		}
		if got := git(t, repo.bare, "rev-parse", "main"); got != head {
			t.Fatalf("%s %s: a write with b's unique value was pushed", w.method, w.path)
		}
	}
	// A free value still goes on top of b's write.
	if r := wr(t, "POST", a.URL+"/api/v1/content/products", ka, `{"title": "C", "data": {"sku": "NEW-2"}}`); r.Status != http.StatusCreated {
		t.Fatalf("a free value: %d %s", r.Status, r.Body)
	}
	// A change of the content model meanwhile: the write is validated by
	// the new model (a now required price: 422, nothing pushed) ...
	git(t, repo.work, "pull", "-q", "--rebase", "origin", "main")
	repo.commit("model", map[string]string{"folio.yaml": "types:\n  products:\n    fields:\n      title: {kind: string, required: true}\n      sku: {kind: string, unique: true}\n      price: {kind: number, required: true}\n"})
	head = git(t, repo.bare, "rev-parse", "main")
	r := wr(t, "PATCH", a.URL+"/api/v1/content/products/a", ka, `{"title": "A2"}`)
	wantError(t, r, http.StatusUnprocessableEntity, "VALIDATION")
	if !strings.Contains(string(r.Body), `"path":"price"`) {
		t.Fatalf("new model: %s", r.Body)
	}
	if git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatal("a write the new model refuses was pushed")
	}
	// ... and one it takes goes on top of it.
	if r := wr(t, "PATCH", a.URL+"/api/v1/content/products/a", ka, `{"title": "A2", "data": {"price": 9.5}}`); r.Status != http.StatusOK {
		t.Fatalf("a write the new model takes: %d %s", r.Status, r.Body)
	}
	if !strings.Contains(remoteFile(t, repo.bare, "content/products/a.md"), "price: 9.5") {
		t.Fatal("not pushed")
	}
}

// A create into a type the site does not have (no item on the branch, not
// declared in folio.yaml or the model) is 404 and commits nothing: a
// front end's typo does not start a new folder under content/. A type the
// model declares takes its first item.
func TestWriteUnknownType(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":             "types:\n  events:\n    fields:\n      title: {kind: string, required: true}\n",
		"content/posts/hello.md": "---\ntitle: Hello\n---\n",
	})
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	head := git(t, repo.bare, "rev-parse", "main")
	r := wr(t, "POST", ts.URL+"/api/v1/content/post", editor, `{"title": "Typo"}`)
	wantError(t, r, http.StatusNotFound, "NOT_FOUND")
	if git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatal("a create into an unknown type was committed")
	}
	for _, typ := range []string{"posts", "events"} {
		if r := wr(t, "POST", ts.URL+"/api/v1/content/"+typ, editor, `{"title": "First"}`); r.Status != http.StatusCreated {
			t.Errorf("create in %s: %d %s", typ, r.Status, r.Body)
		}
	}
}
