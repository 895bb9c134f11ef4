package engine

import (
	"iter"
	"maps"

	"github.com/folio-cms/folio/content"
)

// layerMap is a map that a reload makes from the last snapshot's without
// copying it: the same base map, under the keys set and deleted since it
// was made (two small maps, copied at each change), merged into a new
// base once they hold more than maxResLayer keys. A layerMap never
// changes once made. (resMap, the items' resources, is one.)
type layerMap[K comparable, V any] struct {
	base map[K]V
	set  map[K]V    // over base
	gone map[K]bool // keys of base deleted, not in set
	n    int        // the keys
}

func newLayerMap[K comparable, V any](m map[K]V) *layerMap[K, V] {
	return &layerMap[K, V]{base: m, n: len(m)}
}

// get is k's value (m may be nil).
func (m *layerMap[K, V]) get(k K) (V, bool) {
	if m != nil {
		if v, ok := m.set[k]; ok {
			return v, true
		}
		if !m.gone[k] {
			v, ok := m.base[k]
			return v, ok
		}
	}
	var zero V
	return zero, false
}

// len is the number of keys.
func (m *layerMap[K, V]) len() int {
	if m == nil {
		return 0
	}
	return m.n
}

// all yields every key and its value.
func (m *layerMap[K, V]) all() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		if m == nil {
			return
		}
		for k, v := range m.base {
			if _, over := m.set[k]; over || m.gone[k] {
				continue
			}
			if !yield(k, v) {
				return
			}
		}
		for k, v := range m.set {
			if !yield(k, v) {
				return
			}
		}
	}
}

// with is m without the keys of del, then with set's.
func (m *layerMap[K, V]) with(del []K, set map[K]V) *layerMap[K, V] {
	if m == nil {
		m = newLayerMap[K, V](nil)
	}
	out := &layerMap[K, V]{base: m.base, set: maps.Clone(m.set), gone: maps.Clone(m.gone), n: m.n}
	for _, k := range del {
		if _, ok := out.get(k); !ok {
			continue
		}
		out.n--
		delete(out.set, k)
		if _, ok := out.base[k]; ok {
			if out.gone == nil {
				out.gone = map[K]bool{}
			}
			out.gone[k] = true
		}
	}
	for k, v := range set {
		if _, ok := out.get(k); !ok {
			out.n++
		}
		delete(out.gone, k)
		if out.set == nil {
			out.set = map[K]V{}
		}
		out.set[k] = v
	}
	if len(out.set)+len(out.gone) > maxResLayer {
		base := make(map[K]V, out.n)
		for k, v := range out.all() {
			base[k] = v
		}
		return newLayerMap(base)
	}
	return out
}

// slug is t's entry of slug (t may be nil).
func (t *TypeList) slug(slug string) (*itemEntry, bool) {
	if t == nil {
		return nil, false
	}
	return t.bySlug.get(slug)
}

// samePages tells whether a and b are the same slice of pages (a push
// that changed only items keeps the last site's).
func samePages(a, b []*content.Page) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
