package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
	"go.yaml.in/yaml/v3"
)

// Editors sign in through a real OpenID provider (testOP) and write with
// their session: roles from .folio/editors.yaml, commits by the person.

const signinSecret = "a-session-secret-of-at-least-32-characters!"

func withSignin(secret string) serverOpt {
	return func(_ *engine.Config, sc *server.Config) {
		sc.Signin = server.SigninConfig{Secret: []byte(secret), Dev: true,
			ClientSecret: func(id string) string { return "client-secret-" + id }}
	}
}

func editorsYAML(issuer string, people string) string {
	return "providers:\n  - id: test\n    name: Test ID\n    issuer: " + issuer + "\n    clientId: folio\n    domains: [example.com]\n" +
		"people:\n" + people
}

const signinPeople = "  - {email: ana@example.com, name: Ana Lefèvre, roles: [edit], locales: [fr]}\n" +
	"  - {email: bob@example.com, roles: [admin]}\n" +
	"  - {email: eve@example.com, roles: [edit]}\n" +
	"  - {email: mal@evil.example, roles: [admin]}\n" +
	"  - {email: rita@example.com, roles: [read]}\n"

type signinSite struct {
	op   *testOP
	repo *gitRepo
	ts   *testServer
}

func startSigninSite(t *testing.T, opts ...serverOpt) *signinSite {
	t.Helper()
	return startSigninSiteWith(t, map[string]string{
		"folio.yaml":                "locales: [en, fr, de]\ndefaultLocale: en\nlayout: folder\n" + decapLocaleModel,
		"content/en/posts/hello.md": "---\ntitle: Hello\nrating: 3\n---\nHello.\n",
		"content/fr/posts/hello.md": "---\ntitle: Bonjour\nrating: 3\n---\nSalut.\n",
	}, opts...)
}

// startSigninSiteWith starts the provider and a writing box on a site of
// files and .folio/editors.yaml.
func startSigninSiteWith(t *testing.T, files map[string]string, opts ...serverOpt) *signinSite {
	t.Helper()
	op := startOP(t,
		opUser{ID: "ana", Email: "ana@example.com", First: "Ana", Last: "L", Verified: true},
		opUser{ID: "bob", Email: "bob@example.com", First: "Bob", Last: "B", Verified: true},
		opUser{ID: "eve", Email: "eve@example.com", First: "Eve", Last: "E", Verified: false},
		opUser{ID: "mal", Email: "mal@evil.example", First: "Mal", Last: "M", Verified: true},
		opUser{ID: "zed", Email: "zed@example.com", First: "Zed", Last: "Z", Verified: true},
		opUser{ID: "rita", Email: "rita@example.com", First: "Rita", Last: "R", Verified: true},
	)
	site := map[string]string{".folio/editors.yaml": editorsYAML(op.Issuer, signinPeople)}
	for k, v := range files {
		site[k] = v
	}
	repo := newRepo(t, site)
	ts := startDecapWriter(t, "file://"+repo.bare, append([]serverOpt{withSignin(signinSecret)}, opts...)...)
	op.client("folio", "client-secret-test", ts.URL)
	return &signinSite{op: op, repo: repo, ts: ts}
}

// signIn signs user in with b; it fails the test unless folio answers
// the callback with a redirect to ret.
func (s *signinSite) signIn(t *testing.T, b *webClient, user string) {
	t.Helper()
	cb := b.toCallback(s.ts.URL, "test", user, "/admin/content/")
	res := b.do("GET", cb, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/content/" {
		t.Fatalf("callback for %s: %s (Location %q)", user, res.Status, res.Header.Get("Location"))
	}
}

