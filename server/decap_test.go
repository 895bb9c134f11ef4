package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/server"
	"go.yaml.in/yaml/v3"
)

// decapSite is a site with a content model for posts.
var decapSite = map[string]string{
	"folio.yaml": `types:
  posts:
    public: true
    fields:
      title: {kind: string, required: true, maxLength: 120}
      cover: {kind: media, accept: [image]}
      tags: {kind: list, of: slug}
      rating: {kind: integer, min: 0, max: 5}
      body: {kind: markdown, required: true}
`,
	"content/posts/hello.md": "---\ntitle: Hello\npublishedAt: 2024-01-01T00:00:00Z\n---\nHello, world.\n",
	"pages/about.md":         "---\ntitle: About\n---\nAbout us.\n",
}

// rpc calls POST /api/v1/decap.
func rpc(t testing.TB, base, key, action string, params any, header ...string) response {
	t.Helper()
	body, err := json.Marshal(map[string]any{"action": action, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	return do(t, "POST", base+"/api/v1/decap", key, bytes.NewReader(body), append([]string{"Content-Type", "application/json"}, header...)...)
}

func wantOK(t testing.TB, r response) {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", r.Status, r.Body)
	}
}

// decapBoxes starts a writing box (with the write API's writer and a
// media library) and a read-only box, both on one bare remote and one
// media root.
func decapBoxes(t *testing.T) (repo *gitRepo, writer, reader *testServer) {
	repo = newRepo(t, decapSite)
	root := t.TempDir()
	writer = startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, root))
	reader = startServer(t, "file://"+repo.bare, withLocalMedia(t, root, readOnlyLib), readOnlyServer,
		func(e *engine.Config, _ *server.Config) { e.Poll = 0 })
	return repo, writer, reader
}

// startDecapWriter is startServer with the write API's writer (which
// needs the engine) and the commits' author e-mail set.
func startDecapWriter(t *testing.T, site string, opts ...serverOpt) *testServer {
	return startDecapWriterTB(t, site, opts...)
}

func startDecapWriterTB(t testing.TB, site string, opts ...serverOpt) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ecfg := engine.Config{Site: site, CacheDir: t.TempDir()}
	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	keys, err := server.OpenKeys(keysFile)
	if err != nil {
		t.Fatal(err)
	}
	scfg := server.Config{Keys: keys, AllowMissingKeys: true}
	for _, o := range opts {
		o(&ecfg, &scfg)
	}
	eng, err := engine.Open(ctx, ecfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	scfg.Engine = eng
	scfg.Decap.AuthorEmail = "editors@example.com"
	scfg.Writer = write.New(write.Config{GitDir: eng.GitDir(), Remote: eng.RemoteSite(), RefLock: eng.RefLock(), Branch: eng.Branch(), DraftBranch: eng.DraftBranch(),
		JournalDir: t.TempDir(), Snapshot: eng.SnapshotOf, AuthorEmail: "editors@example.com",
		Written: func(ctx context.Context, branch, commit string) { eng.Reload(ctx) }})
	srv := server.New(scfg)
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

func TestDecapRPCEndToEnd(t *testing.T) {
	t.Parallel()
	repo, w, rd := decapBoxes(t)
	key := w.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite, server.ScopeMediaRead, server.ScopeMediaWrite, server.ScopeMediaDelete)

	r := rpc(t, w.URL, key, "info", map[string]any{})
	wantOK(t, r)
	if got := r.json(t)["type"]; got != "local_git" {
		t.Fatalf("info type %v", got)
	}

	// Entries are read from the commit folio serves.
	r = rpc(t, w.URL, key, "entriesByFolder", map[string]any{"branch": "main", "folder": "content/posts", "extension": "md", "depth": 1})
	wantOK(t, r)
	var entries []struct {
		Data string `json:"data"`
		File struct {
			Path string `json:"path"`
			ID   string `json:"id"`
		} `json:"file"`
	}
	if err := json.Unmarshal(r.Body, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].File.Path != "content/posts/hello.md" || !strings.Contains(entries[0].Data, "Hello, world.") || entries[0].File.ID == "" {
		t.Fatalf("entriesByFolder: %s", r.Body)
	}

	// A new post with an image, saved as Decap does (simple mode): the
	// image goes to the media library, the entry names its URL.
	raw := "---\ntitle: Launch day\npublishedAt: 2024-05-01T09:00:00Z\ncover: /uploads/launch.png\ntags: [news]\n---\nWe launched.\n"
	img := decapPNG(t)
	r = rpcOpened(t, w.URL, key, map[string]any{
		"branch":    "main",
		"dataFiles": []map[string]any{{"slug": "launch-day", "path": "content/posts/launch-day.md", "raw": raw}},
		"assets":    []map[string]any{{"path": "uploads/launch.png", "content": base64.StdEncoding.EncodeToString(img), "encoding": "base64"}},
		"options":   map[string]any{"commitMessage": "Create Posts “launch-day”", "useWorkflow": false, "status": ""},
	})
	wantOK(t, r)

	// The commit is on the remote, by the key's name and the configured
	// e-mail, committed by folio.
	if got := git(t, repo.bare, "log", "-1", "--format=%an <%ae>|%cn|%s", "main"); got != "ada <editors@example.com>|folio|Create Posts “launch-day”" {
		t.Fatalf("remote head: %q", got)
	}
	stored := git(t, repo.bare, "show", "main:content/posts/launch-day.md")
	m := regexp.MustCompile(`cover: (/uploads/\d{4}/\d{2}/launch\.png)`).FindStringSubmatch(stored)
	if m == nil {
		t.Fatalf("the stored entry does not name the library URL of its image:\n%s", stored)
	}
	if up := get(t, w.URL+m[1], ""); up.Status != 200 || !bytes.Equal(up.Body, img) {
		t.Fatalf("GET %s: %d", m[1], up.Status)
	}

	// Served by the writing box at once, and by the read-only box once it
	// sees the push.
	if g := get(t, w.URL+"/api/v1/content/posts/launch-day", key); g.Status != 200 || !strings.Contains(string(g.Body), "Launch day") {
		t.Fatalf("writer: %d %s", g.Status, g.Body)
	}
	rkey := rd.reader(t)
	eventually(t, "the read-only box serves the new post", func() bool {
		rd.Engine.Sync(t.Context())
		return get(t, rd.URL+"/api/v1/content/posts/launch-day", rkey).Status == 200
	})

	// getEntry and the media library as Decap lists it.
	r = rpc(t, w.URL, key, "getEntry", map[string]any{"branch": "main", "path": "content/posts/launch-day.md"})
	wantOK(t, r)
	if !strings.Contains(string(r.Body), m[1]) {
		t.Fatalf("getEntry: %s", r.Body)
	}
	r = rpc(t, w.URL, key, "getMedia", map[string]any{"branch": "main", "mediaFolder": "uploads"})
	wantOK(t, r)
	var files []struct{ ID, Content, Encoding, Path, Name string }
	if err := json.Unmarshal(r.Body, &files); err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != m[1] || files[0].Name != "launch.png" || files[0].Content == "" {
		t.Fatalf("getMedia: %s", r.Body)
	}
	r = rpc(t, w.URL, key, "getMediaFile", map[string]any{"branch": "main", "path": m[1]})
	wantOK(t, r)
	var mf struct{ Content string }
	json.Unmarshal(r.Body, &mf)
	if got, _ := base64.StdEncoding.DecodeString(mf.Content); !bytes.Equal(got, img) {
		t.Fatal("getMediaFile: not the original")
	}

	// persistMedia (the media library outside an entry).
	r = rpc(t, w.URL, key, "persistMedia", map[string]any{"branch": "main",
		"asset":   map[string]any{"path": "uploads/other.png", "content": base64.StdEncoding.EncodeToString(img), "encoding": "base64"},
		"options": map[string]any{"commitMessage": "Upload other.png"}})
	wantOK(t, r)
	var pm struct{ Path string }
	json.Unmarshal(r.Body, &pm)
	if !regexp.MustCompile(`^/uploads/\d{4}/\d{2}/other\.png$`).MatchString(pm.Path) {
		t.Fatalf("persistMedia path %q", pm.Path)
	}
	// A delete with one bad path deletes nothing.
	wantError(t, rpc(t, w.URL, key, "deleteFiles", map[string]any{"branch": "main", "paths": []string{pm.Path, "../etc/passwd"}, "options": map[string]any{"commitMessage": "x"}}), 400, "BAD_REQUEST")
	if get(t, w.URL+pm.Path, "").Status != 200 {
		t.Fatal("a refused delete deleted media")
	}
	// deleteFile of a media path deletes the library item.
	r = rpc(t, w.URL, key, "deleteFile", map[string]any{"branch": "main", "path": pm.Path, "options": map[string]any{"commitMessage": "Delete other.png"}})
	wantOK(t, r)
	if get(t, w.URL+pm.Path, "").Status != 404 {
		t.Fatal("deleted media still served")
	}

	// A data file (JSON) is written as Decap wrote it; a rename writes the
	// new path and removes the old one.
	persist := func(df map[string]any) {
		t.Helper()
		wantOK(t, rpcOpened(t, w.URL, key, map[string]any{"branch": "main", "dataFiles": []map[string]any{df},
			"assets": []any{}, "options": map[string]any{"commitMessage": "Save", "useWorkflow": false, "status": ""}}))
	}
	persist(map[string]any{"slug": "lamp", "path": "content/products/lamp.json", "raw": "{\n  \"title\": \"Lamp\",\n  \"price\": 12\n}\n"})
	if got := git(t, repo.bare, "show", "main:content/products/lamp.json"); got != "{\n  \"title\": \"Lamp\",\n  \"price\": 12\n}" {
		t.Fatalf("the data file: %q", got)
	}
	persist(map[string]any{"slug": "launch", "path": "content/posts/launch-day.md", "newPath": "content/posts/launch.md", "raw": stored})
	if _, err := gitOut(repo.bare, "cat-file", "-e", "main:content/posts/launch-day.md"); err == nil {
		t.Fatal("the renamed entry's old file is still there")
	}
	if got := git(t, repo.bare, "show", "main:content/posts/launch.md"); !strings.Contains(got, "Launch day") {
		t.Fatalf("the renamed entry: %q", got)
	}

	// deleteFiles removes an entry in one commit.
	r = rpc(t, w.URL, key, "deleteFiles", map[string]any{"branch": "main", "paths": []string{"content/posts/hello.md"}, "options": map[string]any{"commitMessage": "Delete Posts “hello”"}})
	wantOK(t, r)
	if got := git(t, repo.bare, "log", "-1", "--format=%s", "main"); got != "Delete Posts “hello”" {
		t.Fatalf("remote head %q", got)
	}
	if g := get(t, w.URL+"/api/v1/content/posts/hello", key); g.Status != 404 {
		t.Fatalf("deleted post: %d", g.Status)
	}
}

