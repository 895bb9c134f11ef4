package server_test

import (
	"bytes"
	"compress/zlib"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/image/webp"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/derive"
	"github.com/folio-cms/folio/server"
)

const variantSecret = "variant-secret"

// presetSite has image presets: card is a square cover crop, so that the
// focal point decides what is in it.
var presetSite = map[string]string{
	"pages/home.md": "---\ntitle: Home\nisHomepage: true\n---\nHi.\n",
	"folio.yaml": `imagePresets:
  card: {w: 60, h: 60, fit: cover, fm: webp, q: 80}
  thumb: {w: 50, fm: png}
`,
}

func withTransforms(n int, wait time.Duration) serverOpt {
	return func(_ *engine.Config, c *server.Config) {
		c.URLSecret, c.TransformConcurrency, c.TransformQueueTimeout = variantSecret, n, wait
	}
}

// spottedPNG is a w×h grey image with a red square of side s centred at
// (cx, cy).
func spottedPNG(t testing.TB, w, h, cx, cy, s int) []byte {
	t.Helper()
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{128, 128, 128, 255}
			if x >= cx-s/2 && x < cx+s/2 && y >= cy-s/2 && y < cy+s/2 {
				c = color.NRGBA{255, 0, 0, 255}
			}
			m.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func red(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r>>8 > 180 && g>>8 < 80 && b>>8 < 80
}

// decodeImage decodes a variant of the content type ct.
func decodeImage(t testing.TB, ct string, data []byte) image.Image {
	t.Helper()
	var m image.Image
	var err error
	switch ct {
	case "image/webp":
		m, err = webp.Decode(bytes.NewReader(data))
	case "image/jpeg":
		m, err = jpeg.Decode(bytes.NewReader(data))
	case "image/png":
		m, err = png.Decode(bytes.NewReader(data))
	default:
		t.Fatalf("Content-Type %q", ct)
	}
	if err != nil {
		t.Fatalf("decode %s: %v", ct, err)
	}
	return m
}

func sign(t testing.TB, secret, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return rawURL + "&s=" + server.SignVariantPath(secret, u.EscapedPath(), u.Query())
}

type itemPresets struct {
	ID      string            `json:"id"`
	URL     string            `json:"url"`
	Presets map[string]string `json:"presets"`
}

func startVariantServer(t *testing.T, opts ...serverOpt) *mediaServer {
	t.Helper()
	root := t.TempDir()
	all := append([]serverOpt{withLocalMedia(t, root), withTransforms(2, 50*time.Millisecond)}, opts...)
	return mediaServerOf(t, startServer(t, newRepo(t, presetSite).bare, all...), root)
}

func TestVariantPresetsAndFocalPoint(t *testing.T) {
	t.Parallel()
	ms := startVariantServer(t)
	// 400×200, red spot at (360, 100): focal (90, 50).
	it := ms.uploadOK(t, filePart("spot.png", spottedPNG(t, 400, 200, 360, 100, 20)))[0]
	if r := ms.patch(t, ms.write, it.ID, `{"focalX":90,"focalY":50}`); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	full := decode[itemPresets](t, get(t, ms.URL+"/api/v1/media/"+it.ID, ms.read))
	pub := decode[itemPresets](t, get(t, ms.URL+"/api/v1/public/media/"+it.ID, ""))
	card := full.Presets["card"]
	if !strings.HasPrefix(card, it.URL+"?preset=card&v=") || full.Presets["thumb"] == "" || pub.Presets["card"] != card {
		t.Fatalf("presets: full %+v, public %+v", full.Presets, pub.Presets)
	}
	list := decode[struct{ Data []itemPresets }](t, get(t, ms.URL+"/api/v1/media", ms.read))
	if len(list.Data) != 1 || list.Data[0].Presets["card"] != card {
		t.Errorf("list presets: %+v", list.Data)
	}

	r := get(t, ms.URL+card, "")
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "image/webp" {
		t.Fatalf("GET %s: %d %s", card, r.Status, r.Body)
	}
	if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Errorf("versioned URL: Cache-Control %q", cc)
	}
	if sk := r.Header.Get("Surrogate-Key"); sk != "media:"+it.ID {
		t.Errorf("Surrogate-Key %q", sk)
	}
	if r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Error("no CORS")
	}
	m := decodeImage(t, "image/webp", r.Body)
	if b := m.Bounds(); b.Dx() != 60 || b.Dy() != 60 {
		t.Fatalf("card is %v", b)
	}
	// The crop is x 200..400 (clamped), scaled by 0.3: the spot (350..370)
	// lands at 45..51.
	if !red(m.At(48, 30)) {
		t.Errorf("focal point not in the card: %v", m.At(48, 30))
	}
	again := get(t, ms.URL+card, "", "If-None-Match", r.Header.Get("ETag"))
	if again.Status != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", again.Status)
	}
	// Explicit parameters equal to a preset, no v: the same bytes, cached
	// briefly.
	ex := get(t, ms.URL+it.URL+"?w=60&h=60&fit=cover&fm=webp&q=80", "")
	if ex.Status != http.StatusOK || !bytes.Equal(ex.Body, r.Body) {
		t.Fatalf("explicit preset: %d", ex.Status)
	}
	if cc := ex.Header.Get("Cache-Control"); strings.Contains(cc, "immutable") || !strings.Contains(cc, "max-age=60") {
		t.Errorf("unversioned URL: Cache-Control %q", cc)
	}
	thumb := get(t, ms.URL+full.Presets["thumb"], "")
	if thumb.Status != http.StatusOK || thumb.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("thumb: %d %s", thumb.Status, thumb.Body)
	}
	if b := decodeImage(t, "image/png", thumb.Body).Bounds(); b.Dx() != 50 || b.Dy() != 25 {
		t.Errorf("thumb is %v", b)
	}

	// The focal point moves to the left: new URLs, and the old URL (stale
	// v) no longer shows the old crop, nor for long.
	if r := ms.patch(t, ms.write, it.ID, `{"focalX":10}`); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	moved := decode[itemPresets](t, get(t, ms.URL+"/api/v1/media/"+it.ID, ms.read))
	if moved.Presets["card"] == card {
		t.Fatal("preset URL kept after a focal-point change")
	}
	for _, u := range []string{moved.Presets["card"], card} {
		r := get(t, ms.URL+u, "")
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: %d", u, r.Status)
		}
		if red(decodeImage(t, "image/webp", r.Body).At(48, 30)) {
			t.Errorf("%s: still the old crop", u)
		}
		if stale := u == card; stale == strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: Cache-Control %q", u, r.Header.Get("Cache-Control"))
		}
	}

	// The focal-point change removed the three variants made before it:
	// both URLs since made the one new card. Deleting the item deletes
	// its variants.
	dir := filepath.Join(ms.root, filepath.FromSlash(strings.TrimPrefix(it.URL, "/uploads/")+"-variants"))
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 1 {
		t.Fatalf("variants folder: %v, %d files", err, len(ents))
	}
	ents, _ := os.ReadDir(dir)
	// Only through the original's URL.
	wantError(t, get(t, ms.URL+it.URL+"-variants/"+ents[0].Name(), ""), http.StatusNotFound, server.CodeNotFound)
	if r := do(t, http.MethodDelete, ms.URL+"/api/v1/media/"+it.ID, ms.del, nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d", r.Status)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("variants folder after delete: %v", err)
	}
	wantError(t, get(t, ms.URL+card, ""), http.StatusNotFound, server.CodeNotFound)
}

