package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"sync"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine/search"
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

	// locs are the indexes of the locales of a site with locales other
	// than the default one (whose index is pub or draft), made on their
	// first search: by "p:<code>" (published) and "d:<code>" (draft).
	locMu sync.Mutex
	locs  map[string]*search.ContentIndex
}

func (cs *contentSearch) close() {
	cs.pub.Close()
	cs.draftMu.Lock()
	defer cs.draftMu.Unlock()
	if cs.draft != nil {
		cs.draft.Close()
	}
	cs.locMu.Lock()
	defer cs.locMu.Unlock()
	for _, ci := range cs.locs {
		ci.Close()
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
	if q.Locale != "" && snap.loc != nil {
		if sub := snap.loc.subs[q.Locale]; sub != nil && sub != snap {
			lci := e.localeIndex(q.Draft, q.Locale, sub)
			return lci.Search(ctx, q, sub.forSearch, sub.View(q.Draft, now), now)
		}
	}
	return ci.Search(ctx, q, snap.forSearch, snap.View(q.Draft, now), now)
}

// localeIndex is the index of one locale (not the default one), made
// and built from sub, that locale's snapshot, on first use. It is in
// memory: rebuilt on a restart at the first search.
func (e *Engine) localeIndex(draft bool, code string, sub *Snapshot) *search.ContentIndex {
	key := "p:" + code
	if draft {
		key = "d:" + code
	}
	e.search.locMu.Lock()
	defer e.search.locMu.Unlock()
	ci := e.search.locs[key]
	if ci == nil {
		if e.search.locs == nil {
			e.search.locs = map[string]*search.ContentIndex{}
		}
		ci = search.NewContentIndex(e.cfg.Logger.With("index", "search "+key), e.cfg.Now, "", nil)
		e.search.locs[key] = ci
	}
	ci.Follow(sub.forSearch)
	return ci
}

// draftIndex returns the draft branch's index, made (and built from the
// current draft snapshot) on first use.
func (e *Engine) draftIndex() *search.ContentIndex {
	e.search.draftMu.Lock()
	defer e.search.draftMu.Unlock()
	if e.search.draft == nil {
		e.search.draft = search.NewContentIndex(e.cfg.Logger.With("index", "draft search"), e.cfg.Now, "", nil)
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
	e.search.locMu.Lock()
	if s.loc != nil {
		prefix := "p:"
		if draftBranch {
			prefix = "d:"
		}
		for code, sub := range s.loc.subs {
			if ci := e.search.locs[prefix+code]; ci != nil && sub.forSearch != nil {
				ci.Follow(sub.forSearch)
			}
		}
	}
	e.search.locMu.Unlock()
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

// shortHash is 16 hex digits of the SHA-256 of v: a file name.
func shortHash(v string) string {
	h := sha256.Sum256([]byte(v))
	return hex.EncodeToString(h[:8])
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
		e, ok := t.bySlug.get(d.Slug)
		return ok && e.item == d
	}
	return false
}
