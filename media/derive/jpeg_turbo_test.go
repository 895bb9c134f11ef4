//go:build cgo && libjpeg

package derive

import (
	"bytes"
	"errors"
	"image/jpeg"
	"testing"
)

// TestTurboDecode_Damaged calls libjpeg-turbo alone (no fallback to Go):
// every cut file is an error (its warnings are errors), every garbled one
// an error or an image of the expected size, and none ends the process.
func TestTurboDecode_Damaged(t *testing.T) {
	t.Parallel()
	fixtures := jpegFixtures(t)
	sizes := map[string][2]int{}
	for name, data := range fixtures {
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		sizes[name] = [2]int{cfg.Width, cfg.Height}
	}
	truncated, garbled := damagedJPEGs(t)
	kind := func(name string) string { return name[:bytes.IndexByte([]byte(name), '/')] }
	for name, data := range truncated {
		s := sizes[kind(name)]
		for _, denom := range []int{1, 8} {
			if _, err := turboDecode(data, s[0], s[1], denom); err == nil {
				t.Errorf("%s 1/%d: no error", name, denom)
			}
		}
	}
	for name, data := range garbled {
		s := sizes[kind(name)]
		m, err := turboDecode(data, s[0], s[1], 2)
		if err == nil {
			if w, h := scaledSize(s[0], s[1], 2); m.Rect.Dx() != w || m.Rect.Dy() != h {
				t.Errorf("%s: %v", name, m.Rect)
			}
		} else if !errors.Is(err, ErrDecode) && !errors.Is(err, errTurboUnsupported) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestTurboDecode_Refusals(t *testing.T) {
	t.Parallel()
	fixtures := jpegFixtures(t)
	if _, err := turboDecode(fixtures["cmyk"], 200, 320, 1); !errors.Is(err, errTurboUnsupported) {
		t.Errorf("cmyk: %v", err)
	}
	// A size other than the header's (which Go's header reader gave and
	// the pixel limit was checked on) is refused.
	if _, err := turboDecode(fixtures["odd"], 204, 141, 1); !errors.Is(err, ErrDecode) {
		t.Errorf("wrong size: %v", err)
	}
	if _, err := turboDecode(fixtures["odd"], 203, 141, 3); err == nil {
		t.Error("scale 1/3 accepted")
	}
	if _, err := turboDecode(nil, 1, 1, 1); err == nil {
		t.Error("empty accepted")
	}
	if _, err := turboDecode([]byte("not a jpeg at all"), 1, 1, 1); !errors.Is(err, ErrDecode) {
		t.Errorf("not a JPEG: %v", err)
	}
}
