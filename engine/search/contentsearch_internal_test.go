package search

import (
	"testing"

	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"

	"github.com/folio-cms/folio/content"
)

// TestAnalyzerFor: every language folio.yaml accepts has an analyzer, its
// own (not the standard one), and the mapping and the query analyse with
// it: a word comes out lower-cased, and stemmed where the language stems.
func TestAnalyzerFor(t *testing.T) {
	// stems: what the language's analyzer makes of a word, for a few
	// languages whose stemmer is easy to check by hand.
	stems := map[string][2]string{
		"":   {"Words", "words"}, // standard: lower-cased, not stemmed
		"en": {"Words", "word"},
		"de": {"Häuser", "haus"},
		"fr": {"Maisons", "maison"},
	}
	for _, lang := range append([]string{""}, content.Languages...) {
		an := analyzerFor(lang)
		if (an == standard.Name) != (lang == "") {
			t.Errorf("%q: analyzer %q", lang, an)
		}
		im, err := newContentMapping(lang)
		if err != nil {
			t.Errorf("%q: %v", lang, err)
			continue
		}
		if im.AnalyzerNameForPath(csText) != an || im.AnalyzerNameForPath(csTitle) != an {
			t.Errorf("%q: text analysed with %q, title with %q, want %q", lang, im.AnalyzerNameForPath(csText), im.AnalyzerNameForPath(csTitle), an)
		}
		idx, err := newContentIndexFor(lang)
		if err != nil {
			t.Errorf("%q: %v", lang, err)
			continue
		}
		word, want := "WORDS", ""
		if s, ok := stems[lang]; ok {
			word, want = s[0], s[1]
		}
		words, _, err := queryTerms(idx, lang, word)
		switch {
		case err != nil:
			t.Errorf("%q: %v", lang, err)
		case len(words) == 0:
			t.Errorf("%q: %q analysed to no term", lang, word)
		case want != "" && (len(words) != 1 || words[0] != want):
			t.Errorf("%q: %q analysed to %q, want [%s]", lang, word, words, want)
		}
		idx.Close()
	}
}
