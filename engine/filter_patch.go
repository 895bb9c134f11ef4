package engine

// Sorted lists and indexes patched from the previous snapshot's.

import (
	"slices"
	"sync"

	"github.com/folio-cms/folio/content"
)

// listPrev is what a list that a reload patched from its predecessor
// (patchView) takes over: the predecessor's items, and the sorts and
// filter indexes it had built by then. A sort or index asked of the new
// list is that of the predecessor patched (the items gone taken out,
// positions moved, the items added put in: a pass over its arrays, no
// item read but the added ones) rather than made afresh. Only one
// generation back: the predecessor's own predecessor is never kept.
type listPrev struct {
	items   []*itemEntry
	sorted  map[string]*sortedList
	indexes map[string]*fieldIndex

	once   sync.Once
	posMap []int32 // the predecessor's positions to the list's; -1: gone
	added  []int32 // the list's positions of the entries the predecessor lacked, ascending
}

// prevCaches is what the list patched from ptl may take over; nil when
// ptl built no sort and no index.
func prevCaches(ptl *TypeList) *listPrev {
	p := &listPrev{items: ptl.items, sorted: map[string]*sortedList{}, indexes: map[string]*fieldIndex{}}
	ptl.sorted.Range(func(k, v any) bool {
		if sl := v.(*lazySorted).sl.Load(); sl != nil {
			p.sorted[k.(string)] = sl
		}
		return true
	})
	ptl.indexes.Range(func(k, v any) bool {
		if idx := v.(*lazyIndex).idx.Load(); idx != nil {
			p.indexes[k.(string)] = idx
		}
		return true
	})
	if len(p.sorted)+len(p.indexes) == 0 {
		return nil
	}
	return p
}

// mapping compares the predecessor's items with the list's (both by
// slug; an entry kept is the same pointer), once.
func (p *listPrev) mapping(items []*itemEntry) {
	p.once.Do(func() {
		old := p.items
		p.posMap = make([]int32, len(old))
		i, j := 0, 0
		for i < len(old) || j < len(items) {
			switch {
			case i < len(old) && j < len(items) && old[i] == items[j]:
				p.posMap[i] = int32(j)
				i++
				j++
			case j == len(items) || (i < len(old) && old[i].item.Slug <= items[j].item.Slug):
				p.posMap[i] = -1
				i++
			default:
				p.added = append(p.added, int32(j))
				j++
			}
		}
	})
}

// patchSorted is the order old (of the predecessor) for the list's items.
func (t *TypeList) patchSorted(old *sortedList, field string, desc bool) *sortedList {
	p := t.prev
	p.mapping(t.items)
	perm := make([]int32, 0, len(t.items))
	for _, op := range old.perm {
		if np := p.posMap[op]; np >= 0 {
			perm = append(perm, np)
		}
	}
	for _, a := range p.added {
		it := t.items[a].item
		k, _ := slices.BinarySearchFunc(perm, a, func(x, _ int32) int { return content.CompareItems(t.items[x].item, it, field, desc) })
		perm = slices.Insert(perm, k, a)
	}
	res := make([]*Resource, len(perm))
	for i, q := range perm {
		res[i] = t.items[q].res
	}
	return &sortedList{res: res, perm: perm}
}

// patchIndex is old (the predecessor's index of f) for the list's items.
func (t *TypeList) patchIndex(old *fieldIndex, f *filterField) *fieldIndex {
	p := t.prev
	p.mapping(t.items)
	remap := func(post []int32, dst []int32) []int32 {
		for _, op := range post {
			if np := p.posMap[op]; np >= 0 {
				dst = append(dst, np)
			}
		}
		return dst
	}
	total := 0
	for _, post := range old.posts {
		total += len(post)
	}
	all := make([]int32, 0, total) // never grows: the postings are cut from it
	idx := &fieldIndex{kind: old.kind, n: len(t.items), keys: make([]filterKey, 0, len(old.keys)), posts: make([][]int32, 0, len(old.posts))}
	for r, post := range old.posts {
		from := len(all)
		all = remap(post, all)
		if len(all) > from { // a value no item holds any more is dropped
			idx.keys = append(idx.keys, old.keys[r])
			idx.posts = append(idx.posts, all[from:len(all):len(all)])
		}
	}
	idx.has = remap(old.has, make([]int32, 0, len(old.has)+len(p.added)))
	if len(p.added) == 0 {
		return idx
	}
	add := buildIndex(f, len(p.added), func(i int, b *indexBuilder) { itemValues(b, f, t.items[p.added[i]].item) })
	at := func(post []int32) []int32 {
		out := make([]int32, len(post))
		for i, a := range post {
			out[i] = p.added[a]
		}
		return out
	}
	for r, k := range add.keys {
		news := at(add.posts[r])
		i, found := slices.BinarySearchFunc(idx.keys, k, func(a, b filterKey) int { return compareKeys(idx.kind, a, b) })
		if found {
			idx.posts[i] = mergePositions(idx.posts[i], news)
			continue
		}
		idx.keys = slices.Insert(idx.keys, i, k)
		idx.posts = slices.Insert(idx.posts, i, news)
	}
	idx.has = mergePositions(idx.has, at(add.has))
	return idx
}

// mergePositions merges two ascending lists into a new one.
func mergePositions(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] < b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
