package server_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

var siteFiles = map[string]string{
	"globals.yaml": "siteName: Acme\nlogoUrl: https://cdn.test/logo.svg\nnav:\n  - {label: Home, url: /}\nfooter:\n  copyrightText: © Acme\nsocial:\n  - {platform: github, url: https://github.com/acme}\n",
	"folio.yaml":   "types:\n  posts:\n    public: true\n    sortable: [rating]\n",
	"pages/home.yaml": `title: Home
isHomepage: true
publishedAt: 2026-01-01T00:00:00Z
seo: {title: Home SEO, description: The home page, ogImage: https://cdn.test/og.jpg}
sections:
  - {type: hero, heading: Hi}
  - {id: cta, type: callToAction, data: {label: Go}}
`,
	"pages/about.md":           "---\ntitle: About\npublishedAt: 2026-01-02\n---\nWe are **Acme**.\n",
	"pages/guides/install.md":  "---\ntitle: Install\npublishedAt: 2026-01-03\n---\nSteps.\n",
	"pages/secret.md":          "---\ntitle: Secret\ndraft: true\n---\nHidden.\n",
	"content/posts/a.md":       "---\ntitle: Alpha\ndate: 2026-01-10\nauthor: Ann\nrating: 3\ntags: [x, y]\n---\nAlpha body.\n",
	"content/posts/b.md":       "---\ntitle: Beta\ndate: 2026-01-12\nauthor: Bob\nrating: 5\n---\nBeta body.\n",
	"content/posts/c.md":       "---\ntitle: Gamma draft\ndate: 2026-01-11\nstatus: draft\n---\nDraft body.\n",
	"content/products/p1.yaml": "title: Tent\nprice: 100\npublishedAt: 2026-01-05\n",
}

