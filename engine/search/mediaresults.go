package search

import "sync"

// The media list repeats the same few searches (an editor paging, the
// admin's media picker, several editors looking for the same image), and
// a search scores every hit to pick the page (tens of µs to a few
// hundred on 100k items, more for broad prefixes). MediaSearch keeps the answers of its searches until the
// index changes, so that a repeated search costs a map lookup; the answer
// is the one the index gives, the same ids in the same order.

// Bounds of the result cache: past either, it starts again empty.
const (
	maxCachedResults = 1024
	maxCachedIDs     = 1 << 18 // ids held in all (a sorted search holds every hit)
)

// resultKey is one search as the index runs it: its lower-cased terms,
// filters and page.
type resultKey struct {
	terms         string
	folder, kind  string
	offset, limit int
	reverse, all  bool
}

type result struct {
	ids   []string
	total int
}

// resultCache holds the answers of one epoch of the index.
type resultCache struct {
	mu    sync.Mutex
	epoch uint64
	m     map[resultKey]result
	ids   int
}

// get returns the answer to k kept in epoch, if any.
func (c *resultCache) get(epoch uint64, k resultKey) (result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch != epoch {
		return result{}, false
	}
	r, ok := c.m[k]
	return r, ok
}

// put keeps r as the answer to k in epoch; an answer of an older epoch
// than the cache's is dropped, one of a newer epoch empties the cache.
func (c *resultCache) put(epoch uint64, k resultKey, r result) {
	if len(r.ids) > maxCachedIDs {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case epoch < c.epoch:
		return
	case epoch > c.epoch || c.m == nil || len(c.m) >= maxCachedResults || c.ids+len(r.ids) > maxCachedIDs:
		c.epoch, c.m, c.ids = epoch, map[resultKey]result{}, 0
	}
	if _, ok := c.m[k]; !ok {
		c.ids += len(r.ids)
	}
	c.m[k] = r
}
