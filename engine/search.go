package engine

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine/search"
	"github.com/folio-cms/folio/media/fault"
)

// Content search lives in engine/search; the engine feeds it the
// snapshots it loads and asks it on behalf of a reader's view.

// ErrSearchOff is returned by Search when Config.Search is off.
var ErrSearchOff error = &fault.Error{Code: fault.NotFound, Message: "content search is off on this server (folio serve --search=false)"}

// contentSearch holds the index of each branch: the published one from
// the first snapshot, the draft branch's on the first draft search.
type contentSearch struct {
	pub *search.ContentIndex

	draftMu sync.Mutex
	draft   *search.ContentIndex // nil until a draft search, or without a draft branch
}

func (cs *contentSearch) close() {
	cs.pub.Close()
	cs.draftMu.Lock()
	defer cs.draftMu.Unlock()
	if cs.draft != nil {
		cs.draft.Close()
	}
}

// Search runs a content search against the current view.
func (e *Engine) Search(ctx context.Context, q search.SearchQuery) (search.SearchResult, error) {
	if e.search == nil {
		return search.SearchResult{}, ErrSearchOff
	}
	ci := e.search.pub
	var snap *Snapshot
	if q.Draft {
		snap = e.draft.Load()
		if e.cfg.DraftBranch != "" {
			ci = e.draftIndex()
			// Reload may have stored snap before the index existed to be
			// told of it; follow never goes back to an older snapshot.
			ci.Follow(snap.forSearch)
		}
	} else {
		snap = e.published.Load()
	}
	now := e.cfg.Now()
	return ci.Search(ctx, q, snap.forSearch, snap.View(q.Draft, now), now)
}

// draftIndex returns the draft branch's index, made (and built from the
// current draft snapshot) on first use.
func (e *Engine) draftIndex() *search.ContentIndex {
	e.search.draftMu.Lock()
	defer e.search.draftMu.Unlock()
	if e.search.draft == nil {
		e.search.draft = search.NewContentIndex(e.cfg.Logger.With("index", "draft search"), e.cfg.Now, "")
		e.search.draft.Follow(e.draft.Load().forSearch)
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
		e.search.pub.Follow(s.forSearch)
		return
	}
	e.search.draftMu.Lock()
	d := e.search.draft
	e.search.draftMu.Unlock()
	if d != nil {
		d.Follow(s.forSearch)
	}
}

// searchStoreDir is where the published branch's index is kept across
// restarts.
func searchStoreDir(cacheDir, siteID, branch string) string {
	return filepath.Join(cacheDir, "search-"+shortHash(siteID+"\x00"+branch))
}

// Shows tells whether the view serves that very document (search.View).
func (v *View) Shows(d any) bool {
	switch d := d.(type) {
	case *content.Page:
		e, ok := v.pageBySlug[d.Slug]
		return ok && docValue(e.full.value) == any(d)
	case *content.Item:
		t, ok := v.types[d.Type]
		if !ok {
			return false
		}
		e, ok := t.bySlug[d.Slug]
		return ok && e.item == d
	}
	return false
}
