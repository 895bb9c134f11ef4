package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// The hostile pass of issue 29 where sign-in meets the write routes: a
// person whose role covers one collection, without publish or media,
// tries every write route, Decap action and workflow step on what their
// role does not cover, with their session and CSRF token. Each is a 403
// and the remote does not move.

const hostileModel = "types:\n  posts:\n    fields:\n      title: {kind: string, required: true}\n  news:\n    fields:\n      title: {kind: string, required: true}\n"

func startHostileRoles(t *testing.T) *signinSite {
	t.Helper()
	op := startOP(t,
		opUser{ID: "pat", Email: "pat@example.com", First: "Pat", Last: "P", Verified: true},
		opUser{ID: "bob", Email: "bob@example.com", First: "Bob", Last: "B", Verified: true},
	)
	people := "  - {email: pat@example.com, roles: [edit], collections: [posts]}\n" +
		"  - {email: bob@example.com, roles: [admin]}\n"
	repo := newRepo(t, map[string]string{
		".folio/editors.yaml":    editorsYAML(op.Issuer, people),
		"folio.yaml":             hostileModel,
		"content/posts/hello.md": "---\ntitle: Hello\n---\nHello.\n",
		"content/news/n1.md":     "---\ntitle: News\n---\nNews.\n",
		"pages/about.md":         "---\ntitle: About\n---\nAbout.\n",
		"globals.yaml":           "siteName: Site\n",
	})
	ts := startDecapWriter(t, "file://"+repo.bare, withSignin(signinSecret))
	op.client("folio", "client-secret-test", ts.URL)
	return &signinSite{op: op, repo: repo, ts: ts}
}

func (s *signinSite) csrfOf(t *testing.T, b *webClient) string {
	t.Helper()
	_, info := sessionInfo(t, b, s.ts.URL)
	csrf, _ := info["csrfToken"].(string)
	if csrf == "" {
		t.Fatalf("no CSRF token: %v", info)
	}
	return csrf
}

func decapCall(action string, params map[string]any) map[string]any {
	params["branch"] = "main"
	return map[string]any{"action": action, "params": params}
}

