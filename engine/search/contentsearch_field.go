package search

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/size"
	index "github.com/blevesearch/bleve_index_api"
)

// A build hands scorch documents it made itself (docMaker) rather than
// the maps of searchDocOf for bleve's mapping to turn into documents: the
// same fields, with the mapping's options and analyzers, but the title
// and text are analysedText fields, whose tokens are reused. Bleve's
// text field takes fresh tokens for every word of every document, a third
// of what a build allocated (and so of its collections, which mark the
// whole site's documents each time). TestDocMakerIndexesAsMapping checks
// that both index a corpus the same.

// docMaker makes the documents of one index, as its mapping would.
type docMaker struct {
	fields map[string]*fieldMaker

	// The arenas, frequencies and text buffers free for the next text
	// (a batch's texts hold their frequencies until it is indexed).
	// Plain lists, not sync.Pools: a pool is emptied by every
	// collection, and a build collects many times.
	arenas freeList[*tokenArena]
	freqs  freeList[*wordFreqs]
	texts  freeList[[]byte]
}

// freeList holds things free for reuse, the last put first out.
type freeList[T any] struct {
	mu   sync.Mutex
	free []T
}

func (l *freeList[T]) get() (x T, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		x = l.free[n-1]
		l.free = l.free[:n-1]
		return x, true
	}
	return x, false
}

func (l *freeList[T]) put(x T) {
	l.mu.Lock()
	l.free = append(l.free, x)
	l.mu.Unlock()
}

// getText is an empty buffer for a document's text (searchDocIn).
func (dm *docMaker) getText() []byte {
	b, _ := dm.texts.get()
	return b
}

// keepText bounds the buffers of text kept for reuse, as keepMost the
// words: a long text's is left to the collector.
const keepText = 64 << 10

func (dm *docMaker) putText(b []byte) {
	if cap(b) > keepText {
		return
	}
	dm.texts.put(b[:0])
}

// getArena is a free token arena.
func (dm *docMaker) getArena() *tokenArena {
	if a, ok := dm.arenas.get(); ok {
		return a
	}
	return &tokenArena{}
}

// keepMost bounds the words of the arenas and frequencies kept for
// reuse: a long text's are left to the collector, rather than kept (and
// grown into every free one) for the rest of the build.
const keepMost = 8 * arenaChunk

func (dm *docMaker) putArena(a *tokenArena) {
	if a.n > keepMost {
		return
	}
	a.reset()
	dm.arenas.put(a)
}

// getFreqs is free frequencies.
func (dm *docMaker) getFreqs() *wordFreqs {
	if wf, ok := dm.freqs.get(); ok {
		return wf
	}
	return &wordFreqs{m: index.TokenFrequencies{}}
}

func (dm *docMaker) putFreqs(wf *wordFreqs) {
	if wf.n > keepMost {
		return
	}
	clear(wf.m)
	wf.reset()
	dm.freqs.put(wf)
}

// fieldMaker is how the mapping makes one field.
type fieldMaker struct {
	number bool // a number field, else text
	opts   index.FieldIndexingOptions
	an     analysis.Analyzer
	// tok, when the analyzer is a plain one (no char filters) splitting
	// words with asciiTokenizer, and the field keeps no term vectors:
	// the field is analysed with pooled tokens.
	tok     *asciiTokenizer
	filters []analysis.TokenFilter
	// lower: the first filter is bleve's lower-casing, done by lowerWords
	// (filters then holds the others).
	lower bool
}

// newDocMaker reads the fields of the content mapping im.
func newDocMaker(im mapping.IndexMapping) (*docMaker, error) {
	impl, ok := im.(*mapping.IndexMappingImpl)
	if !ok || impl.DefaultMapping == nil {
		return nil, fmt.Errorf("search mapping %T: not the content mapping", im)
	}
	dm := &docMaker{fields: map[string]*fieldMaker{}}
	for name, sub := range impl.DefaultMapping.Properties {
		if len(sub.Fields) != 1 {
			continue // _all, disabled
		}
		fm := sub.Fields[0]
		f := &fieldMaker{opts: fm.Options()}
		switch fm.Type {
		case "number":
			f.number = true
		case "text":
			an := fm.Analyzer
			if an == "" {
				an = impl.DefaultAnalyzer
			}
			f.an = im.AnalyzerNamed(an)
			if f.an == nil {
				return nil, fmt.Errorf("search mapping: field %s: no analyzer %q", name, an)
			}
			// analysedText counts no term vectors (the mapping has none).
			if da, ok := f.an.(*analysis.DefaultAnalyzer); ok && len(da.CharFilters) == 0 && !f.opts.IncludeTermVectors() {
				if t, ok := da.Tokenizer.(asciiTokenizer); ok {
					f.tok, f.filters = &t, da.TokenFilters
					if len(f.filters) > 0 {
						if _, ok := f.filters[0].(*lowercase.LowerCaseFilter); ok {
							f.lower, f.filters = true, f.filters[1:]
						}
					}
				}
			}
		default:
			return nil, fmt.Errorf("search mapping: field %s of type %q", name, fm.Type)
		}
		dm.fields[name] = f
	}
	return dm, nil
}

