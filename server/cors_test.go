package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

func varies(h http.Header, name string) bool {
	for _, v := range h.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), name) {
				return true
			}
		}
	}
	return false
}

func TestCORSKeyedRoutes(t *testing.T) {
	t.Parallel()
	const front, stranger = "https://www.example.com", "https://evil.example.net"
	ms := startMediaServerWith(t, withCORS(t, front, "http://localhost:3000"))
	reader := ms.reader(t)

	t.Run("ListedOrigin", func(t *testing.T) {
		for _, tc := range []struct {
			path, key string
			status    int
		}{
			{"/api/v1/pages", reader, http.StatusOK},
			{"/api/v1/pages", "", http.StatusUnauthorized}, // the page can read why
			{"/api/v1/media", reader, http.StatusForbidden},
			{"/api/v1/status", reader, http.StatusOK},
		} {
			r := get(t, ms.URL+tc.path, tc.key, "Origin", front)
			if r.Status != tc.status {
				t.Fatalf("GET %s: %d, want %d", tc.path, r.Status, tc.status)
			}
			if got := r.Header.Get("Access-Control-Allow-Origin"); got != front {
				t.Errorf("GET %s: Access-Control-Allow-Origin %q, want %q", tc.path, got, front)
			}
			if !varies(r.Header, "Origin") {
				t.Errorf("GET %s: Vary %q lacks Origin", tc.path, r.Header.Values("Vary"))
			}
			if !strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "ETag") {
				t.Errorf("GET %s: ETag not exposed", tc.path)
			}
		}
		if r := get(t, ms.URL+"/api/v1/pages", reader, "Origin", front); !varies(r.Header, "Authorization") {
			t.Errorf("Vary %q lacks Authorization", r.Header.Values("Vary"))
		}
	})
	t.Run("OtherOrigin", func(t *testing.T) {
		for _, origin := range []string{stranger, "https://www.example.com.evil.net", "null", "HTTPS://WWW.EXAMPLE.COM:8443"} {
			r := get(t, ms.URL+"/api/v1/pages", reader, "Origin", origin)
			if got := r.Header.Get("Access-Control-Allow-Origin"); got != "" {
				t.Errorf("origin %s: Access-Control-Allow-Origin %q", origin, got)
			}
			if !varies(r.Header, "Origin") {
				t.Errorf("origin %s: Vary %q lacks Origin", origin, r.Header.Values("Vary"))
			}
		}
	})
	t.Run("Preflight", func(t *testing.T) {
		for path, methods := range map[string]string{
			"/api/v1/pages":         "GET, HEAD, OPTIONS, POST",
			"/api/v1/pages/a/b":     "DELETE, GET, HEAD, OPTIONS, PATCH, PUT",
			"/api/v1/media":         "GET, HEAD, OPTIONS, POST",
			"/api/v1/media/abc":     "DELETE, GET, HEAD, OPTIONS, PATCH",
			"/api/v1/media/folders": "DELETE, GET, HEAD, OPTIONS, POST",
			"/api/v1/media/presign": "OPTIONS, POST",
			"/api/v1/status":        "GET, HEAD, OPTIONS",
		} {
			r := do(t, http.MethodOptions, ms.URL+path, "", nil, "Origin", front,
				"Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "authorization")
			if r.Status != http.StatusNoContent {
				t.Fatalf("OPTIONS %s: %d", path, r.Status)
			}
			h := r.Header
			if h.Get("Access-Control-Allow-Origin") != front || h.Get("Access-Control-Allow-Methods") != methods ||
				!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") || !varies(h, "Origin") {
				t.Errorf("OPTIONS %s: origin %q methods %q headers %q vary %q; want %s, %q, Authorization, Origin",
					path, h.Get("Access-Control-Allow-Origin"), h.Get("Access-Control-Allow-Methods"),
					h.Get("Access-Control-Allow-Headers"), h.Values("Vary"), front, methods)
			}
		}
		for _, tc := range []struct{ path, origin string }{
			{"/api/v1/pages", stranger},
			{"/api/v1/nope", front},
			{"/healthz", front},
			{"/api/v1/hooks/git", front},
		} {
			r := do(t, http.MethodOptions, ms.URL+tc.path, "", nil, "Origin", tc.origin, "Access-Control-Request-Method", "GET")
			if got := r.Header.Get("Access-Control-Allow-Origin"); got != "" {
				t.Errorf("OPTIONS %s from %s: Access-Control-Allow-Origin %q, want none", tc.path, tc.origin, got)
			}
		}
	})
	t.Run("PublicRoutesStayOpen", func(t *testing.T) {
		r := get(t, ms.URL+"/api/v1/public/media", "", "Origin", stranger)
		if got := r.Header.Get("Access-Control-Allow-Origin"); got != "*" {
			t.Errorf("public media: Access-Control-Allow-Origin %q, want *", got)
		}
	})
	t.Run("ReadOnlyBox", func(t *testing.T) {
		ts := startServer(t, newRepo(t, mediaSite).bare, withLocalMedia(t, t.TempDir(), readOnlyLib), readOnlyServer, withCORS(t, front))
		for path, methods := range map[string]string{
			"/api/v1/media/abc":     "GET, HEAD, OPTIONS",
			"/api/v1/media/folders": "GET, HEAD, OPTIONS",
		} {
			r := do(t, http.MethodOptions, ts.URL+path, "", nil, "Origin", front, "Access-Control-Request-Method", "PATCH")
			if got := r.Header.Get("Access-Control-Allow-Methods"); got != methods {
				t.Errorf("OPTIONS %s on a read-only box: methods %q, want %q", path, got, methods)
			}
		}
		r := do(t, http.MethodOptions, ts.URL+"/api/v1/media/presign", "", nil, "Origin", front, "Access-Control-Request-Method", "POST")
		if got := r.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("OPTIONS of a write-only route on a read-only box: Access-Control-Allow-Origin %q", got)
		}
	})
	t.Run("NoneByDefault", func(t *testing.T) {
		ms := newMediaServer(t)
		r := get(t, ms.URL+"/api/v1/pages", ms.reader(t), "Origin", front)
		if got := r.Header.Get("Access-Control-Allow-Origin"); got != "" || varies(r.Header, "Origin") {
			t.Errorf("without --cors-origins: Access-Control-Allow-Origin %q, Vary %q", got, r.Header.Values("Vary"))
		}
		r = do(t, http.MethodOptions, ms.URL+"/api/v1/pages", "", nil, "Origin", front, "Access-Control-Request-Method", "GET")
		if got := r.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("preflight without --cors-origins: Access-Control-Allow-Origin %q", got)
		}
	})
}

func TestParseOrigins(t *testing.T) {
	t.Parallel()
	o, err := server.ParseOrigins(" https://www.Example.com , http://127.0.0.1:3000,,http://localhost:8080/ ")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for k := range o {
		got = append(got, k)
	}
	slices.Sort(got)
	if want := []string{"http://127.0.0.1:3000", "http://localhost:8080", "https://www.example.com"}; !slices.Equal(got, want) {
		t.Errorf("origins = %v, want %v", got, want)
	}
	for _, bad := range []string{"*", "https://*.example.com", "www.example.com", "https://example.com/app", "https://u@example.com", "ftp://example.com", "https://example.com?x"} {
		if _, err := server.ParseOrigins(bad); err == nil {
			t.Errorf("ParseOrigins(%q): no error", bad)
		}
	}
}
