package derive

import (
	"image"
	"image/color"
	"runtime"
	"sync"

	"github.com/disintegration/imaging"
)

// shrinkFactor is the integer box factor applied before the real filter:
// the largest k that keeps the shrunk image at least 1.5× the target, so the
// final filter still does a real (anti-aliasing) reduction.
func shrinkFactor(srcW, srcH, w, h int) int {
	k := min(srcW*2/(w*3), srcH*2/(h*3))
	return max(k, 1)
}

// shrink reduces src by an integer factor k with a box filter, the cheap
// first step of a large downscale (as libvips' shrink-on-load): a 12 MP
// JPEG goes to 3 MP before the Catmull-Rom pass, which then weighs a
// quarter of the pixels. JPEG's YCbCr is averaged in YCbCr (the conversion
// to RGB is affine, so averaging first is the same up to rounding) and
// converted once per output pixel; other images go through imaging's box
// filter.
func shrink(src image.Image, k int) image.Image {
	if k <= 1 {
		return src
	}
	b := src.Bounds()
	w, h := (b.Dx()+k-1)/k, (b.Dy()+k-1)/k
	yc, ok := src.(*image.YCbCr)
	if !ok {
		return imaging.Resize(src, w, h, imaging.Box)
	}
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	hs, vs, ok := chromaShifts(yc)
	rows := func(from, to int) {
		for oy := from; oy < to; oy++ {
			y0 := b.Min.Y + oy*k
			y1 := min(y0+k, b.Max.Y)
			row := out.Pix[oy*out.Stride:]
			for ox := 0; ox < w; ox++ {
				x0 := b.Min.X + ox*k
				x1 := min(x0+k, b.Max.X)
				var sy, scb, scr, n int
				for y := y0; y < y1; y++ {
					yi := yc.YOffset(x0, y)
					if !ok {
						for x := x0; x < x1; x++ {
							ci := yc.COffset(x, y)
							sy += int(yc.Y[yi])
							scb += int(yc.Cb[ci])
							scr += int(yc.Cr[ci])
							yi++
						}
						n += x1 - x0
						continue
					}
					// COffset without the per-pixel call: the chroma row
					// once per row, the column by a shift (coordinates are
					// not negative, so a shift is the division).
					crow := ((y>>vs)-(yc.Rect.Min.Y>>vs))*yc.CStride - yc.Rect.Min.X>>hs
					for _, v := range yc.Y[yi : yi+x1-x0] {
						sy += int(v)
					}
					for x := x0; x < x1; x++ {
						ci := crow + x>>hs
						scb += int(yc.Cb[ci])
						scr += int(yc.Cr[ci])
					}
					n += x1 - x0
				}
				r, g, bb := color.YCbCrToRGB(uint8((sy+n/2)/n), uint8((scb+n/2)/n), uint8((scr+n/2)/n))
				p := row[ox*4 : ox*4+4]
				p[0], p[1], p[2], p[3] = r, g, bb, 255
			}
		}
	}
	// Split the rows between the cores; each writes its own rows only.
	parts := min(runtime.GOMAXPROCS(0), h)
	var wg sync.WaitGroup
	for i := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows(h*i/parts, h*(i+1)/parts)
		}()
	}
	wg.Wait()
	return out
}

// chromaShifts are the horizontal and vertical shifts from a luma to a
// chroma coordinate of m's subsampling; ok is false where a shift is not
// the division COffset does (negative coordinates, an unknown ratio).
func chromaShifts(m *image.YCbCr) (hs, vs uint, ok bool) {
	if m.Rect.Min.X < 0 || m.Rect.Min.Y < 0 {
		return 0, 0, false
	}
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio444:
		return 0, 0, true
	case image.YCbCrSubsampleRatio422:
		return 1, 0, true
	case image.YCbCrSubsampleRatio420:
		return 1, 1, true
	case image.YCbCrSubsampleRatio440:
		return 0, 1, true
	case image.YCbCrSubsampleRatio411:
		return 2, 0, true
	case image.YCbCrSubsampleRatio410:
		return 2, 1, true
	}
	return 0, 0, false
}
