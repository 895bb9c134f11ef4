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

	published atomic.Pointer[View] // the published view, until its validUntil
	draft     atomic.Pointer[View] // every document; never goes stale
}

func newSnapshot(branch string, tree *Tree, site *content.Site, problems []content.Problem, now time.Time) *Snapshot {
	s := &Snapshot{Branch: branch, Commit: tree.Commit, CommitTime: tree.Time, LoadedAt: now.UTC(), Site: site, Problems: problems}
	s.published.Store(buildView(s, false, now))
	return s
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
