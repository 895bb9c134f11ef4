package engine

import (
	"sync/atomic"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/schema"
	"github.com/folio-cms/folio/engine/gitsource"
	"github.com/folio-cms/folio/engine/search"
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
	// Held are the documents that break their type's model and are held
	// back (onInvalid: reject), by path.
	Held []HeldDoc
	// Model is the content model the snapshot was validated against; nil
	// when the site declares none.
	Model *schema.Model

	// forSearch is the snapshot as the search index reads it; its Seq
	// orders the snapshots an engine loaded (both branches): later loads
	// have higher numbers. Search indexes never go back to an older one.
	forSearch *search.Snapshot

	published atomic.Pointer[View] // the published view, until its validUntil
	draft     atomic.Pointer[View] // every document, with its status, until the next instant

	// The resources of every page and item, shared by all views of the
	// snapshot. A page or item that a reload did not change is the same
	// pointer (content.Assembler), and keeps its resource, so its encoded
	// JSON and ETag survive the reload; a changed one is a new pointer
	// with a new resource.
	pageRes map[*content.Page]*pageEntry
	itemRes map[string]*resMap // by type

	// loc is the snapshot of every locale of a site with locales; nil
	// for a site without (and for a locale's own snapshot).
	loc *localeSet

	refsState // the reverse references (referrers.go)
}

// newSnapshot builds the snapshot and its published view; prev, the
// snapshot it replaces (or nil), lends the resources of unchanged
// documents. When only a few items changed, their types' resource maps
// and the published view are prev's with those items taken out and put in
// (patchView), not rebuilt for every item of the site.
func newSnapshot(branch string, tree *gitsource.Tree, site *content.Site, problems []content.Problem, now time.Time, prev *Snapshot) *Snapshot {
	s := newSnapshotOne(branch, tree, site, problems, now, prev)
	if site.I18n != nil && site.Locales != nil {
		s.loc = newLocaleSet(s, branch, tree, now, prev)
	}
	return s
}

// newSnapshotOne is newSnapshot of one locale's site (or of a site
// without locales).
func newSnapshotOne(branch string, tree *gitsource.Tree, site *content.Site, problems []content.Problem, now time.Time, prev *Snapshot) *Snapshot {
	s := &Snapshot{Branch: branch, Commit: tree.Commit, CommitTime: tree.Time, LoadedAt: now.UTC(), Site: site, Problems: problems}
	if prev != nil && samePages(prev.Site.Pages, site.Pages) {
		// a push of items: the pages are the last snapshot's, and so
		// their resources (the map is never changed once made)
		s.pageRes = prev.pageRes
	} else {
		s.pageRes = make(map[*content.Page]*pageEntry, len(site.Pages))
		for _, p := range site.Pages {
			e := prev.pageEntry(p)
			if e == nil {
				e = &pageEntry{
					full: newResource(p),
					summary: newResource(pageSummary{ID: p.ID, Slug: p.Slug, Title: p.Title, IsHomepage: p.IsHomepage,
						PublishedAt: p.PublishedAt, UpdatedAt: p.UpdatedAt, Addressed: p.Addressed,
						Localized: content.Localized{Locale: p.Locale, Translations: p.Translations}}),
				}
			}
			s.pageRes[p] = e
		}
	}
	diffs, patch := diffSiteItems(prev, site)
	s.itemRes = make(map[string]*resMap, len(site.Items))
	if patch {
		for typ := range site.Items {
			d, changed := diffs[typ]
			if !changed {
				s.itemRes[typ] = prev.itemRes[typ]
				continue
			}
			s.itemRes[typ] = patchedRes(prev.itemRes[typ], d.gone, d.added, func(it *content.Item) *Resource { return newResource(it) })
		}
	} else {
		// each type's map on its own, the types on both cores at a start
		names, total := typesBySize(site.Items)
		maps := make([]*resMap, len(names))
		eachType(names, total, func(i int) {
			typ := names[i]
			items := site.Items[typ]
			m := make(map[*content.Item]*Resource, len(items))
			for _, it := range items {
				r := prev.itemResource(typ, it)
				if r == nil {
					r = newResource(it)
				}
				m[it] = r
			}
			maps[i] = newResMap(m)
		})
		for i, typ := range names {
			s.itemRes[typ] = maps[i]
		}
	}
	var v *View
	if patch {
		v = patchView(s, prev, diffs, now)
	}
	if v == nil {
		v = buildView(s, false, now)
	}
	s.published.Store(v)
	return s
}

// itemDiff is what changed in one type's items between two sites: the
// items (pointers) of the old that the new lacks, and the new's that the
// old lacks.
type itemDiff struct {
	gone, added []*content.Item
}

// maxPatchedItems is the number of changed items of a type up to which a
// snapshot is patched from the last one.
const maxPatchedItems = 64

// diffSiteItems compares the items of site with those of prev's, type by
// type (both sorted by slug, slugs unique), and returns the types that
// changed; ok is false when there is no prev, the types differ or a type
// changed too much: then the snapshot is built afresh. A type whose
// slice is prev's is not compared (content.Assembler hands out the same
// slice for a type it did not change).
func diffSiteItems(prev *Snapshot, site *content.Site) (diffs map[string]itemDiff, ok bool) {
	if prev == nil || len(prev.Site.Items) != len(site.Items) {
		return nil, false
	}
	diffs = map[string]itemDiff{}
	for typ, items := range site.Items {
		old, ok := prev.Site.Items[typ]
		if !ok {
			return nil, false
		}
		if len(old) == len(items) && (len(old) == 0 || &old[0] == &items[0]) {
			continue
		}
		var d itemDiff
		i, j := 0, 0
		for i < len(old) || j < len(items) {
			if i < len(old) && j < len(items) && old[i] == items[j] {
				i++ // the same item: no slugs compared
				j++
				continue
			}
			switch {
			case j == len(items) || (i < len(old) && old[i].Slug < items[j].Slug):
				d.gone = append(d.gone, old[i])
				i++
			case i == len(old) || items[j].Slug < old[i].Slug:
				d.added = append(d.added, items[j])
				j++
			default:
				if old[i] != items[j] {
					d.gone = append(d.gone, old[i])
					d.added = append(d.added, items[j])
				}
				i++
				j++
			}
			if len(d.gone) > maxPatchedItems || len(d.added) > maxPatchedItems {
				return nil, false
			}
		}
		if len(d.gone)+len(d.added) > 0 {
			diffs[typ] = d
		}
	}
	return diffs, true
}

func (s *Snapshot) pageEntry(p *content.Page) *pageEntry {
	if s == nil {
		return nil
	}
	return s.pageRes[p]
}

func (s *Snapshot) itemResource(typ string, it *content.Item) *Resource {
	if s == nil {
		return nil
	}
	r, _ := s.itemRes[typ].get(it)
	return r
}

// View returns the view at instant now. The published view is filtered by
// draft flags and the publish and expiry instants, and is rebuilt lazily the
// first time it is asked for after the next such instant: no reload needed.
func (s *Snapshot) View(draft bool, now time.Time) *View {
	if draft {
		v := s.draft.Load()
		if v != nil && v.covers(now) {
			return v
		}
		nv := buildView(s, true, now)
		if s.draft.CompareAndSwap(v, nv) {
			return nv
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