func TestPages(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, siteFiles)
	ts := startServer(t, repo.bare)
	key := ts.reader(t)

	t.Run("List", func(t *testing.T) {
		r := get(t, ts.URL+"/api/v1/pages", key)
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		m := r.json(t)
		items := m["items"].([]any)
		if got, want := len(items), 3; got != want {
			t.Fatalf("items = %d, want %d (drafts excluded): %s", got, want, r.Body)
		}
		if m["total"].(float64) != 3 || m["limit"].(float64) != 20 || m["offset"].(float64) != 0 {
			t.Fatalf("paging = %v %v %v", m["total"], m["limit"], m["offset"])
		}
		first := items[0].(map[string]any)
		if first["slug"] != "home" || first["isHomepage"] != true {
			t.Fatalf("homepage not first: %v", first)
		}
		for _, f := range []string{"id", "slug", "title", "isHomepage", "publishedAt", "updatedAt"} {
			if _, ok := first[f]; !ok {
				t.Errorf("summary lacks %s", f)
			}
		}
		if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "private") {
			t.Errorf("Cache-Control = %q, want private", cc)
		}
	})
	t.Run("Paging", func(t *testing.T) {
		m := get(t, ts.URL+"/api/v1/pages?limit=1&offset=1", key).json(t)
		if len(m["items"].([]any)) != 1 || m["total"].(float64) != 3 || m["offset"].(float64) != 1 {
			t.Fatalf("got %v", m)
		}
		m = get(t, ts.URL+"/api/v1/pages?limit=1000", key, outsideSpec, "clamped").json(t)
		if m["limit"].(float64) != 100 {
			t.Fatalf("limit not clamped to 100: %v", m["limit"])
		}
		m = get(t, ts.URL+"/api/v1/pages?limit=99999999999999999999999&offset=99999999999999999999", key, outsideSpec, "clamped").json(t)
		if m["limit"].(float64) != 100 || len(m["items"].([]any)) != 0 {
			t.Fatalf("huge values: %v", m)
		}
	})
	t.Run("One", func(t *testing.T) {
		m := get(t, ts.URL+"/api/v1/pages/home", key).json(t)
		if m["title"] != "Home" || m["isHomepage"] != true {
			t.Fatalf("page = %v", m)
		}
		seo := m["seo"].(map[string]any)
		if seo["title"] != "Home SEO" || seo["ogImage"] != "https://cdn.test/og.jpg" {
			t.Fatalf("seo = %v", seo)
		}
		secs := m["sections"].([]any)
		if len(secs) != 2 {
			t.Fatalf("sections = %v", secs)
		}
		s0, s1 := secs[0].(map[string]any), secs[1].(map[string]any)
		if s0["type"] != "hero" || s0["order"].(float64) != 0 || s0["data"].(map[string]any)["heading"] != "Hi" || s0["id"] == "" {
			t.Fatalf("section 0 = %v", s0)
		}
		if s1["id"] != "cta" || s1["order"].(float64) != 1 || s1["data"].(map[string]any)["label"] != "Go" {
			t.Fatalf("section 1 = %v", s1)
		}
		if m := get(t, ts.URL+"/api/v1/pages/guides/install", key).json(t); m["title"] != "Install" {
			t.Fatalf("nested slug: %v", m)
		}
		wantError(t, get(t, ts.URL+"/api/v1/pages/nope", key), 404, "NOT_FOUND")
		wantError(t, get(t, ts.URL+"/api/v1/pages/secret", key), 404, "NOT_FOUND")
	})
	t.Run("Draft", func(t *testing.T) {
		wantError(t, get(t, ts.URL+"/api/v1/pages?draft=true", ""), 401, "UNAUTHORIZED")
		wantError(t, get(t, ts.URL+"/api/v1/pages?draft=true", key), 403, "FORBIDDEN")
		wantError(t, get(t, ts.URL+"/api/v1/pages/secret?draft=true", key), 403, "FORBIDDEN")
		wantError(t, get(t, ts.URL+"/api/v1/pages?draft=maybe", key), 400, "BAD_REQUEST")
		dk := ts.key(t, "drafter", server.ScopeContentRead, server.ScopeContentDraft)
		r := get(t, ts.URL+"/api/v1/pages?draft=true", dk)
		if m := r.json(t); m["total"].(float64) != 4 {
			t.Fatalf("draft list total = %v, want 4", m["total"])
		}
		if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "no-store") {
			t.Errorf("draft Cache-Control = %q", cc)
		}
		if m := get(t, ts.URL+"/api/v1/pages/secret?draft=true", dk).json(t); m["title"] != "Secret" {
			t.Fatalf("draft page = %v", m)
		}
	})
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, siteFiles)
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	for _, tc := range []struct {
		name, path string
		status     int
		code       string
	}{
		{"limit text", "/api/v1/pages?limit=abc", 400, "BAD_REQUEST"},
		{"limit negative", "/api/v1/pages?limit=-1", 400, "BAD_REQUEST"},
		{"limit zero", "/api/v1/pages?limit=0", 400, "BAD_REQUEST"},
		{"offset negative", "/api/v1/content/posts?offset=-5", 400, "BAD_REQUEST"},
		{"offset text", "/api/v1/content/posts?offset=1e3", 400, "BAD_REQUEST"},
		{"unknown sort", "/api/v1/content/posts?sort=author", 400, "BAD_REQUEST"},
		{"sort injection", "/api/v1/content/posts?sort=-", 400, "BAD_REQUEST"},
		{"dotdot slug", "/api/v1/pages/guides/..%2f..%2fetc", 400, "BAD_REQUEST"},
		{"dotdot raw", "/api/v1/content/posts/a/../../b", 400, "BAD_REQUEST"},
		{"encoded slash", "/api/v1/pages/guides%2Finstall", 200, ""},
		{"nul", "/api/v1/pages/ho%00me", 400, "BAD_REQUEST"},
		{"long slug", "/api/v1/pages/" + strings.Repeat("a", 2048), 400, "BAD_REQUEST"},
		{"bad type", "/api/v1/content/..%2fpages", 400, "BAD_REQUEST"},
		{"unknown type", "/api/v1/content/widgets", 404, "NOT_FOUND"},
		{"unknown item", "/api/v1/content/posts/zzz", 404, "NOT_FOUND"},
		{"unknown route", "/api/v1/nothing", 404, "NOT_FOUND"},
		{"unknown root", "/", 404, "NOT_FOUND"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := get(t, ts.URL+tc.path, key)
			if tc.status == 200 {
				if r.Status != 200 {
					t.Fatalf("status %d: %s", r.Status, r.Body)
				}
				return
			}
			wantError(t, r, tc.status, tc.code)
		})
	}
	t.Run("MethodNotAllowed", func(t *testing.T) {
		wantError(t, do(t, "DELETE", ts.URL+"/api/v1/pages", key, nil), 405, "METHOD_NOT_ALLOWED")
		wantError(t, do(t, "POST", ts.URL+"/api/v1/globals", key, nil), 405, "METHOD_NOT_ALLOWED")
	})
	t.Run("Authorization", func(t *testing.T) {
		for _, h := range []string{"", "Bearer", "Bearer ", "Basic abc", "Bearer a b", "bearer " + strings.Repeat("x", 300), "Token " + key} {
			r := get(t, ts.URL+"/api/v1/pages", "", "Authorization", h)
			wantError(t, r, 401, "UNAUTHORIZED")
		}
		wantError(t, get(t, ts.URL+"/api/v1/pages", ""), 401, "UNAUTHORIZED")
		wantError(t, get(t, ts.URL+"/api/v1/pages", key+"x"), 401, "UNAUTHORIZED")
		mk := ts.key(t, "media-only", server.ScopeMediaRead)
		wantError(t, get(t, ts.URL+"/api/v1/pages", mk), 403, "FORBIDDEN")
	})
}

