package server_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
)

// testOP is a real OpenID provider (zitadel/oidc's example OP) on
// 127.0.0.1, with its own users, and a hook that lets a test play the
// attacker between it and folio: the ID token of the token endpoint's
// answer replaced by one the test makes.
type testOP struct {
	Issuer  string
	clients map[string]*storage.Client
	store   *storage.Storage
	// tamper, when set, rewrites the ID token the token endpoint sends.
	tamper atomic.Pointer[func(claims map[string]any, sign func(map[string]any) string) string]
}

// opUser is one account of the test provider (password "pw").
type opUser struct {
	ID, Email, First, Last string
	Verified               bool
}

func startOP(t testing.TB, users ...opUser) *testOP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	op := &testOP{Issuer: "http://" + ln.Addr().String(), clients: map[string]*storage.Client{}}
	m := map[string]any{}
	for _, u := range users {
		m[u.ID] = map[string]any{"ID": u.ID, "Username": u.ID, "Password": "pw", "FirstName": u.First, "LastName": u.Last,
			"Email": u.Email, "EmailVerified": u.Verified, "PreferredLanguage": "en"}
	}
	b, _ := json.Marshal(m)
	f := filepath.Join(t.TempDir(), "users.json")
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	us, err := storage.StoreFromFile(f)
	if err != nil {
		t.Fatal(err)
	}
	op.store = storage.NewStorageWithClients(us, op.clients)
	h := exampleop.SetupServer(op.Issuer, op.store, nil, false)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tf := op.tamper.Load()
		if tf == nil || r.URL.Path != "/oauth/token" {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var body map[string]any
		if rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &body) == nil {
			if raw, ok := body["id_token"].(string); ok {
				body["id_token"] = (*tf)(jwtClaims(t, raw), op.sign)
			}
			out, _ := json.Marshal(body)
			rec.Body = bytes.NewBuffer(out)
		}
		for k, v := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return op
}

// client registers folio (at base) as a web client of the provider.
func (op *testOP) client(id, secret, base string) {
	op.clients[id] = storage.WebClient(id, secret, base+"/api/v1/auth/callback")
}

// sign signs claims with the provider's own key (a token folio must
// judge by its claims alone).
func (op *testOP) sign(claims map[string]any) string {
	k, err := op.store.SigningKey(context.Background())
	if err != nil {
		panic(err)
	}
	return signWith(claims, k.Key(), k.ID())
}

func signWith(claims map[string]any, key any, kid string) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(claims)
	sig, err := s.Sign(b)
	if err != nil {
		panic(err)
	}
	out, err := sig.CompactSerialize()
	if err != nil {
		panic(err)
	}
	return out
}

// otherKey signs as someone who is not the provider.
func otherKey(t testing.TB) *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func jwtClaims(t testing.TB, raw string) map[string]any {
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		t.Errorf("not a JWT: %q", raw)
		return map[string]any{}
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Error(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Error(err)
	}
	return m
}

// webClient is an HTTP client with a cookie jar that does not follow
// redirects by itself (the test follows them, to look at each).
type webClient struct {
	t   testing.TB
	c   *http.Client
	jar *cookiejar.Jar
}

func newWebClient(t testing.TB) *webClient {
	jar, _ := cookiejar.New(nil)
	// Every exchange with folio is checked against the OpenAPI document.
	return &webClient{t: t, jar: jar, c: &http.Client{Jar: jar, Transport: apiClient(t).Transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// get fetches u and follows redirects while they stay off stop's host
// (the return to folio is looked at by the caller).
func (b *webClient) do(method, u string, form url.Values) *http.Response {
	b.t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// signIn goes through the provider's login as user and stops at the
// callback to folio, which it returns (not yet visited).
func (b *webClient) toCallback(folio, provider, user, ret string) string {
	b.t.Helper()
	u := folio + "/api/v1/auth/login?provider=" + provider
	if ret != "" {
		u += "&return=" + url.QueryEscape(ret)
	}
	var authReq string
	for i := 0; i < 10; i++ {
		res := b.do("GET", u, nil)
		if res.StatusCode != http.StatusFound && res.StatusCode != http.StatusSeeOther {
			if strings.Contains(u, "/login/username") {
				authReq = res.Request.URL.Query().Get("authRequestID")
				break
			}
			b.t.Fatalf("GET %s: %s", u, res.Status)
		}
		next, err := res.Request.URL.Parse(res.Header.Get("Location"))
		if err != nil {
			b.t.Fatal(err)
		}
		u = next.String()
	}
	if authReq == "" {
		b.t.Fatalf("never reached the provider's login page (at %s)", u)
	}
	opBase := strings.SplitN(u, "/login/", 2)[0]
	res := b.do("POST", opBase+"/login/username", url.Values{"username": {user}, "password": {"pw"}, "id": {authReq}})
	for i := 0; i < 10; i++ {
		if res.StatusCode != http.StatusFound && res.StatusCode != http.StatusSeeOther {
			b.t.Fatalf("provider login: %s", res.Status)
		}
		next, _ := res.Request.URL.Parse(res.Header.Get("Location"))
		if strings.HasPrefix(next.String(), folio) {
			return next.String()
		}
		res = b.do("GET", next.String(), nil)
	}
	b.t.Fatal("the provider never sent the webClient back")
	return ""
}

// cookie is the value of the jar's cookie named name for u.
func (b *webClient) cookie(u, name string) string {
	pu, _ := url.Parse(u)
	for _, c := range b.jar.Cookies(pu) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}
