package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-cms/folio/fixtures/testkit"
)

// TestMediaSign: a URL signed by `folio media sign` is served by `folio
// serve` with the same --url-secret; unsigned, or signed with another
// secret, it is 403.
func TestMediaSign(t *testing.T) {
	site := t.TempDir()
	os.MkdirAll(filepath.Join(site, "pages"), 0o755)
	os.WriteFile(filepath.Join(site, "pages", "home.md"), []byte("---\ntitle: Home\nisHomepage: true\n---\nHi.\n"), 0o644)
	testkit.CommitSite(t, site, nil)
	mediaDir := t.TempDir()
	if _, stderr, err := runCLI(t, "media", "import", "--media", mediaDir, pngFile(t, "lake.png", 600, 400)); err != nil {
		t.Fatalf("media import: %v\n%s", err, stderr)
	}
	box := serveBox(t, "--site", site, "--cache-dir", t.TempDir(), "--media", mediaDir, "--url-secret", "s3cret")

	res, err := http.Get(box.URL + "/api/v1/public/media")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Data []struct{ URL string } }
	json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if len(list.Data) != 1 {
		t.Fatalf("public media: %+v", list)
	}
	u, err := url.Parse(list.Data[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	variant := u.Path + "?w=123&h=77&fit=cover&fm=png"

	get := func(path string) int {
		t.Helper()
		res, err := http.Get(box.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if s := get(variant); s != http.StatusForbidden {
		t.Fatalf("unsigned %s: %d, want 403", variant, s)
	}
	sign := func(secret string) string {
		t.Helper()
		stdout, stderr, err := runCLI(t, "media", "sign", "--url-secret", secret, variant)
		if err != nil {
			t.Fatalf("media sign: %v\n%s", err, stderr)
		}
		return strings.TrimSpace(stdout)
	}
	if s := get(sign("s3cret")); s != http.StatusOK {
		t.Fatalf("signed %s: %d, want 200", sign("s3cret"), s)
	}
	if s := get(sign("other")); s != http.StatusForbidden {
		t.Fatalf("signed with another secret: %d, want 403", s)
	}
	t.Setenv("FOLIO_URL_SECRET", "s3cret")
	stdout, _, err := runCLI(t, "media", "sign", variant)
	if err != nil || strings.TrimSpace(stdout) != sign("s3cret") {
		t.Fatalf("FOLIO_URL_SECRET: %q %v", stdout, err)
	}
	for _, bad := range [][]string{{"media", "sign", "--url-secret", "x"}, {"media", "sign", "--url-secret", "x", "/api/v1/pages"}} {
		if _, _, err := runCLI(t, bad...); err == nil {
			t.Fatalf("%v: no error", bad)
		}
	}
}
