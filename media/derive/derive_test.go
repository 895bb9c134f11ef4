package derive

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/chai2010/webp"
	xwebp "golang.org/x/image/webp"

	"github.com/folio-cms/folio/media/probe"
)

var widths = []int{150, 400, 800, 1200}

// gradient is a w×h image with gradients and some noise, like a photo as
// far as encoders are concerned.
func gradient(w, h int, seed uint64) *image.NRGBA {
	rng := rand.New(rand.NewPCG(seed, seed))
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			n := uint8(rng.IntN(24))
			i := m.PixOffset(x, y)
			m.Pix[i] = uint8(x*200/w) + n
			m.Pix[i+1] = uint8(y*200/h) + n
			m.Pix[i+2] = uint8((x+y)*100/(w+h)) + n
			m.Pix[i+3] = 255
		}
	}
	return m
}

func encode(tb testing.TB, mimeType string, m image.Image) []byte {
	tb.Helper()
	var b bytes.Buffer
	var err error
	switch mimeType {
	case probe.JPEG:
		err = jpeg.Encode(&b, m, &jpeg.Options{Quality: 85})
	case probe.PNG:
		err = png.Encode(&b, m)
	case probe.GIF:
		err = gif.Encode(&b, m, nil)
	case probe.WebP:
		err = webp.Encode(&b, m, &webp.Options{Quality: 80})
	}
	if err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func decodeWebP(t *testing.T, data []byte) image.Image {
	t.Helper()
	if !bytes.HasPrefix(data, []byte("RIFF")) || string(data[8:12]) != "WEBP" {
		t.Fatalf("not WebP: % x", data[:min(16, len(data))])
	}
	m, err := xwebp.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return limitedToNRGBA(m)
}

func TestImages(t *testing.T) {
	t.Parallel()
	src := gradient(1000, 500, 1)
	for _, mt := range []string{probe.JPEG, probe.PNG, probe.GIF, probe.WebP} {
		t.Run(mt, func(t *testing.T) {
			res, err := Images(context.Background(), bytes.NewReader(encode(t, mt, src)), mt, widths, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Width != 1000 || res.Height != 500 {
				t.Fatalf("size %dx%d", res.Width, res.Height)
			}
			// 1200 is not smaller than 1000: no upscaling.
			want := [][2]int{{150, 75}, {400, 200}, {800, 400}}
			if len(res.Derivatives) != len(want) {
				t.Fatalf("%d derivatives, want %d", len(res.Derivatives), len(want))
			}
			for i, d := range res.Derivatives {
				if d.Width != want[i][0] || d.Height != want[i][1] {
					t.Errorf("derivative %d: %dx%d, want %v", i, d.Width, d.Height, want[i])
				}
				m := decodeWebP(t, d.Data)
				if b := m.Bounds(); b.Dx() != d.Width || b.Dy() != d.Height {
					t.Errorf("derivative %d decodes as %v", i, b)
				}
			}
			if len(res.Placeholder) != 4+2*4*3 {
				t.Errorf("placeholder %q", res.Placeholder)
			}
			if len(res.DominantColor) != 7 || res.DominantColor[0] != '#' {
				t.Errorf("dominant color %q", res.DominantColor)
			}
		})
	}
}

// TestImages_Orientation uses the probe fixture: stored 60×40 with its left
// third red, EXIF orientation 6, so displayed 40×60 with its top third red.
func TestImages_Orientation(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../probe/testdata/orient6.jpg")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Images(context.Background(), bytes.NewReader(data), probe.JPEG, []int{20}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 40 || res.Height != 60 {
		t.Fatalf("size %dx%d, want 40x60", res.Width, res.Height)
	}
	d := res.Derivatives[0]
	if d.Width != 20 || d.Height != 30 {
		t.Fatalf("derivative %dx%d, want 20x30", d.Width, d.Height)
	}
	m := decodeWebP(t, d.Data)
	isRed := func(c color.Color) bool {
		r, g, b, _ := c.RGBA()
		return r > 0xA000 && g < 0x6000 && b < 0x6000
	}
	if top, bottom := m.At(10, 2), m.At(10, 27); !isRed(top) || isRed(bottom) {
		t.Fatalf("not rotated: top %v, bottom %v", top, bottom)
	}
}

func TestImages_AllOrientations(t *testing.T) {
	t.Parallel()
	jpg := encode(t, probe.JPEG, gradient(60, 40, 2))
	for o := uint16(1); o <= 8; o++ {
		res, err := Images(context.Background(), bytes.NewReader(withEXIF(t, jpg, o)), probe.JPEG, []int{30}, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		w, h := 60, 40
		if o >= 5 {
			w, h = 40, 60
		}
		if res.Width != w || res.Height != h {
			t.Errorf("orientation %d: %dx%d, want %dx%d", o, res.Width, res.Height, w, h)
		}
		if d := res.Derivatives[0]; d.Width != 30 || d.Height != 30*h/w {
			t.Errorf("orientation %d: derivative %dx%d", o, d.Width, d.Height)
		}
	}
}

func TestImages_Errors(t *testing.T) {
	t.Parallel()
	jpg := encode(t, probe.JPEG, gradient(200, 100, 3))
	png := encode(t, probe.PNG, gradient(200, 100, 3))
	corrupt := bytes.Clone(jpg)
	for i := len(corrupt) / 3; i < len(corrupt)-2; i += 7 {
		corrupt[i] = 0xFF
	}
	tests := []struct {
		name string
		mime string
		data []byte
		lim  Limits
		want error
	}{
		{"zero bytes", probe.JPEG, nil, Limits{}, ErrDecode},
		{"truncated jpeg header", probe.JPEG, jpg[:30], Limits{}, ErrDecode},
		{"truncated jpeg data", probe.JPEG, jpg[:len(jpg)/2], Limits{}, ErrDecode},
		{"corrupt jpeg data", probe.JPEG, corrupt, Limits{}, ErrDecode},
		{"truncated png", probe.PNG, png[:len(png)-20], Limits{}, ErrDecode},
		{"png header bomb", probe.PNG, pngBomb(50000, 50000), Limits{}, ErrTooLarge},
		{"png line bomb", probe.PNG, pngBomb(50_000_000, 1), Limits{}, ErrTooLarge},
		{"png column bomb", probe.PNG, pngBomb(1, 50_000_000), Limits{}, ErrTooLarge},
		{"png over a side limit", probe.PNG, png, Limits{MaxSide: 199}, ErrTooLarge},
		{"png over an aspect limit", probe.PNG, png, Limits{MaxAspect: 1}, ErrTooLarge},
		{"png over a small limit", probe.PNG, png, Limits{MaxPixels: 100 * 100}, ErrTooLarge},
		{"more bytes than allowed", probe.PNG, png, Limits{MaxBytes: 100}, ErrTooLarge},
		{"html as jpeg", probe.JPEG, []byte("<!DOCTYPE html><html></html>"), Limits{}, ErrDecode},
		{"jpeg bytes as png", probe.PNG, jpg, Limits{}, ErrDecode},
		{"svg", probe.SVG, []byte("<svg/>"), Limits{}, ErrUnsupported},
		{"pdf", probe.PDF, []byte("%PDF-1.4"), Limits{}, ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Images(context.Background(), bytes.NewReader(tt.data), tt.mime, widths, tt.lim)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v (result %v)", err, tt.want, res)
			}
		})
	}
}

