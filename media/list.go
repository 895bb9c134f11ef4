package media

import (
	"cmp"
	"slices"
	"strings"
)

// Sort orders of List.
const (
	SortCreatedAt = "createdAt"
	SortFilename  = "filename"
	SortSize      = "size"
)

// Query selects and orders items for List.
type Query struct {
	// Folder keeps the items directly in that folder ("" = every folder).
	Folder string
	// Type keeps "image", "video" or "document" items ("" = all).
	Type string
	// IDs keeps only these items (the hits of a search); nil keeps all.
	// With Sort "" the items come in the order of IDs (relevance).
	IDs []string
	// Sort is createdAt (the default), filename or size; ties are broken
	// by id so that pages never overlap.
	Sort string
	Desc bool
	// Limit ≤ 0 means no limit; the HTTP layer clamps it.
	Limit, Offset int
}

// List returns one page of the items the query selects, as copies with
// URLs, and the number of items it selects in all.
func (l *Library) List(q Query) (items []*Item, total int) {
	folder := ""
	if q.Folder != "" {
		f, err := CleanFolder(q.Folder)
		if err != nil {
			return nil, 0
		}
		folder = f
	}
	keep := func(it *Item) bool {
		return (folder == "" || it.Folder == folder) && (q.Type == "" || Kind(it.MimeType) == q.Type)
	}
	var page []*Item
	add := func(it *Item) {
		if !keep(it) {
			return
		}
		if total >= q.Offset && (q.Limit <= 0 || len(page) < q.Limit) {
			page = append(page, it)
		}
		total++
	}

	if q.IDs != nil && q.Sort == "" {
		seen := make(map[string]bool, len(q.IDs))
		ids := q.IDs
		if q.Desc {
			ids = slices.Clone(ids)
			slices.Reverse(ids)
		}
		l.cat.read(func(x *index) {
			for _, id := range ids {
				if it, ok := x.items[id]; ok && !seen[id] {
					seen[id] = true
					add(it)
				}
			}
		})
	} else {
		var in map[string]bool
		if q.IDs != nil {
			in = make(map[string]bool, len(q.IDs))
			for _, id := range q.IDs {
				in[id] = true
			}
		}
		var order []*Item
		l.cat.read(func(x *index) { order = x.order(q.Sort) })
		// order is never changed once built, so it is read without the lock.
		for i := range order {
			it := order[i]
			if q.Desc {
				it = order[len(order)-1-i]
			}
			if in == nil || in[it.ID] {
				add(it)
			}
		}
	}
	items = make([]*Item, len(page))
	for i, it := range page {
		items[i] = l.view(it)
	}
	return items, total
}

// sortEntry is an item with its sort key made once, not once per
// comparison (the lower-case name for SortFilename).
type sortEntry struct {
	it    *Item
	lower string
}

func newSortEntry(it *Item, sort string) sortEntry {
	e := sortEntry{it: it}
	if sort == SortFilename {
		e.lower = strings.ToLower(it.Filename)
	}
	return e
}

// compareEntries orders ascending by sort (createdAt unless filename or
// size), ties by id, so that pages never overlap.
func compareEntries(a, b sortEntry, sort string) int {
	var c int
	switch sort {
	case SortFilename:
		c = strings.Compare(a.lower, b.lower)
	case SortSize:
		c = cmp.Compare(a.it.Size, b.it.Size)
	default:
		c = a.it.CreatedAt.Compare(b.it.CreatedAt)
	}
	if c == 0 {
		c = strings.Compare(a.it.ID, b.it.ID)
	}
	return c
}
