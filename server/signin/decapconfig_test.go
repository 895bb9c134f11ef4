package signin

import (
	"strings"
	"testing"
)

func TestDecapConfigPerRole(t *testing.T) {
	in := []byte("backend: {name: proxy}\ni18n:\n  structure: multiple_folders\n  locales:\n    - en\n    - fr\n    - de\n  default_locale: en\ncollections:\n  - name: posts\n    folder: content/posts\n  - name: pages\n    folder: pages\n  - name: globals\n    files: []\n")
	for _, c := range []struct {
		grant       Grant
		want, wantN []string
	}{
		{Grant{Roles: []string{RoleEdit}, Collections: []string{"posts"}}, []string{"name: posts", "- de"}, []string{"name: pages", "name: globals"}},
		{Grant{Roles: []string{RoleEdit}, Locales: []string{"de"}}, []string{"name: pages", "- en", "- de"}, []string{"- fr"}},
		{Grant{Roles: []string{RoleAdmin}, Collections: []string{"posts"}, Locales: []string{"de"}}, []string{"name: pages", "- fr"}, nil},
	} {
		out, err := DecapConfig(in, &Principal{Email: "a@example.com", Grant: c.grant})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%+v: %q missing:\n%s", c.grant, w, out)
			}
		}
		for _, w := range c.wantN {
			if strings.Contains(string(out), w) {
				t.Errorf("%+v: %q kept:\n%s", c.grant, w, out)
			}
		}
	}
}

func TestSafeReturn(t *testing.T) {
	for v, ok := range map[string]bool{
		"": true, "/admin/": true, "/admin/content/#/collections/posts": true, "/a?b=c": true,
		"//evil.example": false, "/\\evil.example": false, "https://evil.example/": false, "evil": false,
		"javascript:alert(1)": false, "/\r\nx": false, "/%2F%2Fevil": false, "http:/evil": false,
	} {
		if _, got := safeReturn(v); got != ok {
			t.Errorf("safeReturn(%q) = %v, want %v", v, got, ok)
		}
	}
}

func TestParseEditorsRefuses(t *testing.T) {
	for _, bad := range []string{
		"providers: [{id: x, issuer: 'ftp://a', clientId: c}]",
		"providers: [{id: X!, issuer: 'https://a', clientId: c}]",
		"providers: [{id: x, issuer: 'https://a'}]",
		"people: [{email: a@example.com, roles: [boss]}]",
		"people: [{email: a@example.com}]",
		"people: [{email: a@example.com, roles: [edit]}, {email: A@example.com, roles: [read]}]",
		"peeple: []",
		"sessions: {idle: forever}",
	} {
		if _, err := ParseEditors([]byte(bad)); err == nil {
			t.Errorf("accepted: %s", bad)
		}
	}
}
