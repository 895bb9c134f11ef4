package engine

import (
	"maps"
	"testing"

	"github.com/folio-cms/folio/content"
)

// A resMap patched again and again (items added, removed, added back,
// past the merge into a new base) holds what a map changed the same way
// holds, and the maps it was made from do not change.
func TestResMap_PatchedMatchesMap(t *testing.T) {
	const n = 3 * maxResLayer
	items := make([]*content.Item, n)
	for i := range items {
		items[i] = &content.Item{Slug: string(rune('a' + i%26))}
	}
	want := map[*content.Item]*Resource{}
	for _, it := range items[:100] {
		want[it] = &Resource{}
	}
	m := newResMap(maps.Clone(want))
	var olds []*resMap
	var oldWants []map[*content.Item]*Resource
	merged := false
	for step := range maxResLayer {
		gone := []*content.Item{items[(step*7)%n], items[(step*11)%n]}
		added := []*content.Item{items[(step*13)%n], items[(step*7)%n]}
		if step%5 == 0 {
			added = added[:1]
		}
		res := func(*content.Item) *Resource { return &Resource{} }
		if step%256 == 0 {
			olds, oldWants = append(olds, m), append(oldWants, maps.Clone(want))
		}
		m = patchedRes(m, gone, added, func(it *content.Item) *Resource {
			r := res(it)
			want[it] = r
			return r
		})
		for _, it := range gone {
			if !containsItem(added, it) {
				delete(want, it)
			}
		}
		merged = merged || (step > 0 && m.set == nil)
		if step%64 != 0 && step >= 16 {
			continue
		}
		if got := maps.Collect(m.all()); !maps.Equal(got, want) || m.len() != len(want) {
			t.Fatalf("step %d: %d resources (len %d), want %d", step, len(got), m.len(), len(want))
		}
		for _, it := range items {
			r, ok := m.get(it)
			if wr, wok := want[it]; ok != wok || r != wr {
				t.Fatalf("step %d: get differs", step)
			}
		}
	}
	for i := range olds {
		if got := maps.Collect(olds[i].all()); !maps.Equal(got, oldWants[i]) {
			t.Fatalf("the map of step %d changed", i)
		}
	}
	if !merged {
		t.Fatal("never merged into a new base")
	}
}

func containsItem(list []*content.Item, it *content.Item) bool {
	for _, x := range list {
		if x == it {
			return true
		}
	}
	return false
}
