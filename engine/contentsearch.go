package engine

import (
	"context"
	"errors"
	"fmt"
	"html"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ar"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ckb"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/da"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/de"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/en"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/es"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fa"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fi"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/fr"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hi"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hr"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/hu"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/it"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/nl"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/no"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/pt"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ro"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/ru"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/sv"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/tr"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	htmlfmt "github.com/blevesearch/bleve/v2/search/highlight/format/html"
	simplefrag "github.com/blevesearch/bleve/v2/search/highlight/fragmenter/simple"
	simplehl "github.com/blevesearch/bleve/v2/search/highlight/highlighter/simple"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/folio-cms/folio/content"
)

// Content search: one bleve index per branch over the titles and text of
// every page and item of the branch's snapshot, drafts and scheduled ones
// included, each with its kind, type, draft flag and publish and expiry
// instants, so that a published search filters inside the index (and
// its total counts only what the published view shows).
//
// The index follows the snapshots: a swap only records the new snapshot
// and wakes the index's goroutine, which re-indexes the documents whose
// pointer changed (content.Assembler keeps the pointer of every document
// a commit did not touch) and deletes the ones that are gone. A push is
// therefore served before it is indexed; a search waits (at most
// searchCatchUp) for the index to reach the snapshot served when it
// started, and every hit is checked against the current view, so a
// lagging index never shows a draft, a removed document or an old
// version's title.
//
// In-memory scorch never merges segments, and every push adds one; after
// compactAfter pushes, and when folio.yaml's language changes, the index
// is rebuilt from a snapshot in the background and brought up to date
// before it is swapped in, while searches go on against the old one.

// Field names of the content index.
const (
	csTitle = "title"
	csText  = "text"
	csKind  = "kind"
	csType  = "type"
	csVis   = "vis" // visDraft, visLive or visTimed
	csPub   = "pub" // publish instant of a timed document, Unix milliseconds
	csExp   = "exp" // expiry instant of a timed document, Unix ms; neverMS when none
)

// Kinds of search hits.
const (
	KindPage = "page"
	KindItem = "item"
)

// neverMS stands for "never expires" in the exp field.
const neverMS = float64(253402300799000) // 9999-12-31

// searchCatchUp is how long a search waits for the index to reach the
// snapshot served when the search started (a push is indexed in
// milliseconds; a rebuild of a big site takes longer, and then the search
// answers from the index as it is, filtered by the current view).
const searchCatchUp = time.Second

// searchFirstBuild is how long a search waits for the first build of an
// index (at start-up, or the first draft search with a draft branch).
const searchFirstBuild = 30 * time.Second

// MaxSearchTerms bounds the words of one search.
const MaxSearchTerms = 32

// ErrSearchOff is returned by Search when Config.Search is off.
var ErrSearchOff = errors.New("content search is off")

// ErrSearchBusy is returned when the index is still being built after
// searchFirstBuild.
var ErrSearchBusy = errors.New("the search index is still being built")

// SearchQuery is one content search.
type SearchQuery struct {
	Text string // the words; every one must match (stemmed per folio.yaml's language)
	// Type keeps the items of one content type ("" = pages and items).
	Type string
	// PublicOnly keeps the items of the types folio.yaml marks public.
	PublicOnly bool
	// Draft searches the draft view (the draft branch when configured).
	Draft         bool
	Limit, Offset int
}

// SearchHit is one result, best first.
type SearchHit struct {
	Kind    string  `json:"kind"`           // KindPage or KindItem
	Type    string  `json:"type,omitempty"` // the item's content type; "" for a page
	ID      string  `json:"id"`
	Slug    string  `json:"slug"`
	Title   string  `json:"title"`
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"` // HTML: escaped text, matches in <mark>
}

// SearchResult is a page of hits and the number of hits in all.
type SearchResult struct {
	Hits  []SearchHit
	Total int
}

