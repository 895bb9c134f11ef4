package engine

import (
	"fmt"

	"github.com/folio-cms/folio/content"
	"math"
	"slices"
	"testing"
	"time"
)

// matchPositions runs one condition over an index of vals (one value
// or a list per document) and returns the positions kept.
func matchPositions(t *testing.T, f filterField, vals []any, op, value string) []int32 {
	t.Helper()
	idx := buildIndex(&f, len(vals), func(i int, b *indexBuilder) { walkValues(vals[i], nil, b.add) })
	c := cond{f: f, op: op}
	if op == "exists" {
		c.exists = value == "true"
	} else {
		k, err := f.parseValue(op, value)
		if err != nil {
			t.Fatal(err)
		}
		c.keys = []filterKey{k}
	}
	b, err := idx.match(&c)
	if err != nil {
		t.Fatal(err)
	}
	var out []int32
	for i := range int32(len(vals)) {
		if b.has(i) {
			out = append(out, i)
		}
	}
	return out
}

// TestFilterIndexEdges: a NaN orders nowhere (it matches exists only),
// and one instant written in several zones is one value.
func TestFilterIndexEdges(t *testing.T) {
	num := filterField{name: "data.n", path: []string{"n"}, kind: kNumber}
	vals := []any{math.NaN(), 1.0, int64(2), nil, []any{math.NaN(), 3.0}}
	if got := matchPositions(t, num, vals, "lt", "5"); !slices.Equal(got, []int32{1, 2, 4}) {
		t.Errorf("lt 5: %v", got)
	}
	if got := matchPositions(t, num, vals, "exists", "true"); !slices.Equal(got, []int32{0, 1, 2, 4}) {
		t.Errorf("exists: %v", got)
	}
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	zone := time.FixedZone("x", 2*3600)
	tf := filterField{name: "publishedAt", builtin: "publishedAt", kind: kTime}
	tv := []any{at, at.In(zone), at.Add(time.Second), "2024-05-01T14:00:00+02:00"}
	if got := matchPositions(t, tf, tv, "eq", "2024-05-01T12:00:00Z"); !slices.Equal(got, []int32{0, 1, 3}) {
		t.Errorf("eq: %v", got)
	}
	if got := matchPositions(t, tf, tv, "gt", "2024-05-01T13:00:00+01:00"); !slices.Equal(got, []int32{2}) {
		t.Errorf("gt: %v", got)
	}
}

// BenchmarkFilterIndexBuild is the cost of building one field's index
// over a list of 100k items (ten values): what the first filtered
// request on a field pays after a reload changed the list's type.
func BenchmarkFilterIndexBuild(b *testing.B) {
	const n = 100_000
	items := make([]*content.Item, n)
	for i := range items {
		items[i] = &content.Item{Slug: fmt.Sprintf("p%06d", i), Data: map[string]any{"category": fmt.Sprintf("c%d", i%10), "rank": int64(i % 1000)}}
	}
	for _, c := range []struct {
		name string
		f    filterField
	}{
		{"text", filterField{name: "data.category", path: []string{"category"}, kind: kText}},
		{"number", filterField{name: "data.rank", path: []string{"rank"}, kind: kNumber}},
		{"slug", filterField{name: "slug", builtin: "slug", kind: kText}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				buildIndex(&c.f, n, func(i int, b *indexBuilder) { itemValues(b, &c.f, items[i]) })
			}
		})
	}
}

// TestMatchRanks: both ways of listing the matches in the list's order
// (walking the order, ranking and sorting) give the matches in order,
// and a page of them is the page of the order.
func TestMatchRanks(t *testing.T) {
	const n = 1000
	perm := make([]int32, n)
	res := make([]*Resource, n)
	for i := range perm {
		perm[i] = int32((i * 7919) % n) // rank i holds position perm[i]
		res[i] = &Resource{}
	}
	sl := &sortedList{perm: perm, res: res}
	for _, every := range []int{1, 3, 50, 400} { // dense (walk) to sparse (sort)
		sel := newBitset(n)
		for p := 0; p < n; p += every {
			sel.set(int32(p))
		}
		var want []int32
		for rank, pos := range perm {
			if sel.has(pos) {
				want = append(want, int32(rank))
			}
		}
		got := sl.matchRanks(sel, sel.count())
		if !slices.Equal(got, want) {
			t.Fatalf("every %d: %v, want %v", every, got, want)
		}
		for _, off := range []int{0, 5, len(want) - 1, len(want), len(want) + 5} {
			page := sl.pageOf(got, off, 7)
			if off >= len(want) && len(page) != 0 {
				t.Fatalf("every %d, offset %d: %d items past the end", every, off, len(page))
			}
			for i, r := range page {
				if r != res[want[off+i]] {
					t.Fatalf("every %d, offset %d: item %d is not rank %d's", every, off, i, want[off+i])
				}
			}
		}
	}
}

// TestMatchCacheBounds: the cache keeps at most matchCacheQueries
// queries and matchCacheRanks positions, dropping the least recently
// used first, and never keeps a set over the bound.
func TestMatchCacheBounds(t *testing.T) {
	var c matchCache
	for i := range matchCacheQueries + 5 {
		c.put(fmt.Sprint(i), []int32{int32(i)})
		if i == matchCacheQueries-1 {
			c.get("0") // used: outlives 1 to 5, dropped for the last five
		}
	}
	if c.lru.Len() != matchCacheQueries {
		t.Fatalf("%d queries kept, want %d", c.lru.Len(), matchCacheQueries)
	}
	if _, ok := c.get("0"); !ok {
		t.Error("the recently used query was dropped")
	}
	if _, ok := c.get("1"); ok {
		t.Error("the least recently used query was kept")
	}
	c.put("big", make([]int32, matchCacheRanks-10))
	if c.ranks > matchCacheRanks {
		t.Fatalf("%d positions kept, bound %d", c.ranks, matchCacheRanks)
	}
	if _, ok := c.get("big"); !ok {
		t.Error("a set within the bound was not kept")
	}
	c.put("huge", make([]int32, matchCacheRanks+1))
	if _, ok := c.get("huge"); ok {
		t.Error("a set over the bound was kept")
	}
}