func TestDecapEditorialWorkflow(t *testing.T) {
	t.Parallel()
	repo, w, rd := decapBoxes(t)
	key := w.key(t, "Grace", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite, server.ScopeMediaWrite)
	mainBefore := git(t, repo.bare, "rev-parse", "main")

	persist := func(slug, raw string) {
		t.Helper()
		wantOK(t, rpcOpened(t, w.URL, key, map[string]any{
			"branch":    "main",
			"dataFiles": []map[string]any{{"slug": slug, "path": "content/posts/" + slug + ".md", "raw": raw}},
			"assets":    []any{},
			"options":   map[string]any{"collectionName": "posts", "commitMessage": "Create Posts “" + slug + "”", "useWorkflow": true, "status": "draft"},
		}))
	}
	persist("draft-post", "---\ntitle: A draft\n---\nFirst words.\n")
	persist("draft-post", "---\ntitle: A draft\n---\nSecond words.\n")
	persist("dropped", "---\ntitle: Dropped\n---\nNever published.\n")

	// Each entry is a cms/<collection>/<slug> branch on the remote; main
	// did not move.
	if got := git(t, repo.bare, "rev-parse", "main"); got != mainBefore {
		t.Fatal("a workflow save moved main")
	}
	git(t, repo.bare, "rev-parse", "--verify", "refs/heads/cms/posts/draft-post")
	if got := git(t, repo.bare, "log", "-1", "--format=%an", "cms/posts/draft-post"); got != "Grace" {
		t.Fatalf("author %q", got)
	}

	r := rpc(t, w.URL, key, "unpublishedEntries", map[string]any{"branch": "main"})
	wantOK(t, r)
	if got := strings.TrimSpace(string(r.Body)); got != `["posts/draft-post","posts/dropped"]` {
		t.Fatalf("unpublishedEntries: %s", got)
	}
	entry := func(id string) map[string]any {
		t.Helper()
		r := rpc(t, w.URL, key, "unpublishedEntry", map[string]any{"branch": "main", "id": id})
		wantOK(t, r)
		return r.json(t)
	}
	e := entry("posts/draft-post")
	if e["status"] != "draft" || e["collection"] != "posts" || e["slug"] != "draft-post" {
		t.Fatalf("unpublishedEntry: %v", e)
	}
	diffs, _ := e["diffs"].([]any)
	if len(diffs) != 1 || diffs[0].(map[string]any)["path"] != "content/posts/draft-post.md" || diffs[0].(map[string]any)["newFile"] != true {
		t.Fatalf("diffs: %v", diffs)
	}
	// A ?ref= preview of the branch serves the entry before it is published.
	pkey := w.key(t, "preview", server.ScopeContentRead, server.ScopeContentPreview)
	if g := get(t, w.URL+"/api/v1/content/posts/draft-post?ref=cms/posts/draft-post", pkey); g.Status != 200 || !strings.Contains(string(g.Body), "Second words") {
		t.Fatalf("preview: %d %s", g.Status, g.Body)
	}
	r = rpc(t, w.URL, key, "unpublishedEntryDataFile", map[string]any{"branch": "main", "collection": "posts", "slug": "draft-post", "id": "x", "path": "content/posts/draft-post.md"})
	wantOK(t, r)
	if !strings.Contains(r.json(t)["data"].(string), "Second words.") {
		t.Fatalf("data file: %s", r.Body)
	}

	// Status changes are carried by the branch (every box sees them).
	for _, st := range []string{"pending_review", "pending_publish"} {
		wantOK(t, rpc(t, w.URL, key, "updateUnpublishedEntryStatus", map[string]any{"branch": "main", "collection": "posts", "slug": "draft-post", "newStatus": st}))
		if got := entry("posts/draft-post")["status"]; got != st {
			t.Fatalf("status %v, want %s", got, st)
		}
	}
	wantError(t, rpc(t, w.URL, key, "updateUnpublishedEntryStatus", map[string]any{"branch": "main", "collection": "posts", "slug": "draft-post", "newStatus": "shipped"}), 400, "BAD_REQUEST")

	// Deleting an unpublished entry deletes its branch.
	wantOK(t, rpc(t, w.URL, key, "deleteUnpublishedEntry", map[string]any{"branch": "main", "collection": "posts", "slug": "dropped"}))
	if out, err := gitOut(repo.bare, "rev-parse", "--verify", "-q", "refs/heads/cms/posts/dropped"); err == nil {
		t.Fatalf("cms/posts/dropped still on the remote: %s", out)
	}
	wantError(t, rpc(t, w.URL, key, "unpublishedEntry", map[string]any{"branch": "main", "collection": "posts", "slug": "dropped"}), 404, "NOT_FOUND")

	// Publishing merges the branch into main and deletes it.
	wantOK(t, rpc(t, w.URL, key, "publishUnpublishedEntry", map[string]any{"branch": "main", "collection": "posts", "slug": "draft-post"}))
	if got := git(t, repo.bare, "log", "-1", "--format=%an|%P", "main"); !strings.HasPrefix(got, "Grace|"+mainBefore+" ") {
		t.Fatalf("publish commit: %q (want a merge on %s)", got, mainBefore)
	}
	if _, err := gitOut(repo.bare, "rev-parse", "--verify", "-q", "refs/heads/cms/posts/draft-post"); err == nil {
		t.Fatal("the published entry's branch is still on the remote")
	}
	if g := get(t, w.URL+"/api/v1/content/posts/draft-post", key); g.Status != 200 || !strings.Contains(string(g.Body), "Second words") {
		t.Fatalf("writer after publish: %d %s", g.Status, g.Body)
	}
	rkey := rd.reader(t)
	eventually(t, "the read-only box serves the published post", func() bool {
		rd.Engine.Sync(t.Context())
		return get(t, rd.URL+"/api/v1/content/posts/draft-post", rkey).Status == 200
	})
	r = rpc(t, w.URL, key, "unpublishedEntries", map[string]any{"branch": "main"})
	if strings.TrimSpace(string(r.Body)) != "[]" {
		t.Fatalf("unpublishedEntries after publish: %s", r.Body)
	}
}