// callback visits the callback and wants the error status and code.
func wantCallbackError(t *testing.T, b *webClient, cb string, status int, code string) {
	t.Helper()
	res, err := b.c.Get(cb)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	wantError(t, response{Status: res.StatusCode, Body: body, Header: res.Header}, status, code)
	u, _ := url.Parse(cb)
	if b.cookie(u.Scheme+"://"+u.Host, "folio_session") != "" {
		t.Fatalf("a refused sign-in left a session cookie: %s", body)
	}
}

// sessionInfo reads GET /api/v1/auth/session with b's cookies.
func sessionInfo(t *testing.T, b *webClient, base string) (int, map[string]any) {
	t.Helper()
	res, err := b.c.Get(base + "/api/v1/auth/session")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	m := map[string]any{}
	json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

// call sends a state-changing request with b's session, Origin and CSRF
// token (origin "" and csrf "" leave them out).
func (b *webClient) call(t *testing.T, method, u, origin, csrf string, body any) response {
	t.Helper()
	js, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, u, bytes.NewReader(js))
	req.Header.Set("Content-Type", "application/json")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if csrf != "" {
		req.Header.Set("X-CSRF-Token", csrf)
	}
	res, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	rb, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Body: rb, Header: res.Header}
}

// persistParams is a persistEntry of path on main, with the base of the
// version main holds (the editor page sends it).
func persistParams(t *testing.T, bare, path, raw string) map[string]any {
	t.Helper()
	base := git(t, bare, "rev-parse", "main:"+path)
	return map[string]any{"action": "persistEntry", "params": map[string]any{
		"branch": "main", "dataFiles": []map[string]any{{"slug": "hello", "path": path, "raw": raw, "base": base}},
		"assets": []any{}, "options": map[string]any{"collectionName": "posts", "commitMessage": "Update " + path, "useWorkflow": false, "status": ""}}}
}

