package engine

import (
	"sync/atomic"
	"time"

	"github.com/folio-cms/folio/content"
)

// Snapshot is one commit of a branch, loaded completely. It never changes
// after it is built; the views it hands out are rebuilt only when a
// scheduled publish or expiry instant passes.
type Snapshot struct {
	Branch     string
	Commit     string
	CommitTime time.Time
	LoadedAt   time.Time
	Site       *content.Site
	Problems   []content.Problem

	// seq orders the snapshots an engine loaded (both branches): later
	// loads have higher numbers. Search indexes never go back to an
	// older one.
	seq uint64

	published atomic.Pointer[View] // the published view, until its validUntil
	draft     atomic.Pointer[View] // every document; never goes stale

	// The resources of every page and item, shared by all views of the
	// snapshot. A page or item that a reload did not change is the same
	// pointer (content.Assembler), and keeps its resource, so its encoded
	// JSON and ETag survive the reload; a changed one is a new pointer
	// with a new resource.
	pageRes map[*content.Page]*pageEntry
	itemRes map[*content.Item]*Resource
}

// newSnapshot builds the snapshot and its published view; prev, the
// snapshot it replaces (or nil), lends the resources of unchanged
// documents.
func newSnapshot(branch string, tree *Tree, site *content.Site, problems []content.Problem, now time.Time, prev *Snapshot) *Snapshot {
	s := &Snapshot{Branch: branch, Commit: tree.Commit, CommitTime: tree.Time, LoadedAt: now.UTC(), Site: site, Problems: problems}
	s.pageRes = make(map[*content.Page]*pageEntry, len(site.Pages))
	n := 0
	for _, items := range site.Items {
		n += len(items)
	}
	s.itemRes = make(map[*content.Item]*Resource, n)
	for _, p := range site.Pages {
		e := prev.pageEntry(p)
		if e == nil {
			e = &pageEntry{
				full: newResource(p),
				summary: newResource(pageSummary{ID: p.ID, Slug: p.Slug, Title: p.Title, IsHomepage: p.IsHomepage,
					PublishedAt: p.PublishedAt, UpdatedAt: p.UpdatedAt}),
			}
		}
		s.pageRes[p] = e
	}
	for _, items := range site.Items {
		for _, it := range items {
			r := prev.itemResource(it)
			if r == nil {
				r = newResource(it)
			}
			s.itemRes[it] = r
		}
	}
	s.published.Store(buildView(s, false, now))
	return s
}

func (s *Snapshot) pageEntry(p *content.Page) *pageEntry {
	if s == nil {
		return nil
	}
	return s.pageRes[p]
}

func (s *Snapshot) itemResource(it *content.Item) *Resource {
	if s == nil {
		return nil
	}
	return s.itemRes[it]
}

// View returns the view at instant now. The published view is filtered by
// draft flags and the publish and expiry instants, and is rebuilt lazily the
// first time it is asked for after the next such instant: no reload needed.
func (s *Snapshot) View(draft bool, now time.Time) *View {
	if draft {
		if v := s.draft.Load(); v != nil {
			return v
		}
		v := buildView(s, true, now)
		if s.draft.CompareAndSwap(nil, v) {
			return v
		}
		return s.draft.Load()
	}
	v := s.published.Load()
	if v.covers(now) {
		return v
	}
	nv := buildView(s, false, now)
	s.published.CompareAndSwap(v, nv)
	return nv
}
