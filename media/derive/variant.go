package derive

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"math"

	"github.com/disintegration/imaging"

	"github.com/folio-cms/folio/media/probe"
)

// Spec is one variant of an image asked for by URL (/uploads/<key>?w=…).
type Spec struct {
	// W and H are the size of the result; one may be 0, and follows the
	// image's aspect ratio.
	W, H int
	// Fit is "cover" (fill W×H exactly, cropping around the focal point)
	// or "contain" (fit inside W×H, keeping the aspect ratio).
	Fit string
	// Format is "webp", "jpeg", "png" or "avif" (when AVIF); Quality
	// (1 to 100) is for the lossy ones.
	Format  string
	Quality int
}

// Variant formats.
const (
	FormatWebP = "webp"
	FormatJPEG = "jpeg"
	FormatPNG  = "png"
	FormatAVIF = "avif"
)

// ContentType is the MIME type of a variant format.
func ContentType(format string) string {
	switch format {
	case FormatWebP:
		return "image/webp"
	case FormatJPEG:
		return "image/jpeg"
	case FormatPNG:
		return "image/png"
	case FormatAVIF:
		return "image/avif"
	}
	return ""
}

// Ext is the file extension of a variant format.
func Ext(format string) string {
	if format == FormatJPEG {
		return ".jpg"
	}
	return "." + format
}

// variantFilter resamples after the integer box shrink (see shrink.go),
// which leaves less than 3× to reduce. imaging widens a filter's support
// by the reduction ratio, so Linear is still a proper (tent) low-pass
// there; BenchmarkVariant (1200×675 cover of a 12 MP JPEG, CPU per op,
// shared machine): Linear 82 ms, Catmull-Rom 105 ms, Lanczos 119 ms for
// crop and resize, next to 156 ms for the JPEG decode. The variant is made
// on a request's path, so the cheapest adequate filter is used.
var variantFilter = imaging.Linear

// Variant decodes the image read from r (JPEG, PNG, GIF first frame,
// WebP), checks the limits on its header first, and renders spec. focalX
// and focalY (0 to 100, of the image as displayed) stay in frame of a
// cover crop. The crop is cut from the decoded image before any resize,
// so only its pixels are resampled.
func Variant(ctx context.Context, r io.ReadSeeker, mimeType string, spec Spec, focalX, focalY float64, lim Limits) ([]byte, error) {
	src, err := decodeChecked(ctx, r, mimeType, lim.withDefaults(), func(w, h, orientation int) int {
		return variantDenom(spec, w, h, orientation, focalX, focalY)
	})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := renderVariant(src, spec, focalX, focalY, variantFilter)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return encodeVariant(m, spec)
}

// decoded is an image as decodeChecked returns it.
type decoded struct {
	// img is the image in stored orientation; a JPEG may come shrunk on
	// load, smaller than W×H.
	img image.Image
	// W and H are the stored size, as the header says.
	W, H        int
	orientation int // EXIF, 1 to 8
}

// denomFunc picks the JPEG shrink-on-load denominator (1, 2, 4, 8) for an
// image stored w×h with an EXIF orientation: what the renders after the
// decode need at most.
type denomFunc func(w, h, orientation int) int

