package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// A preview token grants no more than the key that made it held: a key
// with content:preview alone makes a token that serves the public
// collections' published items, not draft=true (its own draft=true is
// 403), and not the keyed routes (it lacks content:read).
func TestPreviewTokenGrantsNoMoreThanItsKey(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":             "types:\n  posts:\n    public: true\n",
		"content/posts/a.md":     "---\ntitle: A\ndate: 2024-01-01\n---\nA\n",
		"content/posts/draft.md": "---\ntitle: Secret draft\ndraft: true\n---\nThe draft's body.\n",
		"content/posts/later.md": "---\ntitle: Later\ndate: 2999-01-01\n---\nScheduled body.\n",
	})
	ts := startServer(t, repo.bare, func(_ *engine.Config, s *server.Config) { s.PreviewSecret = "s3cret" })
	mint := func(key string) string {
		t.Helper()
		r := do(t, http.MethodPost, ts.URL+"/api/v1/previews", key, strings.NewReader(`{"ref":"main"}`), "Content-Type", "application/json")
		if r.Status != http.StatusCreated {
			t.Fatalf("mint: %d %s", r.Status, r.Body)
		}
		var tok struct{ Token string }
		json.Unmarshal(r.Body, &tok)
		return tok.Token
	}
	previewOnly := ts.key(t, "preview-only", server.ScopeContentPreview)
	wantError(t, get(t, ts.URL+"/api/v1/content/posts?draft=true", previewOnly), http.StatusForbidden, server.CodeForbidden)

	weak := mint(previewOnly)
	r := get(t, ts.URL+"/api/v1/public/collections/posts?preview="+weak, "")
	if r.Status != http.StatusOK || strings.Contains(string(r.Body), "Secret draft") {
		t.Fatalf("published preview: %d %s", r.Status, r.Body)
	}
	for _, u := range []string{
		"/api/v1/public/collections/posts?draft=true&preview=",
		"/api/v1/public/collections/posts/draft?draft=true&preview=",
		"/api/v1/content/posts?preview=",
		"/api/v1/content/posts/a?preview=",
		"/api/v1/pages?preview=",
		"/api/v1/globals?preview=",
	} {
		r := get(t, ts.URL+u+weak, "")
		wantError(t, r, http.StatusForbidden, server.CodeForbidden)
		if strings.Contains(string(r.Body), "draft's body") || strings.Contains(string(r.Body), "Scheduled body") {
			t.Fatalf("%s leaked: %s", u, r.Body)
		}
	}

	// A key with content:read reads the keyed routes through its token,
	// published only; with content:draft the drafts too.
	reader := ts.key(t, "reader-preview", server.ScopeContentRead, server.ScopeContentPreview)
	tok := mint(reader)
	if r := get(t, ts.URL+"/api/v1/content/posts/a?preview="+tok, ""); r.Status != http.StatusOK {
		t.Fatalf("reader token: %d %s", r.Status, r.Body)
	}
	wantError(t, get(t, ts.URL+"/api/v1/content/posts?draft=true&preview="+tok, ""), http.StatusForbidden, server.CodeForbidden)
	drafter := ts.key(t, "drafter", server.ScopeContentRead, server.ScopeContentDraft)
	tok = mint(drafter)
	for _, u := range []string{"/api/v1/public/collections/posts?draft=true&preview=", "/api/v1/content/posts?draft=true&preview="} {
		if r := get(t, ts.URL+u+tok, ""); r.Status != http.StatusOK || !strings.Contains(string(r.Body), "Secret draft") {
			t.Fatalf("%s with a draft key's token: %d %s", u, r.Status, r.Body)
		}
	}
}