func TestVariantRequests(t *testing.T) {
	t.Parallel()
	ms := startVariantServer(t)
	items := ms.uploadOK(t, filePart("photo.jpg", jpegBytes(t, 300, 200)), filePart("logo.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`)),
		filePart("guide.pdf", fixture(t, "gear-care-guide.pdf")))
	photo, svg, pdf := items[0].URL, items[1].URL, items[2].URL
	// Not raster: no presets.
	if p := decode[itemPresets](t, get(t, ms.URL+"/api/v1/media/"+items[1].ID, ms.read)).Presets; p != nil {
		t.Errorf("svg presets %v", p)
	}
	bad := map[string]string{
		"?w=abc": "w must be", "?w=0": "w must be", "?w=5000": "w must be", "?h=-1": "h must be",
		"?fit=cover":           "give w, h or both",
		"?w=60&fit=fill":       "fit must be",
		"?w=60&fm=gif":         "fm must be",
		"?w=60&q=0":            "q must be",
		"?w=60&q=x":            "q must be",
		"?preset=nope":         `no image preset`,
		"?preset=card&w=60":    "not both",
		"?w=60&x=1":            `unknown parameter`,
		"?w=60&w=61":           "given 2 times",
		"?preset=card&v=zz":    "v must be",
		"?preset=card&preset=": "given 2 times",
	}
	for q, msg := range bad {
		r := get(t, ms.URL+photo+q, "")
		wantError(t, r, http.StatusBadRequest, server.CodeBadRequest)
		if !strings.Contains(string(r.Body), msg) {
			t.Errorf("%s: %s, want %q", q, r.Body, msg)
		}
	}
	for _, u := range []string{svg, pdf} {
		r := get(t, ms.URL+u+"?preset=card", "")
		wantError(t, r, http.StatusBadRequest, server.CodeBadRequest)
		if !strings.Contains(string(r.Body), "raster images only") {
			t.Errorf("%s: %s", u, r.Body)
		}
	}
	wantError(t, get(t, ms.URL+"/uploads/2026/01/nope.jpg?preset=card", ""), http.StatusNotFound, server.CodeNotFound)
	wantError(t, get(t, ms.URL+"/uploads/.meta/x.jpg?preset=card", ""), http.StatusNotFound, server.CodeNotFound)
	// The original still serves with an unrelated query.
	if r := get(t, ms.URL+photo+"?cachebust=1", ""); r.Status != http.StatusOK || r.Header.Get("Content-Type") != "image/jpeg" {
		t.Errorf("original with another query: %d", r.Status)
	}

	// Not a preset: signed or refused.
	plain := ms.URL + photo + "?w=77&h=33&fit=contain&fm=jpeg&q=70"
	wantError(t, get(t, plain, ""), http.StatusForbidden, server.CodeForbidden)
	wantError(t, get(t, plain+"&s=00", ""), http.StatusForbidden, server.CodeForbidden)
	wantError(t, get(t, sign(t, "other-secret", plain), ""), http.StatusForbidden, server.CodeForbidden)
	wantError(t, get(t, strings.Replace(sign(t, variantSecret, plain), "w=77", "w=78", 1), ""), http.StatusForbidden, server.CodeForbidden)
	r := get(t, sign(t, variantSecret, plain), "")
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("signed: %d %s", r.Status, r.Body)
	}
	// Contain: 300×200 inside 77×33 is 50×33.
	if b := decodeImage(t, "image/jpeg", r.Body).Bounds(); b.Dx() != 50 || b.Dy() != 33 {
		t.Errorf("contain: %v", b)
	}
	// base64url signatures too, in any parameter order.
	u, _ := url.Parse(ms.URL + photo + "?fm=png&w=40&h=40")
	mac := hmac.New(sha256.New, []byte(variantSecret))
	mac.Write([]byte(u.EscapedPath() + "?" + u.Query().Encode()))
	r = get(t, u.String()+"&s="+base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), "")
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("base64url signature: %d %s", r.Status, r.Body)
	}
	if b := decodeImage(t, "image/png", r.Body).Bounds(); b.Dx() != 40 || b.Dy() != 40 {
		t.Errorf("cover: %v", b)
	}
	// HEAD works as GET.
	if r := do(t, http.MethodHead, ms.URL+photo+"?preset=card", "", nil); r.Status != http.StatusOK {
		t.Errorf("HEAD: %d", r.Status)
	}
}