func TestHostileRoleOnEveryWriteRoute(t *testing.T) {
	t.Parallel()
	s := startHostileRoles(t)
	u := s.ts.URL

	// The admin opens a workflow entry of pages, for the workflow and
	// notes attacks.
	blob := func(path string) string { return git(t, s.repo.bare, "rev-parse", "main:"+path) }
	admin := newWebClient(t)
	s.signIn(t, admin, "bob")
	acsrf := s.csrfOf(t, admin)
	wantOK(t, admin.call(t, "POST", u+"/api/v1/decap", u, acsrf, decapCall("persistEntry", map[string]any{
		"dataFiles": []map[string]any{{"slug": "about", "path": "pages/about.md", "raw": "---\ntitle: About us\n---\nAbout.\n", "base": blob("pages/about.md")}},
		"assets":    []any{}, "options": map[string]any{"collectionName": "pages", "commitMessage": "about", "useWorkflow": true, "status": "draft"}})))
	wantOK(t, admin.call(t, "POST", u+"/api/v1/decap", u, acsrf, decapCall("addNote", map[string]any{
		"collection": "pages", "slug": "about", "note": map[string]any{"content": "the admin's note", "resolved": false}})))

	pat := newWebClient(t)
	s.signIn(t, pat, "pat")
	csrf := s.csrfOf(t, pat)
	heads := func() string {
		return git(t, s.repo.bare, "for-each-ref", "--format=%(refname) %(objectname)")
	}
	before := heads()

	type attack struct {
		name, method, path string
		body               any
	}
	attacks := []attack{
		{"PATCH a page", "PATCH", "/api/v1/pages/about", map[string]any{"title": "x"}},
		{"PUT a page", "PUT", "/api/v1/pages/about", map[string]any{"title": "x"}},
		{"DELETE a page", "DELETE", "/api/v1/pages/about", nil},
		{"POST a page", "POST", "/api/v1/pages", map[string]any{"slug": "new", "title": "x"}},
		{"PUT globals", "PUT", "/api/v1/globals", map[string]any{"siteName": "x"}},
		{"PATCH globals", "PATCH", "/api/v1/globals", map[string]any{"siteName": "x"}},
		{"POST news", "POST", "/api/v1/content/news", map[string]any{"slug": "n2", "title": "x"}},
		{"PATCH news", "PATCH", "/api/v1/content/news/n1", map[string]any{"title": "x"}},
		{"PUT news", "PUT", "/api/v1/content/news/n1", map[string]any{"title": "x"}},
		{"DELETE news", "DELETE", "/api/v1/content/news/n1", nil},
		{"publish", "POST", "/api/v1/publish", map[string]any{}},
		{"media upload", "POST", "/api/v1/media", map[string]any{}},
		{"media folder", "POST", "/api/v1/media/folders", map[string]any{"path": "x"}},
		{"media presign", "POST", "/api/v1/media/presign", map[string]any{}},
		{"media patch", "PATCH", "/api/v1/media/abc", map[string]any{"alt": "x"}},
		{"media delete", "DELETE", "/api/v1/media/abc", nil},
	}
	decapAttacks := map[string]map[string]any{
		"persistEntry of a page": decapCall("persistEntry", map[string]any{
			"dataFiles": []map[string]any{{"slug": "about", "path": "pages/about.md", "raw": "---\ntitle: Pwned\n---\n", "base": blob("pages/about.md")}},
			"assets":    []any{}, "options": map[string]any{"collectionName": "posts", "commitMessage": "x", "useWorkflow": false, "status": ""}}),
		"persistEntry of a page in the workflow": decapCall("persistEntry", map[string]any{
			"dataFiles": []map[string]any{{"slug": "about", "path": "pages/about.md", "raw": "---\ntitle: Pwned\n---\n", "base": blob("pages/about.md")}},
			"assets":    []any{}, "options": map[string]any{"collectionName": "posts", "commitMessage": "x", "useWorkflow": true, "status": "draft"}}),
		"persistEntry renaming news": decapCall("persistEntry", map[string]any{
			"dataFiles": []map[string]any{{"slug": "n1", "path": "content/news/n1.md", "newPath": "content/posts/n1.md", "raw": "---\ntitle: Moved\n---\n", "base": blob("content/news/n1.md")}},
			"assets":    []any{}, "options": map[string]any{"collectionName": "posts", "commitMessage": "x", "useWorkflow": false, "status": "", "newEntry": false}}),
		"deleteFiles of a page":  decapCall("deleteFiles", map[string]any{"paths": []string{"pages/about.md"}, "bases": map[string]string{"pages/about.md": blob("pages/about.md")}}),
		"deleteFile of news":     decapCall("deleteFile", map[string]any{"path": "content/news/n1.md", "bases": map[string]string{"content/news/n1.md": blob("content/news/n1.md")}}),
		"deleteFiles of globals": decapCall("deleteFiles", map[string]any{"paths": []string{"globals.yaml"}, "bases": map[string]string{"globals.yaml": blob("globals.yaml")}}),
		"persistMedia":           decapCall("persistMedia", map[string]any{"asset": map[string]any{"path": "static/img/x.png", "content": "aGVsbG8=", "encoding": "base64"}}),
		"deleteUnpublishedEntry": decapCall("deleteUnpublishedEntry", map[string]any{"collection": "pages", "slug": "about"}),
		"updateUnpublishedEntryStatus": decapCall("updateUnpublishedEntryStatus", map[string]any{
			"collection": "pages", "slug": "about", "newStatus": "pending_review"}),
		"publishUnpublishedEntry": decapCall("publishUnpublishedEntry", map[string]any{"collection": "pages", "slug": "about"}),
		"addNote on a page's entry": decapCall("addNote", map[string]any{
			"collection": "pages", "slug": "about", "note": map[string]any{"content": "pat was here", "resolved": false}}),
	}

	for _, a := range attacks {
		r := pat.call(t, a.method, u+a.path, u, csrf, a.body)
		t.Logf("%s %s: %d", a.method, a.path, r.Status)
		if r.Status != http.StatusForbidden {
			t.Errorf("%s (%s %s): %d %s, want 403", a.name, a.method, a.path, r.Status, r.Body)
		}
	}
	for name, body := range decapAttacks {
		r := pat.call(t, "POST", u+"/api/v1/decap", u, csrf, body)
		t.Logf("decap %s: %d %s", name, r.Status, strings.TrimSpace(string(r.Body)))
		if r.Status != http.StatusForbidden {
			t.Errorf("decap %s: %d %s, want 403", name, r.Status, r.Body)
		}
	}
	// The notes of another collection's entry: pat may not change them.
	r := pat.call(t, "POST", u+"/api/v1/decap", u, csrf, decapCall("getNotes", map[string]any{"collection": "pages", "slug": "about"}))
	wantOK(t, r)
	if i := strings.Index(string(r.Body), `"id":"`); i >= 0 {
		id := string(r.Body[i+6 : i+6+16])
		for _, action := range []string{"deleteNote", "updateNote", "toggleNoteResolution"} {
			r := pat.call(t, "POST", u+"/api/v1/decap", u, csrf, decapCall(action, map[string]any{
				"collection": "pages", "slug": "about", "noteId": id, "updates": map[string]any{"content": "changed by pat", "resolved": true}}))
			t.Logf("decap %s of the admin's note: %d %s", action, r.Status, strings.TrimSpace(string(r.Body)))
			if r.Status != http.StatusForbidden {
				t.Errorf("decap %s of another collection's note: %d %s, want 403", action, r.Status, r.Body)
			}
		}
	} else {
		t.Fatalf("no note id in %s", r.Body)
	}
	if after := heads(); after != before {
		t.Fatalf("refused writes moved refs:\nbefore %s\nafter  %s", before, after)
	}

	// With the session, CSRF holds on every state-changing route of pat's
	// own collection, and an Authorization header beside the cookie is a
	// key's request (a bad one is a 401, not the session).
	for _, m := range []string{"PATCH", "PUT", "DELETE"} {
		r := pat.call(t, m, u+"/api/v1/content/posts/hello", u, "", map[string]any{"title": "no csrf"})
		if r.Status != http.StatusForbidden {
			t.Errorf("%s posts/hello without CSRF: %d %s", m, r.Status, r.Body)
		}
	}
	r = pat.call(t, "POST", u+"/api/v1/content/posts", "", csrf, map[string]any{"slug": "p2", "title": "no origin"})
	if r.Status != http.StatusForbidden {
		t.Errorf("POST posts without Origin: %d %s", r.Status, r.Body)
	}
	if after := heads(); after != before {
		t.Fatalf("CSRF-less writes moved refs")
	}
	// A session and an Authorization header: the header is the request's
	// credential, the session not a fallback.
	reader := s.ts.key(t, "reader", "content:read")
	for _, c := range []struct {
		auth   string
		status int
	}{{"Bearer not-a-key", 401}, {"Basic cGF0OnB3", 401}, {"Bearer " + reader, 403}, {"", 200}} {
		req, _ := http.NewRequest("PATCH", u+"/api/v1/content/posts/hello", strings.NewReader(`{"title": "Hello, pat"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", u)
		req.Header.Set("X-CSRF-Token", csrf)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		res, err := pat.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.status {
			t.Errorf("PATCH with pat's session and Authorization %q: %d, want %d", c.auth, res.StatusCode, c.status)
		}
	}
	r = pat.call(t, "PATCH", u+"/api/v1/content/posts/hello", u, csrf, map[string]any{"title": "Hello again, pat"})
	if r.Status != http.StatusOK {
		t.Fatalf("pat's own PATCH: %d %s", r.Status, r.Body)
	}
}

// A translator (edit, locales: [fr]) may not delete, nor change the
// status of, a workflow entry that changes another locale's file; she
// may those of an entry of her locale's files.
func TestHostileTranslatorAndAnotherLocalesEntry(t *testing.T) {
	t.Parallel()
	s := startSigninSite(t)
	u := s.ts.URL
	blob := func(path string) string { return git(t, s.repo.bare, "rev-parse", "main:"+path) }
	bob := newWebClient(t)
	s.signIn(t, bob, "bob")
	bcsrf := s.csrfOf(t, bob)
	entry := func(slug, path, raw string) {
		t.Helper()
		wantOK(t, bob.call(t, "POST", u+"/api/v1/decap", u, bcsrf, decapCall("persistEntry", map[string]any{
			"dataFiles": []map[string]any{{"slug": slug, "path": path, "raw": raw, "base": blob(path)}},
			"assets":    []any{}, "options": map[string]any{"collectionName": "posts", "commitMessage": "x", "useWorkflow": true, "status": "draft"}})))
	}
	entry("hello", "content/en/posts/hello.md", "---\ntitle: Hello, world\nrating: 3\n---\nHello.\n")
	ana := newWebClient(t)
	s.signIn(t, ana, "ana")
	csrf := s.csrfOf(t, ana)
	before := git(t, s.repo.bare, "rev-parse", "cms/posts/hello")
	for _, c := range []map[string]any{
		decapCall("deleteUnpublishedEntry", map[string]any{"collection": "posts", "slug": "hello"}),
		decapCall("updateUnpublishedEntryStatus", map[string]any{"collection": "posts", "slug": "hello", "newStatus": "pending_review"}),
	} {
		r := ana.call(t, "POST", u+"/api/v1/decap", u, csrf, c)
		if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "fr only") {
			t.Errorf("ana %s of an en entry: %d %s", c["action"], r.Status, r.Body)
		}
	}
	if got := git(t, s.repo.bare, "rev-parse", "cms/posts/hello"); got != before {
		t.Fatalf("the en entry moved: %s -> %s", before, got)
	}
	// Nor any other route outside fr.
	for _, c := range [][3]string{
		{"PATCH", "/api/v1/globals", `{"siteName": "x"}`},
		{"PATCH", "/api/v1/globals?locale=de", `{"siteName": "x"}`},
		{"PUT", "/api/v1/globals?locale=en", `{"siteName": "x"}`},
		{"POST", "/api/v1/content/posts?locale=de&translationOf=hello", `{"slug": "hallo", "title": "Hallo", "rating": 1}`},
		{"DELETE", "/api/v1/content/posts/hello", ``},
		{"DELETE", "/api/v1/content/posts/hello?locale=en", ``},
		{"PUT", "/api/v1/content/posts/hello?locale=de", `{"title": "Hallo", "rating": 1}`},
	} {
		var body any
		if c[2] != "" {
			json.Unmarshal([]byte(c[2]), &body)
		}
		r := ana.call(t, c[0], u+c[1], u, csrf, body)
		if r.Status != http.StatusForbidden {
			t.Errorf("ana %s %s: %d %s, want 403", c[0], c[1], r.Status, r.Body)
		}
	}
	r := ana.call(t, "POST", u+"/api/v1/decap", u, csrf, decapCall("deleteFiles", map[string]any{"paths": []string{"content/en/posts/hello.md"},
		"bases": map[string]string{"content/en/posts/hello.md": blob("content/en/posts/hello.md")}}))
	if r.Status != http.StatusForbidden {
		t.Errorf("ana deleteFiles of the en file: %d %s", r.Status, r.Body)
	}
	if got := git(t, s.repo.bare, "log", "-1", "--format=%s", "main"); got != "initial" {
		t.Fatalf("a refused write committed: %q", got)
	}
	// An entry of the fr file: hers to move and to drop.
	wantOK(t, bob.call(t, "POST", u+"/api/v1/decap", u, bcsrf, decapCall("deleteUnpublishedEntry", map[string]any{"collection": "posts", "slug": "hello"})))
	entry("hello", "content/fr/posts/hello.md", "---\ntitle: Bonjour, le monde\nrating: 3\n---\nSalut.\n")
	wantOK(t, ana.call(t, "POST", u+"/api/v1/decap", u, csrf, decapCall("updateUnpublishedEntryStatus", map[string]any{"collection": "posts", "slug": "hello", "newStatus": "pending_review"})))
	wantOK(t, ana.call(t, "POST", u+"/api/v1/decap", u, csrf, decapCall("deleteUnpublishedEntry", map[string]any{"collection": "posts", "slug": "hello"})))
}
