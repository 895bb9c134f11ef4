package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

func TestRefs(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"content/posts/a.md": "---\ntitle: A\n---\nA\n",
		"content/posts/d.md": "---\ntitle: D\ndraft: true\n---\nD\n",
	})
	first := git(t, repo.work, "rev-parse", "HEAD")
	git(t, repo.work, "tag", "v1")
	git(t, repo.work, "push", "-q", "origin", "v1")
	git(t, repo.work, "checkout", "-q", "-b", "feature")
	repo.write(map[string]string{"content/posts/a.md": "---\ntitle: A on feature\n---\nA\n"})
	git(t, repo.work, "commit", "-qam", "feature")
	git(t, repo.work, "push", "-q", "origin", "feature")
	feature := git(t, repo.work, "rev-parse", "HEAD")
	ts := startServer(t, repo.bare)
	reader := ts.reader(t)
	preview := ts.key(t, "preview", server.ScopeContentRead, server.ScopeContentPreview)
	drafter := ts.key(t, "drafter", server.ScopeContentRead, server.ScopeContentDraft)

	title := func(r response) string {
		t.Helper()
		if r.Status != http.StatusOK {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		return r.json(t)["title"].(string)
	}
	item := ts.URL + "/api/v1/content/posts/a"
	if got := title(get(t, item+"?ref=feature", preview)); got != "A on feature" {
		t.Fatalf("?ref=feature: %q", got)
	}
	if got := title(get(t, item, preview)); got != "A" {
		t.Fatalf("published: %q", got)
	}
	// content:draft implies content:preview.
	r := get(t, item+"?ref=v1", drafter)
	if got := title(r); got != "A" || r.Header.Get("Cache-Control") != "private, no-cache" {
		t.Fatalf("?ref=v1: %q, %s", got, r.Header.Get("Cache-Control"))
	}
	r = get(t, item+"?ref="+feature, preview)
	if got := title(r); got != "A on feature" || r.Header.Get("Cache-Control") != "private, max-age=31536000, immutable" {
		t.Fatalf("?ref=<full sha>: %q, %s", got, r.Header.Get("Cache-Control"))
	}
	if got := title(get(t, item+"?ref="+feature[:7], preview)); got != "A on feature" {
		t.Fatalf("?ref=<short sha>: %q", got)
	}
	// Drafts on a ref only with draft=true and the draft scope.
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/d?ref="+first, preview), http.StatusNotFound, server.CodeNotFound)
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/d?draft=true&ref="+first, preview), http.StatusForbidden, server.CodeForbidden)
	r = get(t, ts.URL+"/api/v1/content/posts/d?draft=true&ref="+first, drafter)
	if got := title(r); got != "D" || r.Header.Get("Cache-Control") != "private, no-store" {
		t.Fatalf("draft on a ref: %q %s", got, r.Header.Get("Cache-Control"))
	}
	// Lists, pages and globals take the ref too.
	list := get(t, ts.URL+"/api/v1/content/posts?ref=feature", preview)
	if list.Status != http.StatusOK || !strings.Contains(string(list.Body), "A on feature") {
		t.Fatalf("list on feature: %d %s", list.Status, list.Body)
	}

	wantError(t, get(t, item+"?ref=feature", reader), http.StatusForbidden, server.CodeForbidden)
	wantError(t, get(t, item+"?ref=feature", ""), http.StatusUnauthorized, server.CodeUnauthorized)
	for _, bad := range []string{"a..b", "x%01", "%20", strings.Repeat("b", 10<<10)} {
		wantError(t, get(t, item+"?ref="+bad, preview, outsideSpec, "1"), http.StatusBadRequest, server.CodeBadRequest)
	}
	wantError(t, get(t, item+"?ref=", preview, outsideSpec, "1"), http.StatusBadRequest, server.CodeBadRequest)
	wantError(t, get(t, item+"?ref=nope", preview), http.StatusNotFound, server.CodeRefNotFound)
	wantError(t, get(t, item+"?ref="+strings.Repeat("0", 40), preview), http.StatusNotFound, server.CodeRefNotFound)
	// Never on the public surface.
	wantError(t, get(t, ts.URL+"/api/v1/public/collections/posts?ref=feature", ""), http.StatusBadRequest, server.CodeBadRequest)

	// The refs list.
	r = get(t, ts.URL+"/api/v1/refs", preview)
	if r.Status != http.StatusOK {
		t.Fatalf("refs: %d %s", r.Status, r.Body)
	}
	var refs struct {
		Items []struct{ Name, Kind, Commit string }
		Total int
	}
	if err := json.Unmarshal(r.Body, &refs); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range refs.Items {
		got = append(got, it.Kind+":"+it.Name+":"+it.Commit[:7])
	}
	want := "branch:feature:" + feature[:7] + " branch:main:" + first[:7] + " tag:v1:" + first[:7]
	if strings.Join(got, " ") != want || refs.Total != 3 {
		t.Fatalf("refs = %v (total %d), want %s", got, refs.Total, want)
	}
	wantError(t, get(t, ts.URL+"/api/v1/refs", reader), http.StatusForbidden, server.CodeForbidden)

	// A push to the branch is served; a deleted branch is gone.
	repo.write(map[string]string{"content/posts/a.md": "---\ntitle: A pushed\n---\nA\n"})
	git(t, repo.work, "commit", "-qam", "again")
	git(t, repo.work, "push", "-q", "origin", "feature")
	if got := title(get(t, item+"?ref=feature", preview)); got != "A pushed" {
		t.Fatalf("after push: %q", got)
	}
	git(t, repo.work, "push", "-q", "origin", "--delete", "feature")
	wantError(t, get(t, item+"?ref=feature", preview), http.StatusNotFound, server.CodeRefNotFound)
}

