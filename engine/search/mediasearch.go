package search

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/folio-cms/folio/media"
)

// MediaSearch is the search index of the media library: filename, alt
// text, title and description (of every locale), plus the folder and kind of every item so that a search filters
// inside the index. It is an in-memory inverted index (mediaIndex),
// rebuilt from the library at start.
//
// Follow only queues a change; a background goroutine applies the queue
// in batches (at start-up, the library's whole contents in a few big
// ones), so Open and the first requests do not wait for indexing. A
// search waits until every change queued before it has been applied, so
// it always sees every write made before it.
//
// Hold keeps the goroutine from indexing until Release: the start holds
// the index while the library loads and releases it once the box is
// ready, so that the first build is not part of the start. A search
// meanwhile has the queue applied and waits for it, as any search waits
// for the changes queued before it.
type MediaSearch struct {
	idxMu sync.RWMutex // searches hold it for reading; a batch for writing
	idx   *mediaIndex

	// epoch moves after every change to what idx answers (a batch
	// applied); results holds the answers of the current epoch's
	// searches.
	epoch   atomic.Uint64
	results resultCache

	mu       sync.Mutex
	queue    []change
	queued   uint64        // changes ever queued
	applied  uint64        // changes ever applied to idx
	progress chan struct{} // closed (and replaced) whenever applied moves
	closed   bool
	held     bool // Follow queues without waking the worker (Hold)

	wake    chan struct{} // capacity 1: work is queued
	done    chan struct{} // closed by Close
	stopped chan struct{} // closed when the worker has returned
}

// change is one queued write; doc nil is a delete. Follow queues the
// item, and apply makes its doc: the text of every item loaded at start
// is put together by the indexing goroutine, not by the start.
type change struct {
	id   string
	item *media.Item
	doc  *mediaDoc
}

var errMediaSearchClosed = errors.New("media search is closed")

// maxQueryTerms bounds the terms of one search.
const maxQueryTerms = 8

// mediaDoc is what the index holds of an item (the tags name the fields
// of the bleve reference in the tests).
type mediaDoc struct {
	Text   string `json:"text"`
	Folder string `json:"folder"`
	Kind   string `json:"kind"`
}

// mediaAnalyzer names the analyzer of the text: Unicode words, lower-cased.
const mediaAnalyzer = "folio"

// NewMediaSearch makes an empty index and starts its indexing goroutine;
// Close stops it.
func NewMediaSearch() (*MediaSearch, error) {
	im, err := newMediaMapping()
	if err != nil {
		return nil, err
	}
	an := im.AnalyzerNamed(mediaAnalyzer)
	if an == nil {
		return nil, errors.New("media search: no analyzer")
	}
	m := &MediaSearch{
		idx:      newMediaIndex(an),
		progress: make(chan struct{}),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	go m.run()
	return m, nil
}

// newMediaMapping is the bleve mapping the media search was once built
// on: the index keeps its analyzer, so that words are cut exactly as they
// were, and the tests rank with it to check that the order of results
// did not change.
func newMediaMapping() (mapping.IndexMapping, error) {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomAnalyzer(mediaAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicodetok.Name,
		"token_filters": []string{lowercase.Name},
	}); err != nil {
		return nil, err
	}
	text := mapping.NewTextFieldMapping()
	text.Analyzer = mediaAnalyzer
	indexOnly(text)
	keyword := func() *mapping.FieldMapping { return indexOnly(mapping.NewKeywordFieldMapping()) }
	doc := mapping.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt("text", text)
	doc.AddFieldMappingsAt("folder", keyword())
	doc.AddFieldMappingsAt("kind", keyword())
	doc.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	im.DefaultMapping = doc
	im.DefaultAnalyzer = mediaAnalyzer
	return im, nil
}

// Close stops indexing and releases the index.
func (m *MediaSearch) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	close(m.done)
	<-m.stopped
	// Searches still waiting for indexing see closed and give up.
	m.mu.Lock()
	close(m.progress)
	m.progress = make(chan struct{})
	m.mu.Unlock()
	return nil
}

// Hold stops the background indexing until Release: Follow only
// queues, and the queue is applied when a search asks (Find waits for
// it) or after Release.
func (m *MediaSearch) Hold() {
	m.mu.Lock()
	m.held = true
	m.mu.Unlock()
}