// gitOut runs git without failing the test.
func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func decapPNG(t *testing.T) []byte { return pngBytes(t, 64, 48) }

func TestDecapRPCRefusals(t *testing.T) {
	t.Parallel()
	repo, w, rd := decapBoxes(t)
	key := w.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	reader := w.key(t, "reader", server.ScopeContentRead, server.ScopeMediaWrite)
	head := func() string { return git(t, repo.bare, "rev-parse", "main") }
	before := head()
	post := func(raw string) map[string]any {
		return map[string]any{
			"branch":    "main",
			"dataFiles": []map[string]any{{"slug": "x", "path": "content/posts/x.md", "raw": raw}},
			"assets":    []any{},
			"options":   map[string]any{"commitMessage": "Create x", "useWorkflow": false, "status": ""},
		}
	}
	good := "---\ntitle: X\n---\nBody.\n"

	wantError(t, rpc(t, w.URL, "", "info", map[string]any{}), 401, "UNAUTHORIZED")
	wantError(t, rpcOpened(t, w.URL, reader, post(good)), 403, "FORBIDDEN")
	// Another site's page may not commit with a key it holds.
	wantError(t, rpcOpened(t, w.URL, key, post(good), "Origin", "https://evil.example"), 403, "FORBIDDEN")
	// A read-only box never serves the RPC.
	rkey := rd.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	wantError(t, rpcOpened(t, rd.URL, rkey, post(good)), 405, "READ_ONLY")

	bad := []struct {
		name, action string
		params       any
	}{
		{"unknown action", "rmrf", map[string]any{"branch": "main"}},
		{"no params", "getEntry", nil},
		{"params not an object", "getEntry", []int{1}},
		{"other branch", "getEntry", map[string]any{"branch": "gh-pages", "path": "content/posts/hello.md"}},
		{"dot-dot", "getEntry", map[string]any{"branch": "main", "path": "content/../../etc/passwd"}},
		{"absolute", "getEntry", map[string]any{"branch": "main", "path": "/etc/passwd"}},
		{"git dir", "entriesByFolder", map[string]any{"branch": "main", "folder": ".git", "extension": "md", "depth": 1}},
		{"control char", "persistEntry", map[string]any{"branch": "main", "dataFiles": []map[string]any{{"slug": "x", "path": "content/posts/a\x01.md", "raw": good}}, "assets": []any{}, "options": map[string]any{}}},
		{"no slug", "persistEntry", map[string]any{"branch": "main", "dataFiles": []map[string]any{{"path": "content/posts/a.md", "raw": good}}, "assets": []any{}, "options": map[string]any{}}},
		{"no data files", "persistEntry", map[string]any{"branch": "main", "assets": []any{}, "options": map[string]any{}}},
		{"dot-dot slug in workflow", "persistEntry", map[string]any{"branch": "main", "dataFiles": []map[string]any{{"slug": "..", "path": "content/posts/a.md", "raw": good}}, "assets": []any{}, "options": map[string]any{"useWorkflow": true, "collectionName": "posts"}}},
		{"bad content id", "unpublishedEntry", map[string]any{"branch": "main", "id": "nocollection"}},
		{"delete nothing", "deleteFiles", map[string]any{"branch": "main", "paths": []string{}}},
	}
	for _, c := range bad {
		wantError(t, rpc(t, w.URL, key, c.action, c.params), 400, "BAD_REQUEST")
	}
	// persistMedia checks the scope first, then the asset.
	badEncoding := map[string]any{"branch": "main", "asset": map[string]any{"path": "uploads/a.png", "content": "eA==", "encoding": "hex"}}
	wantError(t, rpc(t, w.URL, key, "persistMedia", badEncoding), 403, "FORBIDDEN")
	uploader := w.key(t, "uploader", server.ScopeContentWrite, server.ScopeMediaWrite)
	wantError(t, rpc(t, w.URL, uploader, "persistMedia", badEncoding), 400, "BAD_REQUEST")
	r := do(t, "POST", w.URL+"/api/v1/decap", key, strings.NewReader(`{"action":`), "Content-Type", "application/json")
	wantError(t, r, 400, "BAD_REQUEST")

	// The content model refuses an entry without its required title, and a
	// front matter that is not YAML: 422, one entry per field, nothing
	// committed.
	r = rpcOpened(t, w.URL, key, post("---\nrating: 9\n---\nBody.\n"))
	if r.Status != 422 {
		t.Fatalf("invalid entry: %d %s", r.Status, r.Body)
	}
	var ve struct {
		Error  string
		Fields []struct{ Path, Message string }
	}
	json.Unmarshal(r.Body, &ve)
	paths := map[string]bool{}
	for _, f := range ve.Fields {
		paths[f.Path] = true
	}
	if ve.Error != "VALIDATION" || !paths["title"] || !paths["rating"] {
		t.Fatalf("validation: %s", r.Body)
	}
	if r := rpcOpened(t, w.URL, key, post("---\ntitle: [unclosed\n---\nBody.\n")); r.Status != 422 {
		t.Fatalf("bad YAML: %d %s", r.Status, r.Body)
	}
	// An entry with an image needs media:write.
	withAsset := post(good)
	withAsset["assets"] = []map[string]any{{"path": "uploads/a.png", "content": base64.StdEncoding.EncodeToString(decapPNG(t)), "encoding": "base64"}}
	wantError(t, rpcOpened(t, w.URL, key, withAsset), 403, "FORBIDDEN")
	if head() != before {
		t.Fatal("a refused write reached the remote")
	}

	// The remote moved since this box fetched: a write of another file
	// goes on top of it; a write of a file someone else wrote meanwhile
	// is 409 and keeps theirs; the next try (from the new state) wins.
	theirs := repo.commit("someone else", map[string]string{"content/posts/other.md": "---\ntitle: Other\n---\nOther.\n"})
	wantOK(t, rpcOpened(t, w.URL, key, post(good)))
	if got := git(t, repo.bare, "rev-parse", "main~1"); got != theirs {
		t.Fatalf("the write is not on top of the remote's commit")
	}
	git(t, repo.work, "pull", "-q", "--rebase", "origin", "main")
	theirs = repo.commit("someone else again", map[string]string{"content/posts/y.md": "---\ntitle: Theirs\n---\nTheirs.\n"})
	ypost := post("---\ntitle: Mine\n---\nMine.\n")
	ypost["dataFiles"] = []map[string]any{{"slug": "y", "path": "content/posts/y.md", "raw": "---\ntitle: Mine\n---\nMine.\n"}}
	wantError(t, rpcOpened(t, w.URL, key, ypost), 409, "CONFLICT")
	if head() != theirs || !strings.Contains(git(t, repo.bare, "show", "main:content/posts/y.md"), "Theirs") {
		t.Fatal("the remote lost a commit")
	}
	wantOK(t, rpcOpened(t, w.URL, key, ypost))
	if !strings.Contains(git(t, repo.bare, "show", "main:content/posts/y.md"), "Mine") {
		t.Fatal("the retry was not written")
	}

	// A remote that refuses pushes: 503, nothing acknowledged.
	hook := repo.bare + "/hooks/pre-receive"
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho no writes today >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	atRefusal := head()
	r = rpcOpened(t, w.URL, key, post("---\ntitle: Y\n---\nBody.\n"))
	wantError(t, r, 503, "GIT_UNAVAILABLE")
	if head() != atRefusal {
		t.Fatal("a refused push moved the remote")
	}
	if g := get(t, w.URL+"/api/v1/content/posts/x", key); !strings.Contains(string(g.Body), `"title":"X"`) {
		t.Fatalf("the box serves an unacknowledged write: %s", g.Body)
	}
	os.Remove(hook)

	// A file over the content limit, a body over the RPC's limit: 413.
	wantError(t, rpcOpened(t, w.URL, key, post("---\ntitle: Big\n---\n"+strings.Repeat("a", 5<<20))), 413, "PAYLOAD_TOO_LARGE")
	huge := io.MultiReader(strings.NewReader(`{"action":"persistMedia","params":{"branch":"main","asset":{"path":"uploads/a.png","encoding":"base64","content":"`),
		io.LimitReader(aReader{}, 100<<20), strings.NewReader(`"}}}`))
	wantError(t, do(t, "POST", w.URL+"/api/v1/decap", uploader, huge, "Content-Type", "application/json"), 413, "PAYLOAD_TOO_LARGE")
	if head() != atRefusal {
		t.Fatal("a refused write reached the remote")
	}
}

