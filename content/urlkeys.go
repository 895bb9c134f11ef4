package content

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// URLKey tells whether k, a top-level key of a document's data, names
// URLs of the site, never a document: Hugo's and Zola's url and aliases
// (the paths that redirect to the document), Zola's path (where it is
// served; Gatsby sites write it too), in any case, as Hugo reads keys.
// They stay in a document's data, served as written, and their strings
// are no references: a Zola page's
// path = "inside-rust/2019/12/20/wg-learning-update" names its own URL,
// not the item 2019/12/20/wg-learning-update of a type inside-rust. (No
// map: the reference checker asks it of every key of every document of a
// restart.)
func URLKey(k string) bool {
	switch len(k) {
	case 3:
		return strings.EqualFold(k, "url")
	case 4:
		return strings.EqualFold(k, "path")
	case 7:
		return strings.EqualFold(k, "aliases")
	}
	return false
}

// slugOfName is the slug a file name that gives no valid slug is served
// under when its URL does not come from its name: each run of characters
// a slug cannot have becomes one '-' ("roadmap@0" is roadmap-0, as Zola
// makes a path of it); false when that is no valid slug either (a ".."
// segment, too long).
func slugOfName(name string) (string, bool) {
	var b strings.Builder
	bad := false
	for _, r := range name {
		ok := r == '/' || (r < utf8.RuneSelf && slugByte(byte(r))) ||
			(r >= utf8.RuneSelf && r != utf8.RuneError && unicode.In(r, unicode.L, unicode.M, unicode.N))
		if !ok {
			if !bad {
				b.WriteByte('-')
			}
			bad = true
			continue
		}
		bad = false
		b.WriteRune(r)
	}
	s := b.String()
	return s, ValidSlug(s)
}
