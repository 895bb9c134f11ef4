package server

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/derive"
	"golang.org/x/sync/singleflight"
)

// Variants: GET /uploads/<key>?w=&h=&fit=&fm=&q= (or ?preset=<name>) makes
// a crop or size of a raster image from its original once, stores it
// beside the derivatives (media.VariantKey) and serves it. Only the sizes
// of folio.yaml's imagePresets, or URLs signed with --url-secret, are
// made: nobody else can make the server resize at will. At most
// TransformConcurrency run at once; a request that waits longer than
// TransformQueueTimeout for its turn is 503 BUSY. Identical requests share
// one transform.
//
// Caching: a variant depends on the focal point, which a PATCH may move.
// The v= of a URL is media.VariantVersion of the item and the spec; a
// request whose v is the current one is immutable for a year (a new focal
// point, or a preset given another size, makes a new v, so a new URL), any
// other (no v, or a stale one) gets the current variant for a minute,
// under the item's surrogate key.

// variantParams are the query parameters of a variant request; any of
// them makes /uploads/ serve a variant.
var variantParams = []string{"w", "h", "fit", "fm", "q", "preset", "v", "s"}

// Variant bounds.
const (
	maxVariantSide             = content.MaxPresetSide
	defaultTransformQueueWait  = 5 * time.Second
	variantRenderTimeout       = time.Minute
	variantRetryAfterMinSecond = 1
)

// transformer runs variant transforms: a semaphore of N slots, a queue
// timeout and single-flight per variant key.
type transformer struct {
	slots   chan struct{}
	wait    time.Duration
	flights singleflight.Group
	secret  []byte
	// hook, when set (tests), runs in a transform once it has its slot.
	hook func()
	// joined counts requests that reached the single-flight (tests).
	joined atomic.Int64
}

func newTransformer(n int, wait time.Duration, secret string) *transformer {
	if wait <= 0 {
		wait = defaultTransformQueueWait
	}
	t := &transformer{slots: make(chan struct{}, max(1, n)), wait: wait}
	if secret != "" {
		t.secret = []byte(secret)
	}
	return t
}

var errBusy = errors.New("server: transform queue full")