func TestSigninTranslatorWritesHerLocaleOnly(t *testing.T) {
	t.Parallel()
	s := startSigninSite(t)
	b := newWebClient(t)
	s.signIn(t, b, "ana")
	st, info := sessionInfo(t, b, s.ts.URL)
	if st != http.StatusOK || info["email"] != "ana@example.com" || info["name"] != "Ana Lefèvre" {
		t.Fatalf("session: %d %v", st, info)
	}
	csrf, _ := info["csrfToken"].(string)

	// The editor's config offers her locale (and the default one).
	res, err := b.c.Get(s.ts.URL + "/admin/content/config.yml")
	if err != nil {
		t.Fatal(err)
	}
	cfgBody, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var cfg struct {
		I18n struct{ Locales []string } `yaml:"i18n"`
	}
	if err := yaml.Unmarshal(cfgBody, &cfg); err != nil || strings.Join(cfg.I18n.Locales, ",") != "en,fr" {
		t.Fatalf("ana's config.yml locales %v (want en,fr): %v\n%s", cfg.I18n.Locales, err, cfgBody)
	}
	if all := get(t, s.ts.URL+"/admin/content/config.yml", ""); !strings.Contains(string(all.Body), "- de") {
		t.Fatalf("the config without a session lost de:\n%s", all.Body)
	}

	r := b.call(t, "POST", s.ts.URL+"/api/v1/decap", s.ts.URL, csrf, persistParams(t, s.repo.bare, "content/fr/posts/hello.md", "---\ntitle: Bonjour à tous\nrating: 3\n---\nSalut.\n"))
	wantOK(t, r)
	if got := git(t, s.repo.bare, "log", "-1", "--format=%an <%ae>|%cn", "main"); got != "Ana Lefèvre <ana@example.com>|folio" {
		t.Fatalf("the remote commit's author|committer: %q", got)
	}
	before := git(t, s.repo.bare, "rev-parse", "main")
	r = b.call(t, "POST", s.ts.URL+"/api/v1/decap", s.ts.URL, csrf, persistParams(t, s.repo.bare, "content/en/posts/hello.md", "---\ntitle: Hi all\nrating: 3\n---\nHello.\n"))
	wantError(t, r, http.StatusForbidden, "FORBIDDEN")
	if !strings.Contains(string(r.Body), "fr only") {
		t.Fatalf("the 403 does not say why: %s", r.Body)
	}
	// The write API too.
	r = b.call(t, "PATCH", s.ts.URL+"/api/v1/content/posts/hello", s.ts.URL, csrf, map[string]any{"title": "Hi"})
	wantError(t, r, http.StatusForbidden, "FORBIDDEN")
	r = b.call(t, "PATCH", s.ts.URL+"/api/v1/content/posts/hello?locale=fr", s.ts.URL, csrf, map[string]any{"rating": 4})
	if r.Status != http.StatusOK {
		t.Fatalf("PATCH fr: %d %s", r.Status, r.Body)
	}
	if got := git(t, s.repo.bare, "log", "-1", "--format=%an <%ae>", "main"); got != "Ana Lefèvre <ana@example.com>" {
		t.Fatalf("the write API's commit author: %q", got)
	}
	if got := git(t, s.repo.bare, "rev-list", "--count", before+"..main"); got != "1" {
		t.Fatalf("%s commits since the refusal, want 1 (the fr PATCH)", got)
	}
	// The document's history names her (the box may still be building
	// its history index).
	eventually(t, "the history by ana", func() bool {
		res, err := b.c.Get(s.ts.URL + "/api/v1/content/posts/hello/history?locale=fr")
		if err != nil || res.StatusCode != http.StatusOK {
			return false
		}
		defer res.Body.Close()
		var h struct {
			Items []struct{ Author, Email string }
		}
		json.NewDecoder(res.Body).Decode(&h)
		return len(h.Items) > 0 && h.Items[0].Author == "Ana Lefèvre" && h.Items[0].Email == "ana@example.com"
	})
	// Only an admin lists the editors.
	if res, err := b.c.Get(s.ts.URL + "/api/v1/auth/editors"); err != nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("ana lists the editors: %v %v", err, res.Status)
	}
	// No publish role: nor publishing nor approving in the workflow.
	for _, wf := range []map[string]any{
		{"action": "publishUnpublishedEntry", "params": map[string]any{"branch": "main", "collection": "posts", "slug": "hello"}},
		{"action": "updateUnpublishedEntryStatus", "params": map[string]any{"branch": "main", "collection": "posts", "slug": "hello", "newStatus": "pending_publish"}},
	} {
		r = b.call(t, "POST", s.ts.URL+"/api/v1/decap", s.ts.URL, csrf, wf)
		if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "publish role") {
			t.Fatalf("%s: %d %s", wf["action"], r.Status, r.Body)
		}
	}
	r = b.call(t, "POST", s.ts.URL+"/api/v1/publish", s.ts.URL, csrf, map[string]any{})
	wantError(t, r, http.StatusForbidden, "FORBIDDEN")

	// A reader reads drafts but writes nothing.
	rb := newWebClient(t)
	s.signIn(t, rb, "rita")
	_, ri := sessionInfo(t, rb, s.ts.URL)
	rcsrf, _ := ri["csrfToken"].(string)
	r = rb.call(t, "POST", s.ts.URL+"/api/v1/decap", s.ts.URL, rcsrf, persistParams(t, s.repo.bare, "content/fr/posts/hello.md", "---\ntitle: X\n---\n"))
	wantError(t, r, http.StatusForbidden, "FORBIDDEN")
	res, err = rb.c.Get(s.ts.URL + "/api/v1/content/posts?draft=true")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("a reader's draft read: %v %v", err, res.Status)
	}
	res.Body.Close()
}

