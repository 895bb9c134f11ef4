package derive

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"testing"

	"github.com/folio-cms/folio/media/probe"
)

func TestShrink_YCbCr(t *testing.T) {
	t.Parallel()
	// 101×51 4:2:0, left half black, right half white: odd sizes exercise
	// the partial blocks at the right and bottom edges.
	yc := image.NewYCbCr(image.Rect(0, 0, 101, 51), image.YCbCrSubsampleRatio420)
	for y := 0; y < 51; y++ {
		for x := 0; x < 101; x++ {
			if x >= 52 {
				yc.Y[yc.YOffset(x, y)] = 255
			}
		}
	}
	for i := range yc.Cb {
		yc.Cb[i], yc.Cr[i] = 128, 128
	}
	m := shrink(yc, 4).(*image.NRGBA)
	if b := m.Bounds(); b.Dx() != 26 || b.Dy() != 13 {
		t.Fatalf("bounds %v, want 26x13", b)
	}
	for _, tc := range []struct {
		x, y int
		want uint8
	}{{0, 0, 0}, {12, 6, 0}, {13, 6, 255}, {25, 12, 255}} {
		if got := m.NRGBAAt(tc.x, tc.y); got != (color.NRGBA{tc.want, tc.want, tc.want, 255}) {
			t.Errorf("(%d,%d) = %v, want %d", tc.x, tc.y, got, tc.want)
		}
	}
	if shrink(yc, 1) != image.Image(yc) {
		t.Error("factor 1 must return the source")
	}
}

// TestShrink_YCbCrRatios: every subsampling, on whole images and on
// sub-images at odd offsets, gives what averaging each pixel's YCbCr read
// through the image's own offsets gives.
func TestShrink_YCbCrRatios(t *testing.T) {
	t.Parallel()
	ratios := []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422,
		image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410}
	for _, ratio := range ratios {
		full := image.NewYCbCr(image.Rect(0, 0, 67, 45), ratio)
		for i := range full.Y {
			full.Y[i] = uint8(i * 7)
		}
		for i := range full.Cb {
			full.Cb[i], full.Cr[i] = uint8(i*13), uint8(255-i*5)
		}
		for _, m := range []*image.YCbCr{full, full.SubImage(image.Rect(5, 3, 60, 44)).(*image.YCbCr)} {
			for _, k := range []int{2, 3, 4} {
				got := shrink(m, k).(*image.NRGBA)
				b := m.Bounds()
				for oy := 0; oy < got.Bounds().Dy(); oy++ {
					for ox := 0; ox < got.Bounds().Dx(); ox++ {
						var sy, scb, scr, n int
						for y := b.Min.Y + oy*k; y < min(b.Min.Y+oy*k+k, b.Max.Y); y++ {
							for x := b.Min.X + ox*k; x < min(b.Min.X+ox*k+k, b.Max.X); x++ {
								c := m.YCbCrAt(x, y)
								sy, scb, scr, n = sy+int(c.Y), scb+int(c.Cb), scr+int(c.Cr), n+1
							}
						}
						r, g, bb := color.YCbCrToRGB(uint8((sy+n/2)/n), uint8((scb+n/2)/n), uint8((scr+n/2)/n))
						if want := (color.NRGBA{r, g, bb, 255}); got.NRGBAAt(ox, oy) != want {
							t.Fatalf("%v %v k=%d (%d,%d) = %v, want %v", ratio, b, k, ox, oy, got.NRGBAAt(ox, oy), want)
						}
					}
				}
			}
		}
	}
}

func TestShrinkFactor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ sw, sh, w, h, want int }{
		{4000, 3000, 1200, 900, 2},
		{4000, 3000, 150, 113, 17},
		{1000, 500, 800, 400, 1},
		{3000, 4000, 900, 1200, 2},
	} {
		if got := shrinkFactor(tc.sw, tc.sh, tc.w, tc.h); got != tc.want {
			t.Errorf("%+v: got %d", tc, got)
		}
	}
}

// FuzzImages feeds corrupted small images of every type: errors are fine,
// panics and hangs are not. The seeds run in every `go test`.
func FuzzImages(f *testing.F) {
	src := gradient(64, 48, 9)
	for _, mt := range []string{probe.JPEG, probe.PNG, probe.GIF, probe.WebP} {
		var data []byte
		if mt == probe.JPEG {
			var b bytes.Buffer
			if err := jpeg.Encode(&b, src, nil); err != nil {
				f.Fatal(err)
			}
			data = b.Bytes()
		} else {
			data = encode(f, mt, src)
		}
		f.Add(mt, data)
		for _, i := range []int{10, 30, 60, 100, len(data) / 2, len(data) - 5} {
			if i < len(data) {
				c := bytes.Clone(data)
				c[i] ^= 0x5A
				f.Add(mt, c)
				f.Add(mt, data[:i])
			}
		}
	}
	f.Fuzz(func(t *testing.T, mt string, data []byte) {
		res, err := Images(context.Background(), bytes.NewReader(data), mt, []int{16, 40}, Limits{MaxPixels: 1 << 20})
		if err == nil && (res.Width <= 0 || res.Height <= 0) {
			t.Fatalf("%s: size %dx%d without error", mt, res.Width, res.Height)
		}
	})
}