// /api/v1/changes?since= follows the rule of ?ref=: a key without
// content:preview names a commit of the published history (or the
// published branch); any other branch, tag or commit, whether it exists
// or not, is the same 403.
func TestChangesSinceNeedsPreviewForOtherRefs(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"content/posts/a.md": "---\ntitle: A\n---\n"})
	first := git(t, repo.work, "rev-parse", "HEAD")
	git(t, repo.work, "checkout", "-q", "-b", "secret/launch")
	repo.write(map[string]string{"content/posts/launch.md": "---\ntitle: Launch\n---\n"})
	git(t, repo.work, "add", "-A")
	git(t, repo.work, "commit", "-qm", "launch")
	git(t, repo.work, "push", "-q", "origin", "secret/launch")
	hidden := git(t, repo.work, "rev-parse", "HEAD")
	git(t, repo.work, "tag", "v-secret")
	git(t, repo.work, "push", "-q", "origin", "v-secret")
	git(t, repo.work, "checkout", "-q", "main")
	repo.commit("second", map[string]string{"content/posts/b.md": "---\ntitle: B\n---\n"})

	ts := startServer(t, repo.bare)
	reader := ts.reader(t)
	preview := ts.key(t, "preview", server.ScopeContentRead, server.ScopeContentPreview)
	changes := func(since, key string) response {
		t.Helper()
		var r response
		eventually(t, "the history index", func() bool {
			r = get(t, ts.URL+"/api/v1/changes?since="+since, key)
			return r.Status != http.StatusServiceUnavailable
		})
		return r
	}
	for _, since := range []string{first, first[:8], "main"} {
		if r := changes(since, reader); r.Status != http.StatusOK {
			t.Fatalf("since=%s, reader: %d %s", since, r.Status, r.Body)
		}
	}
	var bodies []string
	for _, since := range []string{"secret/launch", hidden, hidden[:8], "v-secret", "secret/none", "deadbeefdeadbeef"} {
		r := changes(since, reader)
		wantError(t, r, http.StatusForbidden, server.CodeForbidden)
		if strings.Contains(string(r.Body), "launch.md") {
			t.Fatalf("since=%s leaked the branch's files: %s", since, r.Body)
		}
		var e struct{ Message string }
		json.Unmarshal(r.Body, &e)
		bodies = append(bodies, e.Message)
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Fatalf("the refusals differ (an existence oracle): %q vs %q", b, bodies[0])
		}
	}
	wantError(t, changes("a..b", reader), http.StatusBadRequest, server.CodeBadRequest)
	// content:preview reads any ref, as ?ref= does.
	if r := changes("secret/launch", preview); r.Status != http.StatusOK || !strings.Contains(string(r.Body), "launch.md") {
		t.Fatalf("since=secret/launch, preview: %d %s", r.Status, r.Body)
	}
	wantError(t, changes("secret/none", preview), http.StatusNotFound, server.CodeRefNotFound)
}

