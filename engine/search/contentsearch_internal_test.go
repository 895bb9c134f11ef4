package search

import (
	"testing"

	"github.com/folio-cms/folio/content"
)

// TestAnalyzerFor: every language folio.yaml accepts has an analyzer.
func TestAnalyzerFor(t *testing.T) {
	for _, lang := range append([]string{""}, content.Languages...) {
		if _, err := newContentMapping(lang); err != nil {
			t.Errorf("%q: %v", lang, err)
		}
		idx, err := newContentIndexFor(lang)
		if err != nil {
			t.Errorf("%q: %v", lang, err)
			continue
		}
		if _, _, err := queryTerms(idx, lang, "words"); err != nil {
			t.Errorf("%q: %v", lang, err)
		}
		idx.Close()
	}
}
