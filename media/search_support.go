package media

import (
	"slices"
)

// topKInsert is the page end up to which ListHits keeps the best entries
// by insertion into a short sorted slice instead of sorting every hit.
const topKInsert = 256

// ListHits is List for the hits of a search with an explicit sort: it
// returns one page of the items among ids (q.IDs is ignored) that q's
// folder and type select, in q's order (Sort, Desc, ties by id, as List),
// and how many it selects in all. It looks up each hit and orders only
// them, where List walks the order of the whole library; a page near the
// start is picked without sorting every hit.
func (l *Library) ListHits(ids []string, q Query) (items []*Item, total int) {
	folder := ""
	if q.Folder != "" {
		f, err := CleanFolder(q.Folder)
		if err != nil {
			return nil, 0
		}
		folder = f
	}
	sortBy := q.Sort
	switch sortBy {
	case SortFilename, SortSize:
	default:
		sortBy = SortCreatedAt
	}
	hits := make([]sortEntry, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	l.cat.read(func(x *index) {
		for _, id := range ids {
			it, ok := x.items[id]
			if !ok || seen[id] || folder != "" && it.Folder != folder || q.Type != "" && Kind(it.MimeType) != q.Type {
				continue
			}
			seen[id] = true
			hits = append(hits, newSortEntry(it, sortBy))
		}
	})
	// The order of index.order, reversed whole for Desc.
	compare := func(a, b sortEntry) int {
		if q.Desc {
			return compareEntries(b, a, sortBy)
		}
		return compareEntries(a, b, sortBy)
	}
	total = len(hits)
	offset := max(q.Offset, 0)
	if offset >= total {
		return []*Item{}, total
	}
	end := total
	if q.Limit > 0 {
		end = min(total, offset+q.Limit)
	}
	var sorted []sortEntry
	if end <= topKInsert && end < total {
		// The first end entries, kept sorted; most hits lose to the last.
		sorted = make([]sortEntry, 0, end+1)
		for _, e := range hits {
			if len(sorted) == end && compare(e, sorted[end-1]) >= 0 {
				continue
			}
			i, _ := slices.BinarySearchFunc(sorted, e, compare)
			sorted = slices.Insert(sorted, i, e)
			if len(sorted) > end {
				sorted = sorted[:end]
			}
		}
	} else {
		slices.SortFunc(hits, compare)
		sorted = hits[:end]
	}
	page := sorted[offset:end]
	items = make([]*Item, len(page))
	for i, e := range page {
		items[i] = l.view(e.it)
	}
	return items, total
}
