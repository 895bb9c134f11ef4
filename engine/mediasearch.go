package engine

import (
	"context"
	"errors"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/folio-cms/folio/media"
)

// MediaSearch is the search index of the media library: filename and alt
// text, plus the folder and kind of every item so that a search filters
// inside the index. It is an in-memory scorch index, rebuilt from the
// library at start.
//
// Follow only queues a change; a background goroutine applies the queue
// in batches (at start-up, the library's whole contents in a few big
// ones), so Open and the first requests do not wait for indexing. A
// search waits until every change queued before it has been applied, so
// it always sees every write made before it.
//
// In-memory scorch never merges segments and every batch adds one, so
// after compactAfter batches the index is rebuilt as one segment in the
// background from a copy of the documents and swapped in.
type MediaSearch struct {
	im mapping.IndexMapping

	idxMu sync.RWMutex // searches hold it for reading; the swap for writing
	idx   bleve.Index  // changed with applyMu and idxMu held

	// epoch moves after every change to what idx answers (a batch
	// indexed, a rebuilt index swapped in); results holds the answers of
	// the current epoch's searches.
	epoch   atomic.Uint64
	results resultCache

	applyMu    sync.Mutex // orders batches and the swap
	docs       map[string]*mediaDoc
	batches    int      // batches since idx was built
	rebuilding bool     // a rebuild runs; changes applied meanwhile go to redo too
	redo       []change // applied since the rebuild's copy of docs
	bg         sync.WaitGroup

	mu       sync.Mutex
	queue    []change
	queued   uint64        // changes ever queued
	applied  uint64        // changes ever applied to idx
	progress chan struct{} // closed (and replaced) whenever applied moves
	err      error         // of the last batch
	closed   bool

	wake    chan struct{} // capacity 1: work is queued
	done    chan struct{} // closed by Close
	stopped chan struct{} // closed when the worker has returned
}

// change is one queued write; doc nil is a delete.
type change struct {
	id  string
	doc *mediaDoc
}

// compactAfter is how many batches (segments) the index takes before it
// is rebuilt as one; with more items, a rebuild waits for one batch per
// compactPer items, so that its cost per batch stays flat (each extra
// segment costs a search a few µs; a rebuild of 100k items, ~3 s of one
// core).
const (
	compactAfter = 64
	compactPer   = 1000
)

// maxQueryTerms bounds the terms of one search.
const maxQueryTerms = 8

// Field names of the index.
const (
	fieldText   = "text"
	fieldFolder = "folder"
	fieldKind   = "kind"
)

type mediaDoc struct {
	Text   string `json:"text"`
	Folder string `json:"folder"`
	Kind   string `json:"kind"`
}