// decodeChecked is the decode step of images: limits on the header, EXIF
// orientation, one decode, the header's size checked against the result.
// A JPEG is decoded at the scale denom asks for (nil: full size) where the
// build has libjpeg-turbo (jpeg_turbo.go), else at full size.
func decodeChecked(ctx context.Context, r io.ReadSeeker, mimeType string, lim Limits, denom denomFunc) (decoded, error) {
	var none decoded
	switch mimeType {
	case probe.JPEG, probe.PNG, probe.GIF, probe.WebP:
	default:
		return none, fmt.Errorf("%w: %q", ErrUnsupported, mimeType)
	}
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return none, fmt.Errorf("derive: %w", err)
	}
	if size > lim.MaxBytes {
		return none, fmt.Errorf("%w: %d bytes is more than %d", ErrTooLarge, size, lim.MaxBytes)
	}
	if size == 0 {
		return none, fmt.Errorf("%w: empty file", ErrDecode)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return none, fmt.Errorf("derive: %w", err)
	}
	cfg, err := probe.DecodeConfig(r, mimeType)
	if err != nil {
		return none, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	if err := lim.probe().Check(cfg.Width, cfg.Height); err != nil {
		return none, err
	}
	orientation := 1
	if mimeType == probe.JPEG {
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return none, fmt.Errorf("derive: %w", err)
		}
		orientation = probe.JPEGOrientation(r)
	}
	if err := ctx.Err(); err != nil {
		return none, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return none, fmt.Errorf("derive: %w", err)
	}
	var src image.Image
	wantW, wantH := cfg.Width, cfg.Height
	if mimeType == probe.JPEG {
		d := 1
		if denom != nil {
			d = denom(cfg.Width, cfg.Height, orientation)
		}
		src, d, err = decodeJPEG(io.LimitReader(r, lim.MaxBytes), size, cfg.Width, cfg.Height, d)
		wantW, wantH = scaledSize(cfg.Width, cfg.Height, d)
	} else {
		src, err = decode(io.LimitReader(r, lim.MaxBytes), mimeType)
	}
	if err != nil {
		return none, err
	}
	b := src.Bounds()
	if mimeType == probe.GIF && b != image.Rect(0, 0, cfg.Width, cfg.Height) && b.In(image.Rect(0, 0, cfg.Width, cfg.Height)) {
		canvas := image.NewNRGBA(image.Rect(0, 0, cfg.Width, cfg.Height))
		drawSrc(canvas, b, src)
		src, b = canvas, canvas.Bounds()
	}
	if b.Dx() != wantW || b.Dy() != wantH {
		return none, fmt.Errorf("%w: decoded %dx%d, header said %dx%d", ErrDecode, b.Dx(), b.Dy(), wantW, wantH)
	}
	return decoded{img: src, W: cfg.Width, H: cfg.Height, orientation: orientation}, nil
}

// VariantSize is the size of spec's result for an image of w×h as
// displayed: W×H for cover, the largest size of the image's aspect ratio
// inside W×H for contain (or with one of them 0).
func VariantSize(spec Spec, w, h int) (int, int) {
	if spec.Fit == "cover" && spec.W > 0 && spec.H > 0 {
		return spec.W, spec.H
	}
	scale := math.Inf(1)
	if spec.W > 0 {
		scale = float64(spec.W) / float64(w)
	}
	if spec.H > 0 {
		scale = min(scale, float64(spec.H)/float64(h))
	}
	return max(1, int(math.Round(float64(w)*scale))), max(1, int(math.Round(float64(h)*scale)))
}

// coverRect is the region of an ow×oh image (as displayed) that a cover
// crop to tw×th keeps: the largest of the target's aspect ratio, centred
// on the focal point as far as the image's edges allow.
func coverRect(ow, oh, tw, th int, focalX, focalY float64) image.Rectangle {
	cw, ch := ow, oh
	if ow*th > oh*tw { // wider than the target: cut the sides
		cw = max(1, min(ow, int(math.Round(float64(oh)*float64(tw)/float64(th)))))
	} else {
		ch = max(1, min(oh, int(math.Round(float64(ow)*float64(th)/float64(tw)))))
	}
	place := func(focal float64, full, part int) int {
		c := focal / 100 * float64(full)
		return min(max(0, int(math.Round(c-float64(part)/2))), full-part)
	}
	x0, y0 := place(focalX, ow, cw), place(focalY, oh, ch)
	return image.Rect(x0, y0, x0+cw, y0+ch)
}

// storedRect maps a rectangle of the displayed (oriented) image back to
// the stored one of sw×sh pixels, for an EXIF orientation 1 to 8.
func storedRect(r image.Rectangle, sw, sh, orientation int) image.Rectangle {
	pt := func(x, y int) (int, int) {
		switch orientation {
		case 2:
			return sw - 1 - x, y
		case 3:
			return sw - 1 - x, sh - 1 - y
		case 4:
			return x, sh - 1 - y
		case 5:
			return y, x
		case 6:
			return y, sh - 1 - x
		case 7:
			return sw - 1 - y, sh - 1 - x
		case 8:
			return sw - 1 - y, x
		}
		return x, y
	}
	ax, ay := pt(r.Min.X, r.Min.Y)
	bx, by := pt(r.Max.X-1, r.Max.Y-1)
	return image.Rect(min(ax, bx), min(ay, by), max(ax, bx)+1, max(ay, by)+1)
}

