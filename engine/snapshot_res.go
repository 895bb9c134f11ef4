package engine

import (
	"iter"
	"maps"

	"github.com/folio-cms/folio/content"
)

// resMap is the resource of each item of one type. A reload that changed
// a few items of a type makes its map from the last snapshot's without
// copying it: the same base map, under the items added and gone since it
// was made (two small maps, copied at each change), merged into a new
// base once they hold more than maxResLayer items. A resMap never
// changes once made.
type resMap struct {
	base  map[*content.Item]*Resource
	added map[*content.Item]*Resource // over base: an item of base here is in gone too
	gone  map[*content.Item]bool      // items of base whose resource is not base's
}

// maxResLayer is the number of items added and gone above a base map
// from which a resMap is merged into a new base.
const maxResLayer = 4096

func newResMap(m map[*content.Item]*Resource) *resMap { return &resMap{base: m} }

// get is the resource of it; nil, false when the map has none (m may be
// nil).
func (m *resMap) get(it *content.Item) (*Resource, bool) {
	if m == nil {
		return nil, false
	}
	if r, ok := m.added[it]; ok {
		return r, true
	}
	if m.gone[it] {
		return nil, false
	}
	r, ok := m.base[it]
	return r, ok
}

// len is the number of items with a resource.
func (m *resMap) len() int {
	if m == nil {
		return 0
	}
	return len(m.base) - len(m.gone) + len(m.added)
}

// all yields every item and its resource.
func (m *resMap) all() iter.Seq2[*content.Item, *Resource] {
	return func(yield func(*content.Item, *Resource) bool) {
		if m == nil {
			return
		}
		for it, r := range m.base {
			if !m.gone[it] && !yield(it, r) {
				return
			}
		}
		for it, r := range m.added {
			if !yield(it, r) {
				return
			}
		}
	}
}

// patched is m without the items of gone and with those of added, each
// given its resource by res.
func (m *resMap) patched(gone, added []*content.Item, res func(*content.Item) *Resource) *resMap {
	out := &resMap{base: m.base, added: maps.Clone(m.added), gone: maps.Clone(m.gone)}
	for _, it := range gone {
		delete(out.added, it)
		if _, ok := out.base[it]; ok {
			if out.gone == nil {
				out.gone = map[*content.Item]bool{}
			}
			out.gone[it] = true
		}
	}
	for _, it := range added {
		if out.added == nil {
			out.added = map[*content.Item]*Resource{}
		}
		if _, ok := out.base[it]; ok {
			// base's resource is not this one: hidden, as a gone one
			if out.gone == nil {
				out.gone = map[*content.Item]bool{}
			}
			out.gone[it] = true
		}
		out.added[it] = res(it)
	}
	if len(out.added)+len(out.gone) > maxResLayer {
		base := make(map[*content.Item]*Resource, out.len())
		for it, r := range out.all() {
			base[it] = r
		}
		return &resMap{base: base}
	}
	return out
}