// Writing does not imply reading: a content:write key without the read
// scopes reads nothing through the Decap RPC (entries, other files,
// media) nor through a write's answer (PATCH '{}' echoed the whole
// draft); and Decap's reads reach documents only, never folio.yaml.
func TestWriteDoesNotImplyRead(t *testing.T) {
	t.Parallel()
	site := map[string]string{}
	for k, v := range decapSite {
		site[k] = v
	}
	site["content/posts/secret.md"] = "---\ntitle: Secret plan\ndraft: true\n---\nThe secret body.\n"
	repo := newRepo(t, site)
	ts := startDecapWriter(t, "file://"+repo.bare, withLocalMedia(t, t.TempDir()))
	writer := ts.key(t, "writer", server.ScopeContentWrite)
	reader := ts.key(t, "writer-reader", server.ScopeContentWrite, server.ScopeContentRead)
	editor := ts.key(t, "editor", server.ScopeContentWrite, server.ScopeContentRead, server.ScopeContentDraft, server.ScopeMediaRead)

	for _, c := range []struct {
		action string
		params map[string]any
	}{
		{"getEntry", map[string]any{"branch": "main", "path": "folio.yaml"}},
		{"getEntry", map[string]any{"branch": "main", "path": "content/posts/secret.md"}},
		{"entriesByFolder", map[string]any{"branch": "main", "folder": "content/posts", "extension": "md", "depth": 1}},
		{"entriesByFiles", map[string]any{"branch": "main", "files": []map[string]any{{"path": "content/posts/secret.md"}}}},
		{"getMedia", map[string]any{"branch": "main"}},
		{"getMediaFile", map[string]any{"branch": "main", "path": "/uploads/x.png"}},
		{"unpublishedEntries", map[string]any{"branch": "main"}},
	} {
		for _, key := range []string{writer, reader} {
			if c.action == "getMedia" || c.action == "getMediaFile" {
				key = writer
			}
			r := rpc(t, ts.URL, key, c.action, c.params)
			wantError(t, r, http.StatusForbidden, server.CodeForbidden)
			if strings.Contains(string(r.Body), "secret body") || strings.Contains(string(r.Body), "types:") {
				t.Fatalf("%s leaked: %s", c.action, r.Body)
			}
		}
	}
	// With the read scopes, entries are read; other files are not.
	r := rpc(t, ts.URL, editor, "getEntry", map[string]any{"branch": "main", "path": "content/posts/secret.md"})
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "secret body") {
		t.Fatalf("editor getEntry: %d %s", r.Status, r.Body)
	}
	for _, c := range []struct {
		action string
		params map[string]any
	}{
		{"getEntry", map[string]any{"branch": "main", "path": "folio.yaml"}},
		{"entriesByFiles", map[string]any{"branch": "main", "files": []map[string]any{{"path": "folio.yaml"}}}},
		{"entriesByFolder", map[string]any{"branch": "main", "folder": "content", "extension": "yaml", "depth": 3}},
		{"entriesByFolder", map[string]any{"branch": "main", "folder": ".github", "extension": "yml", "depth": 3}},
		{"unpublishedEntryDataFile", map[string]any{"branch": "main", "collection": "posts", "slug": "x", "path": "folio.yaml"}},
	} {
		r := rpc(t, ts.URL, editor, c.action, c.params)
		if r.Status == http.StatusOK || strings.Contains(string(r.Body), "types:") {
			t.Fatalf("%s %v: %d %s", c.action, c.params, r.Status, r.Body)
		}
	}

	// The write API's answer: the document only to a key that may GET it.
	r = wr(t, http.MethodPatch, ts.URL+"/api/v1/content/posts/secret", writer, `{}`)
	if r.Status != http.StatusOK || strings.Contains(string(r.Body), "Secret plan") || !strings.Contains(string(r.Body), `"path":"content/posts/secret.md"`) {
		t.Fatalf("write-only PATCH {}: %d %s", r.Status, r.Body)
	}
	// content:read sees the published view: the draft is not in it.
	if r = wr(t, http.MethodPatch, ts.URL+"/api/v1/content/posts/secret", reader, `{}`); strings.Contains(string(r.Body), "Secret plan") {
		t.Fatalf("content:read PATCH {} of a draft: %d %s", r.Status, r.Body)
	}
	if r = wr(t, http.MethodPatch, ts.URL+"/api/v1/content/posts/hello", reader, `{}`); !strings.Contains(string(r.Body), `"title":"Hello"`) {
		t.Fatalf("content:read PATCH {} of a published item: %d %s", r.Status, r.Body)
	}
	if r = wr(t, http.MethodPatch, ts.URL+"/api/v1/content/posts/secret", editor, `{}`); !strings.Contains(string(r.Body), "Secret plan") {
		t.Fatalf("content:draft PATCH {} of a draft: %d %s", r.Status, r.Body)
	}
}

// /admin/content/config.yml shows what openapi.json shows: to anyone the
// public types' collections, every type's fields only to a key with
// content:read.
func TestDecapConfigFollowsOpenAPIVisibility(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml": "types:\n  posts:\n    public: true\n    fields:\n      title: {kind: string}\n" +
			"  salaries:\n    fields:\n      title: {kind: string}\n      annualPay: {kind: integer}\n",
		"content/posts/a.md":    "---\ntitle: A\n---\n",
		"content/salaries/b.md": "---\ntitle: B\nannualPay: 1\n---\n",
		"globals.yaml":          "siteName: S\nboardSecret: x\n",
	})
	ts := startServer(t, repo.bare)
	anon := get(t, ts.URL+"/admin/content/config.yml", "")
	if anon.Status != http.StatusOK || !strings.Contains(string(anon.Body), "content/posts") {
		t.Fatalf("anonymous config.yml: %d %s", anon.Status, anon.Body)
	}
	for _, hidden := range []string{"salaries", "annualPay", "globals.yaml", "pages"} {
		if strings.Contains(string(anon.Body), hidden) {
			t.Fatalf("anonymous config.yml names %s:\n%s", hidden, anon.Body)
		}
	}
	if oa := get(t, ts.URL+"/api/v1/openapi.json", ""); strings.Contains(string(oa.Body), "annualPay") {
		t.Fatal("openapi.json shows the private type to anyone")
	}
	full := get(t, ts.URL+"/admin/content/config.yml", ts.reader(t))
	if full.Status != http.StatusOK || !strings.Contains(string(full.Body), "annualPay") || !strings.Contains(full.Header.Get("Cache-Control"), "private") {
		t.Fatalf("config.yml with a key: %d %v %s", full.Status, full.Header, full.Body)
	}
	if !strings.Contains(full.Header.Get("Vary"), "Authorization") {
		t.Fatalf("Vary: %v", full.Header)
	}
}