func TestSigninCSRF(t *testing.T) {
	t.Parallel()
	log := &syncBuffer{}
	s := startSigninSite(t, withLog(log))
	defer wantLogged(t, log, `Origin \"https://evil.example\" may not`, "X-CSRF-Token header is missing or wrong")
	b := newWebClient(t)
	s.signIn(t, b, "bob")
	res, err := b.c.Get(s.ts.URL + "/api/v1/auth/editors")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("bob (admin) lists the editors: %v %v", err, res.Status)
	}
	var list struct{ People []struct{ Email string } }
	json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if len(list.People) != 5 || list.People[0].Email != "ana@example.com" {
		t.Fatalf("editors: %+v", list)
	}
	wantError(t, get(t, s.ts.URL+"/api/v1/auth/editors", s.ts.key(t, "robot", server.ScopeContentRead, server.ScopeContentDraft)), http.StatusForbidden, "FORBIDDEN")
	_, info := sessionInfo(t, b, s.ts.URL)
	csrf, _ := info["csrfToken"].(string)
	body := persistParams(t, s.repo.bare, "content/en/posts/hello.md", "---\ntitle: Pwned\nrating: 3\n---\n")
	for name, c := range map[string][2]string{
		"another origin":      {"https://evil.example", csrf},
		"no origin":           {"", csrf},
		"no token":            {s.ts.URL, ""},
		"another token":       {s.ts.URL, strings.Repeat("A", len(csrf))},
		"null origin":         {"null", csrf},
		"origin of same host": {"http://evil.example:" + strings.Split(s.ts.URL, ":")[2], csrf},
	} {
		r := b.call(t, "POST", s.ts.URL+"/api/v1/decap", c[0], c[1], body)
		if r.Status != http.StatusForbidden {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	if got := git(t, s.repo.bare, "log", "-1", "--format=%s", "main"); got != "initial" {
		t.Fatalf("a CSRF attempt committed: %q", got)
	}
	wantOK(t, b.call(t, "POST", s.ts.URL+"/api/v1/decap", s.ts.URL, csrf, body))
}

// wantLogged fails unless each reason is in a "signin: refused" line.
func wantLogged(t *testing.T, log *syncBuffer, reasons ...string) {
	t.Helper()
	var refused []string
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "signin: refused") {
			refused = append(refused, l)
		}
	}
	for _, r := range reasons {
		if !strings.Contains(strings.Join(refused, "\n"), r) {
			t.Errorf("no log line says %q; the refusals logged:\n%s", r, strings.Join(refused, "\n"))
		}
	}
}

func TestSigninRefusals(t *testing.T) {
	t.Parallel()
	log := &syncBuffer{}
	s := startSigninSite(t, withLog(log))
	defer wantLogged(t, log, "has not verified the e-mail eve@example.com", "mal@evil.example is not an e-mail of the allowed domains",
		"zed@example.com is not an editor", "is not a path of this site", "state: does not match", "no sign-in under way", "state: already used")
	for _, c := range []struct {
		user, code string
		status     int
	}{
		{"eve", "FORBIDDEN", http.StatusForbidden}, // e-mail not verified
		{"mal", "FORBIDDEN", http.StatusForbidden}, // outside the allowed domains
		{"zed", "FORBIDDEN", http.StatusForbidden}, // not an editor
	} {
		b := newWebClient(t)
		wantCallbackError(t, b, b.toCallback(s.ts.URL, "test", c.user, ""), c.status, c.code)
	}

	t.Run("open redirect", func(t *testing.T) {
		for _, ret := range []string{"https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", "/\r\nSet-Cookie:x", "evil", "http:/evil.example"} {
			r := get(t, s.ts.URL+"/api/v1/auth/login?provider=test&return="+url.QueryEscape(ret), "")
			wantError(t, r, http.StatusBadRequest, "BAD_REQUEST")
		}
	})

	t.Run("forged state", func(t *testing.T) {
		b := newWebClient(t)
		cb := b.toCallback(s.ts.URL, "test", "bob", "")
		u, _ := url.Parse(cb)
		q := u.Query()
		q.Set("state", "forged")
		u.RawQuery = q.Encode()
		wantCallbackError(t, b, u.String(), http.StatusBadRequest, "BAD_REQUEST")
	})

	t.Run("callback without a sign-in in this browser", func(t *testing.T) {
		b := newWebClient(t)
		cb := b.toCallback(s.ts.URL, "test", "bob", "")
		wantCallbackError(t, newWebClient(t), cb, http.StatusBadRequest, "BAD_REQUEST")
	})

	t.Run("replayed state", func(t *testing.T) {
		b := newWebClient(t)
		cb := b.toCallback(s.ts.URL, "test", "bob", "")
		login := b.cookie(s.ts.URL+"/api/v1/auth/callback", "folio_login")
		res := b.do("GET", cb, nil)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("first callback: %s", res.Status)
		}
		// The attacker replays the callback with the login cookie.
		a := newWebClient(t)
		u, _ := url.Parse(s.ts.URL + "/api/v1/auth/callback")
		a.jar.SetCookies(u, []*http.Cookie{{Name: "folio_login", Value: login, Path: "/api/v1/auth/callback"}})
		wantCallbackError(t, a, cb, http.StatusBadRequest, "BAD_REQUEST")
	})

	t.Run("unknown provider", func(t *testing.T) {
		wantError(t, get(t, s.ts.URL+"/api/v1/auth/login?provider=nope", ""), http.StatusBadRequest, "BAD_REQUEST")
	})
}