func TestContent(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, siteFiles)
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	slugs := func(r response) string {
		t.Helper()
		var out []string
		for _, it := range r.json(t)["items"].([]any) {
			out = append(out, it.(map[string]any)["slug"].(string))
		}
		return strings.Join(out, ",")
	}
	t.Run("List", func(t *testing.T) {
		r := get(t, ts.URL+"/api/v1/content/posts", key)
		if got, want := slugs(r), "b,a"; got != want {
			t.Fatalf("default order = %s, want %s (newest first, drafts out)", got, want)
		}
		it := r.json(t)["items"].([]any)[1].(map[string]any)
		for _, f := range []string{"id", "type", "title", "slug", "data", "publishedAt"} {
			if _, ok := it[f]; !ok {
				t.Errorf("item lacks %s: %v", f, it)
			}
		}
		data := it["data"].(map[string]any)
		if it["type"] != "posts" || data["author"] != "Ann" || !strings.Contains(data["body"].(string), "<p>Alpha body.</p>") {
			t.Fatalf("item = %v", it)
		}
		if it["publishedAt"] != "2026-01-10T00:00:00Z" {
			t.Errorf("publishedAt = %v, want UTC ISO 8601", it["publishedAt"])
		}
	})
	t.Run("Sort", func(t *testing.T) {
		for sort, want := range map[string]string{"title": "a,b", "-title": "b,a", "rating": "a,b", "-rating": "b,a", "slug": "a,b", "publishedAt": "a,b"} {
			if got := slugs(get(t, ts.URL+"/api/v1/content/posts?sort="+sort, key)); got != want {
				t.Errorf("sort=%s: %s, want %s", sort, got, want)
			}
		}
	})
	t.Run("One", func(t *testing.T) {
		m := get(t, ts.URL+"/api/v1/content/posts/a", key).json(t)
		if m["title"] != "Alpha" || m["slug"] != "a" {
			t.Fatalf("item = %v", m)
		}
		wantError(t, get(t, ts.URL+"/api/v1/content/posts/c", key), 404, "NOT_FOUND")
		dk := ts.key(t, "drafter", server.ScopeContentRead, server.ScopeContentDraft)
		if m := get(t, ts.URL+"/api/v1/content/posts/c?draft=true", dk).json(t); m["title"] != "Gamma draft" {
			t.Fatalf("draft item = %v", m)
		}
		if got := slugs(get(t, ts.URL+"/api/v1/content/posts?draft=true", dk)); got != "b,c,a" {
			t.Fatalf("draft list = %s", got)
		}
	})
	t.Run("Globals", func(t *testing.T) {
		m := get(t, ts.URL+"/api/v1/globals", key).json(t)
		if m["siteName"] != "Acme" || m["logoUrl"] != "https://cdn.test/logo.svg" {
			t.Fatalf("globals = %v", m)
		}
		if m["footer"].(map[string]any)["copyrightText"] != "© Acme" || len(m["nav"].([]any)) != 1 || len(m["social"].([]any)) != 1 {
			t.Fatalf("globals = %v", m)
		}
	})
	t.Run("Public", func(t *testing.T) {
		r := get(t, ts.URL+"/api/v1/public/collections/posts", "")
		if r.Status != 200 || slugs(r) != "b,a" {
			t.Fatalf("public list %d: %s", r.Status, r.Body)
		}
		if r.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("no CORS header")
		}
		const cc = "public, max-age=60, stale-while-revalidate=60, stale-if-error=86400"
		if got := r.Header.Get("Cache-Control"); got != cc {
			t.Errorf("public list Cache-Control %q, want %q", got, cc)
		}
		if r := get(t, ts.URL+"/api/v1/public/collections/posts/a", ""); r.Status != 200 || r.Header.Get("Cache-Control") != cc {
			t.Fatalf("public item %d, Cache-Control %q", r.Status, r.Header.Get("Cache-Control"))
		}
		wantError(t, get(t, ts.URL+"/api/v1/public/collections/posts/c", ""), 404, "NOT_FOUND")
		wantError(t, get(t, ts.URL+"/api/v1/public/collections/products", ""), 404, "NOT_FOUND")
		wantError(t, get(t, ts.URL+"/api/v1/public/collections/posts?draft=true", key), 400, "BAD_REQUEST")
		pre := do(t, "OPTIONS", ts.URL+"/api/v1/public/collections/posts", "", nil, "Origin", "https://x.test", "Access-Control-Request-Method", "GET")
		if pre.Status != 204 || pre.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("preflight %d %v", pre.Status, pre.Header)
		}
	})
	t.Run("ETag", func(t *testing.T) {
		for _, p := range []string{"/api/v1/pages", "/api/v1/pages/home", "/api/v1/content/posts", "/api/v1/content/posts/a", "/api/v1/globals", "/api/v1/public/collections/posts"} {
			r := get(t, ts.URL+p, key)
			etag := r.Header.Get("ETag")
			if etag == "" {
				t.Fatalf("%s: no ETag", p)
			}
			if r2 := get(t, ts.URL+p, key, "If-None-Match", etag); r2.Status != 304 || len(r2.Body) != 0 {
				t.Fatalf("%s: If-None-Match gave %d", p, r2.Status)
			}
			if r3 := get(t, ts.URL+p, key, "If-None-Match", `"other"`); r3.Status != 200 {
				t.Fatalf("%s: stale If-None-Match gave %d", p, r3.Status)
			}
		}
	})
}

