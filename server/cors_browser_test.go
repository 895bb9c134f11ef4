package server_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/media/local"
	"github.com/folio-cms/folio/server"
)

// withCORS lets the origins call the keyed routes from a browser.
func withCORS(t testing.TB, origins ...string) serverOpt {
	return func(_ *engine.Config, sc *server.Config) {
		t.Helper()
		o, err := server.ParseOrigins(strings.Join(origins, ","))
		if err != nil {
			t.Fatal(err)
		}
		sc.CORSOrigins = o
	}
}

// frontEnd is a page on another loopback origin, as a site's front end
// would be.
func frontEnd(t *testing.T) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>front end</title><p>a front end</p>")
	}))
	t.Cleanup(ts.Close)
	return ts
}

// TestCORSFromAnotherOrigin: a page on an origin of --cors-origins reads a
// keyed route and PATCHes media with its key (preflight included); a page
// on another origin cannot; an <img> on either loads a media URL made
// absolute by --public-url.
func TestCORSFromAnotherOrigin(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	allowed, other := frontEnd(t), frontEnd(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	folio := "http://" + ln.Addr().String()
	root := t.TempDir()
	ts := startServerOn(t, ln, newRepo(t, mediaSite).bare,
		withLocalStorage(t, local.Config{Root: root, PublicURL: folio}), withCORS(t, allowed.URL))
	key := ts.key(t, "front-end", server.ScopeContentRead, server.ScopeMediaRead, server.ScopeMediaWrite)
	ms := &mediaServer{testServer: ts, root: root, all: key, read: key, write: key}
	it := ms.uploadOK(t, filePart("pier.jpg", jpegBytes(t, 320, 200)))[0]
	if !strings.HasPrefix(it.URL, folio+"/uploads/") {
		t.Fatalf("url = %q, want it under --public-url %s", it.URL, folio)
	}

	fetchPages := fmt.Sprintf(`fetch(%q + "/api/v1/pages", {headers: {Authorization: "Bearer " + %q}})
  .then(r => r.json().then(j => r.status + " " + j.items.length), e => "blocked: " + e.message)`, folio, key)
	patch := fmt.Sprintf(`fetch(%q + "/api/v1/media/" + %q, {method: "PATCH",
  headers: {Authorization: "Bearer " + %q, "Content-Type": "application/json", "If-Match": "*"},
  body: JSON.stringify({alt: "From the front end"})})
  .then(r => r.status + " " + (r.headers.get("ETag") ? "etag" : "no etag"), e => "blocked: " + e.message)`, folio, it.ID, key)
	loadImg := fmt.Sprintf(`new Promise(done => { const i = new Image(); i.onload = () => done(i.naturalWidth);
  i.onerror = () => done(-1); i.src = %q; document.body.append(i); })`, it.URL)

	t.Run("ListedOrigin", func(t *testing.T) {
		b.run(t, "open the front end", chromedp.Navigate(allowed.URL))
		if got := evalAs[string](t, b, fetchPages); got != "200 1" {
			t.Errorf("fetch of /pages from %s: %s, want 200 and one page", allowed.URL, got)
		}
		if got := evalAs[string](t, b, patch); got != "200 etag" {
			t.Errorf("PATCH from %s: %s, want 200 with its ETag readable", allowed.URL, got)
		}
		if got := decode[mItem](t, get(t, folio+"/api/v1/media/"+it.ID, key)); got.Alt != "From the front end" {
			t.Errorf("alt after the PATCH = %q", got.Alt)
		}
		if w := evalAs[int](t, b, loadImg); w != 320 {
			t.Errorf("<img> of %s: naturalWidth %d, want 320", it.URL, w)
		}
		b.check(t)
	})

	t.Run("OtherOrigin", func(t *testing.T) {
		b.run(t, "open the other front end", chromedp.Navigate(other.URL))
		if got := evalAs[string](t, b, fetchPages); !strings.HasPrefix(got, "blocked: ") {
			t.Errorf("fetch of /pages from %s (not listed): %s, want it blocked", other.URL, got)
		}
		if got := evalAs[string](t, b, patch); !strings.HasPrefix(got, "blocked: ") {
			t.Errorf("PATCH from %s (not listed): %s, want it blocked", other.URL, got)
		}
		// Media files are public: any page may show them.
		if w := evalAs[int](t, b, loadImg); w != 320 {
			t.Errorf("<img> of %s: naturalWidth %d, want 320", it.URL, w)
		}
	})
}
