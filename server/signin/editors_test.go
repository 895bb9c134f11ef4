package signin

import (
	"net/http"
	"slices"
	"testing"
	"time"
)

func TestLookupGroups(t *testing.T) {
	e, err := ParseEditors([]byte(`providers: [{id: kc, issuer: "https://id.example.com/realms/a", clientId: folio, groupsClaim: groups}]
people:
  - {email: Kim@Example.com, roles: [admin]}
groups:
  translators-fr: {roles: [edit], locales: [fr]}
  translators-de: {roles: [edit], locales: [de]}
  media: {roles: [media]}
`))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := e.Lookup("kim@example.com", []string{"media"}); !ok || !slices.Equal(p.Roles, []string{"admin"}) {
		t.Fatalf("a listed person: %+v %v", p, ok)
	}
	p, ok := e.Lookup("lea@example.com", []string{"translators-fr", "translators-de", "unknown"})
	if !ok || !slices.Equal(p.Roles, []string{"edit"}) || !slices.Equal(p.Locales, []string{"fr", "de"}) {
		t.Fatalf("two groups: %+v %v", p, ok)
	}
	pr := &Principal{Email: p.Email, Grant: p.Grant}
	if pr.MayEdit("posts", "fr") != nil || pr.MayEdit("posts", "en") == nil {
		t.Fatal("a translator of fr and de")
	}
	// A group of other roles neither lifts nor widens the edit limits.
	for _, gs := range [][]string{{"translators-fr", "media"}, {"media", "translators-fr"}} {
		p, _ = e.Lookup("lea@example.com", gs)
		if !slices.Contains(p.Roles, "media") || !slices.Equal(p.Locales, []string{"fr"}) {
			t.Fatalf("%v: %+v", gs, p)
		}
	}
	if _, ok := e.Lookup("nobody@example.com", []string{"unknown"}); ok {
		t.Fatal("an unmapped group signs in")
	}
}

func TestCookieAttributes(t *testing.T) {
	s := &Service{Secret: []byte("0123456789abcdef0123456789abcdef")}
	c := s.cookie(sessionCookie, "v", "/", time.Hour)
	if c.Name != "__Host-folio_session" || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Domain != "" || c.MaxAge != 3600 {
		t.Fatalf("session cookie: %+v", c)
	}
	if c := s.cookie(loginCookie, "v", CallbackPath, loginTTL); c.Name != "__Secure-folio_login" || !c.Secure || c.Path != CallbackPath {
		t.Fatalf("login cookie: %+v", c)
	}
	s.Dev = true
	if c := s.cookie(sessionCookie, "v", "/", time.Hour); c.Name != "folio_session" || c.Secure || !c.HttpOnly {
		t.Fatalf("dev session cookie: %+v", c)
	}
	// A token of one purpose is no token of another.
	tok, _ := seal(s.Secret, "login", map[string]string{"sid": "x"})
	var v map[string]any
	if open(s.Secret, "session", tok, &v) == nil {
		t.Fatal("a login token opened as a session")
	}
}