func TestHotReload(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, siteFiles)
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	title := func(path string) string {
		r := get(t, ts.URL+path, key)
		if r.Status != 200 {
			return fmt.Sprint(r.Status)
		}
		s, _ := r.json(t)["title"].(string)
		return s
	}

	t.Run("Push", func(t *testing.T) {
		repo.commit("edit", map[string]string{"content/posts/a.md": "---\ntitle: Alpha 2\ndate: 2026-01-10\n---\nNew.\n"})
		eventually(t, "the push to be served", func() bool { return title("/api/v1/content/posts/a") == "Alpha 2" })
	})
	t.Run("BrokenFile", func(t *testing.T) {
		commit := repo.commit("broken", map[string]string{
			"content/posts/broken.md": "---\ntitle: [unclosed\n---\nx\n",
			"content/posts/d.md":      "---\ntitle: Delta\ndate: 2026-01-13\n---\nD.\n",
		})
		eventually(t, "the commit with a broken file", func() bool { return title("/api/v1/content/posts/d") == "Delta" })
		st := get(t, ts.URL+"/api/v1/status", key).json(t)
		if st["commit"] != commit {
			t.Fatalf("status commit = %v, want %s", st["commit"], commit)
		}
		probs := fmt.Sprint(st["problems"])
		if !strings.Contains(probs, "content/posts/broken.md") {
			t.Fatalf("problems = %s", probs)
		}
		if title("/api/v1/content/posts/a") != "Alpha 2" {
			t.Fatal("other files not served")
		}
	})
	t.Run("ForcePush", func(t *testing.T) {
		git(t, repo.work, "reset", "-q", "--hard", "HEAD~2")
		repo.write(map[string]string{"content/posts/e.md": "---\ntitle: Epsilon\ndate: 2026-01-14\n---\nE.\n"})
		git(t, repo.work, "add", "-A")
		git(t, repo.work, "commit", "-q", "-m", "rewrite")
		git(t, repo.work, "push", "-q", "--force", "origin", "HEAD:main")
		eventually(t, "the force push", func() bool { return title("/api/v1/content/posts/e") == "Epsilon" })
		if got := title("/api/v1/content/posts/d"); got != "404" {
			t.Fatalf("rewritten-away post still served: %s", got)
		}
	})
	t.Run("Healthz", func(t *testing.T) {
		r := get(t, ts.URL+"/healthz", "")
		if r.Status != 200 || r.json(t)["status"] != "ok" {
			t.Fatalf("healthz %d %s", r.Status, r.Body)
		}
	})
}

