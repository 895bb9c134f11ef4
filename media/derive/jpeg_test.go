package derive

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/draw"
	"image/jpeg"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/disintegration/imaging"

	"github.com/folio-cms/folio/media/probe"
)

// These tests run in both builds (make test runs media/derive with and
// without the libjpeg tag): with libjpeg-turbo they hold its decode to
// Go's, without it they check the fallback keeps the same contract.

// jpegFixtures are JPEGs of each kind the decoder meets: a real photo
// (with an EXIF orientation), odd sizes, grayscale, progressive, and CMYK
// (which libjpeg-turbo leaves to Go's decoder).
func jpegFixtures(tb testing.TB) map[string][]byte {
	tb.Helper()
	read := func(path string) []byte {
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		return data
	}
	gray := image.NewGray(image.Rect(0, 0, 203, 141))
	draw.Draw(gray, gray.Rect, gradient(203, 141, 5), image.Point{}, draw.Src)
	var gb bytes.Buffer
	if err := jpeg.Encode(&gb, gray, &jpeg.Options{Quality: 90}); err != nil {
		tb.Fatal(err)
	}
	return map[string][]byte{
		"photo":       read(filepath.Join("..", "..", "fixtures", "media", "alpine-lake.jpg")),
		"odd":         encode(tb, probe.JPEG, gradient(203, 141, 4)),
		"gray":        gb.Bytes(),
		"progressive": read(filepath.Join("testdata", "progressive.jpg")),
		"cmyk":        read(filepath.Join("testdata", "cmyk.jpg")),
	}
}

// meanAbsDiff is the mean absolute difference of the RGB channels of two
// images of the same size, in 8-bit levels.
func meanAbsDiff(tb testing.TB, a, b image.Image) float64 {
	tb.Helper()
	if a.Bounds().Size() != b.Bounds().Size() {
		tb.Fatalf("sizes %v and %v", a.Bounds(), b.Bounds())
	}
	na, nb := imaging.Clone(a), imaging.Clone(b)
	var sum, n float64
	for i := 0; i < len(na.Pix); i += 4 {
		for c := range 3 {
			d := float64(na.Pix[i+c]) - float64(nb.Pix[i+c])
			if d < 0 {
				d = -d
			}
			sum += d
			n++
		}
	}
	return sum / n
}

// TestDecodeJPEG_AgreesWithGo: at every scale, the decode (libjpeg-turbo
// shrinking on load, or Go's at full size) matches Go's full decode box-
// shrunk to the same size, to within JPEG's rounding and chroma upsampling.
func TestDecodeJPEG_AgreesWithGo(t *testing.T) {
	t.Parallel()
	for name, data := range jpegFixtures(t) {
		ref, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: Go: %v", name, err)
		}
		w, h := ref.Bounds().Dx(), ref.Bounds().Dy()
		for _, denom := range []int{1, 2, 4, 8} {
			got, err := decodeChecked(context.Background(), bytes.NewReader(data), probe.JPEG, Limits{}.withDefaults(),
				func(int, int, int) int { return denom })
			if err != nil {
				t.Fatalf("%s 1/%d: %v", name, denom, err)
			}
			if got.W != w || got.H != h {
				t.Fatalf("%s: stored size %dx%d, want %dx%d", name, got.W, got.H, w, h)
			}
			used := 1
			if JPEGDecoder == "libjpeg-turbo" && name != "cmyk" {
				used = denom
			}
			sw, sh := scaledSize(w, h, used)
			if b := got.img.Bounds(); b.Dx() != sw || b.Dy() != sh {
				t.Fatalf("%s 1/%d: decoded %v, want %dx%d", name, denom, b, sw, sh)
			}
			want := image.Image(ref)
			if used > 1 {
				want = imaging.Resize(ref, sw, sh, imaging.Box)
			}
			// Full size: IDCT rounding and libjpeg's smooth chroma
			// upsampling where Go repeats samples; scaled: the DCT's
			// reduction against a box.
			limit := 3.0
			if used == 1 {
				limit = 1
			}
			if d := meanAbsDiff(t, got.img, want); d > limit {
				t.Errorf("%s 1/%d: mean difference %.2f levels from Go's decode", name, used, d)
			} else {
				t.Logf("%s 1/%d: mean difference %.2f levels", name, used, d)
			}
		}
	}
}

// TestVariant_ShrinkOnLoadMatchesFullDecode: a variant made through the
// shrink-on-load decode looks like the one made from the full decode.
func TestVariant_ShrinkOnLoadMatchesFullDecode(t *testing.T) {
	t.Parallel()
	data := jpegFixtures(t)["photo"]
	ref, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	o := probe.JPEGOrientation(bytes.NewReader(data))
	full := decoded{img: ref, W: ref.Bounds().Dx(), H: ref.Bounds().Dy(), orientation: o}
	for _, spec := range []Spec{
		{W: 300, H: 169, Fit: "cover"}, {W: 120, H: 120, Fit: "cover"}, {W: 400, Fit: "contain"}, {W: 90, H: 300, Fit: "contain"},
	} {
		for _, focal := range [][2]float64{{50, 50}, {10, 90}} {
			src, err := decodeChecked(context.Background(), bytes.NewReader(data), probe.JPEG, Limits{}.withDefaults(),
				func(w, h, o int) int { return variantDenom(spec, w, h, o, focal[0], focal[1]) })
			if err != nil {
				t.Fatal(err)
			}
			got := renderVariant(src, spec, focal[0], focal[1], variantFilter)
			want := renderVariant(full, spec, focal[0], focal[1], variantFilter)
			if d := meanAbsDiff(t, got, want); d > 3 {
				t.Errorf("%+v focal %v: mean difference %.2f levels (decoded %v)", spec, focal, d, src.img.Bounds())
			}
		}
	}
}

