package probe

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata fixtures")

const orient6Fixture = "testdata/orient6.jpg"

func TestSniff(t *testing.T) {
	img := testImage(30, 20)
	tests := []struct {
		name string
		head []byte
		want string // "" = refused
	}{
		{"jpeg", mustEncode(t, JPEG, img), JPEG},
		{"png", mustEncode(t, PNG, img), PNG},
		{"gif", mustEncode(t, GIF, img), GIF},
		{"webp", mustEncode(t, WebP, img), WebP},
		{"pdf", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj"), PDF},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`), SVG},
		{"svg with prolog", []byte("\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg>"), SVG},
		{"mp4 isom", mp4File("vide", 640, 360, 640, 360, false), MP4},
		{"mp4 unknown major, compatible mp42", ftyp("zzzz", "mp42"), MP4},
		{"webm", webmFile("webm", 640, 360), WebM},

		{"empty", nil, ""},
		{"one byte", []byte{0xFF}, ""},
		{"html named .jpg", []byte("<!DOCTYPE html>\n<html><body><svg></svg></body></html>"), ""},
		{"html root", []byte("<html><svg>"), ""},
		{"doctype html then svg", []byte("<!DOCTYPE html><svg>"), ""},
		{"text before svg", []byte("hello <svg>"), ""},
		{"svgfoo element", []byte("<svgfoo>"), ""},
		{"unterminated comment", []byte("<!-- <svg>"), ""},
		{"plain text", []byte("just some text"), ""},
		{"avif", ftyp("avif", "avif", "mif1", "miaf"), ""},
		{"heic", ftyp("heic", "mif1", "heic"), ""},
		{"unknown major with image compat", ftyp("zzzz", "isom", "avif"), ""},
		{"quicktime", ftyp("qt  ", "qt  "), ""},
		{"m4a", ftyp("M4A ", "M4A ", "mp42", "isom"), ""},
		{"ftyp too short", box("ftyp", []byte("isom")), ""},
		{"matroska", webmFile("matroska", 1, 1), ""},
		{"riff wave", []byte("RIFF\x24\x00\x00\x00WAVEfmt "), ""},
		{"riff webp no chunk", []byte("RIFF\x24\x00\x00\x00WEBP"), ""},
		{"zip", []byte("PK\x03\x04rest"), ""},
		{"elf", []byte("\x7fELF\x02\x01\x01"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := tt.head
			if len(head) > SniffLen {
				head = head[:SniffLen]
			}
			got, ok := Sniff(head)
			if ok != (tt.want != "") || got != tt.want {
				t.Fatalf("Sniff = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

func TestDimensions(t *testing.T) {
	img := testImage(60, 40)
	jpg := mustEncode(t, JPEG, img)
	tests := []struct {
		name   string
		mime   string
		data   []byte
		wantW  int
		wantH  int
		errIs  error
		anyErr bool
	}{
		{name: "jpeg", mime: JPEG, data: jpg, wantW: 60, wantH: 40},
		{name: "png", mime: PNG, data: mustEncode(t, PNG, img), wantW: 60, wantH: 40},
		{name: "gif", mime: GIF, data: mustEncode(t, GIF, img), wantW: 60, wantH: 40},
		{name: "webp", mime: WebP, data: mustEncode(t, WebP, img), wantW: 60, wantH: 40},
		{name: "jpeg exif 6 swaps", mime: JPEG, data: withEXIFOrientation(t, jpg, 6), wantW: 40, wantH: 60},
		{name: "jpeg exif 8 swaps", mime: JPEG, data: withEXIFOrientation(t, jpg, 8), wantW: 40, wantH: 60},
		{name: "jpeg exif 3 keeps", mime: JPEG, data: withEXIFOrientation(t, jpg, 3), wantW: 60, wantH: 40},
		{name: "jpeg exif 99 ignored", mime: JPEG, data: withEXIFOrientation(t, jpg, 99), wantW: 60, wantH: 40},
		{name: "svg width height", mime: SVG, data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="120px" height="80.4"/>`), wantW: 120, wantH: 80},
		{name: "svg viewBox", mime: SVG, data: []byte(`<svg viewBox="0 0 300,150"></svg>`), wantW: 300, wantH: 150},
		{name: "svg percent falls back to viewBox", mime: SVG, data: []byte(`<svg width="100%" height="100%" viewBox="0 0 30 15"></svg>`), wantW: 30, wantH: 15},
		{name: "svg width and viewBox ratio", mime: SVG, data: []byte(`<svg width="200" viewBox="0 0 100 50"></svg>`), wantW: 200, wantH: 100},
		{name: "svg no size", mime: SVG, data: []byte(`<svg></svg>`)},
		{name: "svg root not svg", mime: SVG, data: []byte(`<html></html>`), errIs: ErrInvalid},
		{name: "svg not xml", mime: SVG, data: []byte(`<<<`), errIs: ErrInvalid},
		{name: "svg entity", mime: SVG, data: []byte(`<!DOCTYPE svg [<!ENTITY x "y">]><svg/>`), errIs: ErrInvalid},
		{name: "mp4", mime: MP4, data: mp4File("vide", 1920, 1080, 1920, 1088, false), wantW: 1920, wantH: 1080},
		{name: "mp4 rotated", mime: MP4, data: mp4File("vide", 1920, 1080, 1920, 1080, true), wantW: 1080, wantH: 1920},
		{name: "mp4 tkhd zero uses sample entry", mime: MP4, data: mp4File("vide", 0, 0, 640, 480, false), wantW: 640, wantH: 480},
		{name: "mp4 audio only", mime: MP4, data: mp4File("soun", 0, 0, 0, 0, false)},
		{name: "mp4 no moov", mime: MP4, data: ftyp("isom", "isom")},
		{name: "webm", mime: WebM, data: webmFile("webm", 640, 360), wantW: 640, wantH: 360},
		{name: "pdf", mime: PDF, data: []byte("%PDF-1.4")},

		{name: "png header bomb", mime: PNG, data: pngHeader(50000, 50000), errIs: ErrTooLarge},
		{name: "png overflowing header", mime: PNG, data: pngHeader(0x7FFFFFFF, 0x7FFFFFFF), anyErr: true},
		{name: "zero bytes jpeg", mime: JPEG, data: nil, errIs: ErrInvalid},
		{name: "zero bytes png", mime: PNG, data: nil, errIs: ErrInvalid},
		{name: "truncated jpeg", mime: JPEG, data: jpg[:20], errIs: ErrInvalid},
		{name: "truncated png", mime: PNG, data: mustEncode(t, PNG, img)[:20], errIs: ErrInvalid},
		{name: "truncated webp", mime: WebP, data: mustEncode(t, WebP, img)[:14], errIs: ErrInvalid},
		{name: "html as jpeg", mime: JPEG, data: []byte("<html><body>hi</body></html>"), errIs: ErrInvalid},
		{name: "unknown type", mime: "text/html", data: []byte("x"), anyErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h, err := Dimensions(bytes.NewReader(tt.data), tt.mime)
			switch {
			case tt.errIs != nil:
				if !errors.Is(err, tt.errIs) {
					t.Fatalf("err = %v, want %v", err, tt.errIs)
				}
				return
			case tt.anyErr:
				if err == nil {
					t.Fatal("want an error")
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if w != tt.wantW || h != tt.wantH {
				t.Fatalf("got %dx%d, want %dx%d", w, h, tt.wantW, tt.wantH)
			}
		})
	}
}

func TestLimits_Dimensions(t *testing.T) {
	data := mustEncode(t, PNG, testImage(60, 40))
	if _, _, err := (Limits{MaxPixels: 2400}).Dimensions(bytes.NewReader(data), PNG); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	if _, _, err := (Limits{MaxPixels: 2399}).Dimensions(bytes.NewReader(data), PNG); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the limit: err = %v", err)
	}
}

func TestJPEGOrientation(t *testing.T) {
	jpg := mustEncode(t, JPEG, testImage(6, 4))
	for o := uint16(1); o <= 8; o++ {
		if got := JPEGOrientation(bytes.NewReader(withEXIFOrientation(t, jpg, o))); got != int(o) {
			t.Errorf("orientation %d: got %d", o, got)
		}
	}
	if got := JPEGOrientation(bytes.NewReader(jpg)); got != 1 {
		t.Errorf("no EXIF: got %d", got)
	}
	// A corrupt EXIF block must read as "no orientation", never fail.
	bad := withEXIFOrientation(t, jpg, 6)
	bad[2+4+6+4] = 0xFF // IFD offset high byte: points far outside
	if got := JPEGOrientation(bytes.NewReader(bad)); got != 1 {
		t.Errorf("corrupt EXIF: got %d", got)
	}
}

// TestOrient6Fixture checks (and with -update writes) the fixture the media
// library tests reuse: a 60×40 stored JPEG, EXIF orientation 6, displayed
// 40×60 with its top third red.
func TestOrient6Fixture(t *testing.T) {
	if *update {
		data := withEXIFOrientation(t, mustEncode(t, JPEG, testImage(60, 40)), 6)
		if err := os.MkdirAll(filepath.Dir(orient6Fixture), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(orient6Fixture, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(orient6Fixture)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := Sniff(data); !ok || m != JPEG {
		t.Fatalf("Sniff = %q, %v", m, ok)
	}
	w, h, err := Dimensions(bytes.NewReader(data), JPEG)
	if err != nil || w != 40 || h != 60 {
		t.Fatalf("Dimensions = %d, %d, %v; want 40, 60", w, h, err)
	}
}

// TestLimits_SideAndAspect: an image under the pixel limit is still
// refused, on its header, when one side is too long or its shape too
// elongated (issue 23, finding 1: a 50,000,000 × 1 PNG of 48 KB took 5 GB
// to resize).
func TestLimits_SideAndAspect(t *testing.T) {
	tests := []struct {
		w, h uint32
		ok   bool
	}{
		{50_000_000, 1, false},
		{1, 50_000_000, false},
		{MaxSide + 1, 1000, false},
		{1000, MaxSide + 1, false},
		{MaxSide, MaxSide / MaxAspect, true},
		{MaxSide / MaxAspect, MaxSide, true},
		{MaxSide, MaxSide/MaxAspect - 1, false},
		{640, 10, true},
		{641, 10, false},
		{7000, 7000, true},
	}
	for _, tt := range tests {
		_, _, err := Dimensions(bytes.NewReader(pngHeader(tt.w, tt.h)), PNG)
		if tt.ok && err != nil {
			t.Errorf("%dx%d: %v, want accepted", tt.w, tt.h, err)
		}
		if !tt.ok && !errors.Is(err, ErrTooLarge) {
			t.Errorf("%dx%d: err = %v, want ErrTooLarge", tt.w, tt.h, err)
		}
	}
	// Limits of one's own apply instead of the defaults.
	lim := Limits{MaxSide: 100, MaxAspect: 2}
	for _, c := range []struct {
		w, h int
		ok   bool
	}{{100, 50, true}, {101, 60, false}, {100, 49, false}, {50, 100, true}} {
		if err := lim.Check(c.w, c.h); (err == nil) != c.ok {
			t.Errorf("Check(%d, %d) with %+v = %v", c.w, c.h, lim, err)
		}
	}
}
