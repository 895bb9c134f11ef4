package server_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// githubStandIn plays GitHub's OAuth endpoints and the two API calls
// folio makes (GitHub cannot run in a test): it approves at once as
// user, and checks the client secret and the PKCE verifier as GitHub
// does.
type githubStandIn struct {
	*httptest.Server
	mu        sync.Mutex
	user      string
	emails    []map[string]any
	challenge map[string]string // code → PKCE challenge
}

func startGitHub(t *testing.T) *githubStandIn {
	g := &githubStandIn{challenge: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login/oauth/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != "gh-client" || q.Get("code_challenge_method") != "S256" {
			http.Error(w, "bad request", 400)
			return
		}
		g.mu.Lock()
		code := "code-" + q.Get("state")[:8]
		g.challenge[code] = q.Get("code_challenge")
		g.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("POST /login/oauth/access_token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		g.mu.Lock()
		ch, ok := g.challenge[r.PostForm.Get("code")]
		delete(g.challenge, r.PostForm.Get("code"))
		g.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || r.PostForm.Get("client_secret") != "client-secret-github" || base64.RawURLEncoding.EncodeToString(sum[:]) != ch {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"error":"bad_verification_code"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "gho_token", "token_type": "bearer", "scope": "read:user,user:email"})
	})
	auth := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer gho_token" {
				http.Error(w, `{"message":"Bad credentials"}`, 401)
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc("GET /user", auth(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"login": g.user, "name": strings.ToUpper(g.user[:1]) + g.user[1:]})
	}))
	mux.HandleFunc("GET /user/emails", auth(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(g.emails)
	}))
	g.Server = httptest.NewServer(mux)
	t.Cleanup(g.Close)
	return g
}

func TestSigninGitHub(t *testing.T) {
	t.Parallel()
	gh := startGitHub(t)
	files := map[string]string{}
	for k, v := range decapSite {
		files[k] = v
	}
	s := startSigninSiteWith(t, files, func(_ *engine.Config, sc *server.Config) {
		sc.Signin.GitHubAPI, sc.Signin.GitHubWeb = gh.URL, gh.URL
	})
	s.repo.commit("github", map[string]string{".folio/editors.yaml": "providers:\n  - {id: github, name: GitHub, type: github, clientId: gh-client}\n" +
		"people:\n  - {email: octo@example.com, roles: [edit]}\n"})
	s.ts.Engine.Sync(t.Context())

	signIn := func(b *webClient) *http.Response {
		res := b.do("GET", s.ts.URL+"/api/v1/auth/login?provider=github", nil)
		if res.StatusCode != http.StatusFound || !strings.HasPrefix(res.Header.Get("Location"), gh.URL+"/login/oauth/authorize?") {
			t.Fatalf("login: %s %s", res.Status, res.Header.Get("Location"))
		}
		res = b.do("GET", res.Header.Get("Location"), nil)
		return b.do("GET", res.Header.Get("Location"), nil)
	}

	// A primary e-mail GitHub has not verified: refused.
	gh.user, gh.emails = "octo", []map[string]any{{"email": "octo@example.com", "primary": true, "verified": false}}
	b := newWebClient(t)
	if res := signIn(b); res.StatusCode != http.StatusForbidden || b.cookie(s.ts.URL, "folio_session") != "" {
		t.Fatalf("unverified: %s", res.Status)
	}
	// A verified secondary e-mail does not stand for the primary.
	gh.emails = []map[string]any{{"email": "octo@other.example", "primary": true, "verified": true}, {"email": "octo@example.com", "primary": false, "verified": true}}
	if res := signIn(b); res.StatusCode != http.StatusForbidden {
		t.Fatalf("secondary e-mail: %s", res.Status)
	}

	gh.emails = []map[string]any{{"email": "octo@example.com", "primary": true, "verified": true}}
	if res := signIn(b); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("verified: %s", res.Status)
	}
	st, info := sessionInfo(t, b, s.ts.URL)
	if st != http.StatusOK || info["email"] != "octo@example.com" || info["name"] != "Octo" || info["provider"] != "github" {
		t.Fatalf("session: %d %v", st, info)
	}
	r := b.call(t, "POST", s.ts.URL+"/api/v1/decap", s.ts.URL, info["csrfToken"].(string), persistParams(t, s.repo.bare, "content/posts/hello.md", "---\ntitle: Hello from GitHub\n---\nHi.\n"))
	wantOK(t, r)
	if got := git(t, s.repo.bare, "log", "-1", "--format=%an <%ae>", "main"); got != "Octo <octo@example.com>" {
		t.Fatalf("author: %q", got)
	}
}
