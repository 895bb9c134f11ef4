package search

import (
	"fmt"
	"slices"
	"testing"

	"github.com/folio-cms/folio/media"
)

// A repeated search is answered from the result cache until the index
// changes: the same answer as the index's, and never one from before a
// write the search must see.
func TestMediaSearchResultCache(t *testing.T) {
	m := fillMediaSearch(t, 2000)
	qs := []MediaQuery{
		{Text: "lake", Limit: 24}, {Text: "LAKE", Limit: 24}, {Text: "lake", Limit: 24, Offset: 24},
		{Text: "lake", Limit: 24, Reverse: true}, {Text: "lake", All: true},
		{Text: "lake", Limit: 24, Folder: benchFolders[1]}, {Text: "moun city", Limit: 5},
	}
	first := make([][]string, len(qs))
	totals := make([]int, len(qs))
	for i, q := range qs {
		first[i], totals[i] = mustFind(t, m, q)
	}
	for i, q := range qs {
		ids, total := mustFind(t, m, q)
		if !slices.Equal(ids, first[i]) || total != totals[i] {
			t.Errorf("%+v again: %d %v, want %d %v", q, total, ids, totals[i], first[i])
		}
		// The caller owns what it gets.
		if len(ids) > 0 {
			ids[0] = "changed"
		}
	}
	if ids, _ := mustFind(t, m, qs[0]); len(ids) == 0 || ids[0] == "changed" {
		t.Fatalf("a caller's change reached the cache: %v", ids)
	}

	// A new item whose only word is new, then the exact word of an
	// existing search: each is found by the search right after it.
	m.Follow(&media.Item{ID: "new1", Filename: "lake.jpg", MimeType: "image/jpeg", Folder: "/"}, false)
	ids, total := mustFind(t, m, MediaQuery{Text: "lake", Limit: 24})
	if total != totals[0]+1 || !slices.Contains(ids, "new1") {
		t.Fatalf("after an add: total %d (was %d), ids %v", total, totals[0], ids)
	}
	m.Follow(&media.Item{ID: "new1"}, true)
	ids, total = mustFind(t, m, MediaQuery{Text: "lake", Limit: 24})
	if total != totals[0] || !slices.Equal(ids, first[0]) {
		t.Fatalf("after the delete: total %d, ids %v; want %d %v", total, ids, totals[0], first[0])
	}
	all, _ := mustFind(t, m, MediaQuery{Text: "lake", All: true})
	if !slices.Equal(all, first[4]) {
		t.Fatalf("all hits after the delete differ: %d vs %d ids", len(all), len(first[4]))
	}
}

func TestResultCacheBounds(t *testing.T) {
	var c resultCache
	c.put(1, resultKey{terms: "a"}, result{ids: []string{"x"}, total: 1})
	if _, ok := c.get(1, resultKey{terms: "a"}); !ok {
		t.Fatal("miss after put")
	}
	if _, ok := c.get(2, resultKey{terms: "a"}); ok {
		t.Fatal("hit in a later epoch")
	}
	c.put(0, resultKey{terms: "b"}, result{})
	if _, ok := c.get(0, resultKey{terms: "b"}); ok {
		t.Fatal("an older epoch's answer was kept")
	}
	for i := range maxCachedResults + 10 {
		c.put(1, resultKey{terms: fmt.Sprint(i)}, result{ids: []string{"x"}})
	}
	if len(c.m) > maxCachedResults || c.ids > maxCachedIDs {
		t.Fatalf("%d entries, %d ids", len(c.m), c.ids)
	}
	c.put(1, resultKey{terms: "big"}, result{ids: make([]string, maxCachedIDs+1)})
	if _, ok := c.get(1, resultKey{terms: "big"}); ok {
		t.Fatal("an answer over the bound was kept")
	}
}