func TestVariantNoSecretPresetsOnly(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ms := mediaServerOf(t, startServer(t, newRepo(t, presetSite).bare, withLocalMedia(t, root)), root)
	photo := ms.uploadOK(t, filePart("photo.jpg", jpegBytes(t, 300, 200)))[0].URL
	plain := ms.URL + photo + "?w=77"
	wantError(t, get(t, sign(t, "", plain), ""), http.StatusForbidden, server.CodeForbidden)
	if r := get(t, ms.URL+photo+"?preset=card", ""); r.Status != http.StatusOK {
		t.Errorf("preset: %d", r.Status)
	}
}

func TestVariantPixelLimit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ms := mediaServerOf(t, startServer(t, newRepo(t, presetSite).bare,
		withLocalMedia(t, root, func(c *media.Config) { c.MaxPixels = 200 * 200 }), withTransforms(1, time.Second)), root)
	photo := ms.uploadOK(t, filePart("photo.jpg", jpegBytes(t, 200, 100)))[0].URL
	r := get(t, sign(t, variantSecret, ms.URL+photo+"?w=300&h=300"), "")
	wantError(t, r, http.StatusBadRequest, server.CodeBadRequest)
	if !strings.Contains(string(r.Body), "more pixels") {
		t.Errorf("%s", r.Body)
	}
	if r := get(t, sign(t, variantSecret, ms.URL+photo+"?w=200&h=200"), ""); r.Status != http.StatusOK {
		t.Errorf("at the limit: %d %s", r.Status, r.Body)
	}
}

