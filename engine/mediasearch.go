package engine

import (
	"errors"
	"strings"
	"sync"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/folio-cms/folio/media"
)

// MediaSearch is the search index of the media library: filename and alt
// text, in memory, rebuilt from the library at start. Writes are batched and
// flushed before every search, so a search always sees every write made
// before it.
type MediaSearch struct {
	idx bleve.Index

	mu      sync.Mutex
	pending *bleve.Batch
}

// flushAt is the pending batch size that triggers a flush without a search.
const flushAt = 2000

// maxQueryTerms bounds the terms of one search.
const maxQueryTerms = 8

type mediaDoc struct {
	Text string `json:"text"`
}

// NewMediaSearch makes an empty index.
func NewMediaSearch() (*MediaSearch, error) {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomAnalyzer("folio", map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicodetok.Name,
		"token_filters": []string{lowercase.Name},
	}); err != nil {
		return nil, err
	}
	text := mapping.NewTextFieldMapping()
	text.Analyzer = "folio"
	text.Store = false
	text.IncludeTermVectors = false
	text.IncludeInAll = false
	text.DocValues = false
	doc := mapping.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt("text", text)
	im.DefaultMapping = doc
	im.DefaultAnalyzer = "folio"
	idx, err := bleve.NewMemOnly(im)
	if err != nil {
		return nil, err
	}
	return &MediaSearch{idx: idx, pending: idx.NewBatch()}, nil
}

// Close releases the index.
func (m *MediaSearch) Close() error { return m.idx.Close() }

// Follow keeps the index in step with the library; it is the library's
// OnChange hook.
func (m *MediaSearch) Follow(it *media.Item, deleted bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if deleted {
		m.pending.Delete(it.ID)
	} else {
		// Splitting the name on its separators lets "lake" find
		// "alpine-lake.jpg"; the unicode tokenizer keeps "alpine_lake" whole.
		name := strings.Map(func(r rune) rune {
			if r == '_' || r == '.' || r == '-' {
				return ' '
			}
			return r
		}, it.Filename)
		_ = m.pending.Index(it.ID, mediaDoc{Text: name + " " + it.Alt})
	}
	if m.pending.Size() >= flushAt {
		m.flushLocked()
	}
}

func (m *MediaSearch) flushLocked() error {
	if m.pending.Size() == 0 {
		return nil
	}
	err := m.idx.Batch(m.pending)
	// bleve may still read the batch it was handed: start a new one.
	m.pending = m.idx.NewBatch()
	return err
}

// ErrBadQuery is a search with nothing to search for.
var ErrBadQuery = errors.New("search has no words")

// Search returns the ids of the items whose filename or alt text holds
// every word of q (a word matches as a prefix), best first, at most limit.
func (m *MediaSearch) Search(q string, limit int) ([]string, error) {
	terms := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(terms) == 0 {
		return []string{}, nil
	}
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	m.mu.Lock()
	err := m.flushLocked()
	m.mu.Unlock()
	if err != nil {
		return nil, err
	}
	parts := make([]query.Query, len(terms))
	for i, t := range terms {
		exact := bleve.NewTermQuery(t)
		exact.SetField("text")
		exact.SetBoost(2)
		prefix := bleve.NewPrefixQuery(t)
		prefix.SetField("text")
		parts[i] = bleve.NewDisjunctionQuery(exact, prefix)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(parts...), limit, 0, false)
	res, err := m.idx.Search(req)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids, nil
}