// aReader reads an endless run of 'A'.
type aReader struct{}

func (aReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'A'
	}
	return len(p), nil
}

func TestDecapConfigYAML(t *testing.T) {
	t.Parallel()
	t.Run("FromTheModel", func(t *testing.T) {
		site := map[string]string{}
		for k, v := range decapSite {
			site[k] = v
		}
		site["folio.yaml"] += "decap: {version: 3.16.3, url: \"https://cdn.invalid/decap-cms@{version}/dist/decap-cms.js\", publishMode: editorial_workflow}\n"
		ts := startServer(t, newRepo(t, site).bare)
		r := get(t, ts.URL+"/admin/content/config.yml", ts.reader(t))
		if r.Status != 200 {
			t.Fatalf("config.yml: %d %s", r.Status, r.Body)
		}
		var cfg struct {
			Backend      map[string]string `yaml:"backend"`
			PublishMode  string            `yaml:"publish_mode"`
			Editor       map[string]bool   `yaml:"editor"`
			MediaFolder  string            `yaml:"media_folder"`
			PublicFolder string            `yaml:"public_folder"`
			Collections  []struct {
				Name, Folder, Extension, Format string
				Fields                          []map[string]any
			}
		}
		if err := yaml.Unmarshal(r.Body, &cfg); err != nil {
			t.Fatalf("%v\n%s", err, r.Body)
		}
		if cfg.Backend["name"] != "proxy" || cfg.Backend["proxy_url"] != "/api/v1/decap" || cfg.Backend["branch"] != "main" ||
			cfg.MediaFolder != "uploads" || cfg.PublicFolder != "/uploads" || cfg.PublishMode != "editorial_workflow" || !cfg.Editor["notes"] {
			t.Fatalf("config.yml:\n%s", r.Body)
		}
		widgets := map[string]map[string]any{}
		for _, c := range cfg.Collections {
			if c.Name == "posts" {
				if c.Folder != "content/posts" || c.Extension != "md" || c.Format != "frontmatter" {
					t.Fatalf("posts collection: %+v", c)
				}
				for _, f := range c.Fields {
					widgets[f["name"].(string)] = f
				}
			}
		}
		want := map[string]string{"title": "string", "cover": "image", "tags": "list", "rating": "number", "body": "markdown", "publishedAt": "datetime"}
		for name, wdg := range want {
			if widgets[name]["widget"] != wdg {
				t.Errorf("%s: widget %v, want %s (%v)", name, widgets[name]["widget"], wdg, widgets[name])
			}
		}
		if widgets["title"]["required"] == false || widgets["cover"]["required"] != false || widgets["rating"]["value_type"] != "int" || widgets["rating"]["max"] != 5 {
			t.Errorf("options: %v", widgets)
		}
		// The page loads Decap from folio.yaml's URL, at the pinned version.
		p := get(t, ts.URL+"/admin/content/", "")
		if p.Status != 200 || !strings.Contains(string(p.Body), `data-decap="https://cdn.invalid/decap-cms@3.16.3/dist/decap-cms.js"`) ||
			!strings.Contains(p.Header.Get("Content-Security-Policy"), "script-src 'self' https://cdn.invalid") {
			t.Fatalf("page: %d %s %s", p.Status, p.Header.Get("Content-Security-Policy"), p.Body)
		}
	})
	t.Run("TheRepositorysOwn", func(t *testing.T) {
		site := map[string]string{
			"content/posts/a.md": "---\ntitle: A\n---\nA.\n",
			"admin/config.yml": "backend:\n  name: git-gateway\nlocal_backend: true\nmedia_folder: static/img\ncollections:\n" +
				"  - name: blog\n    label: Blog\n    folder: content/posts\n    create: true\n    fields:\n      - {label: Title, name: title, widget: string}\n",
		}
		ts := startServer(t, newRepo(t, site).bare)
		r := get(t, ts.URL+"/admin/content/config.yml", ts.reader(t))
		var cfg map[string]any
		if err := yaml.Unmarshal(r.Body, &cfg); err != nil || r.Status != 200 {
			t.Fatalf("%d %v\n%s", r.Status, err, r.Body)
		}
		be, _ := cfg["backend"].(map[string]any)
		cols, _ := cfg["collections"].([]any)
		if be["name"] != "proxy" || cfg["media_folder"] != "uploads" || cfg["local_backend"] != nil || len(cols) != 1 || cols[0].(map[string]any)["name"] != "blog" {
			t.Fatalf("config.yml:\n%s", r.Body)
		}
		// No Decap URL configured: the page says so.
		p := get(t, ts.URL+"/admin/content/", "")
		if !strings.Contains(string(p.Body), `data-decap=""`) {
			t.Fatalf("page without a Decap URL: %s", p.Body)
		}
	})
	t.Run("LocalCopy", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "decap-cms.js"), []byte("console.log(1)"), 0o644)
		os.WriteFile(filepath.Join(t.TempDir(), "secret.js"), []byte("no"), 0o644)
		ts := startServer(t, newRepo(t, decapSite).bare, withDecapDir(dir))
		if p := get(t, ts.URL+"/admin/content/", ""); !strings.Contains(string(p.Body), `data-decap="/admin/content/decap/decap-cms.js"`) {
			t.Fatalf("page: %s", p.Body)
		}
		if r := get(t, ts.URL+"/admin/content/decap/decap-cms.js", ""); r.Status != 200 || string(r.Body) != "console.log(1)" {
			t.Fatalf("local copy: %d %s", r.Status, r.Body)
		}
		for _, p := range []string{"/admin/content/decap/../../../etc/passwd", "/admin/content/decap/%2e%2e/secret.js", "/admin/content/decap/", "/admin/content/nope.js"} {
			if r := get(t, ts.URL+p, ""); r.Status != 404 {
				t.Errorf("%s: %d, want 404", p, r.Status)
			}
		}
		if r := get(t, ts.URL+"/admin/content", ""); r.Status != 301 && r.Status != 200 {
			t.Errorf("/admin/content: %d", r.Status)
		}
	})
}