// TestVariantBusy: with one slot held, another variant waits out the
// queue timeout and gets 503 BUSY with Retry-After; the held one then
// finishes.
func TestVariantBusy(t *testing.T) {
	t.Parallel()
	ms := startVariantServer(t, withTransforms(1, 20*time.Millisecond))
	srv := ms.Handler.(*server.Server)
	photo := ms.uploadOK(t, filePart("photo.jpg", jpegBytes(t, 300, 200)))[0].URL
	entered, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	srv.SetTransformHook(func() {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
	})
	done := make(chan response)
	go func() { done <- get(t, ms.URL+photo+"?preset=card", "") }()
	<-entered
	r := get(t, ms.URL+photo+"?preset=thumb", "")
	wantError(t, r, http.StatusServiceUnavailable, server.CodeBusy)
	if r.Header.Get("Retry-After") == "" {
		t.Error("BUSY without Retry-After")
	}
	close(release)
	if r := <-done; r.Status != http.StatusOK {
		t.Errorf("held transform: %d %s", r.Status, r.Body)
	}
	// Free again.
	if r := get(t, ms.URL+photo+"?preset=thumb", ""); r.Status != http.StatusOK {
		t.Errorf("after the slot is free: %d %s", r.Status, r.Body)
	}
}

// TestVariantSingleFlight: N identical requests while the variant is being
// made cause one transform, and all get its bytes.
func TestVariantSingleFlight(t *testing.T) {
	t.Parallel()
	ms := startVariantServer(t)
	srv := ms.Handler.(*server.Server)
	photo := ms.uploadOK(t, filePart("photo.jpg", jpegBytes(t, 300, 200)))[0].URL
	release := make(chan struct{})
	var calls atomic.Int32
	srv.SetTransformHook(func() {
		calls.Add(1)
		<-release
	})
	const n = 6
	var wg sync.WaitGroup
	res := make([]response, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = get(t, ms.URL+photo+"?preset=card", "")
		}()
	}
	eventually(t, "every request joins the flight", func() bool { return srv.TransformJoined() == n })
	close(release)
	wg.Wait()
	for i, r := range res {
		if r.Status != http.StatusOK || !bytes.Equal(r.Body, res[0].Body) {
			t.Errorf("request %d: %d, %d bytes", i, r.Status, len(r.Body))
		}
	}
	if c := calls.Load(); c != 1 {
		t.Errorf("%d transforms for %d identical requests", c, n)
	}
	// Stored: the next request makes nothing.
	if r := get(t, ms.URL+photo+"?preset=card", ""); r.Status != http.StatusOK || calls.Load() != 1 || srv.TransformJoined() != n {
		t.Errorf("stored variant made again: %d transforms", calls.Load())
	}
}