// variantDenom is the JPEG shrink-on-load denominator for spec of an
// image stored w×h: the largest that leaves the region spec keeps at
// least the size of the result.
func variantDenom(spec Spec, w, h, orientation int, focalX, focalY float64) int {
	swap := orientation >= 5 && orientation <= 8
	ow, oh := w, h
	if swap {
		ow, oh = oh, ow
	}
	tw, th := VariantSize(spec, ow, oh)
	rw, rh := ow, oh
	if spec.Fit == "cover" && spec.W > 0 && spec.H > 0 {
		r := coverRect(ow, oh, tw, th, focalX, focalY)
		rw, rh = r.Dx(), r.Dy()
	}
	if swap {
		rw, rh, tw, th = rh, rw, th, tw
	}
	return jpegDenom(rw, rh, tw, th)
}

// renderVariant crops (cover) in stored orientation, shrinks by an
// integer box factor, resamples to the exact size and orients the small
// result. Sizes and the crop are worked out on the full stored size
// (src.W×src.H) and the crop scaled to the pixels decoded, which a JPEG's
// shrink-on-load may have made fewer.
func renderVariant(src decoded, spec Spec, focalX, focalY float64, filter imaging.ResampleFilter) *image.NRGBA {
	orientation := src.orientation
	swap := orientation >= 5 && orientation <= 8
	ow, oh := src.W, src.H
	if swap {
		ow, oh = oh, ow
	}
	tw, th := VariantSize(spec, ow, oh)
	region := image.Rect(0, 0, ow, oh)
	if spec.Fit == "cover" && spec.W > 0 && spec.H > 0 {
		region = coverRect(ow, oh, tw, th, focalX, focalY)
	}
	sb := src.img.Bounds()
	sr := scaleRect(storedRect(region, src.W, src.H, orientation), src.W, src.H, sb.Dx(), sb.Dy()).Add(sb.Min)
	from := subImage(src.img, sr)
	sw, sh := tw, th
	if swap {
		sw, sh = th, tw
	}
	from = shrink(from, shrinkFactor(sr.Dx(), sr.Dy(), sw, sh))
	return orient(imaging.Resize(from, sw, sh, filter), orientation)
}

// scaleRect maps r, of an image of w×h, to the same part of that image
// scaled to dw×dh (at least one pixel, inside the bounds).
func scaleRect(r image.Rectangle, w, h, dw, dh int) image.Rectangle {
	if w == dw && h == dh {
		return r
	}
	sx := func(v int) int { return int(math.Round(float64(v) * float64(dw) / float64(w))) }
	sy := func(v int) int { return int(math.Round(float64(v) * float64(dh) / float64(h))) }
	x0, y0 := min(sx(r.Min.X), dw-1), min(sy(r.Min.Y), dh-1)
	x1, y1 := min(max(sx(r.Max.X), x0+1), dw), min(max(sy(r.Max.Y), y0+1), dh)
	return image.Rect(x0, y0, x1, y1)
}

func subImage(m image.Image, r image.Rectangle) image.Image {
	if s, ok := m.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok {
		return s.SubImage(r)
	}
	return imaging.Crop(m, r)
}

func encodeVariant(m *image.NRGBA, spec Spec) ([]byte, error) {
	switch spec.Format {
	case FormatWebP:
		return encodeWebPQ(m, spec.Quality)
	case FormatJPEG:
		var buf bytes.Buffer
		// The encoder's fast path reads RGBA; JPEG has no alpha, and the
		// straight colours of NRGBA are what a translucent pixel shows.
		rgb := &image.RGBA{Pix: m.Pix, Stride: m.Stride, Rect: m.Rect}
		if err := jpeg.Encode(&buf, rgb, &jpeg.Options{Quality: spec.Quality}); err != nil {
			return nil, fmt.Errorf("derive: jpeg encode: %w", err)
		}
		return buf.Bytes(), nil
	case FormatPNG:
		var buf bytes.Buffer
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(&buf, m); err != nil {
			return nil, fmt.Errorf("derive: png encode: %w", err)
		}
		return buf.Bytes(), nil
	case FormatAVIF:
		return encodeAVIF(m, spec.Quality)
	}
	return nil, fmt.Errorf("derive: unknown variant format %q", spec.Format)
}