// FuzzDecapRPC sends any params to every action of the RPC on a writing
// box: never a 5xx, every refusal in the error shape.
func FuzzDecapRPC(f *testing.F) {
	repo := newRepo(f, decapSite)
	w := startDecapWriterTB(f, "file://"+repo.bare, withLocalMedia(f, f.TempDir()))
	key := w.key(f, "fuzz", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite, server.ScopeMediaRead, server.ScopeMediaWrite, server.ScopeMediaDelete)
	actions := []string{"info", "entriesByFolder", "entriesByFiles", "getEntry", "persistEntry", "deleteFiles", "deleteFile",
		"getMedia", "getMediaFile", "persistMedia", "unpublishedEntries", "unpublishedEntry", "unpublishedEntryDataFile",
		"unpublishedEntryMediaFile", "deleteUnpublishedEntry", "updateUnpublishedEntryStatus", "publishUnpublishedEntry", "getDeployPreview",
		"getNotes", "addNote", "updateNote", "deleteNote", "toggleNoteResolution", "getPRMetadata", "nope"}
	for i := range actions {
		for _, p := range []string{`{"branch":"main"}`, `{"branch":"main","path":"content/posts/hello.md","folder":"content/posts","extension":"md","depth":1}`,
			`{"branch":"main","collection":"posts","slug":"hello","newStatus":"pending_review","id":"posts/hello"}`,
			`{"branch":"main","dataFiles":[{"slug":"f","path":"content/posts/f.md","raw":"---\ntitle: F\n---\nF.\n"}],"assets":[],"options":{"collectionName":"posts","useWorkflow":true,"status":"draft"}}`,
			`{"branch":"main","asset":{"path":"uploads/a.png","content":"iVBORw0KGgo=","encoding":"base64"}}`,
			`{"branch":"main","paths":["content/posts/f.md","/uploads/x"]}`,
			`{"branch":"main","collection":"posts","slug":"f","note":{"content":"Check the title."},"noteId":"x","updates":{"resolved":true}}`, `[]`, `null`, `"x"`, `{"branch":1}`, `{"branch":"main","files":[{"path":"a/../b"}]}`} {
			f.Add(uint8(i), p)
		}
	}
	f.Fuzz(func(t *testing.T, action uint8, params string) {
		var raw json.RawMessage
		if json.Valid([]byte(params)) {
			raw = json.RawMessage(params)
		} else {
			b, _ := json.Marshal(params)
			raw = b
		}
		body, _ := json.Marshal(map[string]any{"action": actions[int(action)%len(actions)], "params": raw})
		req := newFuzzRequest(t, "POST", "/api/v1/decap", "", key, body)
		req.Header.Set("Content-Type", "application/json")
		serveFuzz(t, w.Handler, req, false)
	})
}

