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