// TestJPEGDenom: the largest shrink that leaves the region at least the
// target.
func TestJPEGDenom(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ rw, rh, tw, th, want int }{
		{4000, 2250, 1200, 675, 2},
		{4000, 3000, 400, 300, 8},
		{4000, 3000, 1000, 750, 4},
		{4000, 3000, 1001, 750, 2},
		{1000, 500, 999, 10, 1},
		{100, 100, 1, 1, 8},
	} {
		if got := jpegDenom(tc.rw, tc.rh, tc.tw, tc.th); got != tc.want {
			t.Errorf("%+v: %d", tc, got)
		}
	}
	// 4000×3000 shown rotated (EXIF 6) as 3000×4000: a 1200×675 cover
	// keeps 3000×1688 as shown, 1688×3000 as stored; 1/2 leaves 844×1500
	// for 675×1200.
	if d := variantDenom(Spec{W: 1200, H: 675, Fit: "cover"}, 4000, 3000, 6, 50, 50); d != 2 {
		t.Errorf("variantDenom rotated: %d", d)
	}
	if d := imagesDenom(4000, 3000, 1, widths); d != 2 {
		t.Errorf("imagesDenom: %d", d)
	}
	if d := imagesDenom(100, 60, 1, widths); d != 2 {
		t.Errorf("imagesDenom, placeholder only: %d", d)
	}
}

// damagedJPEGs are the fixtures cut at many offsets and garbled at many
// others.
func damagedJPEGs(tb testing.TB) (truncated, garbled map[string][]byte) {
	tb.Helper()
	truncated, garbled = map[string][]byte{}, map[string][]byte{}
	for name, data := range jpegFixtures(tb) {
		if name == "photo" {
			continue // large: the others cover its kind
		}
		step := max(1, len(data)/60)
		for i := 1; i < len(data)-2; i += step {
			truncated[name+"/cut@"+strconv.Itoa(i)] = data[:i]
		}
		for i := 2; i < len(data); i += step {
			c := bytes.Clone(data)
			c[i] ^= 0x5A
			garbled[name+"/xor@"+strconv.Itoa(i)] = c
			c = bytes.Clone(data)
			for j := i; j < min(len(c), i+16); j++ {
				c[j] = 0xFF
			}
			garbled[name+"/ff@"+strconv.Itoa(i)] = c
		}
	}
	return truncated, garbled
}

// TestDecodeJPEG_Damaged: a cut file is refused with ErrDecode, a garbled
// one is refused or decodes to its header's size; nothing panics or
// crashes the process (libjpeg's errors must not exit()).
func TestDecodeJPEG_Damaged(t *testing.T) {
	t.Parallel()
	truncated, garbled := damagedJPEGs(t)
	spec := Spec{W: 40, H: 30, Fit: "cover", Format: FormatPNG, Quality: 80}
	lim := Limits{MaxPixels: 1 << 20}
	for name, data := range truncated {
		if _, err := Variant(context.Background(), bytes.NewReader(data), probe.JPEG, spec, 50, 50, lim); !errors.Is(err, ErrDecode) {
			t.Errorf("%s: Variant: %v, want ErrDecode", name, err)
		}
		if _, err := Images(context.Background(), bytes.NewReader(data), probe.JPEG, []int{16, 40}, lim); !errors.Is(err, ErrDecode) {
			t.Errorf("%s: Images: %v, want ErrDecode", name, err)
		}
	}
	for name, data := range garbled {
		out, err := Variant(context.Background(), bytes.NewReader(data), probe.JPEG, spec, 50, 50, lim)
		switch {
		case err == nil:
			if m := decodeAny(t, FormatPNG, out); m.Bounds().Dx() != 40 || m.Bounds().Dy() != 30 {
				t.Errorf("%s: variant %v", name, m.Bounds())
			}
		case !errors.Is(err, ErrDecode) && !errors.Is(err, ErrTooLarge):
			t.Errorf("%s: Variant: %v", name, err)
		}
		res, err := Images(context.Background(), bytes.NewReader(data), probe.JPEG, []int{16, 40}, lim)
		switch {
		case err == nil:
			if res.Width <= 0 || res.Height <= 0 {
				t.Errorf("%s: %dx%d", name, res.Width, res.Height)
			}
		case !errors.Is(err, ErrDecode) && !errors.Is(err, ErrTooLarge):
			t.Errorf("%s: Images: %v", name, err)
		}
	}
}

// TestDecodeJPEG_Concurrent: decodes on many goroutines at once (run with
// -race) give each the same pixels.
func TestDecodeJPEG_Concurrent(t *testing.T) {
	t.Parallel()
	data := jpegFixtures(t)["odd"]
	first, err := decodeChecked(context.Background(), bytes.NewReader(data), probe.JPEG, Limits{}.withDefaults(), func(int, int, int) int { return 2 })
	if err != nil {
		t.Fatal(err)
	}
	want := imaging.Clone(first.img)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range 10 {
				got, err := decodeChecked(context.Background(), bytes.NewReader(data), probe.JPEG, Limits{}.withDefaults(), func(int, int, int) int { return 2 })
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(imaging.Clone(got.img).Pix, want.Pix) {
					errs <- errors.New("different pixels")
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
