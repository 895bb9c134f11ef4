package content

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSlugLen is the longest slug (and id) folio accepts, in bytes.
const MaxSlugLen = 200

// ValidSlug tells whether s is a valid page or item slug: one or more
// "/"-separated segments of letters and digits (any script's: Unicode's
// L, M and N categories, so "приватність", "关于" and "हिंदी" are slugs,
// as Hugo and Decap make them) and . _ ~ -, no segment empty, ".",
// ".." or ".git" (any case), at most MaxSlugLen bytes of UTF-8 in all. No space, punctuation
// or invisible character (joiners, direction marks) is allowed. An
// ASCII slug is safe in a URL path as it is; EscapeSlug escapes any.
func ValidSlug(s string) bool {
	if s == "" || len(s) > MaxSlugLen {
		return false
	}
	start := 0
	for i := 0; i <= len(s); {
		if i < len(s) && s[i] != '/' {
			if s[i] < utf8.RuneSelf {
				if !slugByte(s[i]) {
					return false
				}
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError || !unicode.In(r, unicode.L, unicode.M, unicode.N) {
				return false
			}
			i += n
			continue
		}
		seg := s[start:i]
		if seg == "" || seg == "." || seg == ".." || strings.EqualFold(seg, ".git") {
			// .git: git stores no path through a .git folder (a write
			// would commit nothing), and a checkout must not get one.
			return false
		}
		i++
		start = i
	}
	return true
}

// EscapeSlug is s as a URL path: each segment percent-encoded (nothing
// changes in an ASCII slug).
func EscapeSlug(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			segs := strings.Split(s, "/")
			for j, seg := range segs {
				segs[j] = url.PathEscape(seg)
			}
			return strings.Join(segs, "/")
		}
	}
	return s
}

func slugByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '.' || c == '_' || c == '~' || c == '-'
}

// MaxTypeLen is the longest content type slug.
const MaxTypeLen = 64

// ValidType tells whether s is a valid content type slug:
// ^[a-z0-9][a-z0-9_-]*$, at most MaxTypeLen bytes.
func ValidType(s string) bool {
	if s == "" || len(s) > MaxTypeLen || s[0] == '_' || s[0] == '-' {
		return false
	}
	return lowerSlugChars(s)
}

// lowerSlugChars tells whether s is made only of [a-z0-9_-].
func lowerSlugChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// validID tells whether s may be an id set in front matter: like one slug
// segment (":" allowed too, for ids like "urn:x"), at most MaxSlugLen bytes.
func validID(s string) bool {
	if s == "" || len(s) > MaxSlugLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !slugByte(s[i]) && s[i] != ':' {
			return false
		}
	}
	return true
}

// PathSlug derives a slug from a path relative to pages/ or content/<type>/:
// the extension goes, a bundle "x/index.md" (or Hugo's branch bundle
// "x/_index.md") is "x", and a space is '-' ("cloud native apps.md" is
// "cloud-native-apps", as Hugo makes the page's URL).
func PathSlug(rel string) string {
	s := strings.TrimSuffix(rel, path.Ext(rel))
	if dir, base := path.Split(s); (base == "index" || base == "_index") && dir != "" {
		s = strings.TrimSuffix(dir, "/")
	}
	if strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		s = strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return '-'
			}
			return r
		}, s)
	}
	return s
}

// stableID derives an id from the parts that name a document; it changes
// when they change, so authors who need a fixed id set one.
func stableID(parts ...string) string {
	// the parts in a buffer on the stack, hashed at once: one allocation
	// (the id), not four (the hash's state, its sum, the hex bytes and the
	// id) for each document at every start
	var buf [256]byte
	b := buf[:0]
	for _, p := range parts {
		b = append(b, p...)
		b = append(b, 0)
	}
	sum := sha256.Sum256(b)
	var id [16]byte
	hex.Encode(id[:], sum[:8])
	return string(id[:])
}
