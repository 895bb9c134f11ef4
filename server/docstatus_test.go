package server_test

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// TestDraftViewStatus: in the draft view (and on a ref's draft view) every
// page and item says what it is, and a scheduled one turns published at
// its instant.
func TestDraftViewStatus(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	repo := newRepo(t, map[string]string{
		"pages/home.md":         "---\ntitle: Home\nisHomepage: true\ndate: 2024-01-01\n---\n",
		"pages/later.md":        "---\ntitle: Later\npublishedAt: 2030-01-01T13:00:00Z\n---\n",
		"content/posts/live.md": "---\ntitle: Live\ndate: 2024-01-01\n---\n",
		"content/posts/wip.md":  "---\ntitle: WIP\ndraft: true\n---\n",
		"content/posts/soon.md": "---\ntitle: Soon\npublishedAt: 2030-01-01T13:00:00Z\n---\n",
		"content/posts/gone.md": "---\ntitle: Gone\ndate: 2024-01-01\nexpiresAt: 2029-01-01T00:00:00Z\n---\n",
	})
	clk := newClock(t0)
	ts := startServer(t, repo.bare, func(e *engine.Config, s *server.Config) { e.Now, s.Now = clk.Now, clk.Now })
	drafter := ts.key(t, "drafter", server.ScopeContentRead, server.ScopeContentDraft)
	statuses := func(url string) string {
		t.Helper()
		r := get(t, url, drafter)
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", url, r.Status, r.Body)
		}
		var l struct {
			Items []struct{ Slug, Status string }
		}
		if err := json.Unmarshal(r.Body, &l); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range l.Items {
			out = append(out, it.Slug+":"+it.Status)
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	if got := statuses(ts.URL + "/api/v1/content/posts?draft=true"); got != "gone:expired live:published soon:scheduled wip:draft" {
		t.Fatalf("draft list = %s", got)
	}
	if got := statuses(ts.URL + "/api/v1/pages?draft=true"); got != "home:published later:scheduled" {
		t.Fatalf("draft pages = %s", got)
	}
	if r := get(t, ts.URL+"/api/v1/pages/later?draft=true", drafter); r.json(t)["status"] != "scheduled" {
		t.Fatalf("draft page: %s", r.Body)
	}
	head := git(t, repo.work, "rev-parse", "HEAD")
	if got := statuses(ts.URL + "/api/v1/content/posts?draft=true&ref=" + head); got != "gone:expired live:published soon:scheduled wip:draft" {
		t.Fatalf("draft list on a ref = %s", got)
	}
	// The published view has no status field: it shows published
	// documents only.
	if r := get(t, ts.URL+"/api/v1/content/posts/live", drafter); strings.Contains(string(r.Body), `"status"`) {
		t.Fatalf("published view: %s", r.Body)
	}
	clk.Set(t0.Add(2 * time.Hour))
	if got := statuses(ts.URL + "/api/v1/content/posts?draft=true"); got != "gone:expired live:published soon:published wip:draft" {
		t.Fatalf("after the instant: %s", got)
	}
}