// The ID token as an attacker between the provider and folio would make
// it: each is refused, and none gets a session.
func TestSigninForgedIDTokens(t *testing.T) {
	t.Parallel()
	log := &syncBuffer{}
	s := startSigninSite(t, withLog(log))
	defer wantLogged(t, log, "issued by a different provider", "expected audience", "failed to verify signature", `unexpected signature algorithm \"none\"`,
		"token is expired", "nonce does not match")
	evil := otherKey(t)
	for name, c := range map[string]struct {
		tamper func(m map[string]any, sign func(map[string]any) string) string
		status int
	}{
		"another issuer": {func(m map[string]any, sign func(map[string]any) string) string {
			m["iss"] = "http://127.0.0.1:1"
			return sign(m)
		}, http.StatusUnauthorized},
		"another audience": {func(m map[string]any, sign func(map[string]any) string) string {
			m["aud"] = []string{"someone-else"}
			return sign(m)
		}, http.StatusUnauthorized},
		"another key": {func(m map[string]any, _ func(map[string]any) string) string {
			return signWith(m, evil, "")
		}, http.StatusUnauthorized},
		"another key, the provider's key id": {func(m map[string]any, sign func(map[string]any) string) string {
			good := sign(m)
			h, _ := base64.RawURLEncoding.DecodeString(strings.Split(good, ".")[0])
			var hdr map[string]any
			json.Unmarshal(h, &hdr)
			return signWith(m, evil, fmt.Sprint(hdr["kid"]))
		}, http.StatusUnauthorized},
		"alg none": {func(m map[string]any, _ func(map[string]any) string) string {
			h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
			p, _ := json.Marshal(m)
			return h + "." + base64.RawURLEncoding.EncodeToString(p) + "."
		}, http.StatusUnauthorized},
		"expired": {func(m map[string]any, sign func(map[string]any) string) string {
			m["iat"] = time.Now().Add(-3 * time.Hour).Unix()
			m["exp"] = time.Now().Add(-2 * time.Hour).Unix()
			return sign(m)
		}, http.StatusUnauthorized},
		"no nonce": {func(m map[string]any, sign func(map[string]any) string) string {
			delete(m, "nonce")
			return sign(m)
		}, http.StatusUnauthorized},
		"another sign-in's nonce": {func(m map[string]any, sign func(map[string]any) string) string {
			m["nonce"] = "the-nonce-of-a-sign-in-the-attacker-began"
			return sign(m)
		}, http.StatusUnauthorized},
		"payload changed, signature kept": {func(m map[string]any, sign func(map[string]any) string) string {
			good := strings.Split(sign(m), ".")
			m["sub"] = "zed"
			p, _ := json.Marshal(m)
			return good[0] + "." + base64.RawURLEncoding.EncodeToString(p) + "." + good[2]
		}, http.StatusUnauthorized},
	} {
		t.Run(name, func(t *testing.T) {
			f := c.tamper
			s.op.tamper.Store(&f)
			defer s.op.tamper.Store(nil)
			b := newWebClient(t)
			wantCallbackError(t, b, b.toCallback(s.ts.URL, "test", "bob", ""), c.status, "UNAUTHORIZED")
		})
	}
	// Untouched, the same flow signs in (the tamper hook itself is sound).
	f := func(m map[string]any, sign func(map[string]any) string) string { return sign(m) }
	s.op.tamper.Store(&f)
	s.signIn(t, newWebClient(t), "bob")
}