// contentSearch holds the index of each branch: the published one from
// the first snapshot, the draft branch's on the first draft search.
type contentSearch struct {
	pub *contentIndex

	draftMu sync.Mutex
	draft   *contentIndex // nil until a draft search, or without a draft branch
}

func (cs *contentSearch) close() {
	cs.pub.close()
	cs.draftMu.Lock()
	defer cs.draftMu.Unlock()
	if cs.draft != nil {
		cs.draft.close()
	}
}

// Search runs a content search against the current view.
func (e *Engine) Search(ctx context.Context, q SearchQuery) (SearchResult, error) {
	if e.search == nil {
		return SearchResult{}, ErrSearchOff
	}
	ci := e.search.pub
	var snap *Snapshot
	if q.Draft {
		snap = e.draft.Load()
		if e.cfg.DraftBranch != "" {
			ci = e.draftIndex()
			// Reload may have stored snap before the index existed to be
			// told of it; follow never goes back to an older snapshot.
			ci.follow(snap)
		}
	} else {
		snap = e.published.Load()
	}
	now := e.cfg.Now()
	return ci.search(ctx, q, snap, snap.View(q.Draft, now), now)
}

// draftIndex returns the draft branch's index, made (and built from the
// current draft snapshot) on first use.
func (e *Engine) draftIndex() *contentIndex {
	e.search.draftMu.Lock()
	defer e.search.draftMu.Unlock()
	if e.search.draft == nil {
		e.search.draft = newContentIndex(e.cfg.Logger.With("index", "draft search"), e.cfg.Now)
		e.search.draft.follow(e.draft.Load())
	}
	return e.search.draft
}

// followSearch tells the indexes about a new snapshot (Reload, before the
// swap, so that a search that sees it waits for it): it only records it.
func (e *Engine) followSearch(s *Snapshot, draftBranch bool) {
	if e.search == nil || s == nil {
		return
	}
	if !draftBranch {
		e.search.pub.follow(s)
		return
	}
	e.search.draftMu.Lock()
	d := e.search.draft
	e.search.draftMu.Unlock()
	if d != nil {
		d.follow(s)
	}
}

// contentIndex is the index of one branch and the goroutine that keeps it
// in step with the branch's snapshots.
type contentIndex struct {
	log interface {
		Warn(msg string, args ...any)
	}
	now func() time.Time

	idxMu sync.RWMutex // searches read idx and docs under it; updates write
	idx   bleve.Index  // nil until the first build is in
	lang  string       // folio.yaml language idx was built for
	docs  map[string]any

	mu       sync.Mutex
	target   *Snapshot     // the latest snapshot: what the index must reach
	applied  *Snapshot     // what the index holds
	progress chan struct{} // closed (and replaced) whenever applied moves
	closed   bool

	batches    int  // batches since idx was built
	rebuilding bool // a rebuild runs (only the worker reads or writes this)
	rebuilt    chan *builtIndex
	wake       chan struct{}
	done       chan struct{}
	stopped    chan struct{}
	bg         sync.WaitGroup
}

// builtIndex is the result of a rebuild: idx holds docs, snap's documents.
type builtIndex struct {
	idx  bleve.Index
	lang string
	docs map[string]any
	snap *Snapshot
	err  error
}

