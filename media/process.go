package media

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/folio-cms/folio/media/probe"
)

// processed is what the library learns from a file before it names and
// stores it.
type processed struct {
	mime          string
	width, height int
	// svg holds the sanitized SVG, which is stored instead of the upload.
	svg           []byte
	derivs        []derivative
	placeholder   string
	dominantColor string
}

type derivative struct {
	width, height int
	data          []byte
}

// sniff reads the head of f and returns its type; unknown types are
// refused.
func sniff(f *os.File, size int64) (string, error) {
	if size == 0 {
		return "", errorf(ErrBadInput, "file is empty")
	}
	head := make([]byte, probe.SniffLen)
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	mime, ok := probe.Sniff(head[:n])
	if !ok {
		return "", errorf(ErrUnsupportedType, "unsupported file type (accepted: JPEG, PNG, GIF, WebP, SVG, PDF, MP4, WebM)")
	}
	return mime, nil
}

// process finds dimensions, sanitizes SVG and renders derivatives for the
// file f of the sniffed type. Pixel limits are checked on the header,
// before any decode.
func (l *Library) process(ctx context.Context, f *os.File, size int64, mime string) (*processed, error) {
	p := &processed{mime: mime}
	lim := probe.Limits{MaxPixels: l.cfg.MaxPixels}
	if mime == probe.SVG {
		if size > probe.MaxSVGBytes {
			return nil, errorf(ErrTooLarge, "SVG larger than %d bytes", probe.MaxSVGBytes)
		}
		raw := make([]byte, size)
		if _, err := f.ReadAt(raw, 0); err != nil {
			return nil, err
		}
		clean, err := probe.SanitizeSVG(raw)
		if err != nil {
			return nil, errorf(ErrBadInput, "SVG refused: not a well-formed, safe SVG document")
		}
		p.svg = clean
		w, h, err := lim.Dimensions(bytes.NewReader(clean), mime)
		if err != nil {
			return nil, probeError(err)
		}
		p.width, p.height = w, h
		return p, nil
	}
	w, h, err := lim.Dimensions(f, mime)
	if err != nil {
		return nil, probeError(err)
	}
	p.width, p.height = w, h
	if !raster(mime) {
		return p, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := l.derive(ctx, f, p); err != nil {
		return nil, err
	}
	return p, nil
}

// imageTooLarge is the client error of an image beyond the pixel, side or
// aspect limits (probe.ErrTooLarge), saying which.
func imageTooLarge(err error) error {
	msg := strings.TrimPrefix(err.Error(), "probe: ")
	return errorf(ErrTooLarge, "%s", msg)
}

// probeError turns an error of media/probe into a client error.
func probeError(err error) error {
	switch {
	case errors.Is(err, probe.ErrTooLarge):
		return imageTooLarge(err)
	case errors.Is(err, probe.ErrInvalid):
		return errorf(ErrBadInput, "file is damaged or not of its type")
	}
	return err
}
