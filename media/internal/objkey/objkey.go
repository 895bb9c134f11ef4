// Package objkey checks storage keys, so that every Storage adapter refuses
// exactly the same keys.
package objkey

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrInvalid is wrapped by every error of Check.
var ErrInvalid = errors.New("invalid storage key")

// maxLen keeps keys under the S3 limit of 1024 bytes even behind a site
// prefix, and under common file-system limits for a whole path.
const maxLen = 900

// Check reports why key is not a valid storage key, or nil. A valid key is a
// non-empty, slash-separated, relative path of non-empty segments, none of
// which begins with "." (that also rules out "." and ".." and keeps sidecars
// in ".meta/" and temporary files out of the key space), with no backslash,
// NUL or other control character, and valid UTF-8.
func Check(key string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s", ErrInvalid, key, why)
	}
	switch {
	case key == "":
		return bad("empty")
	case len(key) > maxLen:
		return bad("too long")
	case !utf8.ValidString(key):
		return bad("not UTF-8")
	case strings.HasPrefix(key, "/"):
		return bad("absolute")
	}
	for _, r := range key {
		if r == '\\' {
			return bad("backslash")
		}
		if unicode.IsControl(r) {
			return bad("control character")
		}
	}
	for seg := range strings.SplitSeq(key, "/") {
		switch {
		case seg == "":
			return bad("empty segment")
		case seg == "." || seg == "..":
			return bad("dot segment")
		case strings.HasPrefix(seg, "."):
			return bad("segment begins with a dot")
		}
	}
	return nil
}
