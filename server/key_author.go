package server

import (
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxDisplayName bounds a key's display name, in characters.
const maxDisplayName = 100

// checkDisplayName accepts a person's name as git writes an author: any
// letters and spaces, no control character and none of '<', '>' (which
// end git's name).
func checkDisplayName(s string) error {
	if !utf8.ValidString(s) || strings.TrimSpace(s) != s || s == "" || utf8.RuneCountInString(s) > maxDisplayName {
		return fmt.Errorf("bad display name %q: 1 to %d characters, not starting or ending with a space", s, maxDisplayName)
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '<' || r == '>' {
			return fmt.Errorf("bad display name %q: no control characters, '<' or '>'", s)
		}
	}
	return nil
}

// checkEmail accepts a bare address (mira@example.com), as git writes an
// author's e-mail.
func checkEmail(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" || len(s) > 254 || strings.ContainsAny(s, "<> \t") {
		return fmt.Errorf("bad e-mail %q: want an address such as mira@example.com", s)
	}
	return nil
}

// KeyID makes a key id from a display name: "Mira Hofer" -> "mira-hofer"
// (letters and digits, accents dropped, runs of anything else one '-',
// at most 64); "" when nothing is left.
func KeyID(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFD.String(name) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
		default:
			dash = true
		}
	}
	return strings.TrimRight(b.String()[:min(b.Len(), 64)], "-")
}

// ErrNoKeyID is a display name that makes no key id.
var ErrNoKeyID = errors.New("the name makes no key id (it has no letters or digits a-z, 0-9): give one with --id")
