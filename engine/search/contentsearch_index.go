package search

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
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
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/folio-cms/folio/media"
)

// ContentIndex is the index of one branch and the goroutine that keeps it
// in step with the branch's snapshots.
type ContentIndex struct {
	log interface {
		Warn(msg string, args ...any)
	}
	now func() time.Time

	idxMu sync.RWMutex // searches read idx and docs under it; updates write
	idx   bleve.Index  // nil until the first build is in
	lang  string       // folio.yaml language idx was built for
	docs  map[string]any

	// store keeps a copy of the index across restarts (nil: none, as
	// for the draft branch). restored: idx was opened from the store's
	// current copy and is unchanged since. Only the worker reads or
	// writes these two, and close once the worker is gone.
	store    *searchStore
	restored bool
	tried    bool // the store was tried

	// remote, when set, is the bucket's state area: a box that builds
	// the index publishes it there, and a fresh one fetches it
	// (contentsearch_remote.go). fetched: idx came from there.
	remote    *remoteIndex
	fetched   bool
	pre       chan prefetched // the prefetch's result (nil: none runs)
	published atomic.Int64    // snapshots published

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

	// start is closed by Start: until then the worker records the
	// snapshots it is told of but neither builds nor opens an index
	// (NewHeldContentIndex; closed at once by NewContentIndex).
	start     chan struct{}
	startOnce sync.Once
}

// Restored tells whether the index was opened from its store's copy and
// is unchanged since (for tests of the store: the worker writes it, so
// read it once the index is closed or idle).
func (ci *ContentIndex) Restored() bool { return ci.restored }

// Fetched tells whether the index was fetched from the bucket rather
// than built (read it as Restored).
func (ci *ContentIndex) Fetched() bool { return ci.fetched }

// Published is how many snapshots of the index this process published
// to the bucket.
func (ci *ContentIndex) Published() int64 { return ci.published.Load() }

// Stored tells whether the index has a store (for tests of the store).
func (ci *ContentIndex) Stored() bool { return ci.store != nil }

// builtIndex is the result of a rebuild: idx holds docs, snap's documents.
type builtIndex struct {
	idx  bleve.Index
	lang string
	docs map[string]any
	snap *Snapshot
	err  error
}

// NewContentIndex starts the index of a branch; storeDir, when not "",
// is the folder that keeps it across restarts (one per site and branch),
// and remote, when not nil (and storeDir is set), the bucket's state
// area, where it is published and fetched from.
func NewContentIndex(log interface{ Warn(string, ...any) }, now func() time.Time, storeDir string, remote media.StateStore) *ContentIndex {
	ci := NewHeldContentIndex(log, now, storeDir, remote)
	ci.Start()
	return ci
}

// NewHeldContentIndex is NewContentIndex whose first build (or the
// opening of its kept or fetched copy) waits for Start or the first
// Search: a server's start leaves its CPU and memory to loading the
// site and answering the first requests. A prefetch from the bucket
// runs meanwhile.
func NewHeldContentIndex(log interface{ Warn(string, ...any) }, now func() time.Time, storeDir string, remote media.StateStore) *ContentIndex {
	var store *searchStore
	var rem *remoteIndex
	if storeDir != "" {
		store = &searchStore{dir: storeDir}
		if fo, ok := remote.(FetchOnly); ok {
			rem = &remoteIndex{st: fo.StateStore, now: now, fetchOnly: true}
		} else if remote != nil {
			rem = &remoteIndex{st: remote, now: now}
		}
	}
	ci := &ContentIndex{
		remote:   rem,
		log:      log,
		now:      now,
		store:    store,
		progress: make(chan struct{}),
		rebuilt:  make(chan *builtIndex, 1),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		stopped:  make(chan struct{}),
		start:    make(chan struct{}),
	}
	if rem != nil {
		// A fresh box fetches the bucket's index while the engine parses
		// the site, rather than after.
		ci.pre = make(chan prefetched, 1)
		ci.bg.Add(1)
		go ci.prefetch()
	}
	go ci.run()
	return ci
}