func TestDraftBranch(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, siteFiles)
	git(t, repo.work, "checkout", "-q", "-b", "preview")
	repo.write(map[string]string{"content/posts/a.md": "---\ntitle: Alpha preview\ndate: 2026-01-10\n---\nP.\n"})
	git(t, repo.work, "add", "-A")
	git(t, repo.work, "commit", "-q", "-m", "preview")
	git(t, repo.work, "push", "-q", "origin", "preview")
	ts := startServer(t, repo.bare, func(e *engine.Config, _ *server.Config) { e.DraftBranch = "preview" })
	key := ts.reader(t)
	dk := ts.key(t, "drafter", server.ScopeContentRead, server.ScopeContentDraft)
	if m := get(t, ts.URL+"/api/v1/content/posts/a", key).json(t); m["title"] != "Alpha" {
		t.Fatalf("published = %v", m["title"])
	}
	if m := get(t, ts.URL+"/api/v1/content/posts/a?draft=true", dk).json(t); m["title"] != "Alpha preview" {
		t.Fatalf("draft branch = %v", m["title"])
	}
	git(t, repo.work, "checkout", "-q", "preview")
	repo.write(map[string]string{"content/posts/a.md": "---\ntitle: Alpha preview 2\ndate: 2026-01-10\n---\nP.\n"})
	git(t, repo.work, "commit", "-qam", "preview 2")
	git(t, repo.work, "push", "-q", "origin", "preview")
	eventually(t, "the draft branch push", func() bool {
		return get(t, ts.URL+"/api/v1/content/posts/a?draft=true", dk).json(t)["title"] == "Alpha preview 2"
	})
}