// acquire takes a slot, waiting at most t.wait.
func (t *transformer) acquire(ctx context.Context) (func(), error) {
	select {
	case t.slots <- struct{}{}:
		return func() { <-t.slots }, nil
	default:
	}
	timer := time.NewTimer(t.wait)
	defer timer.Stop()
	select {
	case t.slots <- struct{}{}:
		return func() { <-t.slots }, nil
	case <-timer.C:
		return nil, errBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// gate is acquire for the media library's uploads (media.DeriveGate): a
// full queue is media.ErrBusy, which the write routes answer 503 BUSY.
func (t *transformer) gate(ctx context.Context) (func(), error) {
	release, err := t.acquire(ctx)
	if errors.Is(err, errBusy) {
		return nil, fmt.Errorf("%w: %w", media.ErrBusy, err)
	}
	return release, err
}

// isVariantRequest reports whether the query asks for a variant.
func isVariantRequest(q url.Values) bool {
	for _, p := range variantParams {
		if q.Has(p) {
			return true
		}
	}
	return false
}

// variantRequest is a parsed, authorised variant request.
type variantRequest struct {
	spec    derive.Spec
	version string // v=, "" when absent
}

func presetSpec(p content.ImagePreset) derive.Spec {
	return derive.Spec{W: p.W, H: p.H, Fit: p.Fit, Format: p.Format, Quality: p.Quality}
}

// parseVariant reads and authorises the query of a variant request for
// the upload at key (escaped path urlPath): malformed is 400, not a preset
// and not signed (or badly) is 403.
func (s *mediaHandlers) parseVariant(urlPath string, q url.Values) (variantRequest, error) {
	var vr variantRequest
	for k, vs := range q {
		if !slices.Contains(variantParams, k) {
			return vr, badRequest("unknown parameter %q of an image variant (known: %s)", k, strings.Join(variantParams, ", "))
		}
		if len(vs) != 1 {
			return vr, badRequest("parameter %q given %d times", k, len(vs))
		}
	}
	vr.version = q.Get("v")
	if q.Has("v") && !validVersion(vr.version) {
		return vr, badRequest("v must be the version of the item's variants (hex), as listed in the media item's presets")
	}
	presets := s.imagePresets()
	if q.Has("preset") {
		for _, k := range []string{"w", "h", "fit", "fm", "q"} {
			if q.Has(k) {
				return vr, badRequest("give preset or %s, not both", k)
			}
		}
		p, ok := presets[q.Get("preset")]
		if !ok {
			return vr, badRequest("no image preset %q in folio.yaml (known: %s)", q.Get("preset"), strings.Join(slices.Sorted(maps.Keys(presets)), ", "))
		}
		vr.spec = presetSpec(p)
		if vr.spec.Format == derive.FormatAVIF && !derive.AVIF {
			return vr, badRequest("preset %q is AVIF, which this build of folio does not make (it was built without libavif)", q.Get("preset"))
		}
		return vr, nil
	}
	spec := derive.Spec{Fit: content.DefaultPresetFit, Format: content.DefaultPresetFm, Quality: content.DefaultPresetQ}
	side := func(k string) (int, error) {
		if !q.Has(k) {
			return 0, nil
		}
		n, err := strconv.Atoi(q.Get(k))
		if err != nil || n < 1 || n > maxVariantSide {
			return 0, badRequest("%s must be a whole number from 1 to %d", k, maxVariantSide)
		}
		return n, nil
	}
	var err error
	if spec.W, err = side("w"); err != nil {
		return vr, err
	}
	if spec.H, err = side("h"); err != nil {
		return vr, err
	}
	if spec.W == 0 && spec.H == 0 {
		return vr, badRequest("give w, h or both (or preset)")
	}
	if q.Has("fit") {
		switch f := q.Get("fit"); f {
		case "cover", "contain":
			spec.Fit = f
		default:
			return vr, badRequest("fit must be cover or contain")
		}
	}
	if q.Has("fm") {
		switch f := q.Get("fm"); f {
		case derive.FormatWebP, derive.FormatJPEG, derive.FormatPNG:
			spec.Format = f
		case derive.FormatAVIF:
			if !derive.AVIF {
				return vr, badRequest("fm=avif is not supported by this build of folio (it was built without libavif; use webp, jpeg or png)")
			}
			spec.Format = f
		default:
			return vr, badRequest("fm must be webp, jpeg, png or avif")
		}
	}
	if q.Has("q") {
		n, err := strconv.Atoi(q.Get("q"))
		if err != nil || n < 1 || n > 100 {
			return vr, badRequest("q must be a whole number from 1 to 100")
		}
		spec.Quality = n
	}
	vr.spec = spec
	for _, p := range presets {
		if presetSpec(p) == spec {
			return vr, nil
		}
	}
	sig := q.Get("s")
	if sig == "" {
		return vr, errorf(fault.Forbidden, "this size is not an image preset of folio.yaml; other sizes need a URL signed with the server's --url-secret")
	}
	if !s.transforms.validSignature(urlPath, q, sig) {
		return vr, errorf(fault.Forbidden, "bad signature: s must be the HMAC-SHA256 of the path and query (without s) with the server's --url-secret")
	}
	return vr, nil
}

func validVersion(v string) bool {
	if v == "" || len(v) > 64 {
		return false
	}
	_, err := hex.DecodeString(v)
	return err == nil
}

// SignVariantPath returns the s= of a variant URL: the HMAC-SHA256, in
// hex, of the URL's escaped path, "?", and its query without s in
// canonical form (url.Values.Encode: sorted by key, escaped).
func SignVariantPath(secret, urlPath string, q url.Values) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(canonicalVariant(urlPath, q)))
	return hex.EncodeToString(m.Sum(nil))
}

func canonicalVariant(urlPath string, q url.Values) string {
	c := url.Values{}
	for k, v := range q {
		if k != "s" {
			c[k] = v
		}
	}
	return urlPath + "?" + c.Encode()
}

// validSignature checks sig, hex or base64url (unpadded) of the HMAC.
func (t *transformer) validSignature(urlPath string, q url.Values, sig string) bool {
	if t.secret == nil {
		return false
	}
	got, err := hex.DecodeString(sig)
	if err != nil {
		if got, err = base64.RawURLEncoding.DecodeString(sig); err != nil {
			return false
		}
	}
	m := hmac.New(sha256.New, t.secret)
	m.Write([]byte(canonicalVariant(urlPath, q)))
	return hmac.Equal(got, m.Sum(nil))
}

// imagePresets are the presets of the published folio.yaml.
func (s *mediaHandlers) imagePresets() map[string]content.ImagePreset {
	if s.engine == nil {
		return nil
	}
	snap := s.engine.Published()
	if snap == nil || snap.Site == nil {
		return nil
	}
	return snap.Site.Config.ImagePresets
}