// document is the document of id whose fields are m (searchDocIn's:
// a []byte value is a buffer of getText, which dm may reuse once the
// document is indexed); its analysedText fields are appended to texts
// (for release).
func (dm *docMaker) document(id string, m map[string]any, texts *[]*analysedText) (*document.Document, error) {
	doc := document.NewDocument(id)
	for name, v := range m {
		f, ok := dm.fields[name]
		if !ok {
			return nil, fmt.Errorf("search document: no field %s in the mapping", name)
		}
		var text []byte
		owned := false // text is a buffer of dm's (getText)
		switch v := v.(type) {
		case string:
			text = []byte(v) // the filters write in place (lower-casing)
		case []byte:
			text, owned = v, true
		}
		switch v := v.(type) {
		case string, []byte:
			if f.number {
				return nil, fmt.Errorf("search document: field %s: text, not a number", name)
			}
			if f.tok != nil {
				t := &analysedText{name: name, value: text, owned: owned, f: f, dm: dm}
				*texts = append(*texts, t)
				doc.AddField(t)
			} else {
				doc.AddField(document.NewTextFieldCustom(name, []uint64{}, text, f.opts, f.an))
			}
		case float64:
			if !f.number {
				return nil, fmt.Errorf("search document: field %s: a number, not text", name)
			}
			doc.AddField(document.NewNumericFieldWithIndexingOptions(name, []uint64{}, v, f.opts))
		default:
			return nil, fmt.Errorf("search document: field %s: %T", name, v)
		}
	}
	doc.SetIndexed()
	return doc, nil
}

// analysedText is a text field analysed as bleve's document.TextField
// is (the analyzer's tokenizer, then its filters, then the frequencies
// of the words), with the tokens of an arena of the pool: once the
// frequencies are counted, nothing refers to a token (a frequency keeps
// the word's bytes, which are the value's or a filter's), and the arena
// goes back. The frequencies come from a pool too: scorch reads them
// while it indexes the batch, and they go back once it is indexed
// (release).
type analysedText struct {
	name  string
	value []byte
	owned bool // value is a buffer of dm's, given back on release
	f     *fieldMaker
	dm    *docMaker

	length int
	wf     *wordFreqs
}

// wordFreqs are the frequencies of a text's words (bleve's
// TokenFrequencies without term vectors), in a map and an arena kept for
// the next text.
type wordFreqs struct {
	m index.TokenFrequencies
	arena[index.TokenFreq]
}

func (t *analysedText) Name() string                        { return t.name }
func (t *analysedText) ArrayPositions() []uint64            { return nil }
func (t *analysedText) Options() index.FieldIndexingOptions { return t.f.opts }
func (t *analysedText) Value() []byte                       { return t.value }
func (t *analysedText) NumPlainTextBytes() uint64           { return uint64(len(t.value)) }
func (t *analysedText) EncodedFieldType() byte              { return 't' }
func (t *analysedText) AnalyzedLength() int                 { return t.length }

func (t *analysedText) AnalyzedTokenFrequencies() index.TokenFrequencies {
	if t.wf == nil {
		return nil
	}
	return t.wf.m
}

func (t *analysedText) Size() int {
	n := 64 + size.SizeOfPtr + len(t.name) + len(t.value)
	if t.wf != nil {
		n += t.wf.m.Size()
	}
	return n
}

func (t *analysedText) Analyze() {
	a := t.dm.getArena()
	tokens := t.f.tok.tokenize(t.value, a)
	if t.f.lower {
		lowerWords(tokens)
	}
	for _, tf := range t.f.filters {
		tokens = tf.Filter(tokens)
	}
	t.length = len(tokens)
	wf := t.dm.getFreqs()
	// As analysis.TokenFrequency without term vectors.
	for i, tok := range tokens {
		cur, ok := wf.m[string(tok.Term)]
		if !ok {
			cur = wf.next((len(tokens) - i) / 2)
			cur.Term = tok.Term
			wf.m[string(tok.Term)] = cur
		}
		if !t.f.opts.SkipFreqNorm() {
			cur.SetFrequency(cur.Frequency() + 1)
		}
	}
	t.wf = wf
	t.dm.putArena(a)
}

// lowerWords lower-cases the words as bleve's lowercase filter does
// (in place, as it does), the ASCII ones directly: most words are, and
// the filter looks each letter up as a Unicode rune.
func lowerWords(tokens analysis.TokenStream) {
	for i, tok := range tokens {
		ascii := true
		for _, c := range tok.Term {
			if c >= utf8.RuneSelf {
				ascii = false
				break
			}
		}
		if !ascii {
			lowerFilter.Filter(tokens[i : i+1])
			continue
		}
		for j, c := range tok.Term {
			if 'A' <= c && c <= 'Z' {
				tok.Term[j] = c + 'a' - 'A'
			}
		}
	}
}

var lowerFilter = lowercase.NewLowerCaseFilter()

// release gives the frequencies and the text back: scorch indexed t's
// document, and nothing reads them any more.
func (t *analysedText) release() {
	if t.wf != nil {
		t.dm.putFreqs(t.wf)
		t.wf = nil
	}
	if t.owned {
		t.dm.putText(t.value)
		t.value, t.owned = nil, false
	}
}
