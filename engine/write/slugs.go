package write

// Slugs of new documents, and the files they may be in.

import (
	"slices"
	"strings"
	"unicode"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine"
)

// Slugify makes a slug of a title: its letters and digits lower-cased
// (the common accented Latin letters folded to their base letter, other
// scripts kept, as Hugo's urlize and Decap's default unicode encoding
// keep them), every other run of characters one '-', at most 80 bytes.
func Slugify(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		r = fold(r)
		if unicode.In(r, unicode.L, unicode.M, unicode.N) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= 80 {
				break
			}
			continue
		}
		dash = true
	}
	return b.String()
}

// fold maps the common accented Latin letters to their base letter.
func fold(r rune) rune {
	const from, to = "àáâãäåçèéêëìíîïñòóôõöøùúûüýÿ", "aaaaaaceeeeiiiinoooooouuuuyy"
	if i := strings.IndexRune(from, r); i >= 0 {
		return []rune(to)[len([]rune(from[:i]))]
	}
	return r
}

// docExts are the extensions a document's file may have, in the order
// they are looked for.
var docExts = []string{".md", ".markdown", ".yaml", ".yml", ".json", ".toml", ".html", ".htm"}

// candidates are the paths a document's file may have when the snapshot
// does not tell.
func candidates(d Doc) []string {
	var dir string
	switch d.Kind {
	case KindItem:
		dir = "content/" + d.Type + "/"
	case KindPage:
		dir = "pages/"
	case KindGlobals:
		out := make([]string, 0, 4)
		for _, e := range []string{".yaml", ".yml", ".json", ".toml"} {
			out = append(out, "globals"+e)
		}
		return out
	}
	out := make([]string, 0, len(docExts)+2)
	for _, e := range docExts {
		out = append(out, dir+d.Slug+e)
	}
	return append(out, dir+d.Slug+"/index.md", dir+d.Slug+"/_index.md")
}

// candidatesIn are the paths of candidates(d) in d's locale on a site
// with locales (c non-nil).
func candidatesIn(c *content.I18n, snap *engine.Snapshot, d Doc) []string {
	if c == nil || d.Locale == "" {
		return candidates(d)
	}
	if d.Kind == KindGlobals {
		var out []string
		if d.Locale == c.Default {
			out = candidates(d)
		}
		if p, own := globalsPath(c, snap, d.Locale); own || p != "" {
			out = append(out, p)
		}
		for _, e := range []string{".yaml", ".yml", ".json", ".toml"} {
			for _, p := range []string{"globals." + d.Locale + e, "globals/" + d.Locale + e} {
				if !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
		return out
	}
	var out []string
	for _, v := range candidates(d) {
		out = append(out, localePaths(c, d.Locale, v)...)
	}
	return out
}