// serveVariant serves the variant the query asks of the upload at key,
// on any storage.
func (s *mediaHandlers) serveVariant(w http.ResponseWriter, r *http.Request, key string) error {
	if _, ok := uploadTypes[strings.ToLower(path.Ext(key))]; !ok || !validUploadKey(key) {
		return notFound("no such file")
	}
	vr, err := s.parseVariant(r.URL.EscapedPath(), r.URL.Query())
	if err != nil {
		return err
	}
	it, ok := s.media.ByKey(key)
	if !ok || it.Key != key {
		return notFound("no such image")
	}
	if !media.Raster(it) {
		return badRequest("variants are made of raster images only (JPEG, PNG, GIF, WebP), not %s", it.MimeType)
	}
	tw, th := derive.VariantSize(vr.spec, max(1, it.Width), max(1, it.Height))
	if tw*th > s.media.MaxPixels() || tw > 4*maxVariantSide || th > 4*maxVariantSide {
		return badRequest("the variant would have more pixels than an upload may")
	}
	vkey := media.VariantKey(it, vr.spec)
	data, err := s.media.StoredVariant(r.Context(), vkey)
	if err != nil && !errors.Is(err, media.ErrNotExist) {
		return err
	}
	if errors.Is(err, media.ErrNotExist) {
		data, err = s.makeVariant(r.Context(), it, vr.spec, vkey)
	}
	if errors.Is(err, errBusy) {
		return s.busy(w)
	}
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", derive.ContentType(vr.spec.Format))
	h.Set("X-Content-Type-Options", "nosniff")
	if vr.version == media.VariantVersion(it, vr.spec) {
		h.Set("Cache-Control", cacheImmutable)
	} else {
		h.Set("Cache-Control", cachePublicShort)
	}
	h.Set("ETag", `"`+strings.TrimSuffix(path.Base(vkey), path.Ext(vkey))+`"`)
	mediaKeyHdr(it.ID).set(h)
	w = keysOnSuccess{w}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	return nil
}

// makeVariant renders a variant once for all the requests that ask for it
// meanwhile, in a slot of the transformer.
func (s *mediaHandlers) makeVariant(ctx context.Context, it *media.Item, spec derive.Spec, vkey string) ([]byte, error) {
	t := s.transforms
	t.joined.Add(1)
	ch := t.flights.DoChan(vkey, func() (any, error) {
		// The first request's client may go away; the others still wait.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), variantRenderTimeout)
		defer cancel()
		release, err := t.acquire(ctx)
		if err != nil {
			return nil, err
		}
		defer release()
		if t.hook != nil {
			t.hook()
		}
		return s.media.MakeVariant(ctx, it, spec, vkey)
	})
	select {
	case res := <-ch:
		if errors.Is(res.Err, errBusy) {
			return nil, errBusy
		}
		if res.Err != nil {
			return nil, res.Err
		}
		return res.Val.([]byte), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// busy is the 503 of a full queue, with its Retry-After.
func (s *mediaHandlers) busy(w http.ResponseWriter) error {
	secs := max(variantRetryAfterMinSecond, int(s.transforms.wait/time.Second))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return errorf(fault.Busy, "too many images are being made at once; retry after %d s", secs)
}

// presetViews puts the preset URLs of folio.yaml in media items.
type presetViews struct {
	names   []string      // sorted
	specs   []derive.Spec // of names, in their order
	presets map[string]content.ImagePreset
	// digest names the presets, for the items' ETags; "" when none.
	digest string
	// local: the items' url is served by folio (local storage), so preset
	// URLs extend it; on cloud storage they are site-relative /uploads/.
	local bool
	// locale is the request's `locale` (canonical; "" for none) and chain
	// its fallback chain: the text of the views is that locale's.
	locale string
	chain  []string
}

func (s *mediaHandlers) presetViews() presetViews {
	ps := s.imagePresets()
	pv := presetViews{presets: ps, local: s.mediaRoot != ""}
	if len(ps) == 0 {
		return pv
	}
	pv.names = slices.Sorted(maps.Keys(ps))
	h := sha256.New()
	for _, n := range pv.names {
		p := ps[n]
		pv.specs = append(pv.specs, presetSpec(p))
		h.Write([]byte(n + "\x00" + strconv.Itoa(p.W) + "x" + strconv.Itoa(p.H) + p.Fit + p.Format + strconv.Itoa(p.Quality) + "\x00"))
	}
	pv.digest = hex.EncodeToString(h.Sum(nil)[:4])
	return pv
}

// urls are the preset URLs of it; nil when there are none or it is not a
// raster image.
func (pv presetViews) urls(it *media.Item) map[string]string {
	if len(pv.names) == 0 || !media.Raster(it) || it.Key == "" {
		return nil
	}
	base := it.URL
	if !pv.local || base == "" {
		base = uploadsURL(it.Key)
	}
	vs := media.VariantVersions(it, pv.specs)
	out := make(map[string]string, len(pv.names))
	for i, n := range pv.names {
		out[n] = base + "?preset=" + url.QueryEscape(n) + "&v=" + vs[i]
	}
	return out
}

// uploadsURL is the site-relative /uploads/ address of a storage key.
func uploadsURL(key string) string {
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return "/uploads/" + strings.Join(segs, "/")
}
