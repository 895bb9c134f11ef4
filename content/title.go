package content

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// titleFromFile is the title of a document whose front matter has none,
// made from its file name as Hugo shows such a page: the last segment of
// the slug its path gives (a bundle's folder, a section's for _index),
// '-' and '_' as spaces, each word capitalized but the small ones
// (Hugo's default AP title case): "getting-started" is "Getting Started",
// "faq_of-the-week" is "Faq of the Week". "" for the homepage ("index").
func titleFromFile(pathSlug string) string {
	base := path.Base(pathSlug)
	if base == "index" || base == "." || base == "/" {
		return ""
	}
	words := strings.FieldsFunc(base, func(r rune) bool { return r == '-' || r == '_' || unicode.IsSpace(r) })
	for i, w := range words {
		if i > 0 && i < len(words)-1 && smallWord[strings.ToLower(w)] {
			words[i] = strings.ToLower(w)
			continue
		}
		r, n := utf8.DecodeRuneInString(w)
		words[i] = string(unicode.ToUpper(r)) + w[n:]
	}
	return strings.Join(words, " ")
}

// smallWord are the words AP title case keeps lower case inside a title.
var smallWord = map[string]bool{
	"a": true, "an": true, "and": true, "as": true, "at": true, "but": true, "by": true,
	"for": true, "if": true, "in": true, "nor": true, "of": true, "on": true, "or": true,
	"so": true, "the": true, "to": true, "up": true, "yet": true, "vs": true, "via": true,
}

// untitled counts a page or item served with a title made from its file
// name: a sign that folio may show the document otherwise than the site
// does; untitledProblem reports them.
func (a *assembler) untitled(f File, u *unit) {
	var title string
	switch {
	case u.item != nil && u.item.TitleFromFile:
		title = u.item.Title
	case u.page != nil && u.page.TitleFromFile:
		title = u.page.Title
	default:
		return
	}
	if a.untitledN == 0 {
		a.untitledAt, a.untitledTitle = f.RealPath(), title
	}
	a.untitledN++
}

// untitledProblem is one problem for the site's documents without a
// title, at the first one's path.
func (a *assembler) untitledProblem() {
	switch a.untitledN {
	case 0:
	case 1:
		a.warn(a.untitledAt, 0, "no title: served with the title %q made from the file name (titleFromFile: true)", a.untitledTitle)
	case 2:
		a.warn(a.untitledAt, 0, "no title: served with the title %q made from the file name (titleFromFile: true), and so is 1 more document without a title", a.untitledTitle)
	default:
		a.warn(a.untitledAt, 0, "no title: served with the title %q made from the file name (titleFromFile: true), and so are %d more documents without a title", a.untitledTitle, a.untitledN-1)
	}
}
