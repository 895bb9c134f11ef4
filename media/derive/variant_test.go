package derive

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/disintegration/imaging"

	"github.com/folio-cms/folio/media/probe"
)

// spotted is a w×h grey image with a pure red square of side s centred at
// (cx, cy): a cover crop that keeps the focal point shows it.
func spotted(w, h, cx, cy, s int) *image.NRGBA {
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
	return m
}

func isRed(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r>>8 > 200 && g>>8 < 60 && b>>8 < 60
}

func decodeAny(t *testing.T, format string, data []byte) image.Image {
	t.Helper()
	switch format {
	case FormatWebP:
		return decodeWebP(t, data)
	case FormatJPEG:
		m, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return m
	case FormatPNG:
		m, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	t.Fatalf("format %q", format)
	return nil
}

func TestVariant_CoverKeepsFocalPoint(t *testing.T) {
	t.Parallel()
	// A wide image, red spot near the right edge at (90%, 50%): a square
	// crop centred on the image would miss it.
	src := encode(t, probe.PNG, spotted(400, 100, 360, 50, 20))
	spec := Spec{W: 50, H: 50, Fit: "cover", Format: FormatPNG, Quality: 80}
	out, err := Variant(context.Background(), bytes.NewReader(src), probe.PNG, spec, 90, 50, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := decodeAny(t, FormatPNG, out)
	if b := m.Bounds(); b.Dx() != 50 || b.Dy() != 50 {
		t.Fatalf("size %v", b)
	}
	// The crop is x 310..410 → clamped to 300..400; the spot (350..370)
	// lands at 25..35 of 50.
	if !isRed(m.At(30, 25)) {
		t.Errorf("focal spot not in frame: %v", m.At(30, 25))
	}
	// Centred (focal 50): the crop is 150..250, no red.
	out, err = Variant(context.Background(), bytes.NewReader(src), probe.PNG, spec, 50, 50, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m = decodeAny(t, FormatPNG, out)
	for x := 0; x < 50; x++ {
		if isRed(m.At(x, 25)) {
			t.Fatalf("centred crop shows the spot at x=%d", x)
		}
	}
}

func TestVariant_CoverFocalWithOrientation(t *testing.T) {
	t.Parallel()
	// Stored 100×400 with the spot at stored (50, 40); EXIF 6 shows it
	// rotated 90° clockwise as 400×100 with the spot at (360, 50): focal
	// (90%, 50%) as displayed.
	stored := spotted(100, 400, 50, 40, 20)
	jpg := withEXIF(t, encode(t, probe.JPEG, stored), 6)
	spec := Spec{W: 50, H: 50, Fit: "cover", Format: FormatPNG, Quality: 80}
	out, err := Variant(context.Background(), bytes.NewReader(jpg), probe.JPEG, spec, 90, 50, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := decodeAny(t, FormatPNG, out)
	if b := m.Bounds(); b.Dx() != 50 || b.Dy() != 50 {
		t.Fatalf("size %v", b)
	}
	if !isRed(m.At(30, 25)) {
		t.Errorf("focal spot not in frame: %v", m.At(30, 25))
	}
}

func TestVariant_StoredRectAllOrientations(t *testing.T) {
	t.Parallel()
	// Each orientation: orient(crop(stored, storedRect(r))) must equal
	// crop(orient(stored), r).
	stored := gradient(7, 5, 3)
	r := image.Rect(1, 2, 4, 4)
	for o := 1; o <= 8; o++ {
		full := orient(imaging.Clone(stored), o)
		want := imaging.Crop(full, r)
		sr := storedRect(r, 7, 5, o)
		got := orient(imaging.Crop(stored, sr), o)
		if !bytes.Equal(got.Pix, want.Pix) || got.Rect != want.Rect {
			t.Errorf("orientation %d: storedRect %v gives a different crop", o, sr)
		}
	}
}

func TestVariant_ContainAndFormats(t *testing.T) {
	t.Parallel()
	src := encode(t, probe.JPEG, gradient(800, 600, 1))
	tests := []struct {
		spec Spec
		w, h int
	}{
		{Spec{W: 200, H: 200, Fit: "contain", Format: FormatWebP, Quality: 80}, 200, 150},
		{Spec{W: 200, H: 100, Fit: "contain", Format: FormatJPEG, Quality: 70}, 133, 100},
		{Spec{W: 300, Fit: "cover", Format: FormatPNG, Quality: 80}, 300, 225},
		{Spec{H: 60, Fit: "cover", Format: FormatWebP, Quality: 50}, 80, 60},
		{Spec{W: 120, H: 90, Fit: "cover", Format: FormatJPEG, Quality: 90}, 120, 90},
	}
	for _, tc := range tests {
		out, err := Variant(context.Background(), bytes.NewReader(src), probe.JPEG, tc.spec, 50, 50, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := probe.Sniff(out); got != ContentType(tc.spec.Format) {
			t.Errorf("%+v: sniffed %q", tc.spec, got)
		}
		m := decodeAny(t, tc.spec.Format, out)
		if b := m.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
			t.Errorf("%+v: size %dx%d, want %dx%d", tc.spec, b.Dx(), b.Dy(), tc.w, tc.h)
		}
	}
}

func TestVariant_Errors(t *testing.T) {
	t.Parallel()
	spec := Spec{W: 10, H: 10, Fit: "cover", Format: FormatWebP, Quality: 80}
	_, err := Variant(context.Background(), bytes.NewReader(pngBomb(30000, 30000)), probe.PNG, spec, 50, 50, Limits{})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("bomb: %v", err)
	}
	src := encode(t, probe.PNG, gradient(100, 100, 1))
	_, err = Variant(context.Background(), bytes.NewReader(src), probe.PNG, spec, 50, 50, Limits{MaxPixels: 9999})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("over MaxPixels: %v", err)
	}
	_, err = Variant(context.Background(), bytes.NewReader(src[:len(src)/2]), probe.PNG, spec, 50, 50, Limits{})
	if !errors.Is(err, ErrDecode) {
		t.Errorf("truncated: %v", err)
	}
	_, err = Variant(context.Background(), bytes.NewReader([]byte("<svg/>")), probe.SVG, spec, 50, 50, Limits{})
	if !errors.Is(err, ErrUnsupported) {
		t.Errorf("svg: %v", err)
	}
}
