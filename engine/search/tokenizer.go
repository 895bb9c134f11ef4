package search

import (
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
)

// The word splitter of every analyzer folio uses is bleve's unicode
// tokenizer (Unicode's word boundaries, UAX #29, by a generated scanner):
// a third of the CPU time of a first build. Most of a site's text is
// plain ASCII words between spaces and punctuation, where the rules come
// down to "a run of letters and digits is one word"; asciiTokenizer takes
// those runs itself and hands every other stretch of text to the unicode
// tokenizer, so that the words, their offsets, positions and types are
// exactly the unicode tokenizer's (TestASCIITokenizerMatchesUnicode).
//
// A content index's mapping defines it under the unicode tokenizer's own
// name (newContentMapping), so the analyzers bleve builds for that index
// (standard, en, de, …, cjk) split words with it, for the documents and
// for the words of a search alike.

// asciiTokenizerType is the type asciiTokenizer is registered under.
const asciiTokenizerType = "folio_ascii_unicode"

func init() {
	registry.RegisterTokenizer(asciiTokenizerType, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return asciiTokenizer{slow: unicode.NewUnicodeTokenizer()}, nil
	})
}

// asciiTokenizer splits as the unicode tokenizer does, faster.
type asciiTokenizer struct{ slow *unicode.UnicodeTokenizer }

// wordBreak marks the ASCII bytes that always separate words and belong
// to none: not a letter or digit, nor one of the marks the word rules
// look at across (. : ' , ; _ "), nor a byte of a multi-byte character.
// Such a byte is a word boundary whatever surrounds it, so the text
// between two of them splits the same way alone as within the whole.
var wordBreak = func() (t [256]bool) {
	for c := range 128 {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == ':', c == '\'', c == ',', c == ';', c == '_', c == '"':
		default:
			t[c] = true
		}
	}
	return t
}()

// edgeMark marks the marks the word rules look at across that join
// nothing at the edge of a stretch between two wordBreak bytes: all but
// '_', which joins the letters before it (WB13a).
var edgeMark = func() (t [256]bool) {
	for _, c := range []byte(".:',;\"") {
		t[c] = true
	}
	return t
}()

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (t asciiTokenizer) Tokenize(input []byte) analysis.TokenStream {
	return t.tokenize(input, &tokenArena{})
}

// tokenize splits input, its ASCII words' tokens taken from a (the
// unicode tokenizer's are its own), into a's stream.
func (t asciiTokenizer) tokenize(input []byte, a *tokenArena) analysis.TokenStream {
	if !utf8.Valid(input) {
		// The unicode tokenizer stops at the first invalid byte.
		return t.slow.Tokenize(input)
	}
	rv := a.stream[:0]
	if rv == nil {
		rv = make(analysis.TokenStream, 0, len(input)/8+1)
	}
	pos := 1
	for i := 0; i < len(input); {
		if wordBreak[input[i]] {
			i++
			continue
		}
		j := i
		for j < len(input) && !wordBreak[input[j]] {
			j++
		}
		// Marks at either end of the stretch (a sentence's full stop, a
		// comma, quotes) join nothing: the word rules join a letter or
		// digit across them only to one on their other side, and there
		// is a separator or the text's end there.
		from, to := i, j
		for from < to && edgeMark[input[from]] {
			from++
		}
		for to > from && edgeMark[input[to-1]] {
			to--
		}
		alnum, digits := true, true
		for _, c := range input[from:to] {
			if !isASCIIAlnum(c) {
				alnum = false
				break
			} else if c > '9' {
				digits = false
			}
		}
		if alnum {
			// Letters and digits only: one word (UAX #29 WB5, WB8–WB10),
			// a number when it is digits only; or marks only, no word.
			if from < to {
				tok := a.next((len(input)-i)/6 + 1)
				typ := analysis.AlphaNumeric
				if digits {
					typ = analysis.Numeric
				}
				*tok = analysis.Token{Term: input[from:to], Start: from, End: to, Position: pos, Type: typ}
				rv = append(rv, tok)
				pos++
			}
		} else {
			// Anything else: the unicode tokenizer, with the separator
			// before it (a combining mark after a space belongs to the
			// space).
			from := i
			if from > 0 {
				from--
			}
			for _, tok := range t.slow.Tokenize(input[from:j]) {
				tok.Start += from
				tok.End += from
				tok.Position = pos
				pos++
				rv = append(rv, tok)
			}
		}
		i = j
	}
	a.stream = rv
	return rv
}

// tokenArena holds the tokens of one text at a time (analysedText).
type tokenArena struct {
	arena[analysis.Token]
	stream analysis.TokenStream // the last stream made, kept for its array
}

// reset frees every token and the stream of a.
func (a *tokenArena) reset() {
	a.arena.reset()
	clear(a.stream)
	a.stream = a.stream[:0]
}