func TestSigninSessions(t *testing.T) {
	t.Parallel()
	s := startSigninSite(t)
	// A second box on the same remote and secret, and one with another
	// secret.
	box2 := startServer(t, "file://"+s.repo.bare, withSignin(signinSecret), func(e *engine.Config, _ *server.Config) { e.Poll = 0 })
	box3 := startServer(t, "file://"+s.repo.bare, withSignin("another-box-secret-of-32-characters-at-least"), func(e *engine.Config, _ *server.Config) { e.Poll = 0 })

	b := newWebClient(t)
	s.signIn(t, b, "ana")
	cookie := b.cookie(s.ts.URL, "folio_session")
	if cookie == "" {
		t.Fatal("no session cookie")
	}
	// The jar shares cookies across ports of 127.0.0.1: box 2 sees it.
	if st, info := sessionInfo(t, b, box2.URL); st != http.StatusOK || info["email"] != "ana@example.com" {
		t.Fatalf("box 2: %d %v", st, info)
	}
	if st, info := sessionInfo(t, b, box3.URL); st != http.StatusUnauthorized || info["error"] != "UNAUTHORIZED" {
		t.Fatalf("box 3 (another secret): %d %v", st, info)
	}

	t.Run("fixed session id", func(t *testing.T) {
		// The attacker plants their own valid session in the victim's
		// browser; the victim's sign-in replaces it with a new one.
		v := newWebClient(t)
		u, _ := url.Parse(s.ts.URL)
		v.jar.SetCookies(u, []*http.Cookie{{Name: "folio_session", Value: cookie, Path: "/"}})
		s.signIn(t, v, "bob")
		got := v.cookie(s.ts.URL, "folio_session")
		if got == cookie || sid(t, got) == sid(t, cookie) {
			t.Fatal("the sign-in kept the planted session")
		}
		if _, info := sessionInfo(t, v, s.ts.URL); info["email"] != "bob@example.com" {
			t.Fatalf("after sign-in: %v", info)
		}
	})

	t.Run("sign-out", func(t *testing.T) {
		v := newWebClient(t)
		s.signIn(t, v, "bob")
		_, info := sessionInfo(t, v, s.ts.URL)
		r := v.call(t, "POST", s.ts.URL+"/api/v1/auth/logout", s.ts.URL, info["csrfToken"].(string), nil)
		if r.Status != http.StatusNoContent {
			t.Fatalf("logout: %d %s", r.Status, r.Body)
		}
		if st, _ := sessionInfo(t, v, s.ts.URL); st != http.StatusUnauthorized {
			t.Fatalf("after logout: %d", st)
		}
	})

	// The person removed from the editors file: refused once the boxes
	// serve the commit.
	s.repo.commit("remove ana", map[string]string{".folio/editors.yaml": editorsYAML(s.op.Issuer, strings.Replace(signinPeople, "  - {email: ana@example.com, name: Ana Lefèvre, roles: [edit], locales: [fr]}\n", "", 1))})
	for _, box := range []*testServer{s.ts, box2} {
		if err := box.Engine.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		st, info := sessionInfo(t, b, box.URL)
		if st != http.StatusUnauthorized || !strings.Contains(fmt.Sprint(info["message"]), "no longer an editor") {
			t.Fatalf("%s after removal: %d %v", box.URL, st, info)
		}
	}
	// Sign-out everywhere, as a commit: bob's earlier sessions end.
	v := newWebClient(t)
	s.signIn(t, v, "bob")
	time.Sleep(1100 * time.Millisecond)
	s.repo.commit("sign bob out", map[string]string{".folio/editors.yaml": editorsYAML(s.op.Issuer,
		strings.Replace(signinPeople, "{email: bob@example.com, roles: [admin]}", "{email: bob@example.com, roles: [admin], signedOutBefore: "+time.Now().UTC().Format(time.RFC3339)+"}", 1))})
	s.ts.Engine.Sync(context.Background())
	if st, info := sessionInfo(t, v, s.ts.URL); st != http.StatusUnauthorized || !strings.Contains(fmt.Sprint(info["message"]), "signed out everywhere") {
		t.Fatalf("after sign-out everywhere: %d %v", st, info)
	}
	time.Sleep(1100 * time.Millisecond)
	s.signIn(t, v, "bob")
	if st, _ := sessionInfo(t, v, s.ts.URL); st != http.StatusOK {
		t.Fatalf("a new sign-in after sign-out everywhere: %d", st)
	}
}