// Release ends Hold: what was queued meanwhile is indexed in the
// background now.
func (m *MediaSearch) Release() {
	m.mu.Lock()
	m.held = false
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// Follow keeps the index in step with the library; it is the library's
// OnChange hook. It only queues the change (the item, which the library
// gives as a copy that does not change), so it is cheap enough for Open
// to call it for every item.
func (m *MediaSearch) Follow(it *media.Item, deleted bool) {
	c := change{id: it.ID}
	if !deleted {
		c.item = it
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.queue = append(m.queue, c)
	m.queued++
	held := m.held
	m.mu.Unlock()
	if held {
		return
	}
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

func docOf(it *media.Item) *mediaDoc {
	// Splitting the name on its separators lets "lake" find
	// "alpine-lake.jpg"; the unicode tokenizer keeps "alpine_lake" whole.
	name := strings.Map(func(r rune) rune {
		if r == '_' || r == '.' || r == '-' {
			return ' '
		}
		return r
	}, it.Filename)
	var text strings.Builder
	text.WriteString(name)
	for _, v := range []string{it.Alt, it.Title, it.Description} {
		if v != "" {
			text.WriteByte(' ')
			text.WriteString(v)
		}
	}
	// Every locale's text: a search finds an item by its French alt as
	// by its English one.
	for _, m := range []map[string]string{it.AltByLocale, it.TitleByLocale, it.DescriptionByLocale} {
		for _, l := range slices.Sorted(maps.Keys(m)) {
			text.WriteByte(' ')
			text.WriteString(m[l])
		}
	}
	return &mediaDoc{Text: text.String(), Folder: it.Folder, Kind: media.Kind(it.MimeType)}
}

// run applies the queue until Close. Whatever piled up while one batch
// was being indexed becomes the next batch, so a burst (Open, a bulk
// upload) is indexed in a few large batches.
func (m *MediaSearch) run() {
	defer close(m.stopped)
	for {
		select {
		case <-m.done:
			return
		case <-m.wake:
		}
		m.apply()
	}
}

// apply indexes everything queued so far as one batch.
func (m *MediaSearch) apply() {
	m.mu.Lock()
	q, target := m.queue, m.queued
	m.queue = nil
	m.mu.Unlock()
	if len(q) == 0 {
		return
	}
	for i := range q {
		if q[i].item != nil {
			q[i].doc, q[i].item = docOf(q[i].item), nil
		}
	}
	m.idxMu.Lock()
	m.idx.apply(q)
	// Before applied moves: a search that waited for this batch reads
	// the new epoch.
	m.epoch.Add(1)
	m.idxMu.Unlock()

	m.mu.Lock()
	m.applied = target
	close(m.progress)
	m.progress = make(chan struct{})
	m.mu.Unlock()
}

// wait returns once every change queued before the call is in the index,
// or when ctx is done.
func (m *MediaSearch) wait(ctx context.Context) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return errMediaSearchClosed
	}
	seq := m.queued
	for m.applied < seq {
		if m.closed {
			m.mu.Unlock()
			return errMediaSearchClosed
		}
		ch := m.progress
		m.mu.Unlock()
		select {
		case m.wake <- struct{}{}:
		default:
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		m.mu.Lock()
	}
	m.mu.Unlock()
	return nil
}

// Ready reports whether every change queued so far has been indexed (at
// start-up: whether the initial build is done).
func (m *MediaSearch) Ready() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.applied == m.queued
}

// MediaQuery is one search.
type MediaQuery struct {
	// Text is the words: every one must match (as a prefix) a word of the
	// filename or the alt text, case-insensitively.
	Text string
	// Folder keeps the items directly in that folder ("" = every folder);
	// it must be clean (media.CleanFolder).
	Folder string
	// Type keeps "image", "video" or "document" items ("" = all).
	Type string
	// Offset and Limit select the page of the hits, best first (exact
	// word matches rank above prefix matches); Reverse pages worst first.
	Offset, Limit int
	Reverse       bool
	// All asks for every hit, unranked (the caller orders them); Offset,
	// Limit and Reverse are ignored.
	All bool
}

// Find runs a search after every write queued before it has been indexed
// (waiting at most as long as ctx allows). It returns the ids of the
// selected page (or all hits) and the number of hits in all.
func (m *MediaSearch) Find(ctx context.Context, q MediaQuery) (ids []string, total int, err error) {
	terms := strings.FieldsFunc(strings.ToLower(q.Text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(terms) == 0 {
		return []string{}, 0, nil
	}
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	if err := m.wait(ctx); err != nil {
		return nil, 0, err
	}
	m.idxMu.RLock()
	defer m.idxMu.RUnlock()
	// Read before the search: a batch indexed meanwhile moves the epoch,
	// so an answer that may hold part of it is never served again.
	epoch := m.epoch.Load()
	key := resultKey{terms: strings.Join(terms, " "), folder: q.Folder, kind: q.Type, all: q.All}
	if !q.All {
		key.offset, key.limit, key.reverse = q.Offset, q.Limit, q.Reverse
	}
	if r, ok := m.results.get(epoch, key); ok {
		return slices.Clone(r.ids), r.total, nil
	}
	ids, total, err = m.idx.search(ctx, terms, q)
	if err == nil {
		m.results.put(epoch, key, result{ids: slices.Clone(ids), total: total})
	}
	return ids, total, err
}

// Search returns the ids of the items whose filename or alt text holds
// every word of q (a word matches as a prefix), best first, at most limit.
func (m *MediaSearch) Search(q string, limit int) ([]string, error) {
	ids, _, err := m.Find(context.Background(), MediaQuery{Text: q, Limit: limit})
	return ids, err
}