// Follow records s as the snapshot to index, unless a later one is
// recorded already, and wakes the worker.
func (ci *ContentIndex) Follow(s *Snapshot) {
	ci.mu.Lock()
	if ci.target != nil && ci.target.Seq >= s.Seq {
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

func (ci *ContentIndex) Close() {
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
	ci.save()
	ci.idxMu.Lock()
	defer ci.idxMu.Unlock()
	if ci.idx != nil {
		ci.idx.Close()
		ci.idx = nil
	}
	if ci.store != nil && ci.store.lock != nil {
		// Closed, no index lives in the store: only its copy stays.
		cur, _ := ci.store.current()
		ci.store.removeAllBut(cur.Dir)
		ci.store.release()
	}
}

// save copies the index into the store when it holds the latest snapshot
// and the store does not have it yet. Searches may still read it.
func (ci *ContentIndex) save() {
	ci.mu.Lock()
	applied, target := ci.applied, ci.target
	ci.mu.Unlock()
	if ci.store == nil || ci.store.lock == nil || ci.restored || applied == nil || applied != target {
		return
	}
	ci.idxMu.RLock()
	defer ci.idxMu.RUnlock()
	if ci.idx == nil || ci.lang != applied.Site.Config.Language {
		return
	}
	if err := ci.store.save(ci.idx, applied.Commit, ci.lang); err != nil {
		ci.log.Warn("save search index", "err", err)
	}
}

// restore opens the store's copy of the index when it holds s; false
// when there is none (the caller builds one).
func (ci *ContentIndex) restore(s *Snapshot) bool {
	lang := s.Site.Config.Language
	idx, err := ci.store.open(s.Commit, lang)
	if err != nil {
		ci.log.Warn("stored search index not used", "err", err)
	}
	if idx == nil {
		return false
	}
	docs := map[string]any{}
	eachDoc(s, func(id string, d any) { docs[id] = d })
	ci.idxMu.Lock()
	ci.idx, ci.lang, ci.docs = idx, lang, docs
	ci.idxMu.Unlock()
	ci.restored, ci.batches = true, 1
	ci.setApplied(s)
	return true
}

// Status tells which commit the index holds and whether that is served,
// the snapshot being served.
func (ci *ContentIndex) Status(served *Snapshot) *SearchStatus {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	st := &SearchStatus{}
	if ci.applied != nil {
		st.Commit = ci.applied.Commit
		st.CaughtUp = ci.applied == served
	}
	return st
}

// Start lets the worker build or open the index (once held: see
// NewHeldContentIndex); calls after the first do nothing.
func (ci *ContentIndex) Start() {
	ci.startOnce.Do(func() { close(ci.start) })
}

// run brings the index up to the target snapshot whenever woken, and swaps
// in rebuilt indexes.
func (ci *ContentIndex) run() {
	defer close(ci.stopped)
	select {
	case <-ci.start:
	case <-ci.done:
		return
	}
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
func (ci *ContentIndex) step() {
	ci.mu.Lock()
	s, applied := ci.target, ci.applied
	ci.mu.Unlock()
	if s == nil {
		return
	}
	lang := s.Site.Config.Language
	if ci.store != nil && !ci.tried {
		ci.tried = true
		if ci.startFromStore(s) {
			return
		}
	}
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
	if ci.restored {
		// The store's copy is about to differ from what it names.
		if err := ci.store.invalidate(); err != nil {
			ci.log.Warn("stored search index", "err", err)
			return
		}
		ci.restored = false
	}
	if err := ci.apply(idx, ci.docs, s); err != nil {
		if !errors.Is(err, errIndexStopped) {
			ci.log.Warn("update search index", "err", err)
		}
		return
	}
	ci.batches++
	ci.setApplied(s)
}

// swapIn brings a rebuilt index up to the target snapshot and makes it
// the one searched.
func (ci *ContentIndex) swapIn(b *builtIndex) {
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
	if ci.restored {
		// The copy stays valid (it holds what it names); only the live
		// index is another one now, which close saves.
		ci.restored = false
	}
	if old != nil {
		old.Close()
	}
	ci.setApplied(s)
	if ci.remote != nil && ci.store != nil {
		ci.publishRemote(s)
	}
}

func (ci *ContentIndex) setApplied(s *Snapshot) {
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
func (ci *ContentIndex) rebuild(s *Snapshot) {
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
func (ci *ContentIndex) apply(idx bleve.Index, docs map[string]any, s *Snapshot) error {
	changed := map[string]any{}
	seen := make(map[string]struct{}, len(docs))
	eachDoc(s, func(id string, d any) {
		seen[id] = struct{}{}
		if docs[id] != d {
			changed[id] = d
		}
	})
	var gone []string
	for id := range docs {
		if _, ok := seen[id]; !ok {
			gone = append(gone, id)
		}
	}
	if len(changed) == 0 && len(gone) == 0 {
		return nil
	}
	if err := indexDocs(idx, changed, gone, ci.now(), newRefSkipper(s), ci.done); err != nil {
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

// errIndexStopped: the index was closed while a build ran.
var errIndexStopped = errors.New("search index closed")

// indexDocs indexes changed and deletes gone: one batch for a push, or
// for many documents (a build) batches of buildBatch. Once stop is
// closed no further batch starts (a 100k-file build takes a minute; a
// server that is stopped must not wait for it). The documents of the
// next batch are made (their text extracted and mapped) while scorch
// indexes the current one.
func indexDocs(idx bleve.Index, changed map[string]any, gone []string, now time.Time, refs *refSkipper, stop <-chan struct{}) error {
	pace := func() {}
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
	if len(chunks) > 2 {
		gc := startBuildCollector()
		defer gc.end()
		pace = gc.pace
	}
	dm, err := newDocMaker(idx.Mapping())
	if err != nil {
		return err
	}
	// made: unbuffered, one batch made ahead. Its texts' frequencies go
	// back to dm's free list once scorch indexed it.
	type madeBatch struct {
		b     *bleve.Batch
		texts []*analysedText
	}
	made := make(chan madeBatch)
	quit := make(chan struct{}) // closed when a batch failed
	var makeErr error
	go func() {
		defer close(made)
		for c, chunk := range chunks {
			select {
			case <-stop:
				makeErr = errIndexStopped
				return
			case <-quit:
				return
			default:
			}
			mb := madeBatch{b: idx.NewBatch()}
			if c == 0 {
				for _, id := range gone {
					mb.b.Delete(id)
				}
			}
			for _, id := range chunk {
				doc, err := dm.document(id, searchDocIn(dm.getText(), changed[id], now, refs), &mb.texts)
				if err == nil {
					err = mb.b.IndexAdvanced(doc)
				}
				if err != nil {
					makeErr = fmt.Errorf("index %s: %w", id, err)
					return
				}
			}
			select {
			case made <- mb:
			case <-quit:
				return
			}
		}
	}()
	for mb := range made {
		if err = idx.Batch(mb.b); err != nil {
			close(quit)
			for range made {
			}
			break
		}
		for _, t := range mb.texts {
			t.release()
		}
		pace()
	}
	// made is closed: makeErr is written.
	return errors.Join(err, makeErr)
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
	return contentMapping(lang, true)
}

// contentMapping is the mapping of a language's index; fast: with the
// unicode tokenizer replaced by asciiTokenizer (tests compare both).
func contentMapping(lang string, fast bool) (mapping.IndexMapping, error) {
	an := analyzerFor(lang)
	text := func() *mapping.FieldMapping {
		f := mapping.NewTextFieldMapping()
		f.Analyzer = an
		// Neither the text nor the positions of its words are kept: at
		// 10k documents they took gigabytes while a batch was indexed.
		// Snippets are made from the document at query time, for the
		// page of hits only (snippetOf).
		return indexOnly(f)
	}
	keyword := func() *mapping.FieldMapping { return indexOnly(mapping.NewKeywordFieldMapping()) }
	number := func() *mapping.FieldMapping { return indexOnly(mapping.NewNumericFieldMapping()) }
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
	// The analyzers' word splitter: the unicode tokenizer's, faster
	// (tokenizer.go).
	if fast {
		if err := im.AddCustomTokenizer(unicode.Name, map[string]any{"type": asciiTokenizerType}); err != nil {
			return nil, fmt.Errorf("search mapping for language %q: %w", lang, err)
		}
	}
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
	return newScorchIndex(im)
}

// wait returns once the index holds snapshot s or the latest one it was
// told of (follow is called before a snapshot is served, so that is s or
// a later one), or after limit (or ctx); ready is false when there is no
// index at all.
func (ci *ContentIndex) wait(ctx context.Context, s *Snapshot, limit time.Duration) (ready bool) {
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

// eachDoc calls f with the id and the document of every page and item of
// s.
func eachDoc(s *Snapshot, f func(id string, d any)) {
	for _, p := range s.Site.Pages {
		f(pageDocID(p), p)
	}
	for _, items := range s.Site.Items {
		for _, it := range items {
			f(itemDocID(it), it)
		}
	}
}