func TestImages_Canceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	data := encode(t, probe.PNG, gradient(500, 300, 4))
	if _, err := Images(ctx, bytes.NewReader(data), probe.PNG, widths, Limits{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestImages_SmallAndOddWidths(t *testing.T) {
	t.Parallel()
	data := encode(t, probe.PNG, gradient(120, 7, 5))
	res, err := Images(context.Background(), bytes.NewReader(data), probe.PNG, []int{400, 150, 60, 60, 0, -3, 119, 1}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Derivatives {
		if d.Height < 1 {
			t.Errorf("width %d: height %d", d.Width, d.Height)
		}
	}
	if len(res.Derivatives) != 3 || res.Derivatives[0].Width != 60 || res.Derivatives[1].Width != 119 || res.Derivatives[2].Width != 1 {
		t.Fatalf("derivatives %+v", res.Derivatives)
	}
	if res.Placeholder == "" {
		t.Fatal("no placeholder")
	}
}

func TestImages_NoDerivativesStillPlaceholder(t *testing.T) {
	t.Parallel()
	data := encode(t, probe.GIF, gradient(100, 80, 6))
	res, err := Images(context.Background(), bytes.NewReader(data), probe.GIF, widths, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Derivatives) != 0 || res.Placeholder == "" || res.DominantColor == "" {
		t.Fatalf("%+v", res)
	}
}

func TestImages_TranslucentPNG(t *testing.T) {
	t.Parallel()
	m := image.NewNRGBA(image.Rect(0, 0, 400, 200))
	for i := 0; i < len(m.Pix); i += 4 {
		m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = 255, 255, 255, 128
	}
	res, err := Images(context.Background(), bytes.NewReader(encode(t, probe.PNG, m)), probe.PNG, []int{100}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	// Straight alpha must survive: white at half opacity, not grey.
	c := color.NRGBAModel.Convert(decodeWebP(t, res.Derivatives[0].Data).At(50, 25)).(color.NRGBA)
	if c.R < 240 || c.A < 110 || c.A > 145 {
		t.Fatalf("pixel %v, want white at ~50%% alpha", c)
	}
}

// TestImages_WebPColorRange: black and white WebP input stays black and
// white through decode and re-encode (golang/go#40173 would give 16/235).
func TestImages_WebPColorRange(t *testing.T) {
	t.Parallel()
	m := image.NewNRGBA(image.Rect(0, 0, 200, 100))
	for y := 0; y < 100; y++ {
		for x := 0; x < 200; x++ {
			v := uint8(0)
			if x >= 100 {
				v = 255
			}
			m.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
		}
	}
	res, err := Images(context.Background(), bytes.NewReader(encode(t, probe.WebP, m)), probe.WebP, []int{100}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	out := decodeWebP(t, res.Derivatives[0].Data)
	black := color.NRGBAModel.Convert(out.At(10, 25)).(color.NRGBA)
	white := color.NRGBAModel.Convert(out.At(90, 25)).(color.NRGBA)
	if black.R > 6 || white.R < 249 {
		t.Fatalf("black %v, white %v", black, white)
	}
}

func TestDominantColor(t *testing.T) {
	t.Parallel()
	m := image.NewNRGBA(image.Rect(0, 0, 10, 10))
	for y := 0; y < 10; y++ {
		for x := 0; x < 10; x++ {
			c := color.NRGBA{200, 10, 10, 255} // 60% red
			if x >= 6 {
				c = color.NRGBA{10, 200, 10, 255}
			}
			m.SetNRGBA(x, y, c)
		}
	}
	if got := dominantColor(m); got != "#c80a0a" {
		t.Fatalf("got %s", got)
	}
}

// withEXIF inserts an APP1 EXIF segment with one Orientation tag.
func withEXIF(tb testing.TB, jpg []byte, o uint16) []byte {
	tb.Helper()
	p := []byte("Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01")
	p = binary.BigEndian.AppendUint16(p, o)
	p = append(p, 0, 0, 0, 0, 0, 0)
	out := append([]byte{0xFF, 0xD8, 0xFF, 0xE1}, byte((len(p)+2)>>8), byte(len(p)+2))
	out = append(out, p...)
	return append(out, jpg[2:]...)
}

func pngBomb(w, h uint32) []byte {
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	b = append(b, ihdr...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(append([]byte("IHDR"), ihdr...)))
	// Some compressed zeros would follow in a real bomb; the header alone
	// must be enough to refuse it.
	return b
}

// TestImages_GIFSmallFirstFrame: a first frame covering part of the logical
// screen is placed on a screen-sized canvas.
func TestImages_GIFSmallFirstFrame(t *testing.T) {
	t.Parallel()
	pal := color.Palette{color.Transparent, color.NRGBA{255, 0, 0, 255}}
	frame := image.NewPaletted(image.Rect(10, 10, 60, 40), pal)
	for i := range frame.Pix {
		frame.Pix[i] = 1
	}
	var b bytes.Buffer
	g := &gif.GIF{Image: []*image.Paletted{frame}, Delay: []int{0}, Config: image.Config{Width: 100, Height: 80, ColorModel: pal}}
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	res, err := Images(context.Background(), bytes.NewReader(b.Bytes()), probe.GIF, []int{50}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 100 || res.Height != 80 || res.Derivatives[0].Height != 40 {
		t.Fatalf("%dx%d, derivative %dx%d", res.Width, res.Height, res.Derivatives[0].Width, res.Derivatives[0].Height)
	}
	if res.DominantColor != "#ff0000" {
		t.Errorf("dominant color %s (transparent pixels must not count)", res.DominantColor)
	}
}

func TestImages_NoWidths(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../probe/testdata/orient6.jpg")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Images(context.Background(), bytes.NewReader(data), probe.JPEG, nil, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 40 || res.Height != 60 || len(res.Derivatives) != 0 || res.Placeholder == "" {
		t.Fatalf("%+v", res)
	}
	// Two thirds of the fixture are blue.
	if c := res.DominantColor; c[5:] < "c0" || c[1:3] > "40" {
		t.Errorf("dominant color %s, want blue", c)
	}
}

// TestTinySize: the placeholder's rendition fits a placeholderWidth
// square whatever the shape, so the blurhash of a long strip costs what
// a square's does.
func TestTinySize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ w, h, tw, th int }{
		{4000, 3000, 32, 24},
		{3000, 4000, 24, 32},
		{16384, 256, 32, 1},
		{256, 16384, 1, 32},
		{150, 9600, 1, 32},
		{20, 10, 20, 10},
		{1, 1, 1, 1},
	} {
		tw, th := tinySize(c.w, c.h)
		if tw != c.tw || th != c.th {
			t.Errorf("tinySize(%d, %d) = %d×%d, want %d×%d", c.w, c.h, tw, th, c.tw, c.th)
		}
	}
}

// TestImages_ElongatedWithinLimits: the most elongated shape the limits
// allow, both ways, gets its derivatives and a placeholder. The side limit
// is lowered to 2048 (the aspect limit is the default's 64:1): the same
// shapes, so the same derivative and placeholder sizes, as 16384×256 at a
// 64th of the pixels (that one took 11 s of CPU under -race to encode and
// decode). The wide one is wider than every derivative width, the tall one
// narrower than all of them (its placeholder comes from the source).
func TestImages_ElongatedWithinLimits(t *testing.T) {
	t.Parallel()
	const side = 2048
	lim := Limits{MaxSide: side}
	for _, c := range []struct {
		sz          [2]int
		derivatives int
	}{
		{[2]int{side, side / probe.MaxAspect}, len(widths)},
		{[2]int{side / probe.MaxAspect, side}, 0},
	} {
		sz := c.sz
		data := encode(t, probe.PNG, gradient(sz[0], sz[1], 9))
		res, err := Images(context.Background(), bytes.NewReader(data), probe.PNG, widths, lim)
		if err != nil {
			t.Fatalf("%v: %v", sz, err)
		}
		if res.Placeholder == "" || res.Width != sz[0] || res.Height != sz[1] {
			t.Fatalf("%v: %+v", sz, res)
		}
		if len(res.Derivatives) != c.derivatives {
			t.Fatalf("%v: %d derivatives, want %d", sz, len(res.Derivatives), c.derivatives)
		}
		for _, d := range res.Derivatives {
			if d.Width >= sz[0] || d.Height < 1 {
				t.Fatalf("%v: derivative %dx%d", sz, d.Width, d.Height)
			}
		}
	}
}
