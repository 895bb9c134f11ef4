package server_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

// bigSite has a page, items and globals well over the on-the-fly
// threshold, so that every response is worth compressing.
func bigSite() map[string]string {
	long := strings.Repeat("Folio keeps every response encoded once, and compressed once. ", 60)
	files := map[string]string{}
	for k, v := range siteFiles {
		files[k] = v
	}
	files["pages/long.md"] = "---\ntitle: Long\npublishedAt: 2026-01-04\n---\n" + long + "\n"
	files["content/posts/d.md"] = "---\ntitle: Delta\ndate: 2026-01-13\nexcerpt: short\n---\n" + long + "\n"
	files["globals.yaml"] = siteFiles["globals.yaml"] + "about: " + long + "\n"
	return files
}

func decodeBody(t testing.TB, r response) []byte {
	t.Helper()
	switch ce := r.Header.Get("Content-Encoding"); ce {
	case "":
		return r.Body
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(r.Body))
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false) // one member: what every browser decodes
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("gunzip: %v", err)
		}
		return b
	case "br":
		b, err := io.ReadAll(brotli.NewReader(bytes.NewReader(r.Body)))
		if err != nil {
			t.Fatalf("brotli: %v", err)
		}
		return b
	default:
		t.Fatalf("Content-Encoding %q", ce)
	}
	return nil
}

func TestCompression(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, bigSite())
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	urls := map[string]string{
		"page":         "/api/v1/pages/long",
		"item":         "/api/v1/content/posts/d",
		"public item":  "/api/v1/public/collections/posts/d",
		"globals":      "/api/v1/globals",
		"content list": "/api/v1/content/posts",
		"public list":  "/api/v1/public/collections/posts?limit=2",
		"page list":    "/api/v1/pages?limit=3",
	}
	for name, path := range urls {
		t.Run(name, func(t *testing.T) {
			plain := get(t, ts.URL+path, key, "Accept-Encoding", "identity")
			if plain.Status != 200 || plain.Header.Get("Content-Encoding") != "" {
				t.Fatalf("identity: %d %q", plain.Status, plain.Header.Get("Content-Encoding"))
			}
			etag := plain.Header.Get("ETag")
			if !strings.Contains(plain.Header.Get("Vary"), "Accept-Encoding") {
				t.Errorf("Vary = %q", plain.Header.Get("Vary"))
			}
			codings := []string{"gzip", "br"}
			if strings.Contains(name, "list") {
				codings = []string{"gzip"} // lists are joined from gzip fragments; no brotli
			}
			for _, c := range codings {
				r := get(t, ts.URL+path, key, "Accept-Encoding", c)
				if r.Status != 200 || r.Header.Get("Content-Encoding") != c {
					t.Fatalf("%s: status %d, Content-Encoding %q", c, r.Status, r.Header.Get("Content-Encoding"))
				}
				if got := decodeBody(t, r); !bytes.Equal(got, plain.Body) {
					t.Fatalf("%s decodes to\n%s\nwant\n%s", c, got, plain.Body)
				}
				if len(r.Body) >= len(plain.Body) {
					t.Errorf("%s: %d bytes, identity %d", c, len(r.Body), len(plain.Body))
				}
				suffix := map[string]string{"gzip": "gz", "br": "br"}[c]
				tag := r.Header.Get("ETag")
				if want := strings.TrimSuffix(etag, `"`) + "-" + suffix + `"`; tag != want {
					t.Errorf("%s ETag %s, want %s", c, tag, want)
				}
				if r.Header.Get("Surrogate-Key") == "" || r.Header.Get("Surrogate-Key") != plain.Header.Get("Surrogate-Key") {
					t.Errorf("%s Surrogate-Key %q, identity %q", c, r.Header.Get("Surrogate-Key"), plain.Header.Get("Surrogate-Key"))
				}
				if r.Header.Get("Content-Length") != "" && r.Header.Get("Content-Length") != itoa(len(r.Body)) {
					t.Errorf("Content-Length %s for %d bytes", r.Header.Get("Content-Length"), len(r.Body))
				}
				// Any coding's ETag revalidates; the 304 names the selected one.
				for _, inm := range []string{tag, etag, "W/" + tag, `"other", ` + tag} {
					nm := get(t, ts.URL+path, key, "Accept-Encoding", c, "If-None-Match", inm)
					if nm.Status != 304 || nm.Header.Get("ETag") != tag || len(nm.Body) != 0 {
						t.Errorf("If-None-Match %s with %s: %d ETag %s", inm, c, nm.Status, nm.Header.Get("ETag"))
					}
					if nm.Header.Get("Content-Encoding") != "" {
						t.Errorf("304 with Content-Encoding %q", nm.Header.Get("Content-Encoding"))
					}
				}
				nm := get(t, ts.URL+path, key, "Accept-Encoding", "identity", "If-None-Match", tag)
				if nm.Status != 304 || nm.Header.Get("ETag") != etag {
					t.Errorf("identity request with %s: %d ETag %s", tag, nm.Status, nm.Header.Get("ETag"))
				}
				if h := get(t, ts.URL+path, key, "Accept-Encoding", c, "If-None-Match", `"other-gz"`); h.Status != 200 {
					t.Errorf("a different ETag: %d", h.Status)
				}
				head := do(t, http.MethodHead, ts.URL+path, key, nil, "Accept-Encoding", c)
				if head.Header.Get("Content-Length") != itoa(len(r.Body)) || head.Header.Get("Content-Encoding") != c {
					t.Errorf("HEAD: Content-Length %s, want %d", head.Header.Get("Content-Length"), len(r.Body))
				}
			}
		})
	}
	t.Run("Negotiation", func(t *testing.T) {
		for ae, want := range map[string]string{
			"":                              "",
			"identity":                      "",
			"gzip":                          "gzip",
			"x-gzip":                        "gzip",
			"GZIP;Q=0.5":                    "gzip",
			"gzip, br":                      "br",
			"gzip;q=1, br;q=0.9":            "gzip",
			"gzip;q=0.5, br;q=0.4":          "gzip",
			"br;q=0, gzip;q=0":              "",
			"*":                             "br",
			"*;q=0.5, br;q=0":               "gzip",
			"identity;q=0, gzip;q=0":        "", // nothing acceptable: identity rather than 406
			"gzip;q=1.5":                    "", // malformed q: the entry is ignored
			"gzip;q=0.":                     "", // q=0
			"gzip;q=0.001":                  "gzip",
			"gzip;q=0.0001":                 "",
			"deflate, zstd":                 "",
			"identity;q=1, gzip;q=0.9":      "",
			"compress;q=0.5, gzip;q=0.8, *": "br",
		} {
			r := get(t, ts.URL+"/api/v1/pages/long", key, "Accept-Encoding", ae)
			if got := r.Header.Get("Content-Encoding"); r.Status != 200 || got != want {
				t.Errorf("Accept-Encoding %q: %d, Content-Encoding %q, want %q", ae, r.Status, got, want)
			}
		}
	})
	t.Run("SmallNotCompressed", func(t *testing.T) {
		r := get(t, ts.URL+"/api/v1/status", key, "Accept-Encoding", "gzip")
		if r.Status != 200 || r.Header.Get("Content-Encoding") != "" {
			t.Fatalf("status: %d, Content-Encoding %q (%d bytes)", r.Status, r.Header.Get("Content-Encoding"), len(r.Body))
		}
		e := get(t, ts.URL+"/api/v1/pages/nope", key, "Accept-Encoding", "gzip")
		if e.Header.Get("Content-Encoding") != "" {
			t.Fatalf("error compressed")
		}
		wantError(t, e, 404, "NOT_FOUND")
	})
	t.Run("AfterReload", func(t *testing.T) {
		before := get(t, ts.URL+"/api/v1/pages/long", key, "Accept-Encoding", "gzip")
		long := strings.Repeat("A new version of the long page. ", 80)
		repo.commit("edit", map[string]string{"pages/long.md": "---\ntitle: Long\npublishedAt: 2026-01-04\n---\n" + long + "\n"})
		eventually(t, "the new page", func() bool {
			return get(t, ts.URL+"/api/v1/pages/long", key, "Accept-Encoding", "identity").Header.Get("ETag") != strings.Replace(before.Header.Get("ETag"), "-gz", "", 1)
		})
		after := get(t, ts.URL+"/api/v1/pages/long", key, "Accept-Encoding", "gzip")
		if after.Header.Get("ETag") == before.Header.Get("ETag") || !strings.Contains(string(decodeBody(t, after)), "A new version") {
			t.Fatalf("gzip after a reload: ETag %s, body %.80s", after.Header.Get("ETag"), decodeBody(t, after))
		}
	})
}

