package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

func TestPreviewLinks(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":         "types:\n  posts:\n    public: true\n",
		"content/posts/a.md": "---\ntitle: A\ndate: 2024-01-01\n---\nA\n",
	})
	git(t, repo.work, "checkout", "-q", "-b", "feature")
	repo.write(map[string]string{"content/posts/a.md": "---\ntitle: A on feature\ndate: 2024-01-01\n---\nA\n"})
	git(t, repo.work, "commit", "-qam", "feature")
	git(t, repo.work, "push", "-q", "origin", "feature")
	clk := newClock(time.Now())
	secret := "s3cret"
	ts := startServer(t, repo.bare, func(e *engine.Config, s *server.Config) {
		s.PreviewSecret = secret
		s.Now, e.Now = clk.Now, clk.Now
	})
	preview := ts.key(t, "preview", server.ScopeContentRead, server.ScopeContentPreview)
	create := func(body string) response {
		t.Helper()
		return do(t, http.MethodPost, ts.URL+"/api/v1/previews", preview, strings.NewReader(body), "Content-Type", "application/json")
	}
	r := create(`{"ref":"feature","expiresIn":600}`)
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var tok struct{ Token, Ref, Kind, Commit string }
	if err := json.Unmarshal(r.Body, &tok); err != nil || tok.Kind != "branch" || tok.Ref != "feature" {
		t.Fatalf("token: %v %s", err, r.Body)
	}
	for _, url := range []string{"/api/v1/content/posts/a", "/api/v1/public/collections/posts/a"} {
		r = get(t, ts.URL+url+"?preview="+tok.Token, "")
		if r.Status != http.StatusOK || r.json(t)["title"] != "A on feature" {
			t.Fatalf("%s with the token: %d %s", url, r.Status, r.Body)
		}
		if r.Header.Get("Cache-Control") != "private, no-store" || r.Header.Get("X-Robots-Tag") != "noindex" {
			t.Fatalf("%s headers: %v", url, r.Header)
		}
	}
	// The public surface without a token still serves main, cached.
	r = get(t, ts.URL+"/api/v1/public/collections/posts/a", "")
	if r.json(t)["title"] != "A" || !strings.HasPrefix(r.Header.Get("Cache-Control"), "public") {
		t.Fatalf("public: %s %v", r.Body, r.Header)
	}
	// A branch token follows the branch.
	repo.write(map[string]string{"content/posts/a.md": "---\ntitle: A moved\ndate: 2024-01-01\n---\nA\n"})
	git(t, repo.work, "commit", "-qam", "again")
	git(t, repo.work, "push", "-q", "origin", "feature")
	if r = get(t, ts.URL+"/api/v1/content/posts/a?preview="+tok.Token, ""); r.json(t)["title"] != "A moved" {
		t.Fatalf("after push: %s", r.Body)
	}
	// Tampered, expired, wrong secret: 401.
	tampered := strings.Replace(tok.Token, tok.Token[:4], "AAAA", 1)
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/a?preview="+tampered, ""), http.StatusUnauthorized, server.CodeUnauthorized)
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/a?preview=x.y", ""), http.StatusUnauthorized, server.CodeUnauthorized)
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/a?preview=", "", outsideSpec, "1"), http.StatusUnauthorized, server.CodeUnauthorized)
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/a?preview="+tok.Token+"&ref=main", ""), http.StatusBadRequest, server.CodeBadRequest)
	clk.Add(11 * time.Minute)
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/a?preview="+tok.Token, ""), http.StatusUnauthorized, server.CodeUnauthorized)

	// A commit token stays on its commit.
	head := git(t, repo.work, "rev-parse", "HEAD~1")
	r = create(`{"ref":"` + head[:8] + `"}`)
	json.Unmarshal(r.Body, &tok)
	if r.Status != http.StatusCreated || tok.Kind != "commit" || tok.Ref != head {
		t.Fatalf("commit token: %d %s", r.Status, r.Body)
	}
	if r = get(t, ts.URL+"/api/v1/content/posts/a?preview="+tok.Token, ""); r.json(t)["title"] != "A on feature" {
		t.Fatalf("commit token: %s", r.Body)
	}
	// Not for media or other routes: a token is no API key.
	wantError(t, get(t, ts.URL+"/api/v1/media?preview="+tok.Token, "", outsideSpec, "1"), http.StatusUnauthorized, server.CodeUnauthorized)

	// Bad requests.
	wantError(t, create(`{"ref":"nope"}`), http.StatusNotFound, server.CodeRefNotFound)
	wantError(t, create(`{"ref":"feature","expiresIn":999999999}`), http.StatusBadRequest, server.CodeBadRequest)
	wantError(t, create(`{"ref":""}`), http.StatusBadRequest, server.CodeBadRequest)
	wantError(t, create(`{"ref":"feature","x":1}`), http.StatusBadRequest, server.CodeBadRequest)
	wantError(t, create(`nope`), http.StatusBadRequest, server.CodeBadRequest)
	wantError(t, do(t, http.MethodPost, ts.URL+"/api/v1/previews", ts.reader(t), strings.NewReader(`{"ref":"main"}`), "Content-Type", "application/json"), http.StatusForbidden, server.CodeForbidden)
}

func TestPreviewLinksOff(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newRepo(t, map[string]string{"content/posts/a.md": "---\ntitle: A\n---\n"}).bare)
	preview := ts.key(t, "preview", server.ScopeContentRead, server.ScopeContentPreview)
	wantError(t, do(t, http.MethodPost, ts.URL+"/api/v1/previews", preview, strings.NewReader(`{"ref":"main"}`), "Content-Type", "application/json"), http.StatusNotFound, server.CodeNotFound)
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/a?preview=abc.def", ""), http.StatusUnauthorized, server.CodeUnauthorized)
}
