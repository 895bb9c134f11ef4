package search

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/folio-cms/folio/content"
)

// tokenizerPieces are what the texts of TestASCIITokenizerMatchesUnicode
// are made of: ASCII letters, digits, spaces and every mark the word
// rules look at, and characters beyond ASCII (accents, a combining mark,
// curly quotes, CJK, kana, Hebrew, an emoji and a joiner, odd spaces).
var tokenizerPieces = []string{"a", "Z", "q", "0", "7", "ab", "x1", " ", " ", "\t", "\n", "\r\n", "\r", "\v", "\f",
	".", ":", "'", ",", ";", "_", "\"", "-", "!", "/", "(", ")", "#", "@", "&", "é", "ß", "İ", "\u0301", "\u200d",
	"\u00a0", "\u2028", "’", "“", "中", "文", "カ", "ひ", "한", "א", "😀", "🇫🇷", "٣", "\xff"}

func compareTokens(t *testing.T, text string, fast, slow analysis.Tokenizer) {
	t.Helper()
	got, want := fast.Tokenize([]byte(text)), slow.Tokenize([]byte(text))
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		g, w := got[i], want[i]
		same = string(g.Term) == string(w.Term) && g.Start == w.Start && g.End == w.End && g.Position == w.Position && g.Type == w.Type
	}
	if !same {
		t.Fatalf("%q:\n got %v\nwant %v", text, got, want)
	}
}

// TestASCIITokenizerMatchesUnicode: the ASCII fast path splits every
// text exactly as bleve's unicode tokenizer does: the same words at the
// same offsets and positions, of the same types.
func TestASCIITokenizerMatchesUnicode(t *testing.T) {
	fast := asciiTokenizer{slow: unicode.NewUnicodeTokenizer()}
	slow := unicode.NewUnicodeTokenizer()
	for _, text := range []string{"", "a", "Hello, world!", "can't won't", "e.g. 3.14 1,000 a:b a_b _x_ 12_ab",
		"foo.bar. .baz", "v1.2.3-rc1", "x'", "'x", "a\u0301b c", " \u0301abc", "naïve café", "中文 text", "שלום\"א"} {
		compareTokens(t, text, fast, slow)
	}
	rng := rand.New(rand.NewPCG(34, 1))
	for range 50000 {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(tokenizerPieces[rng.IntN(len(tokenizerPieces))])
		}
		compareTokens(t, b.String(), fast, slow)
	}
}

// FuzzASCIITokenizer: as TestASCIITokenizerMatchesUnicode, any text.
func FuzzASCIITokenizer(f *testing.F) {
	f.Add("Hello, world! can't 3.14 a_b 中文 naïve")
	fast := asciiTokenizer{slow: unicode.NewUnicodeTokenizer()}
	slow := unicode.NewUnicodeTokenizer()
	f.Fuzz(func(t *testing.T, text string) { compareTokens(t, text, fast, slow) })
}

// tokenizerOf is the word splitter of the analyzer of lang's index.
func tokenizerOf(t *testing.T, idx bleve.Index, lang string) analysis.Tokenizer {
	t.Helper()
	an, ok := idx.Mapping().AnalyzerNamed(analyzerFor(lang)).(*analysis.DefaultAnalyzer)
	if !ok {
		t.Fatalf("%q: analyzer %T", lang, idx.Mapping().AnalyzerNamed(analyzerFor(lang)))
	}
	return an.Tokenizer
}

// TestContentIndexASCIITokenizer: the index of every language splits
// words with asciiTokenizer, also once copied and opened from disk (a
// kept or fetched index), and indexes a corpus exactly as the unicode
// tokenizer does: the same words, in as many documents, with the same
// scores.
func TestContentIndexASCIITokenizer(t *testing.T) {
	for _, lang := range []string{"", "en", "de", "fr", "ja"} {
		idx, err := newContentIndexFor(lang)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tokenizerOf(t, idx, lang).(asciiTokenizer); !ok {
			t.Errorf("%q: tokenizer %T", lang, tokenizerOf(t, idx, lang))
		}
		dir, err := copyIndex(idx)
		if err != nil {
			t.Fatal(err)
		}
		opened, err := bleve.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tokenizerOf(t, opened, lang).(asciiTokenizer); !ok {
			t.Errorf("%q, opened from disk: tokenizer %T", lang, tokenizerOf(t, opened, lang))
		}
		opened.Close()
		idx.Close()
		os.RemoveAll(filepath.Dir(dir))
	}

	rng := rand.New(rand.NewPCG(34, 2))
	words := []string{"glacier", "Canyon", "trail's", "e.g.", "3.14", "1,000", "v2", "foo_bar", "naïve", "café", "über",
		"straße", "中文", "カタカナ", "“quoted”", "don’t", "a:b", "x-ray", "summit", "tents", "running"}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString([]string{" ", " ", ", ", ". ", "\n", "!", "—", "/"}[rng.IntN(8)])
		}
		return b.String()
	}
	changed := map[string]any{}
	for i := range 500 {
		it := &content.Item{ID: fmt.Sprint(i), Type: "note", Title: text(4), Data: map[string]any{"body": text(60)}}
		changed[itemDocID(it)] = it
	}
	for _, lang := range []string{"", "en", "de"} {
		build := func(fast bool) bleve.Index {
			im, err := contentMapping(lang, fast)
			if err != nil {
				t.Fatal(err)
			}
			idx, err := newScorchIndex(im)
			if err != nil {
				t.Fatal(err)
			}
			if err := indexDocs(idx, changed, nil, time.Now(), nil, make(chan struct{})); err != nil {
				t.Fatal(err)
			}
			return idx
		}
		fast, slow := build(true), build(false)
		for _, field := range []string{csTitle, csText} {
			dict := func(idx bleve.Index) map[string]uint64 {
				d, err := idx.FieldDict(field)
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				m := map[string]uint64{}
				for e, err := d.Next(); e != nil && err == nil; e, err = d.Next() {
					m[e.Term] = e.Count
				}
				return m
			}
			got, want := dict(fast), dict(slow)
			if len(got) == 0 || !maps.Equal(got, want) {
				t.Fatalf("%q %s: words %v, the unicode tokenizer's %v", lang, field, got, want)
			}
			for term := range want {
				q := bleve.NewTermQuery(term)
				q.SetField(field)
				hits := func(idx bleve.Index) map[string]float64 {
					res, err := idx.Search(bleve.NewSearchRequestOptions(q, 1000, 0, false))
					if err != nil {
						t.Fatal(err)
					}
					m := map[string]float64{}
					for _, h := range res.Hits {
						m[h.ID] = h.Score
					}
					return m
				}
				if g, w := hits(fast), hits(slow); !maps.Equal(g, w) {
					t.Fatalf("%q %s %q: hits %v, the unicode tokenizer's %v", lang, field, term, g, w)
				}
			}
		}
		fast.Close()
		slow.Close()
	}
}
