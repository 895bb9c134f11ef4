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
	t.Parallel()
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
	// Odd and tiny sizes, every quality end, and a sub-image (a stride
	// wider than the width).
	for _, r := range []image.Rectangle{image.Rect(0, 0, 1, 1), image.Rect(0, 0, 3, 1), image.Rect(0, 0, 1, 5), image.Rect(0, 0, 17, 9)} {
		for _, q := range []int{1, 100} {
			if data, err := encodeAVIF(image.NewNRGBA(r), q); err != nil || !bytes.Equal(data[4:12], []byte("ftypavif")) {
				t.Errorf("%v q %d: %v", r, q, err)
			}
		}
	}
	big := image.NewNRGBA(image.Rect(0, 0, 40, 40))
	if _, err := encodeAVIF(big.SubImage(image.Rect(5, 5, 20, 30)).(*image.NRGBA), 80); err != nil {
		t.Errorf("sub-image: %v", err)
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
