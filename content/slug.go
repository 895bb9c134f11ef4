package content

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"
)

// MaxSlugLen is the longest slug (and id) folio accepts, in bytes.
const MaxSlugLen = 200

// ValidSlug tells whether s is a valid page or item slug: one or more
// "/"-separated segments of A-Z a-z 0-9 . _ ~ -, no segment empty, "." or
// "..", at most MaxSlugLen bytes in all. Such a slug is safe in a URL path
// without escaping.
func ValidSlug(s string) bool {
	if s == "" || len(s) > MaxSlugLen {
		return false
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '/' {
			if !slugByte(s[i]) {
				return false
			}
			continue
		}
		seg := s[start:i]
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		start = i + 1
	}
	return true
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

// pathSlug derives a slug from a path relative to pages/ or content/<type>/:
// the extension goes, and a bundle "x/index.md" (or Hugo's branch bundle
// "x/_index.md") is "x".
func pathSlug(rel string) string {
	s := strings.TrimSuffix(rel, path.Ext(rel))
	if dir, base := path.Split(s); (base == "index" || base == "_index") && dir != "" {
		s = strings.TrimSuffix(dir, "/")
	}
	return s
}

// stableID derives an id from the parts that name a document; it changes
// when they change, so authors who need a fixed id set one.
func stableID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