// TestDecapTwoWriters: two writing boxes on one remote. Saves of one entry
// at once: each is applied whole or refused (409), never a mix or a lost
// acknowledged save; an unpublished entry saved on one box, with its
// status, is seen and published from the other.
func TestDecapTwoWriters(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, decapSite)
	a := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, t.TempDir()))
	b := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, t.TempDir()))
	ka := a.key(t, "ann", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	kb := b.key(t, "bob", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	save := func(ts *testServer, key, text string, workflow bool, base ...string) response {
		df := map[string]any{"slug": "hello", "path": "content/posts/hello.md", "raw": "---\ntitle: Hello\n---\n" + text + "\n"}
		if len(base) > 0 {
			df["base"] = base[0]
		}
		return rpcOpened(t, ts.URL, key, map[string]any{"branch": "main", "dataFiles": []map[string]any{df},
			"assets": []any{}, "options": map[string]any{"collectionName": "posts", "commitMessage": "Update hello", "useWorkflow": workflow, "status": "draft"}})
	}
	for round := range 5 {
		texts := [2]string{fmt.Sprintf("Ann's words %d.", round), fmt.Sprintf("Bob's words %d.", round)}
		var res [2]response
		var wg sync.WaitGroup
		for i, box := range []*testServer{a, b} {
			// Both editors opened the entry before either saved.
			opened := *getEntry(t, box.URL, []string{ka, kb}[i], "main", "content/posts/hello.md").File.ID
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = save(box, []string{ka, kb}[i], texts[i], false, opened)
			}()
		}
		wg.Wait()
		stored := git(t, repo.bare, "show", "main:content/posts/hello.md")
		ok := 0
		for i, r := range res {
			switch r.Status {
			case 200:
				ok++
			case 409, 412:
			default:
				t.Fatalf("round %d: box %d: %d %s", round, i, r.Status, r.Body)
			}
		}
		if ok != 1 {
			// Both read the same commit: the second is refused, not
			// applied over the first.
			t.Fatalf("round %d: %d saves acknowledged, want 1: %s / %s", round, ok, res[0].Body, res[1].Body)
		}
		// The file is one save, whole; an acknowledged save is the last
		// one or was overwritten by the other acknowledged one.
		if !strings.Contains(stored, texts[0]) && !strings.Contains(stored, texts[1]) {
			t.Fatalf("round %d: the file is neither save:\n%s", round, stored)
		}
		for i, r := range res {
			if r.Status == 200 && ok == 1 && !strings.Contains(stored, texts[i]) {
				t.Fatalf("round %d: box %d's acknowledged save is lost:\n%s", round, i, stored)
			}
		}
		a.Engine.Sync(t.Context())
		b.Engine.Sync(t.Context())
	}

	// The workflow across boxes: saved and set ready on a, published from b.
	wantOK(t, save(a, ka, "A draft.", true))
	wantOK(t, rpc(t, a.URL, ka, "updateUnpublishedEntryStatus", map[string]any{"branch": "main", "collection": "posts", "slug": "hello", "newStatus": "pending_publish"}))
	b.Engine.Sync(t.Context())
	r := rpc(t, b.URL, kb, "unpublishedEntry", map[string]any{"branch": "main", "id": "posts/hello"})
	wantOK(t, r)
	if r.json(t)["status"] != "pending_publish" {
		t.Fatalf("the other box sees %s", r.Body)
	}
	wantOK(t, rpc(t, b.URL, kb, "publishUnpublishedEntry", map[string]any{"branch": "main", "collection": "posts", "slug": "hello"}))
	if got := git(t, repo.bare, "show", "main:content/posts/hello.md"); !strings.Contains(got, "A draft.") {
		t.Fatalf("published: %s", got)
	}
}

// TestDecapDraftBranch: on a site with a draft branch, Decap edits it
// (config.yml's branch), starting from the published branch before it
// exists; the published branch does not move, and neither does it when a
// workflow entry is published.
func TestDecapDraftBranch(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, decapSite)
	w := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, t.TempDir()), func(e *engine.Config, _ *server.Config) { e.DraftBranch = "draft" })
	key := w.key(t, "ann", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	mainBefore := git(t, repo.bare, "rev-parse", "main")
	var cfg struct{ Backend map[string]string }
	if err := yaml.Unmarshal(get(t, w.URL+"/admin/content/config.yml", w.reader(t)).Body, &cfg); err != nil || cfg.Backend["branch"] != "draft" {
		t.Fatalf("config.yml branch: %v %v", cfg.Backend, err)
	}
	r := rpc(t, w.URL, key, "entriesByFolder", map[string]any{"branch": "draft", "folder": "content/posts", "extension": "md", "depth": 1})
	wantOK(t, r)
	if !strings.Contains(string(r.Body), "content/posts/hello.md") {
		t.Fatalf("entries of the draft branch before it exists: %s", r.Body)
	}
	wantOK(t, rpcOpened(t, w.URL, key, map[string]any{"branch": "draft",
		"dataFiles": []map[string]any{{"slug": "hello", "path": "content/posts/hello.md", "raw": "---\ntitle: Hello\n---\nA draft edit.\n"}},
		"assets":    []any{}, "options": map[string]any{"commitMessage": "Update hello", "useWorkflow": false, "status": ""}}))
	if got := git(t, repo.bare, "show", "draft:content/posts/hello.md"); !strings.Contains(got, "A draft edit.") {
		t.Fatalf("draft branch: %s", got)
	}
	if git(t, repo.bare, "rev-parse", "main") != mainBefore {
		t.Fatal("a draft edit moved main")
	}
	r = rpc(t, w.URL, key, "getEntry", map[string]any{"branch": "draft", "path": "content/posts/hello.md"})
	if !strings.Contains(string(r.Body), "A draft edit.") {
		t.Fatalf("getEntry on the draft branch: %s", r.Body)
	}

	// The editorial workflow on a draft site: an entry's branch starts
	// from the draft branch (the entry as the editor read it), and
	// publishing it merges it into the draft branch (POST /api/v1/publish
	// publishes that), not into main.
	draft := git(t, repo.bare, "rev-parse", "draft")
	wantOK(t, rpcOpened(t, w.URL, key, map[string]any{"branch": "draft",
		"dataFiles": []map[string]any{{"slug": "hello", "path": "content/posts/hello.md", "raw": "---\ntitle: Hello\n---\nA workflow edit.\n"}},
		"assets":    []any{}, "options": map[string]any{"collectionName": "posts", "commitMessage": "Update hello", "useWorkflow": true, "status": "draft"}}))
	if got := git(t, repo.bare, "rev-parse", "cms/posts/hello^"); got != draft {
		t.Fatalf("the entry's branch starts from %s, want the draft branch %s", got, draft)
	}
	r = rpc(t, w.URL, key, "unpublishedEntry", map[string]any{"branch": "draft", "id": "posts/hello"})
	wantOK(t, r)
	if e := r.json(t); e["status"] != "draft" || len(e["diffs"].([]any)) != 1 {
		t.Fatalf("unpublishedEntry: %s", r.Body)
	}
	// Decap names the draft branch; main is reached only by publishing.
	wantError(t, rpc(t, w.URL, key, "publishUnpublishedEntry", map[string]any{"branch": "main", "collection": "posts", "slug": "hello"}), 403, "FORBIDDEN")
	wantOK(t, rpc(t, w.URL, key, "publishUnpublishedEntry", map[string]any{"branch": "draft", "collection": "posts", "slug": "hello"}))
	if got := git(t, repo.bare, "show", "draft:content/posts/hello.md"); !strings.Contains(got, "A workflow edit.") {
		t.Fatalf("draft after publishing the entry: %s", got)
	}
	if got := git(t, repo.bare, "log", "-1", "--format=%an|%P", "draft"); !strings.HasPrefix(got, "ann|"+draft+" ") {
		t.Fatalf("the publishing merge: %q", got)
	}
	if git(t, repo.bare, "rev-parse", "main") != mainBefore {
		t.Fatal("publishing a workflow entry on a draft site moved main")
	}
	if _, err := gitOut(repo.bare, "rev-parse", "--verify", "-q", "refs/heads/cms/posts/hello"); err == nil {
		t.Fatal("the published entry's branch is still on the remote")
	}
}

