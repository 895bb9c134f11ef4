// Package derive turns an uploaded raster image into its WebP derivatives,
// a blurhash placeholder and a dominant color. It decodes once, checks the
// pixel and byte limits before decoding, applies EXIF orientation, and
// never panics on crafted input.
package derive

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"slices"
	"sync"

	"github.com/disintegration/imaging"
	"golang.org/x/image/webp"

	"github.com/folio-cms/folio/media/probe"
)

// Quality is the WebP quality of every derivative.
const Quality = 80

// Defaults for zero fields of Limits.
const (
	DefaultMaxPixels = probe.MaxPixels
	DefaultMaxBytes  = 100 << 20
)

var (
	// ErrDecode wraps every failure to read the image itself: truncated,
	// corrupt, or a decoder that gave up (or panicked).
	ErrDecode = errors.New("derive: cannot decode image")
	// ErrTooLarge is probe.ErrTooLarge, so one errors.Is covers both
	// packages: the header claims more pixels, or the file has more bytes,
	// than the limits allow.
	ErrTooLarge = probe.ErrTooLarge
	// ErrUnsupported is returned for a type that has no derivatives (SVG,
	// PDF, video).
	ErrUnsupported = errors.New("derive: no derivatives for this type")
)

// Limits bound the work Images accepts. Zero fields take the defaults.
type Limits struct {
	MaxPixels int   // width × height as stored; default DefaultMaxPixels
	MaxSide   int   // longest side as stored; default probe.MaxSide
	MaxAspect int   // long side / short side; default probe.MaxAspect
	MaxBytes  int64 // size of the encoded input; default DefaultMaxBytes
}

// probe is the limits on the header, for probe.Limits.Check.
func (l Limits) probe() probe.Limits {
	return probe.Limits{MaxPixels: l.MaxPixels, MaxSide: l.MaxSide, MaxAspect: l.MaxAspect}
}

