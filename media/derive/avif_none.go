//go:build !(cgo && libavif)

package derive

import (
	"errors"
	"image"
)

// AVIF tells whether this build encodes AVIF: without libavif (build tag
// libavif) it does not.
const AVIF = false

func encodeAVIF(*image.NRGBA, int) ([]byte, error) {
	return nil, errors.New("derive: this build has no AVIF encoder (build tag libavif)")
}