func newContentIndex(log interface{ Warn(string, ...any) }, now func() time.Time) *contentIndex {
	ci := &contentIndex{
		log:      log,
		now:      now,
		progress: make(chan struct{}),
		rebuilt:  make(chan *builtIndex, 1),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	go ci.run()
	return ci
}

// follow records s as the snapshot to index, unless a later one is
// recorded already, and wakes the worker.
func (ci *contentIndex) follow(s *Snapshot) {
	ci.mu.Lock()
	if ci.target != nil && ci.target.seq >= s.seq {
		ci.mu.Unlock()
		return
	}
	ci.target = s
	ci.mu.Unlock()
	select {
	case ci.wake <- struct{}{}:
	default:
	}
}

func (ci *contentIndex) close() {
	ci.mu.Lock()
	if ci.closed {
		ci.mu.Unlock()
		return
	}
	ci.closed = true
	close(ci.progress)
	ci.progress = make(chan struct{})
	ci.mu.Unlock()
	close(ci.done)
	<-ci.stopped
	ci.bg.Wait()
	select {
	case b := <-ci.rebuilt:
		if b.idx != nil {
			b.idx.Close()
		}
	default:
	}
	ci.idxMu.Lock()
	defer ci.idxMu.Unlock()
	if ci.idx != nil {
		ci.idx.Close()
		ci.idx = nil
	}
}

// status tells which commit the index holds and whether that is served,
// the snapshot being served.
func (ci *contentIndex) status(served *Snapshot) *SearchStatus {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	st := &SearchStatus{}
	if ci.applied != nil {
		st.Commit = ci.applied.Commit
		st.CaughtUp = ci.applied == served
	}
	return st
}

// run brings the index up to the target snapshot whenever woken, and swaps
// in rebuilt indexes.
func (ci *contentIndex) run() {
	defer close(ci.stopped)
	for {
		select {
		case <-ci.done:
			return
		case <-ci.wake:
		case b := <-ci.rebuilt:
			ci.rebuilding = false
			if b.err != nil {
				ci.log.Warn("rebuild search index", "err", b.err)
			} else {
				ci.swapIn(b)
			}
		}
		ci.step()
	}
}

// step applies the target snapshot to the index, or starts a rebuild when
// there is no index yet, the language changed, or the index has many
// segments.
func (ci *contentIndex) step() {
	ci.mu.Lock()
	s, applied := ci.target, ci.applied
	ci.mu.Unlock()
	if s == nil {
		return
	}
	lang := s.Site.Config.Language
	ci.idxMu.RLock()
	idx, idxLang := ci.idx, ci.lang
	ci.idxMu.RUnlock()
	if !ci.rebuilding && (idx == nil || idxLang != lang || ci.batches >= max(compactAfter, len(ci.docs)/compactPer)) {
		ci.rebuilding = true
		ci.bg.Add(1)
		go ci.rebuild(s)
	}
	if idx == nil || idxLang != lang || s == applied {
		return // the rebuild brings it
	}
	if err := ci.apply(idx, ci.docs, s); err != nil {
		ci.log.Warn("update search index", "err", err)
		return
	}
	ci.batches++
	ci.setApplied(s)
}

// swapIn brings a rebuilt index up to the target snapshot and makes it
// the one searched.
func (ci *contentIndex) swapIn(b *builtIndex) {
	ci.mu.Lock()
	s := ci.target
	ci.mu.Unlock()
	if s.Site.Config.Language != b.lang {
		b.idx.Close() // the language changed again meanwhile: step rebuilds
		return
	}
	if s != b.snap {
		if err := ci.apply(b.idx, b.docs, s); err != nil {
			ci.log.Warn("update rebuilt search index", "err", err)
			b.idx.Close()
			return
		}
	}
	ci.idxMu.Lock()
	old := ci.idx
	ci.idx, ci.lang, ci.docs = b.idx, b.lang, b.docs
	ci.idxMu.Unlock()
	ci.batches = 1
	if old != nil {
		old.Close()
	}
	ci.setApplied(s)
}

func (ci *contentIndex) setApplied(s *Snapshot) {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	ci.applied = s
	if !ci.closed {
		close(ci.progress)
		ci.progress = make(chan struct{})
	}
}

// rebuild indexes every document of s into a new index and hands it to
// the worker.
func (ci *contentIndex) rebuild(s *Snapshot) {
	defer ci.bg.Done()
	b := &builtIndex{lang: s.Site.Config.Language, docs: map[string]any{}, snap: s}
	b.idx, b.err = newContentIndexFor(b.lang)
	if b.err == nil {
		b.err = ci.apply(b.idx, b.docs, s)
		if b.err != nil {
			b.idx.Close()
			b.idx = nil
		}
	}
	select {
	case ci.rebuilt <- b:
	case <-ci.done:
		if b.idx != nil {
			b.idx.Close()
		}
	}
}

// apply makes idx, which holds docs, hold the documents of s: it indexes
// the documents whose pointer is not in docs and deletes those s lacks.
func (ci *contentIndex) apply(idx bleve.Index, docs map[string]any, s *Snapshot) error {
	changed := map[string]any{}
	seen := make(map[string]struct{}, len(docs))
	for _, p := range s.Site.Pages {
		id := pageDocID(p)
		seen[id] = struct{}{}
		if docs[id] != any(p) {
			changed[id] = p
		}
	}
	for _, items := range s.Site.Items {
		for _, it := range items {
			id := itemDocID(it)
			seen[id] = struct{}{}
			if docs[id] != any(it) {
				changed[id] = it
			}
		}
	}
	var gone []string
	for id := range docs {
		if _, ok := seen[id]; !ok {
			gone = append(gone, id)
		}
	}
	if len(changed) == 0 && len(gone) == 0 {
		return nil
	}
	if err := indexDocs(idx, changed, gone, ci.now()); err != nil {
		return err
	}
	// docs is read by searches when it is the served map.
	ci.idxMu.Lock()
	for id, d := range changed {
		docs[id] = d
	}
	for _, id := range gone {
		delete(docs, id)
	}
	ci.idxMu.Unlock()
	return nil
}

// buildBatch bounds the documents of one batch. Analysing a batch holds
// every word of its documents at once: the whole 10k-file site in one
// batch took a gigabyte. Each batch is one more in-memory segment (which
// scorch never merges), a few µs more on each search.
const buildBatch = 1000

// indexDocs indexes changed and deletes gone: one batch for a push, or
// for many documents (a build) batches of buildBatch, one per core at a
// time (scorch analyses a batch's documents in parallel but builds its
// segment on one goroutine).
func indexDocs(idx bleve.Index, changed map[string]any, gone []string, now time.Time) error {
	ids := make([]string, 0, len(changed))
	for id := range changed {
		ids = append(ids, id)
	}
	chunks := [][]string{nil} // the deletes go with the first
	for len(ids) > 0 {
		k := min(buildBatch, len(ids))
		if len(chunks) == 1 && chunks[0] == nil {
			chunks[0] = ids[:k]
		} else {
			chunks = append(chunks, ids[:k])
		}
		ids = ids[k:]
	}
	work := make(chan int, len(chunks))
	for i := range chunks {
		work <- i
	}
	close(work)
	workers := min(runtime.GOMAXPROCS(0), len(chunks))
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c := range work {
				b := idx.NewBatch()
				if c == 0 {
					for _, id := range gone {
						b.Delete(id)
					}
				}
				for _, id := range chunks[c] {
					if err := b.Index(id, searchDocOf(changed[id], now)); err != nil {
						errs[c] = fmt.Errorf("index %s: %w", id, err)
						break
					}
				}
				if errs[c] == nil {
					errs[c] = idx.Batch(b)
				}
				if len(chunks) > 2 {
					// A build: collect the batch's garbage (its words) now,
					// rather than let the heap double over it; this keeps
					// the peak RSS of a build about 100 MB lower at 10k.
					runtime.GC()
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func pageDocID(p *content.Page) string  { return "p\x00" + p.ID }
func itemDocID(it *content.Item) string { return "i\x00" + it.Type + "\x00" + it.ID }

// Values of the vis field: whether a published view shows a document.
// A document that is not a draft, was published when it was indexed and
// never expires is shown from then on ("live"); one published later or
// expiring ("timed") also has its instants indexed, compared with the
// time of each search. Only the few timed documents have terms in the
// pub and exp fields, so the range queries on them cost little.
const (
	visDraft = "draft"
	visLive  = "live"
	visTimed = "timed"
)

// searchDocOf is what the index holds of a page or an item, at instant
// now.
func searchDocOf(d any, now time.Time) map[string]any {
	title, text, kind, typ, m, pub := docText(d, 0)
	doc := map[string]any{csTitle: title, csText: text, csKind: kind, csType: typ}
	switch {
	case m.Draft:
		doc[csVis] = visDraft
	case !pub.After(now) && m.ExpiresAt.IsZero():
		doc[csVis] = visLive
	default:
		doc[csVis] = visTimed
		doc[csPub] = float64(pub.UnixMilli())
		exp := neverMS
		if !m.ExpiresAt.IsZero() {
			exp = float64(m.ExpiresAt.UnixMilli())
		}
		doc[csExp] = exp
	}
	return doc
}

// docText is the title and text of a page or an item (limit, when not 0:
// about the first limit bytes of the text), what kind it is, its type,
// meta and publish instant.
func docText(d any, limit int) (title, text, kind, typ string, m content.Meta, pub time.Time) {
	tb := textBuilder{limit: limit}
	switch d := d.(type) {
	case *content.Page:
		title, kind, m, pub = d.Title, KindPage, d.Meta, d.PublishedAt
		tb.add(d.SEO.Description)
		for _, sec := range d.Sections {
			tb.walk(sec.Data)
		}
	case *content.Item:
		title, kind, typ, m, pub = d.Title, KindItem, d.Type, d.Meta, d.PublishedAt
		// The body first: a snippet is cut from the start when the words
		// are only in the title.
		if b, ok := d.Data["body"]; ok {
			tb.walk(b)
		}
		for _, k := range sortedKeys(d.Data) {
			if k != "body" {
				tb.walk(d.Data[k])
			}
		}
	}
	return title, tb.String(), kind, typ, m, pub
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// textBuilder gathers the text of a document's string values.
type textBuilder struct {
	strings.Builder
	// limit, when not 0, stops the text at about that many bytes.
	limit int
}

func (tb *textBuilder) full() bool { return tb.limit > 0 && tb.Len() >= tb.limit }

func (tb *textBuilder) add(s string) {
	if tb.full() {
		return
	}
	if tb.limit > 0 && len(s) > 2*tb.limit {
		// Markup makes the text shorter than its source; twice the
		// room left is plenty. Cut at a line end, so that no construct
		// is cut in two, when there is one.
		cut := 2 * tb.limit
		if i := strings.LastIndexByte(s[:cut], '\n'); i > tb.limit {
			cut = i
		}
		s = s[:cut]
	}
	s = content.PlainText(s)
	if s == "" {
		return
	}
	if tb.Len() > 0 {
		tb.WriteString(" \u2026 ") // fields apart: a phrase never spans two
	}
	tb.WriteString(s)
}

// walk adds the strings of a front matter value: Markdown bodies and
// strings, in maps (by key) and lists, but not the strings that are a
// link or a path (no spaces, a scheme or a leading '/').
func (tb *textBuilder) walk(v any) {
	switch v := v.(type) {
	case content.Markdown:
		tb.add(v.Source())
	case string:
		if !strings.ContainsAny(v, " \t\n") && (strings.HasPrefix(v, "/") || strings.Contains(v, "://")) {
			return
		}
		tb.add(v)
	case map[string]any:
		for _, k := range sortedKeys(v) {
			tb.walk(v[k])
		}
	case []any:
		for _, e := range v {
			tb.walk(e)
		}
	}
}

// analyzerFor is the bleve analyzer of a folio.yaml language.
func analyzerFor(lang string) string {
	switch lang {
	case "":
		return standard.Name
	case "zh", "ja", "ko":
		return cjk.AnalyzerName
	}
	return lang // bleve names its language analyzers by their code
}

func newContentMapping(lang string) (mapping.IndexMapping, error) {
	an := analyzerFor(lang)
	text := func() *mapping.FieldMapping {
		f := mapping.NewTextFieldMapping()
		f.Analyzer = an
		// Neither the text nor the positions of its words are kept: at
		// 10k documents they took gigabytes while a batch was indexed.
		// Snippets are made from the document at query time, for the
		// page of hits only (snippetOf).
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	keyword := func() *mapping.FieldMapping {
		k := mapping.NewKeywordFieldMapping()
		k.Store = false
		k.IncludeTermVectors = false
		k.IncludeInAll = false
		k.DocValues = false
		return k
	}
	number := func() *mapping.FieldMapping {
		n := mapping.NewNumericFieldMapping()
		n.Store = false
		n.IncludeInAll = false
		n.DocValues = false
		return n
	}
	doc := mapping.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(csTitle, text())
	doc.AddFieldMappingsAt(csText, text())
	doc.AddFieldMappingsAt(csKind, keyword())
	doc.AddFieldMappingsAt(csType, keyword())
	doc.AddFieldMappingsAt(csVis, keyword())
	doc.AddFieldMappingsAt(csPub, number())
	doc.AddFieldMappingsAt(csExp, number())
	doc.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	im := bleve.NewIndexMapping()
	im.DefaultMapping = doc
	im.DefaultAnalyzer = an
	if err := im.Validate(); err != nil {
		return nil, fmt.Errorf("search mapping for language %q: %w", lang, err)
	}
	return im, nil
}

func newContentIndexFor(lang string) (bleve.Index, error) {
	im, err := newContentMapping(lang)
	if err != nil {
		return nil, err
	}
	return newMediaIndex(im) // in-memory scorch, as for media
}

// wait returns once the index holds snapshot s or the latest one it was
// told of (follow is called before a snapshot is served, so that is s or
// a later one), or after limit (or ctx); ready is false when there is no
// index at all.
func (ci *contentIndex) wait(ctx context.Context, s *Snapshot, limit time.Duration) (ready bool) {
	var timeout <-chan time.Time
	for {
		ci.mu.Lock()
		applied, ch, closed := ci.applied, ci.progress, ci.closed
		caughtUp := applied != nil && (applied == s || applied == ci.target)
		ci.mu.Unlock()
		if caughtUp || closed {
			return applied != nil
		}
		if timeout == nil {
			t := time.NewTimer(limit)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-ch:
		case <-timeout:
			return applied != nil
		case <-ctx.Done():
			return applied != nil
		}
	}
}

// search runs q against the index and keeps the hits that view shows,
// as they are in snap.
func (ci *contentIndex) search(ctx context.Context, q SearchQuery, snap *Snapshot, view *View, now time.Time) (SearchResult, error) {
	limit := searchCatchUp
	ci.mu.Lock()
	first := ci.applied == nil
	ci.mu.Unlock()
	if first {
		limit = searchFirstBuild
	}
	if !ci.wait(ctx, snap, limit) {
		if err := ctx.Err(); err != nil {
			return SearchResult{}, err
		}
		return SearchResult{}, ErrSearchBusy
	}
	ci.idxMu.RLock()
	defer ci.idxMu.RUnlock()
	if ci.idx == nil {
		return SearchResult{}, ErrSearchBusy
	}
	words, err := queryTerms(ci.idx, ci.lang, q.Text)
	if err != nil {
		return SearchResult{}, err
	}
	if len(words) == 0 || q.Limit <= 0 {
		return SearchResult{Hits: []SearchHit{}}, nil
	}
	must := make([]query.Query, 0, len(words)+4)
	for _, w := range words {
		t := bleve.NewTermQuery(w)
		t.SetField(csText)
		ti := bleve.NewTermQuery(w)
		ti.SetField(csTitle)
		ti.SetBoost(3) // a word of the title counts thrice
		must = append(must, bleve.NewDisjunctionQuery(t, ti))
	}
	// The filters add the same score to every hit: the order is the words'.
	switch {
	case q.Type != "":
		must = append(must, termQuery(csKind, KindItem), termQuery(csType, q.Type))
	case q.PublicOnly:
		var types []query.Query
		for _, name := range sortedKeys(snap.Site.Config.Types) {
			if snap.Site.Config.Types[name].Public {
				types = append(types, termQuery(csType, name))
			}
		}
		if len(types) == 0 {
			return SearchResult{Hits: []SearchHit{}}, nil
		}
		must = append(must, termQuery(csKind, KindItem), bleve.NewDisjunctionQuery(types...))
	}
	if !q.Draft {
		ms := float64(now.UnixMilli())
		incl, excl := true, false
		pub := bleve.NewNumericRangeInclusiveQuery(nil, &ms, nil, &incl)
		pub.SetField(csPub)
		exp := bleve.NewNumericRangeInclusiveQuery(&ms, nil, &excl, nil)
		exp.SetField(csExp)
		must = append(must, bleve.NewDisjunctionQuery(termQuery(csVis, visLive),
			bleve.NewConjunctionQuery(termQuery(csVis, visTimed), pub, exp)))
	}
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(must...), q.Limit, q.Offset, false)
	res, err := ci.idx.SearchInContext(ctx, req)
	if err != nil {
		return SearchResult{}, err
	}
	an := ci.idx.Mapping().AnalyzerNamed(analyzerFor(ci.lang))
	out := SearchResult{Hits: make([]SearchHit, 0, len(res.Hits)), Total: int(res.Total)}
	for _, h := range res.Hits {
		d := ci.docs[h.ID]
		hit, ok := view.hit(d)
		if !ok {
			// Indexed, but not what the view shows (the index lags a
			// push, or a scheduled instant just passed).
			out.Total--
			continue
		}
		hit.Score = h.Score
		hit.Snippet = snippetOf(d, an, words)
		out.Hits = append(out.Hits, hit)
	}
	out.Total = max(out.Total, q.Offset+len(out.Hits))
	return out, nil
}

func termQuery(field, term string) query.Query {
	t := bleve.NewTermQuery(term)
	t.SetField(field)
	return t
}

// queryTerms analyses text as the index's text is analysed (lower-cased,
// stop words dropped, stemmed per the language), without repeats.
func queryTerms(idx bleve.Index, lang, text string) ([]string, error) {
	an := idx.Mapping().AnalyzerNamed(analyzerFor(lang))
	if an == nil {
		return nil, fmt.Errorf("no analyzer for language %q", lang)
	}
	var words []string
	for _, tok := range an.Analyze([]byte(text)) {
		if tok.Type == analysis.Shingle {
			continue
		}
		w := string(tok.Term)
		if !slices.Contains(words, w) {
			words = append(words, w)
			if len(words) == MaxSearchTerms {
				break
			}
		}
	}
	return words, nil
}

// hit describes d (from the index's documents) when the view shows that
// very document: same pointer, so a version the view no longer serves, a
// draft, or a document scheduled for later never makes a hit.
func (v *View) hit(d any) (SearchHit, bool) {
	switch d := d.(type) {
	case *content.Page:
		e, ok := v.pageBySlug[d.Slug]
		if !ok || e.full.value != any(d) {
			return SearchHit{}, false
		}
		return SearchHit{Kind: KindPage, ID: d.ID, Slug: d.Slug, Title: d.Title}, true
	case *content.Item:
		t, ok := v.types[d.Type]
		if !ok {
			return SearchHit{}, false
		}
		e, ok := t.bySlug[d.Slug]
		if !ok || e.item != d {
			return SearchHit{}, false
		}
		return SearchHit{Kind: KindItem, Type: d.Type, ID: d.ID, Slug: d.Slug, Title: d.Title}, true
	}
	return SearchHit{}, false
}

// snippetLen is the length of a snippet.
const snippetLen = 200

// snippetChunk is how much of a document's text is analysed at a time
// while looking for the first match.
const snippetChunk = 512

// snippetHighlighter cuts fragments of about snippetLen bytes around
// matches and marks them: bleve's simple highlighter, as its "html" style.
var snippetHighlighter = simplehl.NewHighlighter(simplefrag.NewFragmenter(snippetLen),
	htmlfmt.NewFragmentFormatter("<mark>", "</mark>"), "\u2026")

// snippetOf is the best fragment of the first part of d's text that holds
// one of words (the analysed search words), with the matches marked;
// else the title's; else the text's start. Only the hits of a page are
// given one, so the text is analysed here rather than stored in the
// index with the positions of every word.
func snippetOf(d any, an analysis.Analyzer, words []string) string {
	// The start of the text first: common words are found there, and
	// the rest of a long body is then never read.
	_, text, _, _, _, _ := docText(d, 2*snippetChunk)
	if f, ok := firstFragment(text, an, words); ok {
		return f
	}
	title, text, _, _, _, _ := docText(d, 0)
	if f, ok := firstFragment(text, an, words); ok {
		return f
	}
	if f, ok := highlight(title, an, words); ok {
		return f
	}
	s := text
	if s == "" {
		s = title
	}
	if len(s) > snippetLen {
		i := snippetLen
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "\u2026"
	}
	return html.EscapeString(s)
}

// firstFragment is the best fragment around the first match in text.
// Analysing a whole body for every hit would cost more than the search,
// so it analyses only the chunks around the places where the lower-cased
// text holds the first bytes of a search word (a stem keeps a word's
// start in the languages that stem; where it does not, the snippet
// falls back to the title or the text's start).
func firstFragment(text string, an analysis.Analyzer, words []string) (string, bool) {
	if text == "" {
		return "", false
	}
	lower := strings.ToLower(text)
	if len(lower) != len(text) {
		lower = "" // a case change resized some letter: offsets differ
	}
	next := 0
	for tries := 0; tries < 8 && next < len(text); tries++ {
		at := len(text)
		if lower == "" {
			at = next // no probe: analyse chunk after chunk
		} else {
			for _, w := range words {
				probe := w[:min(len(w), 3)]
				if i := strings.Index(lower[next:], probe); i >= 0 && next+i < at {
					at = next + i
				}
			}
			if at == len(text) {
				return "", false
			}
		}
		from := max(0, at-snippetChunk/4)
		if i := strings.LastIndexByte(text[:from], ' '); i >= 0 && from > 0 {
			from = i + 1
		} else {
			from = 0
		}
		to := min(len(text), from+snippetChunk)
		if to < len(text) {
			if i := strings.LastIndexByte(text[at:to], ' '); i > 0 {
				to = at + i
			}
		}
		if f, ok := highlight(text[from:to], an, words); ok {
			return f, true
		}
		next = max(to, at+1)
	}
	return "", false
}

// highlight marks the words in text and returns the best fragment; false
// when none is there.
func highlight(text string, an analysis.Analyzer, words []string) (string, bool) {
	tlm := search.TermLocationMap{}
	for _, tok := range an.Analyze([]byte(text)) {
		if tok.Type == analysis.Shingle || !slices.Contains(words, string(tok.Term)) {
			continue
		}
		tlm[string(tok.Term)] = append(tlm[string(tok.Term)], &search.Location{
			Pos: uint64(tok.Position), Start: uint64(tok.Start), End: uint64(tok.End)})
	}
	if len(tlm) == 0 {
		return "", false
	}
	dm := &search.DocumentMatch{Locations: search.FieldTermLocationMap{csText: tlm}}
	doc := document.NewDocument("")
	doc.AddField(document.NewTextField(csText, nil, []byte(text)))
	frags := snippetHighlighter.BestFragmentsInField(dm, doc, csText, 1)
	if len(frags) == 0 {
		return "", false
	}
	return frags[0], true
}