// BenchmarkDecapEntriesByFolder is Decap's collection listing: the raw
// files of a folder of 1,000 posts, over HTTP.
func BenchmarkDecapEntriesByFolder(b *testing.B) {
	site := map[string]string{"folio.yaml": "types:\n  posts: {}\n"}
	for i := range 1000 {
		site[fmt.Sprintf("content/posts/post-%04d.md", i)] = fmt.Sprintf("---\ntitle: Post %d\npublishedAt: 2024-01-01T00:00:00Z\n---\n%s\n", i, strings.Repeat("Words of the post. ", 40))
	}
	repo := newRepo(b, site)
	w := startDecapWriterTB(b, "file://"+repo.bare)
	key := w.key(b, "bench", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	body, _ := json.Marshal(map[string]any{"action": "entriesByFolder", "params": map[string]any{"branch": "main", "folder": "content/posts", "extension": "md", "depth": 1}})
	b.ResetTimer()
	for b.Loop() {
		r := do(b, "POST", w.URL+"/api/v1/decap", key, bytes.NewReader(body), "Content-Type", "application/json")
		if r.Status != 200 || len(r.Body) < 1000*100 {
			b.Fatalf("%d %d bytes", r.Status, len(r.Body))
		}
	}
}

// TestDecapGetMediaListsEveryItem: getMedia lists the whole library (Decap
// takes the list whole, unpaged), the newest first, streamed; thumbnails
// ride along until their byte budget is spent, the other items come
// without bytes.
func TestDecapGetMediaListsEveryItem(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, decapSite)
	var lib *media.Library
	const n, budgetItems = 620, 25
	small := pngBytes(t, 8, 8)
	root := t.TempDir()
	w := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, root), func(_ *engine.Config, s *server.Config) {
		lib = s.Media
		s.Decap.MediaThumbBytes = budgetItems * len(small)
	})
	key := w.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite, server.ScopeMediaRead)
	for i := range n {
		if _, err := lib.Create(t.Context(), media.UploadInput{Filename: fmt.Sprintf("item-%03d.png", i), Body: bytes.NewReader(small)}); err != nil {
			t.Fatal(err)
		}
	}
	r := rpc(t, w.URL, key, "getMedia", map[string]any{"branch": "main", "mediaFolder": "uploads"})
	wantOK(t, r)
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Fatalf("Content-Type %q", ct)
	}
	var files []struct{ ID, Content, Encoding, Path, Name string }
	if err := json.Unmarshal(r.Body, &files); err != nil {
		t.Fatal(err)
	}
	if len(files) != n {
		t.Fatalf("getMedia lists %d items, want all %d", len(files), n)
	}
	want, _ := lib.List(media.Query{Desc: true})
	with := 0
	for i, f := range files {
		if f.ID != want[i].ID || f.Path != want[i].URL || f.Name != want[i].Filename || f.Encoding != "base64" {
			t.Fatalf("item %d: %+v, want %s %s %s", i, f, want[i].ID, want[i].URL, want[i].Filename)
		}
		if f.Content == "" {
			continue
		}
		if i != with {
			t.Fatalf("item %d carries a thumbnail after one without: the newest carry them", i)
		}
		with++
		if b, err := base64.StdEncoding.DecodeString(f.Content); err != nil || !bytes.Equal(b, small) {
			t.Fatalf("item %d: thumbnail %v", i, err)
		}
	}
	if with != budgetItems {
		t.Fatalf("%d items carry a thumbnail, want %d (the budget)", with, budgetItems)
	}
	// The item bound: the newest that many.
	w2 := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, root), func(_ *engine.Config, s *server.Config) { s.Decap.MediaListed = 555 })
	r = rpc(t, w2.URL, w2.key(t, "ada", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite, server.ScopeMediaRead), "getMedia", map[string]any{"branch": "main", "mediaFolder": "uploads"})
	wantOK(t, r)
	files = nil
	if err := json.Unmarshal(r.Body, &files); err != nil || len(files) != 555 || files[554].ID != want[554].ID {
		t.Fatalf("getMedia with a bound of 555: %d items, %v", len(files), err)
	}
}