func TestCompressionOnTheFly(t *testing.T) {
	t.Parallel()
	ms := newMediaServer(t)
	for i := range 8 {
		ms.uploadOK(t, filePart("picture-with-a-long-name-"+itoa(i)+".png", pngBytes(t, 20, 20)), fieldPart("alt", strings.Repeat("alt text ", 10)))
	}
	plain := get(t, ms.URL+"/api/v1/media", ms.read, "Accept-Encoding", "identity")
	if plain.Status != 200 || len(plain.Body) < 1024 {
		t.Fatalf("media list: %d, %d bytes", plain.Status, len(plain.Body))
	}
	for _, path := range []string{"/api/v1/media", "/api/v1/public/media"} {
		plain := get(t, ms.URL+path, ms.read, "Accept-Encoding", "identity")
		r := get(t, ms.URL+path, ms.read, "Accept-Encoding", "gzip, br")
		if r.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s: Content-Encoding %q", path, r.Header.Get("Content-Encoding"))
		}
		if !bytes.Equal(decodeBody(t, r), plain.Body) {
			t.Fatalf("%s: gzip body differs", path)
		}
		etag := plain.Header.Get("ETag")
		if want := strings.TrimSuffix(etag, `"`) + `-gz"`; r.Header.Get("ETag") != want {
			t.Errorf("%s: ETag %s, want %s", path, r.Header.Get("ETag"), want)
		}
		if r.Header.Get("Surrogate-Key") != "media presets" {
			t.Errorf("%s: Surrogate-Key %q", path, r.Header.Get("Surrogate-Key"))
		}
		nm := get(t, ms.URL+path, ms.read, "Accept-Encoding", "gzip", "If-None-Match", r.Header.Get("ETag"))
		if nm.Status != 304 || nm.Header.Get("ETag") != r.Header.Get("ETag") {
			t.Errorf("%s: If-None-Match: %d %s", path, nm.Status, nm.Header.Get("ETag"))
		}
	}
	// Go's client asks for gzip and decodes it when the caller does not
	// set Accept-Encoding: the ordinary path of every Go consumer.
	r := get(t, ms.URL+"/api/v1/media", ms.read)
	if !bytes.Equal(r.Body, plain.Body) {
		t.Fatal("transparently decoded body differs")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
