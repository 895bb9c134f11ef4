package engine

import (
	"container/list"
	"math/bits"
	"slices"
	"sync"
)

// Bounds of a list's cache of filtered queries (matchCache).
const (
	// matchCacheQueries is the number of distinct queries (sort and
	// conditions) a list keeps the matches of.
	matchCacheQueries = 32
	// matchCacheRanks bounds the positions all of them hold together
	// (4 bytes each: 16 MB); a query matching more is not kept.
	matchCacheRanks = 4 << 20
)

// matchCache keeps, for the recent filtered queries of one list (by
// canonical sort and conditions), the ranks of the matching items in
// the sort's order. A page of a kept query is then a slice of it,
// whatever its offset; without it every request would set a bit per
// match and walk the order up to its offset (O(matches + offset) per
// request: 16–29 ms for a deep page of a 1M-file site). The list is
// rebuilt by a reload that changes its type, and the cache with it.
type matchCache struct {
	mu      sync.Mutex
	entries map[string]*list.Element // of *matchEntry
	lru     list.List                // most recently used first
	ranks   int                      // held by all entries
}

type matchEntry struct {
	key   string
	ranks []int32 // ranks in the sorted list, ascending
}

// get returns the ranks kept for key.
func (c *matchCache) get(key string) ([]int32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*matchEntry).ranks, true
}

// put keeps ranks for key, dropping the least recently used queries
// while over the bounds; a set larger than matchCacheRanks is not kept.
func (c *matchCache) put(key string, ranks []int32) {
	if len(ranks) > matchCacheRanks {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]*list.Element{}
	}
	if _, ok := c.entries[key]; ok {
		return
	}
	c.entries[key] = c.lru.PushFront(&matchEntry{key: key, ranks: ranks})
	c.ranks += len(ranks)
	for c.lru.Len() > matchCacheQueries || c.ranks > matchCacheRanks {
		old := c.lru.Back().Value.(*matchEntry)
		c.lru.Remove(c.lru.Back())
		delete(c.entries, old.key)
		c.ranks -= len(old.ranks)
	}
}

// matchRanks lists the ranks (positions in the list's order) of the
// selected positions, ascending: by walking the order when the matches
// are many, else by ranking each match and sorting.
func (sl *sortedList) matchRanks(sel bitset, total int) []int32 {
	out := make([]int32, 0, total)
	if total > len(sl.perm)/16 {
		for rank, pos := range sl.perm {
			if sel.has(pos) {
				out = append(out, int32(rank))
			}
		}
		return out
	}
	rank := sl.ranks()
	for w, word := range sel {
		for word != 0 {
			out = append(out, rank[w*64+bits.TrailingZeros64(word)])
			word &= word - 1
		}
	}
	slices.Sort(out)
	return out
}

// pageOf is the page [offset, offset+limit) of the items at ranks.
func (sl *sortedList) pageOf(ranks []int32, offset, limit int) []*Resource {
	if offset >= len(ranks) || limit <= 0 {
		return []*Resource{}
	}
	ranks = ranks[offset:min(offset+limit, len(ranks))]
	out := make([]*Resource, len(ranks))
	for i, r := range ranks {
		out[i] = sl.res[r]
	}
	return out
}