// TestS3Variants: on S3 storage folio serves /uploads/<key>?preset=,
// reading the original from the bucket and storing the variant beside the
// derivatives; a delete removes it.
func TestS3Variants(t *testing.T) {
	t.Parallel()
	e := newS3Env(t)
	ts := startServer(t, newRepo(t, presetSite).bare, e.opt, withTransforms(2, time.Second))
	key := ts.key(t, "editor", server.ScopeMediaRead, server.ScopeMediaWrite, server.ScopeMediaDelete)
	ms := &mediaServer{testServer: ts, all: key}
	it := ms.uploadOK(t, filePart("spot.png", spottedPNG(t, 400, 200, 360, 100, 20)))[0]
	if r := ms.patch(t, key, it.ID, `{"focalX":90,"focalY":50}`); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	full := decode[itemPresets](t, get(t, ts.URL+"/api/v1/media/"+it.ID, key))
	objKey := e.fullKeyOf(t, full.URL)
	storageKey := strings.TrimPrefix(objKey, strings.SplitN(objKey, "/", 2)[0]+"/")
	card := full.Presets["card"]
	if !strings.HasPrefix(card, "/uploads/"+storageKey+"?preset=card&v=") {
		t.Fatalf("card URL %q (object %s)", card, objKey)
	}
	r := get(t, ts.URL+card, "")
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "image/webp" {
		t.Fatalf("GET %s: %d %s", card, r.Status, r.Body)
	}
	if !red(decodeImage(t, "image/webp", r.Body).At(48, 30)) {
		t.Error("focal point not in the card")
	}
	dir := e.object(objKey + "-variants")
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 1 {
		t.Fatalf("variant in the bucket: %v, %d", err, len(ents))
	}
	// A new focal point makes the stored variant stale: it is removed
	// from the bucket, and the new one is made on request.
	if r := ms.patch(t, key, it.ID, `{"focalX":10}`); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("stale variants left in the bucket: %d", len(ents))
	}
	moved := decode[itemPresets](t, get(t, ts.URL+"/api/v1/media/"+it.ID, key)).Presets["card"]
	if r := get(t, ts.URL+moved, ""); r.Status != http.StatusOK {
		t.Fatalf("GET %s: %d", moved, r.Status)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 1 {
		t.Fatalf("new variant in the bucket: %v, %d", err, len(ents))
	}
	// The plain original is still the bucket's.
	wantError(t, get(t, ts.URL+"/uploads/"+storageKey, ""), http.StatusNotFound, server.CodeNotFound)
	if r := do(t, http.MethodDelete, ts.URL+"/api/v1/media/"+it.ID, key, nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d", r.Status)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("variants left in the bucket: %d", len(ents))
	}
}

// TestVariantPresetChanged: a preset of folio.yaml given another size
// under the same name gets new URLs; the old URL, cached for good by
// then, is stale and answers the new size only briefly.
func TestVariantPresetChanged(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := newRepo(t, presetSite)
	ms := mediaServerOf(t, startServer(t, repo.bare, withLocalMedia(t, root), withTransforms(2, 50*time.Millisecond)), root)
	it := ms.uploadOK(t, filePart("spot.png", spottedPNG(t, 400, 200, 360, 100, 20)))[0]
	card := decode[itemPresets](t, get(t, ms.URL+"/api/v1/media/"+it.ID, ms.read)).Presets["card"]
	if r := get(t, ms.URL+card, ""); r.Status != http.StatusOK || !strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
		t.Fatalf("GET %s: %d %q", card, r.Status, r.Header.Get("Cache-Control"))
	}

	repo.commit("bigger card", map[string]string{"folio.yaml": strings.Replace(presetSite["folio.yaml"], "w: 60, h: 60", "w: 80, h: 40", 1)})
	var now string
	eventually(t, "the new preset in the media JSON", func() bool {
		now = decode[itemPresets](t, get(t, ms.URL+"/api/v1/media/"+it.ID, ms.read)).Presets["card"]
		return now != card
	})
	for _, u := range []string{now, card} {
		r := get(t, ms.URL+u, "")
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: %d", u, r.Status)
		}
		if b := decodeImage(t, "image/webp", r.Body).Bounds(); b.Dx() != 80 || b.Dy() != 40 {
			t.Errorf("%s: %v, want the new 80×40", u, b)
		}
		if stale := u == card; stale == strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: Cache-Control %q", u, r.Header.Get("Cache-Control"))
		}
	}
}

