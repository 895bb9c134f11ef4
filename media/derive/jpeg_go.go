//go:build !(cgo && libjpeg)

package derive

import (
	"image"
	"io"

	"github.com/folio-cms/folio/media/probe"
)

// JPEGDecoder names the JPEG decoder this build uses.
const JPEGDecoder = "Go image/jpeg"

// decodeJPEG decodes the JPEG read from r with Go's image/jpeg, at full
// size whatever denom asks (a build without libjpeg-turbo: see
// jpeg_turbo.go); it returns the denominator used, 1.
func decodeJPEG(r io.Reader, size int64, w, h, denom int) (image.Image, int, error) {
	m, err := decode(r, probe.JPEG)
	return m, 1, err
}
