package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/grant"
	"github.com/folio-cms/folio/media/local"
	"github.com/folio-cms/folio/media/s3"
	"github.com/folio-cms/folio/media/s3/s3test"
	"github.com/folio-cms/folio/server"
)

// presignGrant is the grant of the contract (§2.3).
type presignGrant struct {
	UploadURL  string            `json:"uploadUrl"`
	PublicURL  string            `json:"publicUrl"`
	StorageKey string            `json:"storageKey"`
	ExpiresAt  string            `json:"expiresAt"`
	Method     string            `json:"method"`
	Headers    map[string]string `json:"headers"`
}

func jsonBody(t testing.TB, v any) io.Reader {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b)
}

func postJSON(t testing.TB, url, key string, v any) response {
	t.Helper()
	return do(t, http.MethodPost, url, key, jsonBody(t, v), "Content-Type", "application/json")
}

func presignReq(t testing.TB, ts *testServer, key, filename, mime string, size int64) response {
	t.Helper()
	return postJSON(t, ts.URL+"/api/v1/media/presign", key, map[string]any{"filename": filename, "mimeType": mime, "size": size})
}

// mustPresign asks for a grant and checks its shape.
func mustPresign(t testing.TB, ts *testServer, key, filename, mime string, size int64) presignGrant {
	t.Helper()
	r := presignReq(t, ts, key, filename, mime, size)
	if r.Status != http.StatusOK {
		t.Fatalf("presign = %d: %s", r.Status, r.Body)
	}
	return decode[presignGrant](t, r)
}

