package engine

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
)

// TestLayerMap_MatchesMap sets and deletes random keys of a layerMap and
// of a plain map through merges: the same keys and values at each step,
// and the maps made before unchanged.
func TestLayerMap_MatchesMap(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	const keys = 3 * maxResLayer
	want := map[string]int{}
	for i := range 500 {
		want[fmt.Sprint(i)] = i
	}
	m := newLayerMap(maps.Clone(want))
	var olds []*layerMap[string, int]
	var oldWants []map[string]int
	merged := false
	for step := range 2 * maxResLayer {
		if step%512 == 0 {
			olds, oldWants = append(olds, m), append(oldWants, maps.Clone(want))
		}
		var del []string
		set := map[string]int{}
		for range rnd.IntN(3) {
			k := fmt.Sprint(rnd.IntN(keys))
			del = append(del, k)
			delete(want, k)
		}
		for range rnd.IntN(4) {
			k := fmt.Sprint(rnd.IntN(keys))
			set[k] = -step
			want[k] = -step
		}
		base := m.base
		m = m.with(del, set)
		merged = merged || fmt.Sprintf("%p", m.base) != fmt.Sprintf("%p", base)
		if step%64 != 0 && step >= 16 {
			continue
		}
		if got := maps.Collect(m.all()); !maps.Equal(got, want) || m.len() != len(want) {
			t.Fatalf("step %d: %d keys (len %d), want %d", step, len(got), m.len(), len(want))
		}
		for i := range keys {
			k := fmt.Sprint(i)
			v, ok := m.get(k)
			if wv, wok := want[k]; ok != wok || v != wv {
				t.Fatalf("step %d: get(%s) = %d %v, want %d %v", step, k, v, ok, wv, wok)
			}
		}
	}
	for i := range olds {
		if got := maps.Collect(olds[i].all()); !maps.Equal(got, oldWants[i]) || olds[i].len() != len(oldWants[i]) {
			t.Fatalf("the map of step %d changed", i*512)
		}
	}
	if !merged {
		t.Fatal("never merged into a new base")
	}
}
