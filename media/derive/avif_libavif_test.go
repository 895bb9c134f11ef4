//go:build cgo && libavif

package derive

import (
	"bytes"
	"image"
	"image/color"
	"testing"
)

// TestAVIFEncode: the encoder's output is an AVIF file (an ISO BMFF with
// the avif brand) of a plausible size, for opaque and translucent
// images, and an empty image is an error rather than a crash.
func TestAVIFEncode(t *testing.T) {
	for _, alpha := range []uint8{255, 128} {
		m := image.NewNRGBA(image.Rect(0, 0, 301, 157))
		for y := range 157 {
			for x := range 301 {
				m.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x + y), alpha})
			}
		}
		data, err := encodeAVIF(m, 60)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) < 100 || !bytes.Equal(data[4:12], []byte("ftypavif")) {
			t.Fatalf("alpha %d: not an AVIF: % x", alpha, data[:min(16, len(data))])
		}
		if alpha == 255 && bytes.Contains(data, []byte("auxC")) {
			t.Error("an opaque image got an alpha plane")
		}
		if alpha != 255 && !bytes.Contains(data, []byte("auxC")) {
			t.Error("a translucent image lost its alpha plane")
		}
	}
	if _, err := encodeAVIF(image.NewNRGBA(image.Rect(0, 0, 0, 0)), 60); err == nil {
		t.Error("empty image encoded")
	}
}

func BenchmarkAVIFEncode1200x675(b *testing.B) {
	m := image.NewNRGBA(image.Rect(0, 0, 1200, 675))
	for y := range 675 {
		for x := range 1200 {
			m.SetNRGBA(x, y, color.NRGBA{uint8(x * y), uint8(y), uint8(x ^ y), 255})
		}
	}
	for b.Loop() {
		if _, err := encodeAVIF(m, 80); err != nil {
			b.Fatal(err)
		}
	}
}
