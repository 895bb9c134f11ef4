package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

const adminCSP = "default-src 'self'; img-src 'self' data: blob:; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

func TestAdminFiles(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newRepo(t, mediaSite).bare)
	t.Run("OK", func(t *testing.T) {
		for path, ctype := range map[string]string{
			"/admin/":            "text/html; charset=utf-8",
			"/admin/index.html":  "text/html; charset=utf-8",
			"/admin/app.js":      "text/javascript; charset=utf-8",
			"/admin/api.js":      "text/javascript; charset=utf-8",
			"/admin/blurhash.js": "text/javascript; charset=utf-8",
			"/admin/style.css":   "text/css; charset=utf-8",
		} {
			r := get(t, ts.URL+path, "")
			if r.Status != http.StatusOK || r.Header.Get("Content-Type") != ctype {
				t.Errorf("GET %s: %d %q, want 200 %q", path, r.Status, r.Header.Get("Content-Type"), ctype)
			}
			for h, want := range map[string]string{
				"Content-Security-Policy": adminCSP, "X-Content-Type-Options": "nosniff",
				"X-Frame-Options": "DENY", "Cache-Control": "no-cache", "Referrer-Policy": "no-referrer",
			} {
				if got := r.Header.Get(h); got != want {
					t.Errorf("GET %s: %s = %q, want %q", path, h, got, want)
				}
			}
			etag := r.Header.Get("ETag")
			if etag == "" {
				t.Fatalf("GET %s: no ETag", path)
			}
			if r := get(t, ts.URL+path, "", "If-None-Match", etag); r.Status != http.StatusNotModified || len(r.Body) != 0 {
				t.Errorf("GET %s with its ETag: %d, want 304", path, r.Status)
			}
		}
	})
	t.Run("Redirect", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/admin", nil)
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "/admin/" {
			t.Errorf("GET /admin: %d to %q, want 301 to /admin/", res.StatusCode, res.Header.Get("Location"))
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		for _, p := range []string{"/admin/nope.js", "/admin/../server.go", "/admin/admin/app.js"} {
			wantError(t, get(t, ts.URL+p, ""), http.StatusNotFound, "NOT_FOUND")
		}
	})
	t.Run("MediaOrigins", func(t *testing.T) {
		ts := startServer(t, newRepo(t, mediaSite).bare, func(_ *engine.Config, sc *server.Config) {
			sc.MediaOrigins = []string{"https://bucket.example.com"}
		})
		csp := get(t, ts.URL+"/admin/", "").Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "img-src 'self' data: blob: https://bucket.example.com;") {
			t.Errorf("CSP = %q, want the media origin in img-src", csp)
		}
	})
}

// TestAdminFiles_NoInline: the CSP allows no inline script, style or
// event handler, so the pages must hold none.
func TestAdminFiles_NoInline(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("admin", "*.html"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no admin pages: %v", err)
	}
	bad := regexp.MustCompile(`(?i)^<style|\sstyle\s*=|\son[a-z]+\s*=|javascript:`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, tag := range regexp.MustCompile(`(?is)<script[^>]*>.*?</script>|<[a-z][^>]*>`).FindAllString(string(b), -1) {
			if strings.HasPrefix(strings.ToLower(tag), "<script") && !strings.Contains(tag, " src=") {
				t.Errorf("%s: inline script %q", f, tag)
				continue
			}
			if strings.HasPrefix(strings.ToLower(tag), "<script") {
				continue
			}
			if bad.MatchString(tag) {
				t.Errorf("%s: inline style or handler in %q", f, tag)
			}
		}
	}
}