func sid(t *testing.T, cookie string) string {
	b, err := base64.RawURLEncoding.DecodeString(strings.Split(cookie, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return fmt.Sprint(m["sid"])
}

func TestSigninExpiry(t *testing.T) {
	t.Parallel()
	clk := newClock(time.Now())
	s := startSigninSite(t, func(_ *engine.Config, sc *server.Config) { sc.Now = clk.Now })
	b := newWebClient(t)
	s.signIn(t, b, "bob")
	// The public surface (cached by CDNs) never reads the session nor
	// renews its cookie; the keyed routes renew it.
	clk.Add(2 * time.Minute)
	for _, path := range []string{"/api/v1/openapi.json", "/api/v1/auth/session"} {
		res, err := b.c.Get(s.ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got, public := res.Header.Get("Set-Cookie"), path == "/api/v1/openapi.json"; public && got != "" || !public && !strings.Contains(got, "folio_session=") {
			t.Fatalf("%s: Set-Cookie %q", path, got)
		}
	}
	// Each request within the idle time (8h) keeps the session going.
	for i := 0; i < 3; i++ {
		clk.Add(7*time.Hour + 59*time.Minute)
		if st, info := sessionInfo(t, b, s.ts.URL); st != http.StatusOK {
			t.Fatalf("after %d idle periods: %d %v", i+1, st, info)
		}
	}
	clk.Add(8*time.Hour + time.Minute)
	if st, info := sessionInfo(t, b, s.ts.URL); st != http.StatusUnauthorized || !strings.Contains(fmt.Sprint(info["message"]), "idle") {
		t.Fatalf("idle over 8h: %d %v", st, info)
	}

	// Busy every day, the session still ends 7 days after sign-in.
	clk.Set(time.Now())
	s.signIn(t, b, "bob")
	for d := 0; d < 22; d++ {
		clk.Add(7*time.Hour + 50*time.Minute) // 21 × 7h50 < 7 days < 22 × 7h50
		st, info := sessionInfo(t, b, s.ts.URL)
		if d < 21 && st != http.StatusOK {
			t.Fatalf("period %d: %d %v", d, st, info)
		}
		if d == 21 && (st != http.StatusUnauthorized || !strings.Contains(fmt.Sprint(info["message"]), "at most")) {
			t.Fatalf("after 7 days: %d %v", st, info)
		}
	}
}
