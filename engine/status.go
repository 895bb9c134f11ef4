package engine

import (
	"time"

	"github.com/folio-cms/folio/content"
)

// The status of a page or item, as the draft view (and any ref's draft
// view) says it: published, a draft, scheduled (publishedAt ahead) or
// expired (expiresAt past).
const (
	StatusPublished = "published"
	StatusDraft     = "draft"
	StatusScheduled = "scheduled"
	StatusExpired   = "expired"
)

// docStatus is the status of a document at instant now.
func docStatus(m content.Meta, publishedAt, now time.Time) string {
	switch {
	case m.Draft:
		return StatusDraft
	case publishedAt.After(now):
		return StatusScheduled
	case !m.ExpiresAt.IsZero() && !now.Before(m.ExpiresAt):
		return StatusExpired
	}
	return StatusPublished
}

// A draft view's documents carry their status: the document's own JSON
// with "status" added.
type (
	statusItem struct {
		*content.Item
		Status string `json:"status"`
	}
	statusPage struct {
		*content.Page
		Status string `json:"status"`
	}
	statusSummary struct {
		pageSummary
		Status string `json:"status"`
	}
)

// docValue is the document a resource's value holds, a status wrapper
// taken off.
func docValue(v any) any {
	switch v := v.(type) {
	case statusItem:
		return v.Item
	case statusPage:
		return v.Page
	}
	return v
}

// withStatus gives the draft view its own resources, with each document's
// status at now: pages (full and summary) and items.
func (v *View) withStatus(now time.Time) {
	for i, e := range v.pages {
		p, ok := e.full.value.(*content.Page)
		if !ok {
			continue
		}
		st := docStatus(p.Meta, p.PublishedAt, now)
		sum, _ := e.summary.value.(pageSummary)
		ne := &pageEntry{full: newResource(statusPage{p, st}), summary: newResource(statusSummary{sum, st})}
		v.pages[i] = ne
		v.pageBySlug[p.Slug] = ne
	}
	for _, t := range v.types {
		for _, e := range t.items {
			e.res = newResource(statusItem{e.item, docStatus(e.item.Meta, e.item.PublishedAt, now)})
		}
	}
}