func (l Limits) withDefaults() Limits {
	if l.MaxPixels <= 0 {
		l.MaxPixels = DefaultMaxPixels
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// Derivative is one WebP-encoded rendition.
type Derivative struct {
	Width, Height int
	Data          []byte
}

// Result is what Images produces.
type Result struct {
	// Derivatives are ordered as the widths asked for, skipping widths not
	// strictly smaller than the image (no upscaling) and duplicates.
	Derivatives []Derivative
	// Width and Height are the displayed size, after EXIF orientation.
	Width, Height int
	// Placeholder is a blurhash with 4×3 components.
	Placeholder string
	// DominantColor is "#rrggbb": the centre of the most common color
	// bucket of a small rendition.
	DominantColor string
}

// Images decodes the image read from r (of the sniffed mimeType: JPEG, PNG,
// GIF first frame, WebP) once and produces a WebP derivative for each
// width smaller than the oriented image, plus placeholder and dominant
// color. Limits are checked from the header before any pixel is decoded.
// The context is checked between steps; encoding runs in parallel with the
// next resize.
func Images(ctx context.Context, r io.ReadSeeker, mimeType string, widths []int, lim Limits) (*Result, error) {
	return images(ctx, r, mimeType, widths, lim.withDefaults(), defaultPipeline)
}

// pipeline holds the choices measured in BenchmarkImages12MP, kept as
// parameters so the benchmark can compare them.
type pipeline struct {
	first       imaging.ResampleFilter // source → largest derivative
	next        imaging.ResampleFilter // derivative → next smaller one
	progressive bool                   // resize from the previous derivative, not the source
	prescale    bool                   // box-shrink the source by an integer factor first (shrink.go)
}

// defaultPipeline, from BenchmarkPipelines on a 12 MP JPEG (CPU time per
// op, the machine being shared): Lanczos from the source costs ~1170 ms,
// Catmull-Rom ~865 ms; resizing each derivative from the previous one
// brings them to ~475 and ~400 ms, and an integer box shrink first to ~320
// and ~300 ms, where the WebP encoding dominates. At that point Lanczos'
// sharper result costs almost nothing more, so it is used throughout.
var defaultPipeline = pipeline{
	first:       imaging.Lanczos,
	next:        imaging.Lanczos,
	progressive: true,
	prescale:    true,
}

func images(ctx context.Context, r io.ReadSeeker, mimeType string, widths []int, lim Limits, p pipeline) (*Result, error) {
	src, err := decodeChecked(ctx, r, mimeType, lim, func(w, h, orientation int) int {
		return imagesDenom(w, h, orientation, widths)
	})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return render(ctx, src, widths, p)
}

// imagesDenom is the JPEG shrink-on-load denominator for the derivatives
// of an image stored w×h: the largest that keeps the largest derivative
// (else the placeholder's rendition) a reduction.
func imagesDenom(w, h, orientation int, widths []int) int {
	swap := orientation >= 5 && orientation <= 8
	ow, oh := w, h
	if swap {
		ow, oh = oh, ow
	}
	tw := 0
	for _, dw := range widths {
		if dw < ow {
			tw = max(tw, dw)
		}
	}
	th := 0
	if tw > 0 {
		th = max(1, (oh*tw+ow/2)/ow)
		if swap {
			tw, th = th, tw
		}
	} else {
		tw, th = tinySize(w, h)
	}
	return jpegDenom(w, h, tw, th)
}

// tinySize is the size of the placeholder's rendition of a w×h image:
// its aspect ratio inside a placeholderWidth square, never larger than
// the image, at least one pixel a side.
func tinySize(w, h int) (int, int) {
	if w <= placeholderWidth && h <= placeholderWidth {
		return w, h
	}
	if w >= h {
		return placeholderWidth, max(1, (h*placeholderWidth+w/2)/w)
	}
	return max(1, (w*placeholderWidth+h/2)/h), placeholderWidth
}

func drawSrc(dst *image.NRGBA, b image.Rectangle, src image.Image) {
	// A first frame smaller than the logical screen: place it on a
	// transparent screen-sized canvas, as a browser shows it.
	draw.Draw(dst, b, src, b.Min, draw.Src)
}

// decode runs the decoder for mimeType, turning a panic into ErrDecode:
// some decoders have panicked on crafted input in the past.
func decode(r io.Reader, mimeType string) (m image.Image, err error) {
	defer func() {
		if p := recover(); p != nil {
			m, err = nil, fmt.Errorf("%w: %s decoder panic: %v", ErrDecode, mimeType, p)
		}
	}()
	switch mimeType {
	case probe.JPEG:
		m, err = jpeg.Decode(r)
	case probe.PNG:
		m, err = png.Decode(r)
	case probe.GIF:
		m, err = gif.Decode(r) // the first frame
	case probe.WebP:
		// The pure-Go decoder, not libwebp through cgo: a memory-safety bug
		// in C on an uploaded file would be a crash or worse, not an error.
		if m, err = webp.Decode(r); err == nil {
			m = limitedToNRGBA(m)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrDecode, mimeType, err)
	}
	return m, nil
}

// render produces the derivatives of the decoded src, oriented. Their
// sizes follow the stored size (src.W×src.H), whatever a JPEG's
// shrink-on-load left of it.
func render(ctx context.Context, src decoded, widths []int, p pipeline) (*Result, error) {
	orientation := src.orientation
	sb := src.img.Bounds()
	swap := orientation >= 5 && orientation <= 8
	ow, oh := src.W, src.H
	if swap {
		ow, oh = oh, ow
	}
	res := &Result{Width: ow, Height: oh}

	// Largest first, so each can be made from the one before.
	var todo []int
	for _, w := range widths {
		if w > 0 && w < ow && !slices.Contains(todo, w) {
			todo = append(todo, w)
		}
	}
	order := slices.Clone(todo)
	slices.SortFunc(order, func(a, b int) int { return b - a })

	type job struct {
		img *image.NRGBA
		out *Derivative
		err error
	}
	derivs := make([]Derivative, len(order))
	var wg sync.WaitGroup
	jobs := make([]*job, len(order))

	prev := src.img // in stored orientation until the first resize
	prevOriented := false
	var smallest *image.NRGBA
	for i, w := range order {
		if err := ctx.Err(); err != nil {
			wg.Wait()
			return nil, err
		}
		h := max(1, (oh*w+ow/2)/ow)
		var img *image.NRGBA
		if !prevOriented {
			// Resize in stored orientation and rotate the small result:
			// rotating the full-size source would cost a full-size copy.
			sw, sh := w, h
			if swap {
				sw, sh = h, w
			}
			from := prev
			if p.prescale {
				fb := from.Bounds()
				from = shrink(from, shrinkFactor(fb.Dx(), fb.Dy(), sw, sh))
			}
			img = orient(imaging.Resize(from, sw, sh, p.first), orientation)
		} else {
			img = imaging.Resize(prev, w, h, p.next)
		}
		if p.progressive {
			prev, prevOriented = img, true
		}
		smallest = img
		j := &job{img: img, out: &derivs[i]}
		jobs[i] = j
		wg.Add(1)
		go func() {
			defer wg.Done()
			data, err := encodeWebP(j.img)
			*j.out = Derivative{Width: j.img.Bounds().Dx(), Height: j.img.Bounds().Dy(), Data: data}
			j.err = err
		}()
	}

	// The placeholder comes from the smallest derivative when there is one,
	// else from the (small) source itself.
	// Either way it fits a placeholderWidth square, whatever the shape:
	// the blurhash costs in proportion to its pixels.
	var tiny *image.NRGBA
	if smallest != nil {
		b := smallest.Bounds()
		tw, th := tinySize(b.Dx(), b.Dy())
		tiny = imaging.Resize(smallest, tw, th, imaging.Linear)
	} else {
		// Shrink in stored orientation and rotate the tiny result, never a
		// full-size copy.
		tw, th := tinySize(sb.Dx(), sb.Dy())
		from := shrink(src.img, shrinkFactor(sb.Dx(), sb.Dy(), tw, th))
		tiny = orient(imaging.Resize(from, tw, th, imaging.Linear), orientation)
	}
	ph, err := placeholder(tiny)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		if j.err != nil {
			return nil, j.err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.Placeholder = ph
	res.DominantColor = dominantColor(tiny)
	// Back to the order the caller asked for.
	for _, w := range todo {
		i := slices.Index(order, w)
		res.Derivatives = append(res.Derivatives, derivs[i])
	}
	return res, nil
}
