package derive

import (
	"fmt"
	"image"
	"image/color"
	"strings"

	"github.com/buckket/go-blurhash"
	"github.com/chai2010/webp"
	"github.com/disintegration/imaging"
)

// placeholderWidth is the width of the rendition the blurhash and the
// dominant color are computed from: enough for 4×3 components, and cheap.
const placeholderWidth = 32

// orient applies an EXIF orientation (1 to 8) to m.
func orient(m *image.NRGBA, orientation int) *image.NRGBA {
	switch orientation {
	case 2:
		return imaging.FlipH(m)
	case 3:
		return imaging.Rotate180(m)
	case 4:
		return imaging.FlipV(m)
	case 5:
		return imaging.Transpose(m)
	case 6:
		return imaging.Rotate270(m) // 90° clockwise
	case 7:
		return imaging.Transverse(m)
	case 8:
		return imaging.Rotate90(m) // 90° counter-clockwise
	}
	return m
}

// encodeWebP encodes m lossy at Quality. libwebp wants straight
// (non-premultiplied) RGBA, which is exactly the layout of NRGBA; the
// library's own conversion would premultiply it through image.RGBA and
// darken translucent edges, so the pixels are handed over as they are.
func encodeWebP(m *image.NRGBA) ([]byte, error) { return encodeWebPQ(m, Quality) }

func encodeWebPQ(m *image.NRGBA, quality int) ([]byte, error) {
	straight := &image.RGBA{Pix: m.Pix, Stride: m.Stride, Rect: m.Rect}
	data, err := webp.EncodeRGBA(straight, float32(quality))
	if err != nil {
		return nil, fmt.Errorf("derive: webp encode %dx%d: %w", m.Rect.Dx(), m.Rect.Dy(), err)
	}
	return data, nil
}

func placeholder(tiny *image.NRGBA) (string, error) {
	h, err := blurhash.Encode(4, 3, tiny)
	if err != nil {
		return "", fmt.Errorf("derive: blurhash: %w", err)
	}
	return h, nil
}

// dominantColor returns the mean color of the most populated bucket (4 bits
// per channel) of tiny, ignoring mostly transparent pixels. Unlike a plain
// average, a red flower on green grass stays red or green, not brown.
func dominantColor(tiny *image.NRGBA) string {
	var count [4096]int
	var sum [4096][3]int
	b := tiny.Bounds()
	total := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := tiny.Pix[(y-b.Min.Y)*tiny.Stride:]
		for x := 0; x < b.Dx(); x++ {
			px := row[x*4 : x*4+4]
			if px[3] < 128 {
				continue
			}
			k := int(px[0]>>4)<<8 | int(px[1]>>4)<<4 | int(px[2]>>4)
			count[k]++
			sum[k][0] += int(px[0])
			sum[k][1] += int(px[1])
			sum[k][2] += int(px[2])
			total++
		}
	}
	if total == 0 {
		return "#000000"
	}
	best := 0
	for k := range count {
		if count[k] > count[best] {
			best = k
		}
	}
	n := count[best]
	c := color.RGBA{uint8(sum[best][0] / n), uint8(sum[best][1] / n), uint8(sum[best][2] / n), 255}
	return strings.ToLower(fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B))
}

// limitedToNRGBA converts the planes x/image/webp returns for lossy WebP.
// VP8 stores limited-range BT.601 YCbCr, but image.YCbCr means full range
// (JPEG), so drawing it directly lifts blacks and dims whites
// (golang/go#40173); this applies libwebp's own conversion instead.
// Lossless WebP decodes to NRGBA and is returned unchanged.
func limitedToNRGBA(m image.Image) image.Image {
	var yc *image.YCbCr
	var alpha []byte
	var aStride int
	switch t := m.(type) {
	case *image.YCbCr:
		yc = t
	case *image.NYCbCrA:
		yc, alpha, aStride = &t.YCbCr, t.A, t.AStride
	default:
		return m
	}
	b := yc.Rect
	out := image.NewNRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := out.Pix[(y-b.Min.Y)*out.Stride:]
		for x := b.Min.X; x < b.Max.X; x++ {
			yi, ci := yc.YOffset(x, y), yc.COffset(x, y)
			// Fixed point, 14 fractional bits: 1.164, 1.596, 0.391, 0.813, 2.018.
			yy := (int32(yc.Y[yi]) - 16) * 19071
			u, v := int32(yc.Cb[ci])-128, int32(yc.Cr[ci])-128
			p := row[(x-b.Min.X)*4:]
			p[0] = clamp8((yy + 26149*v + 1<<13) >> 14)
			p[1] = clamp8((yy - 6406*u - 13320*v + 1<<13) >> 14)
			p[2] = clamp8((yy + 33063*u + 1<<13) >> 14)
			p[3] = 255
			if alpha != nil {
				p[3] = alpha[(y-b.Min.Y)*aStride+(x-b.Min.X)]
			}
		}
	}
	return out
}

func clamp8(v int32) uint8 {
	switch {
	case v < 0:
		return 0
	case v > 255:
		return 255
	}
	return uint8(v)
}
