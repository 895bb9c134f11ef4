package probe

import (
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/webp"
)

// MaxPixels is the default largest image (width × height) accepted: a
// 50-megapixel RGBA decode is 200 MB already.
const MaxPixels = 50_000_000

// MaxSide is the default longest side of a raster image, and MaxAspect
// the default largest ratio of its long side to its short one. Both are
// checked with the pixel limit, on the header, before any decode (as
// imgproxy bounds its sources): resampling costs memory in proportion to
// a side, not to the pixels, so a 50,000,000 × 1 PNG of 48 KB, under the
// pixel limit, took 5 GB to resize before these limits. 16384 is also
// one more than the largest side WebP (and so a derivative) can have;
// 64:1 admits panoramas and long strips (16384 × 256) but not lines.
const (
	MaxSide   = 16384
	MaxAspect = 64
)

// MaxSVGBytes bounds SVG input for Dimensions and SanitizeSVG.
const MaxSVGBytes = 10 << 20

// ErrTooLarge is returned for an image whose header claims more than the
// pixel limit, a longer side than the side limit or a more elongated shape
// than the aspect limit, before anything is decoded.
var ErrTooLarge = errors.New("probe: image too large")

// ErrInvalid wraps failures to read an image header or an SVG document.
var ErrInvalid = errors.New("probe: invalid or unreadable file")

// Limits bound what Dimensions accepts. The zero value means the defaults.
type Limits struct {
	MaxPixels   int   // width × height of a raster image; default MaxPixels
	MaxSide     int   // longest side of a raster image; default MaxSide
	MaxAspect   int   // long side / short side of a raster image; default MaxAspect
	MaxSVGBytes int64 // default MaxSVGBytes
}

func (l Limits) withDefaults() Limits {
	if l.MaxPixels <= 0 {
		l.MaxPixels = MaxPixels
	}
	if l.MaxSide <= 0 {
		l.MaxSide = MaxSide
	}
	if l.MaxAspect <= 0 {
		l.MaxAspect = MaxAspect
	}
	if l.MaxSVGBytes <= 0 {
		l.MaxSVGBytes = MaxSVGBytes
	}
	return l
}

// Check refuses a raster image of w×h stored pixels beyond the pixel,
// side or aspect limits (zero fields: the defaults) with ErrTooLarge, and
// an empty one with ErrInvalid.
func (l Limits) Check(w, h int) error {
	l = l.withDefaults()
	if err := CheckPixels(w, h, l.MaxPixels); err != nil {
		return err
	}
	long, short := max(w, h), min(w, h)
	if long > l.MaxSide {
		return fmt.Errorf("%w: %dx%d has a side longer than %d pixels", ErrTooLarge, w, h, l.MaxSide)
	}
	if long/short > l.MaxAspect || (long%short != 0 && long/short == l.MaxAspect) {
		return fmt.Errorf("%w: %dx%d is more elongated than %d:1", ErrTooLarge, w, h, l.MaxAspect)
	}
	return nil
}

// Dimensions is Limits{}.Dimensions: the default limits.
func Dimensions(r io.ReadSeeker, mimeType string) (w, h int, err error) {
	return Limits{}.Dimensions(r, mimeType)
}

// Dimensions returns the displayed size of the file read from r (from its
// start), of the type Sniff returned. Raster images are read by header only
// and refused with ErrTooLarge above the pixel limit; JPEG EXIF orientations
// 5 to 8 swap width and height. SVG uses width/height in px, else the
// viewBox, else 0×0. Video dimensions are best effort: 0×0 and no error when
// they cannot be found. PDF has none.
func (l Limits) Dimensions(r io.ReadSeeker, mimeType string) (w, h int, err error) {
	l = l.withDefaults()
	defer func() {
		// The header decoders are not expected to panic, but this runs on
		// uploads; a panic must become a refusal, not a crash.
		if p := recover(); p != nil {
			w, h, err = 0, 0, fmt.Errorf("%w: %s header: panic: %v", ErrInvalid, mimeType, p)
		}
	}()
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return 0, 0, err
	}
	switch mimeType {
	case JPEG, PNG, GIF, WebP:
		return l.raster(r, mimeType)
	case SVG:
		return svgDimensions(io.LimitReader(r, l.MaxSVGBytes))
	case MP4:
		w, h = mp4Dimensions(r)
		return w, h, nil
	case WebM:
		w, h = webmDimensions(r)
		return w, h, nil
	case PDF:
		return 0, 0, nil
	}
	return 0, 0, fmt.Errorf("probe: no dimensions for type %q", mimeType)
}

func (l Limits) raster(r io.ReadSeeker, mimeType string) (int, int, error) {
	cfg, err := DecodeConfig(r, mimeType)
	if err != nil {
		return 0, 0, err
	}
	if err := l.Check(cfg.Width, cfg.Height); err != nil {
		return 0, 0, err
	}
	w, h := cfg.Width, cfg.Height
	if mimeType == JPEG {
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return 0, 0, err
		}
		if o := JPEGOrientation(r); o >= 5 {
			w, h = h, w
		}
	}
	return w, h, nil
}

// DecodeConfig reads the header of a raster image with the decoder for
// mimeType (never by guessing from content: the sniffed type decides).
func DecodeConfig(r io.Reader, mimeType string) (image.Config, error) {
	var cfg image.Config
	var err error
	switch mimeType {
	case JPEG:
		cfg, err = jpeg.DecodeConfig(r)
	case PNG:
		cfg, err = png.DecodeConfig(r)
	case GIF:
		cfg, err = gif.DecodeConfig(r)
	case WebP:
		cfg, err = webp.DecodeConfig(r)
	default:
		return cfg, fmt.Errorf("probe: %q is not a raster image type", mimeType)
	}
	if err != nil {
		return cfg, fmt.Errorf("%w: %s header: %v", ErrInvalid, mimeType, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return cfg, fmt.Errorf("%w: %s header: empty image %dx%d", ErrInvalid, mimeType, cfg.Width, cfg.Height)
	}
	return cfg, nil
}

// CheckPixels returns ErrTooLarge when w×h exceeds max, without overflow.
func CheckPixels(w, h, max int) error {
	if w <= 0 || h <= 0 {
		return fmt.Errorf("%w: empty image %dx%d", ErrInvalid, w, h)
	}
	if int64(w) > int64(max)/int64(h) || int64(w)*int64(h) > int64(max) {
		return fmt.Errorf("%w: %dx%d is more than %d pixels", ErrTooLarge, w, h, max)
	}
	return nil
}