// TestVariantAVIF: with libavif built in (tag libavif), a signed size and
// a preset come as AVIF; without it, both are a 400 that says why.
func TestVariantAVIF(t *testing.T) {
	t.Parallel()
	site := map[string]string{
		"pages/home.md": "---\ntitle: Home\n---\nHi.\n",
		"folio.yaml":    "imagePresets:\n  hero: {w: 80, h: 40, fm: avif, q: 60}\n",
	}
	root := t.TempDir()
	ms := mediaServerOf(t, startServer(t, newRepo(t, site).bare, withLocalMedia(t, root), withTransforms(2, 5*time.Second)), root)
	it := ms.uploadOK(t, filePart("photo.jpg", jpegBytes(t, 300, 200)))[0]
	hero := decode[itemPresets](t, get(t, ms.URL+"/api/v1/media/"+it.ID, ms.read)).Presets["hero"]
	if hero == "" {
		t.Fatal("no hero preset URL")
	}
	signed := sign(t, variantSecret, it.URL+"?w=50&h=50&fm=avif")
	for _, u := range []string{hero, signed} {
		r := get(t, ms.URL+u, "")
		if !derive.AVIF {
			wantError(t, r, http.StatusBadRequest, server.CodeBadRequest)
			if !strings.Contains(string(r.Body), "built without libavif") {
				t.Errorf("%s: %s", u, r.Body)
			}
			continue
		}
		if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "image/avif" {
			t.Fatalf("GET %s: %d %s %.100s", u, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
		if len(r.Body) < 12 || string(r.Body[4:12]) != "ftypavif" {
			t.Errorf("%s: not an AVIF file: % x", u, r.Body[:min(16, len(r.Body))])
		}
	}
}

// TestVariantDamagedOriginal: an original damaged on disk after its upload
// (cut at any point) gives a clean 400 for a variant, never a 5xx, and
// the next request tries again.
func TestVariantDamagedOriginal(t *testing.T) {
	t.Parallel()
	ms := startVariantServer(t)
	good := jpegBytes(t, 600, 400)
	it := ms.uploadOK(t, filePart("photo.jpg", good))[0]
	path := ms.fileOf(t, it.URL)
	for _, n := range []int{100, 400, len(good) / 3, len(good) / 2, len(good) - 10} {
		if err := os.WriteFile(path, good[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		r := get(t, ms.URL+it.URL+"?preset=card", "")
		wantError(t, r, http.StatusBadRequest, server.CodeBadRequest)
		if !strings.Contains(string(r.Body), "damaged") {
			t.Errorf("cut at %d: %s", n, r.Body)
		}
	}
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := get(t, ms.URL+it.URL+"?preset=card", ""); r.Status != http.StatusOK {
		t.Errorf("repaired: %d %s", r.Status, r.Body)
	}
}

// TestUploadBusy: uploads decode in the same bounded queue as variants
// (issue 23, finding 1). With the only slot held by a variant, an image
// upload waits out the queue timeout and gets 503 BUSY with Retry-After,
// storing nothing; a PDF, which is not decoded, is stored meanwhile; once
// the slot is free the same image is stored.
func TestUploadBusy(t *testing.T) {
	t.Parallel()
	ms := startVariantServer(t, withTransforms(1, 20*time.Millisecond))
	srv := ms.Handler.(*server.Server)
	photo := ms.uploadOK(t, filePart("photo.jpg", jpegBytes(t, 300, 200)))[0].URL
	entered, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	srv.SetTransformHook(func() {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
	})
	done := make(chan response)
	go func() { done <- get(t, ms.URL+photo+"?preset=card", "") }()
	<-entered
	before := ms.files(t)
	img := pngBytes(t, 500, 300)
	r := ms.upload(t, ms.all, filePart("wide.png", img), filePart("second.png", img))
	wantError(t, r, http.StatusServiceUnavailable, server.CodeBusy)
	if r.Header.Get("Retry-After") == "" {
		t.Error("BUSY without Retry-After")
	}
	// The library's follow loop writes a checkpoint of the first upload
	// on its own time (the first after start is due at once), through a
	// temporary file: neither is a file of the refused upload.
	noCheckpoints := func(files []string) []string {
		return slices.DeleteFunc(slices.Clone(files), func(f string) bool {
			return strings.HasPrefix(f, ".state/checkpoints/") || strings.HasPrefix(f, ".state/.tmp/")
		})
	}
	if after := ms.files(t); !slices.Equal(noCheckpoints(before), noCheckpoints(after)) {
		t.Errorf("a refused upload left files: before %v, after %v", before, after)
	}
	ms.uploadOK(t, filePart("doc.pdf", []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")))
	close(release)
	if r := <-done; r.Status != http.StatusOK {
		t.Errorf("held transform: %d %s", r.Status, r.Body)
	}
	if got := ms.uploadOK(t, filePart("wide.png", img)); len(got) != 1 || len(got[0].Sizes) == 0 {
		t.Errorf("after the slot is free: %+v", got)
	}
}

// TestUploadElongatedRefused: a PNG of 50,000,000 × 1 pixels as in issue
// 23 (under the pixel limit, 5 GB to resize; 48 KB there, 315 KB as
// zeroPNG writes it) and its transpose are refused from their header with
// 413, storing nothing.
func TestUploadElongatedRefused(t *testing.T) {
	t.Parallel()
	ms := startVariantServer(t)
	for _, sz := range [][2]int{{50_000_000, 1}, {1, 50_000_000}, {20000, 1000}} {
		r := ms.upload(t, ms.all, filePart("line.png", zeroPNG(t, sz[0], sz[1])))
		wantError(t, r, http.StatusRequestEntityTooLarge, server.CodeTooLarge)
		if !strings.Contains(string(r.Body), fmt.Sprintf("%dx%d", sz[0], sz[1])) {
			t.Errorf("%v: %s", sz, r.Body)
		}
	}
	for _, f := range ms.files(t) {
		if !isBookkeeping(f) {
			t.Errorf("refused uploads left %s", f)
		}
	}
}

// zeroPNG is a valid grey PNG of w×h black pixels, made so that a huge
// one costs no memory and no time: its image data, (1+w)·h zero bytes
// (each row a zero filter byte then w zero pixels), is zeroZlib's.
func zeroPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	idat := zeroZlib(int64(1+w) * int64(h))
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	chunk("IHDR", append(ihdr, 8, 0, 0, 0, 0)) // 8-bit greyscale
	chunk("IDAT", idat)
	chunk("IEND", nil)
	return b.Bytes()
}

// zeroZlib is a zlib stream of n zero bytes, written directly rather than
// compressed (compress/flate took 27 s under -race for the 150 MB of
// TestUploadElongatedRefused): one final block of deflate's fixed Huffman
// codes holding a literal 0, then copies of 258 bytes from 1 byte back,
// then literal zeros for the rest; the Adler-32 of n zeros is (n mod
// 65521)<<16 | 1.
func zeroZlib(n int64) []byte {
	out := []byte{0x78, 0x01} // deflate, 32 KB window, no dictionary
	var acc uint64            // bits not yet written, least significant first
	var nacc uint
	bits := func(v uint64, k uint) { // k bits of v, least significant first
		acc |= v << nacc
		for nacc += k; nacc >= 8; nacc -= 8 {
			out = append(out, byte(acc))
			acc >>= 8
		}
	}
	code := func(c uint64, k uint) { // a Huffman code: its bits from the most significant
		var r uint64
		for i := range k {
			r |= (c >> i & 1) << (k - 1 - i)
		}
		bits(r, k)
	}
	const literal0, length258, distance1, endOfBlock = 0x30, 0xc5, 0, 0 // fixed codes: 8, 8, 5, 7 bits
	bits(1, 1)                                                          // the last block
	bits(1, 2)                                                          // fixed Huffman codes
	left := n
	if left > 0 {
		code(literal0, 8)
		left--
	}
	for ; left >= 258; left -= 258 {
		code(length258, 8)
		code(distance1, 5)
	}
	for ; left > 0; left-- {
		code(literal0, 8)
	}
	code(endOfBlock, 7)
	bits(0, 7) // flush the last byte
	return binary.BigEndian.AppendUint32(out, uint32(n%65521)<<16|1)
}

// TestZeroPNG: zeroZlib's streams inflate to their n zeros, checksum
// included, and zeroPNG's images decode whole.
func TestZeroPNG(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{0, 1, 2, 257, 258, 259, 517, 70_000} {
		zr, err := zlib.NewReader(bytes.NewReader(zeroZlib(n)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || int64(len(got)) != n || bytes.Count(got, []byte{0}) != len(got) {
			t.Errorf("%d zeros: %d bytes, %v", n, len(got), err)
		}
	}
	for _, sz := range [][2]int{{1, 1}, {300, 2}, {2, 300}} {
		img, err := png.Decode(bytes.NewReader(zeroPNG(t, sz[0], sz[1])))
		if err != nil {
			t.Fatalf("%v: %v", sz, err)
		}
		if b := img.Bounds(); b.Dx() != sz[0] || b.Dy() != sz[1] {
			t.Errorf("%v: decoded %v", sz, b)
		}
	}
}