// NewMediaSearch makes an empty index and starts its indexing goroutine;
// Close stops it.
func NewMediaSearch() (*MediaSearch, error) {
	im, err := newMediaMapping()
	if err != nil {
		return nil, err
	}
	idx, err := newMediaIndex(im)
	if err != nil {
		return nil, err
	}
	m := &MediaSearch{
		im:       im,
		idx:      idx,
		docs:     map[string]*mediaDoc{},
		progress: make(chan struct{}),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	go m.run()
	return m, nil
}

// indexOnly makes a field searchable and nothing more: no stored value,
// no term vectors, no _all, no doc values. Both search indexes rebuild
// from their sources, so none of that is ever read back.
func indexOnly(f *mapping.FieldMapping) *mapping.FieldMapping {
	f.Store = false
	f.IncludeTermVectors = false
	f.IncludeInAll = false
	f.DocValues = false
	return f
}

func newMediaMapping() (mapping.IndexMapping, error) {
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
	indexOnly(text)
	keyword := func() *mapping.FieldMapping { return indexOnly(mapping.NewKeywordFieldMapping()) }
	doc := mapping.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(fieldText, text)
	doc.AddFieldMappingsAt(fieldFolder, keyword())
	doc.AddFieldMappingsAt(fieldKind, keyword())
	// No composite _all field: nothing searches it, and building it for
	// every document is about a sixth of the indexing time.
	doc.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	im.DefaultMapping = doc
	im.DefaultAnalyzer = "folio"
	return im, nil
}

// newMediaIndex makes an empty index. scorch with no path keeps its
// segments in memory; it indexes a batch several times faster than
// upsidedown's MemOnly store and searches without per-hit key-value
// lookups.
func newMediaIndex(im mapping.IndexMapping) (bleve.Index, error) {
	return bleve.NewUsing("", im, scorch.Name, scorch.Name, nil)
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
	m.bg.Wait()
	// Searches still waiting for indexing see closed and give up.
	m.mu.Lock()
	close(m.progress)
	m.progress = make(chan struct{})
	m.mu.Unlock()
	m.idxMu.Lock()
	defer m.idxMu.Unlock()
	return m.idx.Close()
}

// Follow keeps the index in step with the library; it is the library's
// OnChange hook. It only queues the change, so it is cheap enough for
// Open to call it for every item.
func (m *MediaSearch) Follow(it *media.Item, deleted bool) {
	c := change{id: it.ID}
	if !deleted {
		c.doc = docOf(it)
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.queue = append(m.queue, c)
	m.queued++
	m.mu.Unlock()
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
	return &mediaDoc{Text: name + " " + it.Alt, Folder: it.Folder, Kind: media.Kind(it.MimeType)}
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
	m.applyMu.Lock()
	err := indexChanges(m.idx, q)
	// Before applied moves: a search that waited for this batch reads
	// the new epoch.
	m.epoch.Add(1)
	for _, c := range q {
		if c.doc == nil {
			delete(m.docs, c.id)
		} else {
			m.docs[c.id] = c.doc
		}
	}
	if m.rebuilding {
		m.redo = append(m.redo, q...)
	}
	m.batches++
	var snapshot map[string]*mediaDoc
	if !m.rebuilding && m.batches >= max(compactAfter, len(m.docs)/compactPer) {
		m.rebuilding, snapshot = true, maps.Clone(m.docs)
		m.bg.Add(1)
	}
	m.applyMu.Unlock()
	if snapshot != nil {
		go m.rebuild(snapshot)
	}

	m.mu.Lock()
	m.applied, m.err = target, err
	close(m.progress)
	m.progress = make(chan struct{})
	m.mu.Unlock()
}

// parallelFrom is the batch size from which a batch is split between the
// cores: scorch analyses a batch's documents in parallel but builds its
// segment on one goroutine.
const parallelFrom = 8192

// indexChanges applies q to idx: one batch, or for a large q (start-up)
// one batch per core, each item's last change in exactly one of them so
// that their order does not matter.
func indexChanges(idx bleve.Index, q []change) error {
	n := runtime.GOMAXPROCS(0)
	if len(q) < parallelFrom || n < 2 {
		return idx.Batch(batchOf(idx, q))
	}
	last := make(map[string]int, len(q))
	for i, c := range q {
		last[c.id] = i
	}
	parts := make([][]change, n)
	for i, c := range q {
		if last[c.id] == i {
			k := i % n
			parts[k] = append(parts[k], c)
		}
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k, p := range parts {
		wg.Go(func() { errs[k] = idx.Batch(batchOf(idx, p)) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// batchOf makes the batch of changes q, in order.
func batchOf(idx bleve.Index, q []change) *bleve.Batch {
	b := idx.NewBatch()
	for _, c := range q {
		// A batch keeps the last operation per id, which is the order
		// of that item's writes.
		if c.doc == nil {
			b.Delete(c.id)
		} else {
			_ = b.Index(c.id, c.doc)
		}
	}
	return b
}

// rebuild indexes snapshot as a new index of one segment, applies what
// changed meanwhile, and swaps it in; searches go on against the old index
// until the swap.
func (m *MediaSearch) rebuild(snapshot map[string]*mediaDoc) {
	defer m.bg.Done()
	fail := func() {
		m.applyMu.Lock()
		m.rebuilding, m.redo, m.batches = false, nil, 0
		m.applyMu.Unlock()
	}
	idx, err := newMediaIndex(m.im)
	if err != nil {
		fail()
		return
	}
	b := idx.NewBatch()
	for id, d := range snapshot {
		_ = b.Index(id, d)
	}
	if err := idx.Batch(b); err != nil {
		idx.Close()
		fail()
		return
	}
	select {
	case <-m.done:
		idx.Close()
		fail()
		return
	default:
	}
	m.applyMu.Lock()
	if len(m.redo) > 0 {
		if err := idx.Batch(batchOf(idx, m.redo)); err != nil {
			m.rebuilding, m.redo, m.batches = false, nil, 0
			m.applyMu.Unlock()
			idx.Close()
			return
		}
	}
	m.idxMu.Lock()
	old := m.idx
	m.idx = idx
	// The new index may number documents otherwise, and so order hits of
	// equal score otherwise.
	m.epoch.Add(1)
	m.idxMu.Unlock()
	m.rebuilding, m.redo, m.batches = false, nil, 1
	m.applyMu.Unlock()
	old.Close()
}

// wait returns once every change queued before the call is in the index,
// or when ctx is done.
func (m *MediaSearch) wait(ctx context.Context) error {
	m.mu.Lock()
	seq := m.queued
	for m.applied < seq {
		if m.closed {
			m.mu.Unlock()
			return errors.New("media search is closed")
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
	err := m.err
	m.mu.Unlock()
	return err
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
	ids, total, err = m.find(ctx, m.idx, terms, q)
	if err == nil {
		m.results.put(epoch, key, result{ids: slices.Clone(ids), total: total})
	}
	return ids, total, err
}

// find runs a search on idx.
func (m *MediaSearch) find(ctx context.Context, idx bleve.Index, terms []string, q MediaQuery) (ids []string, total int, err error) {
	parts := make([]query.Query, 0, len(terms)+2)
	for _, t := range terms {
		p, err := wordQuery(idx, t)
		if err != nil {
			return nil, 0, err
		}
		if p == nil { // no indexed word starts with t
			return []string{}, 0, nil
		}
		parts = append(parts, p)
	}
	// The filters add the same score to every hit, so they do not change
	// the order.
	if q.Folder != "" {
		f := bleve.NewTermQuery(q.Folder)
		f.SetField(fieldFolder)
		parts = append(parts, f)
	}
	if q.Type != "" {
		k := bleve.NewTermQuery(q.Type)
		k.SetField(fieldKind)
		parts = append(parts, k)
	}
	if q.All {
		ids, err := allHits(ctx, idx, bleve.NewConjunctionQuery(parts...))
		return ids, len(ids), err
	}
	if q.Limit <= 0 {
		return []string{}, 0, nil
	}
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(parts...), q.Limit, max(q.Offset, 0), false)
	if q.Reverse {
		req.SortBy([]string{"_score"})
	}
	res, err := idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, 0, err
	}
	ids = make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids, int(res.Total), nil
}

// allHits returns the id of every document q matches, in index order,
// unscored. It drives the searcher itself: bleve's collector would put
// every hit through a heap to sort them, for nothing.
func allHits(ctx context.Context, idx bleve.Index, q query.Query) ([]string, error) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s, err := q.Searcher(ctx, r, idx.Mapping(), search.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0), IndexReader: r}
	ids := make([]string, 0, s.Count())
	for i := 0; ; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		d, err := s.Next(sctx)
		if err != nil {
			return nil, err
		}
		if d == nil {
			return ids, nil
		}
		id, err := r.ExternalID(d.IndexInternalID)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
		sctx.DocumentMatchPool.Put(d)
	}
}

// exactBoost makes an exact word match outscore any prefix match: a
// prefix match scores at most about idf (≤ 1+ln N) × √tf, far below it.
const exactBoost = 1000

// maxPrefixTerms bounds the words one prefix expands to before the
// search leaves the expansion to bleve (a prefix such as "0" can match
// every item's number).
const maxPrefixTerms = 256

// wordQuery matches one word of a search: the word itself, boosted, or
// any longer indexed word it starts. The expansion is read from the term
// dictionary here, not by a prefix query, so that the postings of the
// exact word are not read twice; nil means no indexed word starts with t.
func wordQuery(idx bleve.Index, t string) (query.Query, error) {
	d, err := idx.FieldDictPrefix(fieldText, []byte(t))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var qs []query.Query
	for {
		e, err := d.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		if len(qs) == maxPrefixTerms {
			exact := bleve.NewTermQuery(t)
			exact.SetField(fieldText)
			exact.SetBoost(exactBoost)
			prefix := bleve.NewPrefixQuery(t)
			prefix.SetField(fieldText)
			return bleve.NewDisjunctionQuery(exact, prefix), nil
		}
		tq := bleve.NewTermQuery(e.Term)
		tq.SetField(fieldText)
		if e.Term == t {
			tq.SetBoost(exactBoost)
		}
		qs = append(qs, tq)
	}
	switch len(qs) {
	case 0:
		return nil, nil
	case 1:
		return qs[0], nil
	}
	return bleve.NewDisjunctionQuery(qs...), nil
}

// Search returns the ids of the items whose filename or alt text holds
// every word of q (a word matches as a prefix), best first, at most limit.
func (m *MediaSearch) Search(q string, limit int) ([]string, error) {
	ids, _, err := m.Find(context.Background(), MediaQuery{Text: q, Limit: limit})
	return ids, err
}