func TestScheduling(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"content/posts/now.md":     "---\ntitle: Now\ndate: 2026-01-01\n---\n",
		"content/posts/later.md":   "---\ntitle: Later\npublishedAt: 2026-06-01T12:00:00Z\n---\n",
		"content/posts/expires.md": "---\ntitle: Expires\ndate: 2026-01-01\nexpiryDate: 2026-03-01T00:00:00Z\n---\n",
	})
	clk := newClock(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	ts := startServer(t, repo.bare, func(e *engine.Config, _ *server.Config) { e.Now = clk.Now })
	key := ts.reader(t)
	status := func(slug string) int { return get(t, ts.URL+"/api/v1/content/posts/"+slug, key).Status }
	total := func() float64 { return get(t, ts.URL+"/api/v1/content/posts", key).json(t)["total"].(float64) }
	if status("now") != 200 || status("later") != 404 || status("expires") != 200 || total() != 2 {
		t.Fatalf("February: now %d later %d expires %d total %v", status("now"), status("later"), status("expires"), total())
	}
	clk.Set(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	if status("expires") != 404 || total() != 1 {
		t.Fatalf("at the expiry instant: expires %d total %v", status("expires"), total())
	}
	clk.Set(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	if status("later") != 200 || total() != 2 {
		t.Fatalf("at the publish instant: later %d total %v", status("later"), total())
	}
	dk := ts.key(t, "drafter", server.ScopeContentRead, server.ScopeContentDraft)
	clk.Set(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	if r := get(t, ts.URL+"/api/v1/content/posts/later?draft=true", dk); r.Status != 200 {
		t.Fatalf("scheduled item in draft view: %d", r.Status)
	}
}

func TestWebhook(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, siteFiles)
	const secret = "s3cret"
	ts := startServer(t, "file://"+repo.bare, func(e *engine.Config, s *server.Config) {
		e.Poll = 0
		s.WebhookSecret = secret
	})
	key := ts.reader(t)
	repo.commit("edit", map[string]string{"content/posts/a.md": "---\ntitle: Hooked\ndate: 2026-01-10\n---\n"})
	body := `{"ref":"refs/heads/main"}`
	sign := func(b string) string {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(b))
		return "sha256=" + hex.EncodeToString(m.Sum(nil))
	}
	hook := func(sig string) response {
		h := []string{"Content-Type", "application/json"}
		if sig != "" {
			h = append(h, "X-Hub-Signature-256", sig)
		}
		return do(t, "POST", ts.URL+"/api/v1/hooks/git", "", strings.NewReader(body), h...)
	}
	wantError(t, hook(""), 401, "UNAUTHORIZED")
	wantError(t, hook("sha256=00"), 401, "UNAUTHORIZED")
	wantError(t, hook("sha256=zz"), 401, "UNAUTHORIZED")
	wantError(t, hook(sign(body+" ")), 401, "UNAUTHORIZED")
	if m := get(t, ts.URL+"/api/v1/content/posts/a", key).json(t); m["title"] != "Alpha" {
		t.Fatalf("unsigned hooks changed content: %v", m["title"])
	}
	if r := hook(sign(body)); r.Status != http.StatusAccepted {
		t.Fatalf("signed hook: %d %s", r.Status, r.Body)
	}
	eventually(t, "the webhook-triggered fetch", func() bool {
		return get(t, ts.URL+"/api/v1/content/posts/a", key).json(t)["title"] == "Hooked"
	})
}

func TestRateLimit(t *testing.T) {
	repo := newRepo(t, siteFiles)
	ts := startServer(t, repo.bare, func(_ *engine.Config, s *server.Config) {
		s.RateKey = server.RateLimit{PerSecond: 0.01, Burst: 2}
	})
	key := ts.reader(t)
	for i := 0; i < 2; i++ {
		if r := get(t, ts.URL+"/api/v1/pages", key); r.Status != 200 {
			t.Fatalf("request %d: %d", i, r.Status)
		}
	}
	r := get(t, ts.URL+"/api/v1/pages", key)
	wantError(t, r, 429, "RATE_LIMITED")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	other := ts.key(t, "other", server.ScopeContentRead)
	if r := get(t, ts.URL+"/api/v1/pages", other); r.Status != 200 {
		t.Fatalf("another key was limited too: %d", r.Status)
	}
}

// TestUpdatedAtFromGit: without updatedAt in front matter, an item's
// updatedAt is the time of the last commit that touched its file.
func TestUpdatedAtFromGit(t *testing.T) {
	t.Parallel()
	repo := newRepoAt(t, "2026-01-01T10:00:00Z", map[string]string{
		"content/posts/a.md": "---\ntitle: A\ndate: 2026-01-01\n---\n",
		"content/posts/b.md": "---\ntitle: B\ndate: 2026-01-01\nupdatedAt: 2025-12-24T18:00:00Z\n---\n",
		"content/posts/c.md": "---\ntitle: C\ndate: 2026-01-01\n---\n",
	})
	repo.date = "2026-02-02T12:00:00Z"
	repo.commit("edit a", map[string]string{"content/posts/a.md": "---\ntitle: A2\ndate: 2026-01-01\n---\n"})
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	for slug, want := range map[string]string{"a": "2026-02-02T12:00:00Z", "b": "2025-12-24T18:00:00Z", "c": "2026-01-01T10:00:00Z"} {
		if got := get(t, ts.URL+"/api/v1/content/posts/"+slug, key).json(t)["updatedAt"]; got != want {
			t.Errorf("%s: updatedAt = %v, want %s", slug, got, want)
		}
	}
}

// TestRateLimitBehindProxy: behind a trusted proxy, each client named by
// X-Forwarded-For has its own bucket; an untrusted peer cannot dodge its
// limit by writing the header itself.
func TestRateLimitBehindProxy(t *testing.T) {
	repo := newRepo(t, siteFiles)
	limit := server.RateLimit{PerSecond: 0.01, Burst: 1}
	for _, trusted := range []bool{true, false} {
		ts := startServer(t, repo.bare, func(_ *engine.Config, s *server.Config) {
			s.RateIP = limit
			if trusted {
				s.TrustedProxies, _ = server.ParseProxies("127.0.0.0/8")
			}
		})
		first := get(t, ts.URL+"/healthz", "", "X-Forwarded-For", "203.0.113.1")
		second := get(t, ts.URL+"/healthz", "", "X-Forwarded-For", "203.0.113.2")
		if first.Status != 200 {
			t.Fatalf("trusted=%v: first client %d", trusted, first.Status)
		}
		if trusted && second.Status != 200 {
			t.Fatalf("another client behind the proxy was limited: %d", second.Status)
		}
		if !trusted {
			wantError(t, second, 429, "RATE_LIMITED")
		}
	}
}

// TestRateLimitIPv6Prefix: behind a trusted proxy, clients taking a fresh
// IPv6 address of one /64 for every request share one bucket; another
// /64 has its own. Before, each address had a bucket of its own and none
// was ever limited.
func TestRateLimitIPv6Prefix(t *testing.T) {
	repo := newRepo(t, siteFiles)
	ts := startServer(t, repo.bare, func(_ *engine.Config, s *server.Config) {
		s.RateIP = server.RateLimit{PerSecond: 0.01, Burst: 5}
		s.TrustedProxies, _ = server.ParseProxies("127.0.0.0/8")
	})
	limited := 0
	for i := range 50 {
		r := get(t, ts.URL+"/healthz", "", "X-Forwarded-For", fmt.Sprintf("2001:db8:1:2:%x:%x::1", i, i*7))
		switch {
		case r.Status == 429:
			limited++
		case r.Status != 200:
			t.Fatalf("request %d: %d", i, r.Status)
		case i >= 5:
			t.Fatalf("request %d of one /64 passed a burst of 5", i)
		}
	}
	if limited != 45 {
		t.Fatalf("%d of 50 requests from one /64 limited, want 45", limited)
	}
	if r := get(t, ts.URL+"/healthz", "", "X-Forwarded-For", "2001:db8:1:3::1"); r.Status != 200 {
		t.Fatalf("another /64 was limited too: %d", r.Status)
	}
}