// put sends body to the grant's uploadUrl with its method and headers, as
// a browser would.
func put(t testing.TB, g presignGrant, body []byte) int {
	t.Helper()
	req, err := http.NewRequest(g.Method, g.UploadURL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range g.Headers {
		if k == "Content-Length" {
			// net/http sends the length of the body; a grant's length
			// that differs makes the signature fail.
			if n, err := strconv.ParseInt(v, 10, 64); err != nil || n != int64(len(body)) {
				t.Logf("granted Content-Length %s, body %d bytes", v, len(body))
			}
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

type confirmBody struct {
	StorageKey string `json:"storageKey"`
	Filename   string `json:"filename"`
	MimeType   string `json:"mimeType"`
	Size       int64  `json:"size"`
	Folder     string `json:"folder"`
}

func confirmOf(g presignGrant, filename string, size int64) confirmBody {
	return confirmBody{StorageKey: g.StorageKey, Filename: filename, MimeType: g.Headers["Content-Type"], Size: size, Folder: "/"}
}

func confirmReq(t testing.TB, ts *testServer, key string, c confirmBody) response {
	t.Helper()
	return postJSON(t, ts.URL+"/api/v1/media/confirm", key, c)
}

type confirmed struct {
	Success bool `json:"success"`
	Data    struct {
		ID        string `json:"id"`
		Filename  string `json:"filename"`
		URL       string `json:"url"`
		Folder    string `json:"folder"`
		CreatedAt string `json:"createdAt"`
	} `json:"data"`
}

func mustConfirm(t testing.TB, ts *testServer, key string, c confirmBody) confirmed {
	t.Helper()
	r := confirmReq(t, ts, key, c)
	if r.Status != http.StatusCreated {
		t.Fatalf("confirm = %d: %s", r.Status, r.Body)
	}
	return decode[confirmed](t, r)
}

func mediaTotal(t testing.TB, ts *testServer, key string) int {
	t.Helper()
	r := get(t, ts.URL+"/api/v1/media", key)
	if r.Status != http.StatusOK {
		t.Fatalf("list = %d: %s", r.Status, r.Body)
	}
	return decode[struct{ Total int }](t, r).Total
}

const htmlPage = "<!DOCTYPE html><html><body><script>alert(1)</script></body></html>"

func TestPresign(t *testing.T) {
	t.Parallel()
	e := newS3Env(t)
	e.ttl = 15 * time.Minute
	rc := newHookReceiver(t, "s")
	ts := startServer(t, newRepo(t, minimalSite).bare, e.opt, withNotify(t, "s", rc.URL))
	key := ts.key(t, "editor", server.ScopeMediaRead, server.ScopeMediaWrite, server.ScopeMediaDelete)
	month := e.clock.Now().UTC().Format("2006/01")
	// img is just wider than the largest derivative (1200), so its
	// confirm makes all four, and short: its derivatives are the
	// test's cost under -race. The other subtests confirm small, an
	// image without derivatives.
	img := testPNG(t, 1210, 90)
	size := int64(len(img))
	small := testPNG(t, 40, 30)
	smallSize := int64(len(small))

	t.Run("OK", func(t *testing.T) {
		g := mustPresign(t, ts, key, "Beach day.png", "image/png", size)
		wantKey := s3test.Prefix + "/" + month + "/Beach-day.png"
		if g.StorageKey != wantKey {
			t.Errorf("storageKey = %q, want %q", g.StorageKey, wantKey)
		}
		if g.PublicURL != e.cfg.Endpoint+"/"+e.cfg.Bucket+"/"+wantKey {
			t.Errorf("publicUrl = %q", g.PublicURL)
		}
		// The upload goes to the private staging area, outside the public
		// prefix, and never to the item's key.
		staging := e.cfg.Endpoint + "/" + e.cfg.Bucket + "/" + s3.DefaultStatePrefix(s3test.Prefix) + "/staging/"
		if !strings.HasPrefix(g.UploadURL, staging) || !strings.Contains(g.UploadURL, "/Beach-day.png?") {
			t.Errorf("uploadUrl = %q, want one under %s", g.UploadURL, staging)
		}
		if g.Method != http.MethodPut || g.Headers["Content-Type"] != "image/png" || g.Headers["Content-Length"] != strconv.FormatInt(size, 10) {
			t.Errorf("method %q, headers %v", g.Method, g.Headers)
		}
		exp, err := time.Parse(time.RFC3339, g.ExpiresAt)
		if err != nil || !strings.HasSuffix(g.ExpiresAt, "Z") {
			t.Fatalf("expiresAt %q is not ISO 8601 UTC: %v", g.ExpiresAt, err)
		}
		if d := exp.Sub(e.clock.Now()); d > 15*time.Minute || d < 14*time.Minute {
			t.Errorf("expiresAt is %v away, want 15 minutes", d)
		}
		if got := put(t, g, img); got != http.StatusOK {
			t.Fatalf("PUT to uploadUrl = %d\n%s", got, e.srv.Log())
		}
		if e.exists(t, g.StorageKey) || !e.exists(t, e.uploadKey(t, g)) {
			t.Fatal("an unconfirmed upload is at its public key, or not in staging")
		}
		c := mustConfirm(t, ts, key, confirmOf(g, "Beach day.png", size))
		if !c.Success || c.Data.ID == "" || c.Data.Filename != "Beach-day.png" || c.Data.URL != g.PublicURL || c.Data.Folder != "/" {
			t.Errorf("confirm = %+v", c)
		}
		if _, err := time.Parse(time.RFC3339, c.Data.CreatedAt); err != nil {
			t.Errorf("createdAt %q: %v", c.Data.CreatedAt, err)
		}
		// The confirm is notified (a presign is not: nothing is listed yet).
		if ev := rc.next(t); ev.Event != "media" || !slices.Equal(ev.Keys, []string{"media", "media:" + c.Data.ID}) {
			t.Errorf("notified %+v", ev)
		}

		r := get(t, ts.URL+"/api/v1/media/"+c.Data.ID, key)
		if r.Status != http.StatusOK {
			t.Fatalf("GET item = %d: %s", r.Status, r.Body)
		}
		it := decode[mediaItem](t, r)
		if it.Width != 1210 || it.Height != 90 || it.Size != size || it.MimeType != "image/png" || it.URL != g.PublicURL {
			t.Errorf("item = %+v", it)
		}
		if r := e.fetch(t, it.URL); r.Status != http.StatusOK || !bytes.Equal(r.Body, img) || r.Header.Get("Content-Type") != "image/png" {
			t.Errorf("GET original from S3 = %d, %d bytes, %s", r.Status, len(r.Body), r.Header.Get("Content-Type"))
		}
		if e.exists(t, e.uploadKey(t, g)) {
			t.Error("the staged upload is still there after the confirm")
		}
		var widths []int
		for _, s := range it.Sizes {
			widths = append(widths, s.Width)
			k := e.fullKeyOf(t, s.URL)
			if !strings.HasPrefix(k, s3test.Prefix+"/"+month+"/Beach-day") {
				t.Errorf("derivative key %q", k)
			}
			if r := e.fetch(t, s.URL); r.Status != http.StatusOK || !bytes.HasPrefix(r.Body, []byte("RIFF")) {
				t.Errorf("GET derivative %s from S3 = %d", s.URL, r.Status)
			}
		}
		if len(widths) != 4 || widths[0] != 150 || widths[3] != 1200 {
			t.Errorf("derivative widths %v, want 150 400 800 1200", widths)
		}

		t.Run("ErrTwice", func(t *testing.T) {
			wantError(t, confirmReq(t, ts, key, confirmOf(g, "Beach day.png", size)), http.StatusConflict, server.CodeConflict)
			if !e.exists(t, g.StorageKey) {
				t.Error("a second confirm deleted the item's object")
			}
		})
	})

	t.Run("SameNameGetsAnotherKey", func(t *testing.T) {
		a := mustPresign(t, ts, key, "twin.png", "image/png", 10)
		b := mustPresign(t, ts, key, "twin.png", "image/png", 10)
		if a.StorageKey == b.StorageKey {
			t.Errorf("two grants for %s", a.StorageKey)
		}
	})

	t.Run("ErrOutsidePrefix", func(t *testing.T) {
		for _, k := range []string{"other/" + month + "/a.png", month + "/a.png", "/site/" + month + "/a.png", "sitex/" + month + "/a.png"} {
			c := confirmBody{StorageKey: k, Filename: "a.png", MimeType: "image/png", Size: 10, Folder: "/"}
			wantError(t, confirmReq(t, ts, key, c), http.StatusBadRequest, server.CodeBadRequest)
		}
	})

	t.Run("ErrNeverGranted", func(t *testing.T) {
		for _, k := range []string{s3test.Prefix + "/" + month + "/never.png", s3test.Prefix + "/../etc/passwd"} {
			c := confirmBody{StorageKey: k, Filename: "never.png", MimeType: "image/png", Size: 10, Folder: "/"}
			wantError(t, confirmReq(t, ts, key, c), http.StatusNotFound, server.CodeNotFound)
		}
	})

	t.Run("ErrEmptyKey", func(t *testing.T) {
		wantError(t, confirmReq(t, ts, key, confirmBody{MimeType: "image/png", Size: 10}), http.StatusBadRequest, server.CodeBadRequest)
	})

	t.Run("ErrDiffersFromGrant", func(t *testing.T) {
		g := mustPresign(t, ts, key, "sized.png", "image/png", smallSize)
		if got := put(t, g, small); got != http.StatusOK {
			t.Fatalf("PUT = %d", got)
		}
		wrongSize := confirmOf(g, "sized.png", smallSize+1)
		wantError(t, confirmReq(t, ts, key, wrongSize), http.StatusBadRequest, server.CodeBadRequest)
		wrongType := confirmOf(g, "sized.png", smallSize)
		wrongType.MimeType = "image/jpeg"
		wantError(t, confirmReq(t, ts, key, wrongType), http.StatusBadRequest, server.CodeBadRequest)
		// A mistake in the confirm body touches nothing: the grant and
		// the object are still there.
		if !e.exists(t, e.uploadKey(t, g)) {
			t.Fatal("object deleted after a confirm with a wrong body")
		}
		mustConfirm(t, ts, key, confirmOf(g, "sized.png", smallSize))
	})

	t.Run("ErrBadFolder", func(t *testing.T) {
		g := mustPresign(t, ts, key, "foldered.png", "image/png", smallSize)
		if got := put(t, g, small); got != http.StatusOK {
			t.Fatalf("PUT = %d", got)
		}
		c := confirmOf(g, "foldered.png", smallSize)
		c.Folder = "/nope"
		wantError(t, confirmReq(t, ts, key, c), http.StatusNotFound, server.CodeNotFound)
		c.Folder = "no-slash"
		wantError(t, confirmReq(t, ts, key, c), http.StatusBadRequest, server.CodeBadRequest)
		c.Folder = "/"
		mustConfirm(t, ts, key, c)
	})

	t.Run("ErrNothingUploaded", func(t *testing.T) {
		g := mustPresign(t, ts, key, "later.png", "image/png", smallSize)
		wantError(t, confirmReq(t, ts, key, confirmOf(g, "later.png", smallSize)), http.StatusBadRequest, server.CodeBadRequest)
		// The client may still upload and confirm with the same grant.
		if got := put(t, g, small); got != http.StatusOK {
			t.Fatalf("PUT = %d", got)
		}
		mustConfirm(t, ts, key, confirmOf(g, "later.png", smallSize))
	})

	t.Run("ErrHTMLAsPNG", func(t *testing.T) {
		before := mediaTotal(t, ts, key)
		g := mustPresign(t, ts, key, "evil.png", "image/png", int64(len(htmlPage)))
		if got := put(t, g, []byte(htmlPage)); got != http.StatusOK {
			t.Fatalf("PUT = %d", got)
		}
		if !e.exists(t, e.uploadKey(t, g)) {
			t.Fatal("upload not in the bucket")
		}
		wantError(t, confirmReq(t, ts, key, confirmOf(g, "evil.png", int64(len(htmlPage)))), http.StatusBadRequest, server.CodeBadRequest)
		if e.exists(t, e.uploadKey(t, g)) || e.exists(t, g.StorageKey) {
			t.Error("refused object still in the bucket")
		}
		if got := mediaTotal(t, ts, key); got != before {
			t.Errorf("media total %d, want %d", got, before)
		}
		// The grant is spent with the object.
		wantError(t, confirmReq(t, ts, key, confirmOf(g, "evil.png", int64(len(htmlPage)))), http.StatusConflict, server.CodeConflict)
	})

	t.Run("ErrFilename", func(t *testing.T) {
		for name, fn := range map[string]string{
			"Empty":     "",
			"DotDot":    "../../etc/passwd.png",
			"DotDotMid": "a..png",
			"Slash":     "a/b.png",
			"Backslash": `a\b.png`,
			"NUL":       "a\x00.png",
			"Newline":   "a\nb.png",
			"DEL":       "a\x7f.png",
			"C1":        "a\u0085.png",
			"TooLong":   strings.Repeat("a", 252) + ".png",
		} {
			t.Run(name, func(t *testing.T) {
				wantError(t, presignReq(t, ts, key, fn, "image/png", 10), http.StatusBadRequest, server.CodeBadRequest)
			})
		}
		// 255 bytes is still a name.
		mustPresign(t, ts, key, strings.Repeat("é", 125)+"x.png", "image/png", 10)
	})

	t.Run("ErrMimeType", func(t *testing.T) {
		for _, m := range []string{"", "text/html", "application/octet-stream", "image/png; charset=utf-8", "image/tiff"} {
			wantError(t, presignReq(t, ts, key, "a.png", m, 10), http.StatusBadRequest, server.CodeBadRequest)
		}
	})

	t.Run("ErrSize", func(t *testing.T) {
		for _, n := range []int64{0, -1, media.DefaultMaxUploadCloud + 1, 1 << 62} {
			wantError(t, presignReq(t, ts, key, "a.mp4", "video/mp4", n), http.StatusBadRequest, server.CodeBadRequest)
		}
		mustPresign(t, ts, key, "big.mp4", "video/mp4", media.DefaultMaxUploadCloud)
	})

	t.Run("ErrBody", func(t *testing.T) {
		for name, body := range map[string]string{
			"NotJSON":      "filename=a.png",
			"UnknownField": `{"filename":"a.png","mimeType":"image/png","size":1,"acl":"public-read"}`,
			"SizeString":   `{"filename":"a.png","mimeType":"image/png","size":"1"}`,
			"SizeFraction": `{"filename":"a.png","mimeType":"image/png","size":1.5}`,
			"Array":        `[]`,
		} {
			t.Run(name, func(t *testing.T) {
				for _, path := range []string{"/api/v1/media/presign", "/api/v1/media/confirm"} {
					r := do(t, http.MethodPost, ts.URL+path, key, strings.NewReader(body), "Content-Type", "application/json")
					wantError(t, r, http.StatusBadRequest, server.CodeBadRequest)
				}
			})
		}
	})

	t.Run("ErrAuth", func(t *testing.T) {
		reader := ts.key(t, "media-reader", server.ScopeMediaRead)
		for _, path := range []string{"/api/v1/media/presign", "/api/v1/media/confirm"} {
			wantError(t, postJSON(t, ts.URL+path, "", map[string]any{}), http.StatusUnauthorized, server.CodeUnauthorized)
			wantError(t, postJSON(t, ts.URL+path, reader, map[string]any{}), http.StatusForbidden, server.CodeForbidden)
		}
	})

	t.Run("StorageDown", func(t *testing.T) {
		g := mustPresign(t, ts, key, "outage.png", "image/png", smallSize)
		if got := put(t, g, small); got != http.StatusOK {
			t.Fatalf("PUT = %d", got)
		}
		before := mediaTotal(t, ts, key)
		e.srv.Stop()
		wantError(t, confirmReq(t, ts, key, confirmOf(g, "outage.png", smallSize)), http.StatusServiceUnavailable, server.CodeUnavailable)
		if got := mediaTotal(t, ts, key); got != before {
			t.Errorf("media total %d after a failed confirm, want %d", got, before)
		}
		e.srv.Start()
		if !e.exists(t, e.uploadKey(t, g)) || e.exists(t, g.StorageKey) {
			t.Fatal("the upload was lost while storage was down")
		}
		c := mustConfirm(t, ts, key, confirmOf(g, "outage.png", smallSize))
		if r := get(t, ts.URL+"/api/v1/media/"+c.Data.ID, key); r.Status != http.StatusOK {
			t.Errorf("GET confirmed item = %d", r.Status)
		}
	})

	// Last: it moves the clock past every grant made so far.
	t.Run("ErrExpired", func(t *testing.T) {
		g := mustPresign(t, ts, key, "late.png", "image/png", smallSize)
		if got := put(t, g, small); got != http.StatusOK {
			t.Fatalf("PUT = %d", got)
		}
		e.clock.Add(15 * time.Minute)
		wantError(t, confirmReq(t, ts, key, confirmOf(g, "late.png", smallSize)), http.StatusGone, server.CodeGrantExpired)
	})
}

// TestPresign_Restart: a grant given before a restart is honoured after it,
// and its key is not handed out again.
func TestPresign_Restart(t *testing.T) {
	t.Parallel()
	e := newS3Env(t)
	repo := newRepo(t, minimalSite)
	ts := startServer(t, repo.bare, e.opt)
	key := ts.key(t, "editor", server.ScopeMediaRead, server.ScopeMediaWrite)
	img := testPNG(t, 40, 30)
	g := mustPresign(t, ts, key, "kept.png", "image/png", int64(len(img)))
	if got := put(t, g, img); got != http.StatusOK {
		t.Fatalf("PUT = %d", got)
	}

	// A new box: a new library and grant store on the same bucket, with
	// an empty media root.
	lib, err := media.Open(context.Background(), media.Config{Root: t.TempDir(), Storage: e.store, State: e.state, MaxUploadBytes: media.DefaultMaxUploadCloud})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	grants, err := grant.Open(context.Background(), grant.Config{State: e.state, Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	ts2 := startServer(t, repo.bare, func(_ *engine.Config, c *server.Config) {
		c.Media, c.Grants, c.Now = lib, grants, e.clock.Now
	})
	key2 := ts2.key(t, "editor", server.ScopeMediaRead, server.ScopeMediaWrite)
	if again := mustPresign(t, ts2, key2, "kept.png", "image/png", 10); again.StorageKey == g.StorageKey {
		t.Fatalf("restarted service granted %s twice", g.StorageKey)
	}
	c := mustConfirm(t, ts2, key2, confirmOf(g, "kept.png", int64(len(img))))
	if c.Data.URL != g.PublicURL {
		t.Errorf("url %q, want %q", c.Data.URL, g.PublicURL)
	}
}

func TestPresign_LocalStorage(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	state, err := local.OpenState(filepath.Join(root, local.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { state.Close() })
	lib, err := media.Open(context.Background(), media.Config{Root: root, Storage: st, State: state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	grants, err := grant.Open(context.Background(), grant.Config{State: state})
	if err != nil {
		t.Fatal(err)
	}
	// Even with a grant store, local storage cannot presign.
	ts := startServer(t, newRepo(t, minimalSite).bare, func(_ *engine.Config, c *server.Config) {
		c.Media, c.MediaRoot, c.Grants = lib, root, grants
	})
	key := ts.key(t, "editor", server.ScopeMediaRead, server.ScopeMediaWrite)
	r := presignReq(t, ts, key, "a.png", "image/png", 10)
	wantError(t, r, http.StatusBadRequest, server.CodeBadRequest)
	if !strings.Contains(string(r.Body), "cloud storage") {
		t.Errorf("message does not say why: %s", r.Body)
	}
	c := confirmBody{StorageKey: "2026/01/a.png", Filename: "a.png", MimeType: "image/png", Size: 10, Folder: "/"}
	wantError(t, confirmReq(t, ts, key, c), http.StatusBadRequest, server.CodeBadRequest)
}

// TestPresign_SharedGrants: two boxes on one bucket keep their grants in
// its state area, so a grant given by one is confirmed at the other, and
// once only. With the bucket down presign and confirm answer 503, and the
// grant works once it is back.
func TestPresign_SharedGrants(t *testing.T) {
	t.Parallel()
	e := newS3Env(t)
	cfg := e.cfg
	cfg.MaxRetries = 1
	_, state := s3test.Open(t, cfg)
	repo := newRepo(t, minimalSite)
	box := func(lib *media.Library) (*testServer, string) {
		grants, err := grant.Open(context.Background(), grant.Config{State: state, Now: e.clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		ts := startServer(t, repo.bare, func(_ *engine.Config, c *server.Config) {
			c.Media, c.Grants, c.PresignTTL, c.Now = lib, grants, e.ttl, e.clock.Now
		})
		return ts, ts.key(t, "editor", server.ScopeMediaRead, server.ScopeMediaWrite)
	}
	lib2, err := media.Open(context.Background(), media.Config{Root: t.TempDir(), Storage: e.store, State: state, MaxUploadBytes: media.DefaultMaxUploadCloud})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib2.Close() })
	ts1, key1 := box(e.lib)
	ts2, key2 := box(lib2)
	img := testPNG(t, 40, 30)
	size := int64(len(img))

	g := mustPresign(t, ts1, key1, "shared.png", "image/png", size)
	if got := put(t, g, img); got != http.StatusOK {
		t.Fatalf("PUT = %d", got)
	}
	if again := mustPresign(t, ts2, key2, "shared.png", "image/png", size); again.StorageKey == g.StorageKey {
		t.Fatalf("the other box granted %s again", g.StorageKey)
	}
	c := mustConfirm(t, ts2, key2, confirmOf(g, "shared.png", size))
	if c.Data.URL != g.PublicURL {
		t.Errorf("url %q, want %q", c.Data.URL, g.PublicURL)
	}
	wantError(t, confirmReq(t, ts1, key1, confirmOf(g, "shared.png", size)), http.StatusConflict, server.CodeConflict)
	if err := e.lib.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if it, ok := e.lib.Get(c.Data.ID); !ok || it.URL != g.PublicURL {
		t.Fatalf("the box that granted does not serve the item the other confirmed: %+v %v", it, ok)
	}

	t.Run("StorageDown", func(t *testing.T) {
		g := mustPresign(t, ts1, key1, "outage.png", "image/png", size)
		if got := put(t, g, img); got != http.StatusOK {
			t.Fatalf("PUT = %d", got)
		}
		e.srv.Stop()
		wantError(t, presignReq(t, ts1, key1, "down.png", "image/png", size), http.StatusServiceUnavailable, server.CodeUnavailable)
		wantError(t, confirmReq(t, ts2, key2, confirmOf(g, "outage.png", size)), http.StatusServiceUnavailable, server.CodeUnavailable)
		e.srv.Start()
		mustConfirm(t, ts2, key2, confirmOf(g, "outage.png", size))
	})
}

// TestPresign_URLDeadAfterConfirm: issue 23, finding 3. A second PUT to
// the upload URL of a confirmed grant (a raw SVG with onload and <script>)
// reaches no public object: uploads land in the private staging area and
// the confirm copies what it checked to a key no presigned URL can write.
// A grant is confirmed only by the API key that asked for it.
func TestPresign_URLDeadAfterConfirm(t *testing.T) {
	t.Parallel()
	e := newS3Env(t)
	ts := startServer(t, newRepo(t, minimalSite).bare, e.opt)
	owner := ts.key(t, "editor", server.ScopeMediaRead, server.ScopeMediaWrite)
	other := ts.key(t, "intruder", server.ScopeMediaRead, server.ScopeMediaWrite)

	evil := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)"><script>alert(2)</script></svg>`)
	harmless := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>`)
	harmless = append(harmless, bytes.Repeat([]byte("\n"), len(evil)-len(harmless))...)
	size := int64(len(evil))

	g := mustPresign(t, ts, owner, "logo.svg", "image/svg+xml", size)
	if got := put(t, g, harmless); got != http.StatusOK {
		t.Fatalf("PUT = %d", got)
	}
	// Another key with media:write cannot confirm (nor spend) the grant.
	wantError(t, confirmReq(t, ts, other, confirmOf(g, "logo.svg", size)), http.StatusForbidden, server.CodeForbidden)
	c := mustConfirm(t, ts, owner, confirmOf(g, "logo.svg", size))
	public := e.fetch(t, c.Data.URL)
	if public.Status != http.StatusOK || bytes.Contains(public.Body, []byte("<rect")) == false {
		t.Fatalf("confirmed SVG = %d %s", public.Status, public.Body)
	}

	// The URL is still within its validity: the storage accepts the PUT,
	// but it lands in staging, which nothing serves or confirms.
	put(t, g, evil)
	after := e.fetch(t, c.Data.URL)
	if after.Status != http.StatusOK || !bytes.Equal(after.Body, public.Body) {
		t.Fatalf("a PUT after the confirm changed the public object: %s", after.Body)
	}
	if e.exists(t, e.uploadKey(t, g)) && strings.HasPrefix(e.uploadKey(t, g), s3test.Prefix+"/") {
		t.Fatal("the staging key is inside the public prefix")
	}
	wantError(t, confirmReq(t, ts, owner, confirmOf(g, "logo.svg", size)), http.StatusConflict, server.CodeConflict)
	// Nothing under the public prefix carries the script.
	filepath.WalkDir(filepath.Join(e.srv.Dir(), e.cfg.Bucket, s3test.Prefix), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("<script")) {
				t.Errorf("%s holds the script", p)
			}
		}
		return nil
	})

	// The same for a raster image: the bytes served are the confirmed ones.
	img := testPNG(t, 60, 40)
	g2 := mustPresign(t, ts, owner, "photo.png", "image/png", int64(len(img)))
	if got := put(t, g2, img); got != http.StatusOK {
		t.Fatalf("PUT = %d", got)
	}
	c2 := mustConfirm(t, ts, owner, confirmOf(g2, "photo.png", int64(len(img))))
	swapped := bytes.Clone(img)
	swapped[len(swapped)/2] ^= 0xff
	put(t, g2, swapped)
	if r := e.fetch(t, c2.Data.URL); r.Status != http.StatusOK || !bytes.Equal(r.Body, img) {
		t.Fatalf("a PUT after the confirm changed the image: %d", r.Status)
	}
}

// TestPresign_ConfirmBusy: a confirm decodes its image in the same bounded
// queue as uploads and variants; with the queue full it is 503 BUSY with
// Retry-After, the upload and the grant stay, and the same confirm works
// once a slot is free (issue 23, finding 1).
func TestPresign_ConfirmBusy(t *testing.T) {
	t.Parallel()
	e := newS3Env(t)
	ts := startServer(t, newRepo(t, minimalSite).bare, e.opt, withTransforms(1, 20*time.Millisecond))
	srv := ts.Handler.(*server.Server)
	key := ts.key(t, "editor", server.ScopeMediaRead, server.ScopeMediaWrite)
	img := testPNG(t, 300, 200)
	g := mustPresign(t, ts, key, "queued.png", "image/png", int64(len(img)))
	if got := put(t, g, img); got != http.StatusOK {
		t.Fatalf("PUT = %d", got)
	}
	release, err := srv.HoldTransformSlot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := confirmReq(t, ts, key, confirmOf(g, "queued.png", int64(len(img))))
	wantError(t, r, http.StatusServiceUnavailable, server.CodeBusy)
	if r.Header.Get("Retry-After") == "" {
		t.Error("BUSY without Retry-After")
	}
	if !e.exists(t, e.uploadKey(t, g)) || e.exists(t, g.StorageKey) {
		t.Fatal("a busy confirm touched the upload")
	}
	release()
	mustConfirm(t, ts, key, confirmOf(g, "queued.png", int64(len(img))))
}
