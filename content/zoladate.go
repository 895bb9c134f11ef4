package content

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// zolaDatedName reads a Zola page's dated file name (Zola's page.rs): the
// last segment of pathSlug (a file's name, a bundle's folder) that starts
// with a date, 2018-10-10 or a full RFC 3339 time
// 2018-10-10T08:30:00+02:00, followed by an optional space, '-' or '_'
// and the slug: "2018-08-10-mastodon" is the page mastodon of
// 2018-08-10. slug is pathSlug with that segment's date taken off (as it
// is when nothing follows the date); ok is false when the segment starts
// with no date. No regular expression: every document of a Zola site is
// asked.
func zolaDatedName(pathSlug string) (slug string, date time.Time, ok bool) {
	dir, name := "", pathSlug
	if i := strings.LastIndexByte(pathSlug, '/'); i >= 0 {
		dir, name = pathSlug[:i+1], pathSlug[i+1:]
	}
	if len(name) < 10 || name[4] != '-' || name[7] != '-' || !digits(name[:4]) || !digits(name[5:7]) || !digits(name[8:10]) {
		return "", time.Time{}, false
	}
	end := 10
	layout := "2006-01-02"
	if len(name) > 10 && name[10] == 'T' {
		// THH:MM:SS, .fraction, then Z or ±HH:MM, all required but the fraction
		p := 19
		if len(name) < p || name[13] != ':' || name[16] != ':' {
			return "", time.Time{}, false
		}
		if p < len(name) && name[p] == '.' {
			p++
			for p < len(name) && name[p] >= '0' && name[p] <= '9' {
				p++
			}
		}
		switch {
		case p < len(name) && name[p] == 'Z':
			p++
		case p+6 <= len(name) && (name[p] == '+' || name[p] == '-') && name[p+3] == ':':
			p += 6
		default:
			return "", time.Time{}, false
		}
		end, layout = p, time.RFC3339Nano
	}
	d, err := time.Parse(layout, name[:end])
	if err != nil {
		return "", time.Time{}, false
	}
	rest := name[end:]
	if rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
		rest = rest[1:]
	}
	if len(rest) >= 2 && (rest[0] == '-' || rest[0] == '_') {
		return dir + rest[1:], d.UTC(), true
	}
	return pathSlug, d.UTC(), true
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// zolaSlugify is a name as Zola's slugify.paths = "on" makes it (the slug
// crate): lower case ASCII letters and digits, every other run of
// characters one '-', none at either end; accented letters lose their
// accents. (Zola also transliterates other scripts, which this keeps as
// written, lower-cased.)
func zolaSlugify(name string) string {
	b := make([]byte, 0, len(name))
	dash := true // no leading '-'
	s := name
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			s = norm.NFD.String(name) // accents apart from their letters
			break
		}
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b, dash = append(b, byte(r)), false
		case r >= 'A' && r <= 'Z':
			b, dash = append(b, byte(r-'A'+'a')), false
		case r >= utf8.RuneSelf && unicode.Is(unicode.Mn, r):
			// an accent, taken off
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b, dash = utf8.AppendRune(b, unicode.ToLower(r)), false
		default:
			if !dash {
				b, dash = append(b, '-'), true
			}
		}
	}
	if n := len(b); n > 0 && b[n-1] == '-' {
		b = b[:n-1]
	}
	if len(b) == 0 {
		return name // nothing to keep: the name as written
	}
	return string(b)
}