func TestRefsPatterns(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"content/posts/a.md": "---\ntitle: A\n---\nA\n"})
	git(t, repo.work, "push", "-q", "origin", "HEAD:refs/heads/cms/posts/a", "HEAD:refs/heads/secret")
	ts := startServer(t, repo.bare, func(e *engine.Config, _ *server.Config) {
		e.Refs = []string{"main", "cms/*"}
	})
	preview := ts.key(t, "preview", server.ScopeContentRead, server.ScopeContentPreview)
	item := ts.URL + "/api/v1/content/posts/a"
	if r := get(t, item+"?ref=cms/posts/a", preview); r.Status != http.StatusOK {
		t.Fatalf("cms/posts/a: %d %s", r.Status, r.Body)
	}
	wantError(t, get(t, item+"?ref=secret", preview), http.StatusNotFound, server.CodeRefNotFound)
	head := git(t, repo.work, "rev-parse", "HEAD")
	wantError(t, get(t, item+"?ref="+head, preview), http.StatusNotFound, server.CodeRefNotFound)
	r := get(t, ts.URL+"/api/v1/refs", preview)
	if strings.Contains(string(r.Body), "secret") || !strings.Contains(string(r.Body), "cms/posts/a") {
		t.Fatalf("refs = %s", r.Body)
	}
}

// TestRefsRemoteSite: a remote site (cloned into the cache) fetches a
// branch it does not have yet when a request names it, and follows a
// force push of it once fetched again.
func TestRefsRemoteSite(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"content/posts/a.md": "---\ntitle: A\n---\nA\n"})
	ts := startServer(t, "file://"+repo.bare, func(e *engine.Config, _ *server.Config) { e.Poll = 0 })
	preview := ts.key(t, "preview", server.ScopeContentRead, server.ScopeContentPreview)
	git(t, repo.work, "checkout", "-q", "-b", "late")
	repo.write(map[string]string{"content/posts/a.md": "---\ntitle: A late\n---\nA\n"})
	git(t, repo.work, "commit", "-qam", "late")
	git(t, repo.work, "push", "-q", "origin", "late")
	r := get(t, ts.URL+"/api/v1/content/posts/a?ref=late", preview)
	if r.Status != http.StatusOK || r.json(t)["title"] != "A late" {
		t.Fatalf("a branch pushed after the start: %d %s", r.Status, r.Body)
	}
	// A force push to an unrelated history, then a sync: served.
	git(t, repo.work, "checkout", "-q", "--orphan", "other")
	repo.write(map[string]string{"content/posts/a.md": "---\ntitle: A rewritten\n---\nA\n"})
	git(t, repo.work, "add", "-A")
	git(t, repo.work, "commit", "-qm", "rewrite")
	git(t, repo.work, "push", "-q", "-f", "origin", "HEAD:late")
	if err := ts.Engine.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := get(t, ts.URL+"/api/v1/content/posts/a?ref=late", preview); r.json(t)["title"] != "A rewritten" {
		t.Fatalf("after a force push: %s", r.Body)
	}
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/a?ref=never", preview), http.StatusNotFound, server.CodeRefNotFound)
}

// TestRefsFlood: a client asking for many versions not in memory is
// refused with 429 once past its allowance of builds; versions already
// built are still served; the cache stays within its bound.
func TestRefsFlood(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"content/posts/a.md": "---\ntitle: A0\n---\nA\n"})
	var commits []string
	for i := 1; i <= 40; i++ {
		commits = append(commits, repo.commit(fmt.Sprint("c", i), map[string]string{"content/posts/a.md": fmt.Sprintf("---\ntitle: A%d\n---\nA\n", i)}))
	}
	// The server's clock stands still: the limiter's bucket (30, then 1
	// a second) does not refill however slowly the machine builds the
	// snapshots.
	clk := newClock(time.Now())
	ts := startServer(t, repo.bare, func(e *engine.Config, c *server.Config) { e.RefCacheBytes = 1 << 20; c.Now = clk.Now })
	preview := ts.key(t, "preview", server.ScopeContentRead, server.ScopeContentPreview)
	served, limited := 0, 0
	for _, c := range commits[:39] {
		r := get(t, ts.URL+"/api/v1/content/posts/a?ref="+c, preview)
		switch r.Status {
		case http.StatusOK:
			served++
		case http.StatusTooManyRequests:
			limited++
			if r.Header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
		default:
			t.Fatalf("?ref=%s: %d %s", c, r.Status, r.Body)
		}
	}
	if served != 30 || limited != 9 {
		t.Fatalf("served %d, limited %d: want the flood cut off", served, limited)
	}
	// The published commit needs no build: always served.
	if r := get(t, ts.URL+"/api/v1/content/posts/a?ref="+commits[39], preview); r.Status != http.StatusOK {
		t.Fatalf("the published commit: %d", r.Status)
	}
	var st struct {
		Refs struct{ Snapshots, EstimatedBytes, MaxBytes int }
	}
	if err := json.Unmarshal(get(t, ts.URL+"/api/v1/status", preview).Body, &st); err != nil {
		t.Fatal(err)
	}
	if st.Refs.EstimatedBytes > st.Refs.MaxBytes || st.Refs.Snapshots == 0 {
		t.Fatalf("ref cache %+v", st.Refs)
	}
}
