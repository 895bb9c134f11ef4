package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/grant"
	"github.com/folio-cms/folio/media/s3"
	"github.com/folio-cms/folio/media/s3/s3test"
	"github.com/folio-cms/folio/server"
	"github.com/minio/minio-go/v7/pkg/signer"
)

// s3Env is a media library on a real S3 server (versitygw on loopback),
// sharing the library's state and the grants through the bucket, as
// `folio serve --storage s3` does; the media root is only temporary files.
type s3Env struct {
	srv    *s3test.Server
	cfg    s3.Config
	store  *s3.Storage
	state  *s3.State
	lib    *media.Library
	grants *grant.Store
	root   string
	clock  *clock
	ttl    time.Duration
}

func newS3Env(t *testing.T) *s3Env {
	t.Helper()
	srv := s3test.NewServer(t)
	cfg := srv.NewBucket(t)
	st, err := s3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &s3Env{srv: srv, cfg: cfg, store: st, root: t.TempDir(), clock: newClock(time.Now()), ttl: time.Hour}
	e.state, err = st.State(s3.DefaultStatePrefix(cfg.Prefix))
	if err != nil {
		t.Fatal(err)
	}
	e.lib, err = media.Open(context.Background(), media.Config{
		Root: e.root, Storage: st, State: e.state, MaxUploadBytes: media.DefaultMaxUploadCloud,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.lib.Close() })
	e.grants, err = grant.Open(context.Background(), grant.Config{State: e.state, Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// opt serves e's library; the server's clock is e's, so a test can move
// past a grant's expiry.
func (e *s3Env) opt(_ *engine.Config, c *server.Config) {
	c.Media, c.Grants, c.PresignTTL, c.Now = e.lib, e.grants, e.ttl, e.clock.Now
}

// object is the file versitygw keeps the object fullKey in.
func (e *s3Env) object(fullKey string) string {
	return filepath.Join(e.srv.Dir(), e.cfg.Bucket, filepath.FromSlash(fullKey))
}

func (e *s3Env) exists(t testing.TB, fullKey string) bool {
	t.Helper()
	_, err := os.Stat(e.object(fullKey))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

// fetch GETs an object URL from the S3 server, signed with the test
// credentials: the bucket is private, so this proves the URL names the
// object, not that it is public.
func (e *s3Env) fetch(t testing.TB, url string) response {
	t.Helper()
	if !strings.HasPrefix(url, e.cfg.Endpoint+"/"+e.cfg.Bucket+"/") {
		t.Fatalf("url %q is not on the S3 server %s", url, e.cfg.Endpoint)
	}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	return send(t, signer.SignV4(*req, s3test.AccessKey, s3test.SecretKey, "", s3test.Region))
}

// uploadKey is the object key a grant's uploadUrl writes: in the private
// staging area, never the storageKey (issue 23, finding 3).
func (e *s3Env) uploadKey(t testing.TB, g presignGrant) string {
	t.Helper()
	u, _, _ := strings.Cut(g.UploadURL, "?")
	return e.fullKeyOf(t, u)
}

// fullKeyOf turns an object URL of e's bucket into the object key.
func (e *s3Env) fullKeyOf(t testing.TB, url string) string {
	t.Helper()
	k, ok := strings.CutPrefix(url, e.cfg.Endpoint+"/"+e.cfg.Bucket+"/")
	if !ok {
		t.Fatalf("url %q is not in bucket %s", url, e.cfg.Bucket)
	}
	return k
}

// minimalSite is a content repository with one page: the media tests need
// a running engine, not content.
var minimalSite = map[string]string{"pages/home.md": "---\ntitle: Home\n---\nHi.\n"}

// testPNG is a w×h PNG: a gradient with noise, like a photo, so that PNG
// compresses it badly and its WebP derivatives are smaller (the library
// drops a derivative that is not).
func testPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	rnd := rand.New(rand.NewPCG(uint64(w), uint64(h)))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := uint8(rnd.IntN(64))
			img.Set(x, y, color.NRGBA{R: uint8(x*191/w) + n, G: uint8(y*191/h) + n, B: 128 + n, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// mediaItem is the authenticated view of an item, as far as these tests read it.
type mediaItem struct {
	ID       string `json:"id"`
	Filename string `json:"filename"`
	MimeType string `json:"mimeType"`
	Size     int64  `json:"size"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	URL      string `json:"url"`
	Folder   string `json:"folder"`
	Sizes    []struct {
		Width int    `json:"width"`
		URL   string `json:"url"`
	} `json:"sizes"`
}

func decode[T any](t testing.TB, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
	return v
}

func TestS3Upload(t *testing.T) {
	t.Parallel()
	e := newS3Env(t)
	ts := startServer(t, newRepo(t, minimalSite).bare, e.opt)
	key := ts.key(t, "editor", server.ScopeMediaRead, server.ScopeMediaWrite, server.ScopeMediaDelete)
	body := testPNG(t, 900, 300)

	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	fw, err := mw.CreateFormFile("files", "Sun set.png")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(body)
	mw.Close()
	r := do(t, http.MethodPost, ts.URL+"/api/v1/media", key, &mp, "Content-Type", mw.FormDataContentType())
	if r.Status != http.StatusCreated {
		t.Fatalf("upload = %d: %s", r.Status, r.Body)
	}
	up := decode[struct{ Data []mediaItem }](t, r)
	if len(up.Data) != 1 {
		t.Fatalf("upload stored %d items: %s", len(up.Data), r.Body)
	}
	it := up.Data[0]
	month := e.clock.Now().UTC().Format("2006/01")
	wantURL := e.cfg.Endpoint + "/" + e.cfg.Bucket + "/" + s3test.Prefix + "/" + month + "/Sun-set.png"
	if it.URL != wantURL {
		t.Errorf("url = %q, want %q", it.URL, wantURL)
	}
	got := get(t, ts.URL+"/api/v1/media/"+it.ID, key)
	if got.Status != http.StatusOK {
		t.Fatalf("GET item = %d: %s", got.Status, got.Body)
	}
	full := decode[mediaItem](t, got)
	if len(full.Sizes) != 3 {
		t.Fatalf("a 900 px wide image has %d derivatives, want 3 (150, 400, 800): %s", len(full.Sizes), got.Body)
	}
	keys := []string{e.fullKeyOf(t, full.URL)}
	if r := e.fetch(t, full.URL); r.Status != http.StatusOK || !bytes.Equal(r.Body, body) {
		t.Errorf("GET original from S3 = %d, %d bytes", r.Status, len(r.Body))
	}
	for _, s := range full.Sizes {
		k := e.fullKeyOf(t, s.URL)
		if !strings.HasPrefix(k, s3test.Prefix+"/"+month+"/") || !strings.HasSuffix(k, ".webp") {
			t.Errorf("derivative key %q", k)
		}
		if r := e.fetch(t, s.URL); r.Status != http.StatusOK || !bytes.HasPrefix(r.Body, []byte("RIFF")) {
			t.Errorf("GET derivative %s = %d", s.URL, r.Status)
		}
		keys = append(keys, k)
	}

	r = do(t, http.MethodDelete, ts.URL+"/api/v1/media/"+it.ID, key, nil)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"success":true`) {
		t.Fatalf("DELETE = %d: %s", r.Status, r.Body)
	}
	for _, k := range keys {
		if e.exists(t, k) {
			t.Errorf("object %s still in the bucket after DELETE", k)
		}
	}
	wantError(t, get(t, ts.URL+"/api/v1/media/"+it.ID, key), http.StatusNotFound, server.CodeNotFound)
}

// TestS3UploadStorageDown: with the S3 server stopped, a multipart upload
// answers 503 STORAGE_UNAVAILABLE and registers nothing; once storage is
// back the same upload works. The 503 is counted in the metrics.
func TestS3UploadStorageDown(t *testing.T) {
	t.Parallel()
	e := newS3Env(t)
	m := server.NewMetrics()
	ts := startServer(t, newRepo(t, minimalSite).bare, e.opt, func(_ *engine.Config, s *server.Config) { s.Metrics = m })
	ms := httptest.NewServer(m.Handler())
	defer ms.Close()
	key := ts.key(t, "editor", server.ScopeMediaRead, server.ScopeMediaWrite)
	upload := func() response {
		var mp bytes.Buffer
		mw := multipart.NewWriter(&mp)
		fw, err := mw.CreateFormFile("files", "down.png")
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(testPNG(t, 300, 200))
		mw.Close()
		return do(t, http.MethodPost, ts.URL+"/api/v1/media", key, &mp, "Content-Type", mw.FormDataContentType())
	}
	e.srv.Stop()
	r := upload()
	wantError(t, r, http.StatusServiceUnavailable, server.CodeUnavailable)
	text := scrape(t, ms.URL)
	if v := metric(text, "folio_storage_errors_total"); v != 1 {
		t.Errorf("folio_storage_errors_total = %v, want 1", v)
	}
	if v := metric(text, "folio_http_requests_total", `route="/api/v1/media"`, `method="POST"`, `status="503"`); v != 1 {
		t.Errorf("503 uploads counted %v times, want 1", v)
	}
	if n := mediaTotal(t, ts, key); n != 0 {
		t.Fatalf("%d items registered while storage was down", n)
	}
	e.srv.Start()
	if r := upload(); r.Status != http.StatusCreated {
		t.Fatalf("upload after storage came back = %d: %s", r.Status, r.Body)
	}
}