// TestDecapNotes: Decap's notes on an unpublished entry are commits on its
// branch (a Decap-Note trailer each), so another box reads them; a note's
// text is its author's to change or delete, its resolution anyone's.
func TestDecapNotes(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, decapSite)
	a := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, t.TempDir()))
	b := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, t.TempDir()))
	grace := a.key(t, "Grace", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	bob := b.key(t, "Bob", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	entry := map[string]any{"branch": "main", "collection": "posts", "slug": "idea"}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range entry {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	notes := func(ts *testServer, key string) []map[string]any {
		t.Helper()
		r := rpc(t, ts.URL, key, "getNotes", entry)
		wantOK(t, r)
		var out struct{ Notes []map[string]any }
		if err := json.Unmarshal(r.Body, &out); err != nil || out.Notes == nil {
			t.Fatalf("getNotes: %s", r.Body)
		}
		return out.Notes
	}
	if got := notes(a, grace); len(got) != 0 {
		t.Fatalf("notes of no entry: %v", got)
	}
	wantError(t, rpc(t, a.URL, grace, "addNote", with("note", map[string]any{"content": "Too early."})), 404, "NOT_FOUND")

	wantOK(t, rpcOpened(t, a.URL, grace, map[string]any{"branch": "main",
		"dataFiles": []map[string]any{{"slug": "idea", "path": "content/posts/idea.md", "raw": "---\ntitle: Idea\n---\nAn idea.\n"}},
		"assets":    []any{}, "options": map[string]any{"collectionName": "posts", "commitMessage": "Create idea", "useWorkflow": true, "status": "draft"}}))
	r := rpc(t, a.URL, grace, "addNote", with("note", map[string]any{"content": "  Check the title,\nplease: \"Idea\" is vague. ", "author": "Anonymous", "resolved": false}))
	wantOK(t, r)
	var added struct{ Note map[string]any }
	json.Unmarshal(r.Body, &added)
	id, _ := added.Note["id"].(string)
	if id == "" || added.Note["content"] != "Check the title,\nplease: \"Idea\" is vague." || added.Note["author"] != "Grace" ||
		added.Note["isOwn"] != true || added.Note["resolved"] != false || added.Note["entrySlug"] != "idea" || added.Note["timestamp"] == "" {
		t.Fatalf("addNote: %s", r.Body)
	}
	if got := git(t, repo.bare, "log", "-1", "--format=%an|%(trailers:key=Decap-Note,valueonly)", "cms/posts/idea"); !strings.HasPrefix(got, "Grace|{") || !strings.Contains(got, id) {
		t.Fatalf("the note on the branch: %q", got)
	}
	// The status is still the entry's.
	if e := rpc(t, a.URL, grace, "unpublishedEntry", with("id", "posts/idea")).json(t); e["status"] != "draft" || len(e["diffs"].([]any)) != 1 {
		t.Fatalf("unpublishedEntry after a note: %v", e)
	}

	// The other box reads it; Bob may resolve it, not rewrite or delete it.
	b.Engine.Sync(t.Context())
	got := notes(b, bob)
	if len(got) != 1 || got[0]["id"] != id || got[0]["isOwn"] != false || got[0]["author"] != "Grace" {
		t.Fatalf("notes on the other box: %v", got)
	}
	wantError(t, rpc(t, b.URL, bob, "updateNote", with("noteId", id, "updates", map[string]any{"content": "Mine now."})), 403, "FORBIDDEN")
	wantError(t, rpc(t, b.URL, bob, "deleteNote", with("noteId", id)), 403, "FORBIDDEN")
	r = rpc(t, b.URL, bob, "toggleNoteResolution", with("noteId", id))
	wantOK(t, r)
	if !strings.Contains(string(r.Body), `"resolved":true`) {
		t.Fatalf("toggleNoteResolution: %s", r.Body)
	}
	r = rpc(t, b.URL, bob, "addNote", with("note", map[string]any{"content": "Agreed."}))
	wantOK(t, r)

	// Back on the first box (it saw none of Bob's pushes yet): Grace
	// edits her note on top of them.
	r = rpc(t, a.URL, grace, "updateNote", with("noteId", id, "updates", map[string]any{"content": "Retitled: fine now."}))
	wantOK(t, r)
	if !strings.Contains(string(r.Body), "Retitled: fine now.") || !strings.Contains(string(r.Body), `"resolved":true`) {
		t.Fatalf("updateNote: %s", r.Body)
	}
	got = notes(a, grace)
	if len(got) != 2 || got[0]["id"] != id || got[1]["author"] != "Bob" || got[1]["content"] != "Agreed." || got[0]["updatedAt"] == nil {
		t.Fatalf("notes: %v", got)
	}
	wantOK(t, rpc(t, a.URL, grace, "deleteNote", with("noteId", id)))
	if got = notes(a, grace); len(got) != 1 || got[0]["author"] != "Bob" {
		t.Fatalf("notes after a delete: %v", got)
	}

	// Bad input: 4xx in the error shape, nothing committed.
	before := git(t, repo.bare, "rev-parse", "cms/posts/idea")
	wantError(t, rpc(t, a.URL, grace, "addNote", with("note", map[string]any{"content": "  "})), 400, "BAD_REQUEST")
	wantError(t, rpc(t, a.URL, grace, "addNote", with("note", map[string]any{"content": strings.Repeat("x", 9000)})), 400, "BAD_REQUEST")
	wantError(t, rpc(t, a.URL, grace, "addNote", entry), 400, "BAD_REQUEST")
	wantError(t, rpc(t, a.URL, grace, "updateNote", with("noteId", "nope", "updates", map[string]any{"resolved": true})), 404, "NOT_FOUND")
	wantError(t, rpc(t, a.URL, grace, "updateNote", with("noteId", got[0]["id"])), 400, "BAD_REQUEST")
	wantError(t, rpc(t, a.URL, grace, "getNotes", map[string]any{"branch": "main", "collection": "posts", "slug": "../x"}), 400, "BAD_REQUEST")
	if git(t, repo.bare, "rev-parse", "cms/posts/idea") != before {
		t.Fatal("a refused note made a commit")
	}
	r = rpc(t, a.URL, grace, "getPRMetadata", entry)
	wantOK(t, r)
	if strings.TrimSpace(string(r.Body)) != `{"metadata":null}` {
		t.Fatalf("getPRMetadata: %s", r.Body)
	}
}

// BenchmarkDecapGetMedia is Decap's media library listing: 2,000 items,
// each with its thumbnail, streamed over HTTP.
func BenchmarkDecapGetMedia(b *testing.B) {
	repo := newRepo(b, decapSite)
	var lib *media.Library
	w := startDecapWriterTB(b, "file://"+repo.bare, withLocalMedia(b, b.TempDir()), func(_ *engine.Config, s *server.Config) { lib = s.Media })
	small := pngBytes(b, 8, 8)
	for i := range 2000 {
		if _, err := lib.Create(b.Context(), media.UploadInput{Filename: fmt.Sprintf("item-%04d.png", i), Body: bytes.NewReader(small)}); err != nil {
			b.Fatal(err)
		}
	}
	key := w.key(b, "bench", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite, server.ScopeMediaRead)
	body, _ := json.Marshal(map[string]any{"action": "getMedia", "params": map[string]any{"branch": "main", "mediaFolder": "uploads"}})
	b.ResetTimer()
	for b.Loop() {
		r := do(b, "POST", w.URL+"/api/v1/decap", key, bytes.NewReader(body), "Content-Type", "application/json")
		if r.Status != 200 || bytes.Count(r.Body, []byte(`"id":`)) != 2000 {
			b.Fatalf("%d %d bytes", r.Status, len(r.Body))
		}
	}
}
