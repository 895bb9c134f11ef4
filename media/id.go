package media

import (
	"crypto/rand"
	"encoding/base32"
	"strings"
)

// idLen is the length of an item id: 10 random bytes (80 bits) in
// lower-case base32 without padding, URL-safe and case-insensitive-safe.
const idLen = 16

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

func newID() string {
	var b [10]byte
	rand.Read(b[:]) // never fails (crypto/rand panics if it cannot)
	return idEncoding.EncodeToString(b[:])
}

// ValidID reports whether s has the shape of an item id. Anything else
// (path separators, dots, upper case, other lengths) cannot name an item.
func ValidID(s string) bool {
	if len(s) != idLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("abcdefghijklmnopqrstuvwxyz234567", rune(s[i])) {
			return false
		}
	}
	return true
}
