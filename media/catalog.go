package media

import (
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/folio-cms/folio/media/internal/guard"
)

// catalog is the library's in-memory index, which every read answers
// from: the items by id, the storage keys they own and those that writes
// in flight reserve, the folders, the locales, the sort orders List
// caches, and the locks of item writes.
//
// Its lock is the innermost of the library's (Library lists the whole
// order). The index is reached only through read and write, which hold
// the lock while fn runs and hand it the *index (the index and its lock
// are a guard.RW, which has no other way in): a function that has an
// *index runs inside the lock, and the index's methods are the only ones
// that take one. fn takes no other lock of the library, calls nothing
// outside the index (OnChange, a Storage, the StateStore) and does not
// block; what it finds is used after it returns. Code that needs the
// catalog together with another lock takes the other one first: the
// state's (stateSync.locked), folderMu, an item's.
type catalog struct {
	idx guard.RW[index]
}

// read runs fn with the catalog's lock held for reading.
func (c *catalog) read(fn func(x *index)) { c.idx.Read(fn) }

// write runs fn with the catalog's lock held for writing.
func (c *catalog) write(fn func(x *index)) { c.idx.Write(fn) }

// index is the data of a catalog; whoever holds an *index holds the
// catalog's lock (for reading, unless it came from write).
type index struct {
	items    map[string]*Item // by id; values are never mutated, only replaced
	claimed  map[string]string
	reserved map[string]time.Time
	inFolder map[string]int
	// locales counts the items that have text in each locale.
	locales  map[string]int
	explicit map[string]bool
	// orders are the cached sort orders, dropped on every write. A reader
	// fills them (order), so orderMu, the one lock taken inside the
	// catalog's, orders their writes.
	orders  map[string][]*Item
	orderMu sync.Mutex
	// locks serialise the writes of each item (Library.lockItem); they are
	// taken after the catalog's lock is released, never inside it.
	locks map[string]*sync.Mutex
}

// newCatalog is an empty catalog.
func newCatalog() *catalog {
	c := new(catalog)
	c.write(func(x *index) {
		x.items = map[string]*Item{}
		x.claimed = map[string]string{}
		x.reserved = map[string]time.Time{}
		x.inFolder = map[string]int{}
		x.locales = map[string]int{}
		x.explicit = map[string]bool{}
		x.orders = map[string][]*Item{}
		x.locks = map[string]*sync.Mutex{}
	})
	return c
}

// itemKeys lists every storage key an item owns: original and derivatives.
func itemKeys(it *Item) []string {
	keys := make([]string, 0, 1+len(it.Sizes))
	keys = append(keys, it.Key)
	for _, s := range it.Sizes {
		keys = append(keys, s.Key)
	}
	return keys
}

// keysOf yields the keys itemKeys lists, without making a slice: the
// index and a start's load go through them for every item (they were
// five allocations an item, growing the slice, at every start).
func keysOf(it *Item) iter.Seq[string] {
	return func(yield func(string) bool) {
		if !yield(it.Key) {
			return
		}
		for _, s := range it.Sizes {
			if !yield(s.Key) {
				return
			}
		}
	}
}

// claimKey normalises a key for the claimed and reserved sets. Names are
// compared without case, because originals on a case-insensitive disk
// (macOS, Windows) would otherwise overwrite each other.
func claimKey(k string) string { return strings.ToLower(k) }

// add puts it in the index (held for writing).
func (x *index) add(it *Item) {
	x.items[it.ID] = it
	for k := range keysOf(it) {
		x.claimed[claimKey(k)] = it.ID
	}
	x.inFolder[it.Folder]++
	x.countLocales(it, 1)
	clear(x.orders)
}

// remove takes it out of the index (held for writing).
func (x *index) remove(it *Item) {
	delete(x.items, it.ID)
	for k := range keysOf(it) {
		if x.claimed[claimKey(k)] == it.ID {
			delete(x.claimed, claimKey(k))
		}
	}
	if x.inFolder[it.Folder]--; x.inFolder[it.Folder] <= 0 {
		delete(x.inFolder, it.Folder)
	}
	x.countLocales(it, -1)
	clear(x.orders)
}

// countLocales adds d to the count of each locale of it (held for
// writing).
func (x *index) countLocales(it *Item, d int) {
	seen := map[string]bool{}
	itemLocales(it, func(loc string) {
		if seen[loc] {
			return
		}
		seen[loc] = true
		if x.locales[loc] += d; x.locales[loc] <= 0 {
			delete(x.locales, loc)
		}
	})
}

// setFolders makes folders the explicitly created folders (held for
// writing).
func (x *index) setFolders(folders map[string]bool) {
	x.explicit = folders
	clear(x.orders)
}

// folderExists reports whether the clean path p is a folder.
func (x *index) folderExists(p string) bool {
	if p == RootFolder || x.explicit[p] || x.inFolder[p] > 0 {
		return true
	}
	for q := range x.explicit {
		if below(q, p) {
			return true
		}
	}
	for q := range x.inFolder {
		if below(q, p) {
			return true
		}
	}
	return false
}

func (x *index) allFree(keys []string, now time.Time) bool {
	for _, k := range keys {
		if !x.free(k, now) {
			return false
		}
	}
	return true
}

// free reports whether no item claims key and no write reserves it (as
// of now); it drops an expired reservation (held for writing).
func (x *index) free(key string, now time.Time) bool {
	k := claimKey(key)
	if _, ok := x.claimed[k]; ok {
		return false
	}
	if exp, ok := x.reserved[k]; ok {
		if exp.IsZero() || now.Before(exp) {
			return false
		}
		delete(x.reserved, k)
	}
	return true
}

// reserve holds key until expires (zero: until released; held for
// writing).
func (x *index) reserve(key string, expires time.Time) {
	x.reserved[claimKey(key)] = expires
}

// release drops the reservations of keys (held for writing).
func (x *index) release(keys ...string) {
	for _, k := range keys {
		delete(x.reserved, claimKey(k))
	}
}

// itemLock is the lock of the writes of item id, made on first use (held
// for writing). The caller takes it after the catalog's is released.
func (x *index) itemLock(id string) *sync.Mutex {
	m, ok := x.locks[id]
	if !ok {
		m = new(sync.Mutex)
		x.locks[id] = m
	}
	return m
}

// order returns every item in ascending order of the sort field,
// building and caching it on the first call after a write. Building under
// the read lock is safe because the cache is only filled with a fresh
// slice under orderMu.
func (x *index) order(sort string) []*Item {
	switch sort {
	case SortFilename, SortSize:
	default:
		sort = SortCreatedAt
	}
	x.orderMu.Lock()
	defer x.orderMu.Unlock()
	if o, ok := x.orders[sort]; ok {
		return o
	}
	es := make([]sortEntry, 0, len(x.items))
	for _, it := range x.items {
		es = append(es, newSortEntry(it, sort))
	}
	slices.SortFunc(es, func(a, b sortEntry) int { return compareEntries(a, b, sort) })
	o := make([]*Item, len(es))
	for i, e := range es {
		o[i] = e.it
	}
	x.orders[sort] = o
	return o
}

// presize makes the empty index's maps for items, at their final size
// (held for writing).
func (x *index) presize(items []*Item) {
	keys := 0
	for _, it := range items {
		if it != nil {
			keys += 1 + len(it.Sizes)
		}
	}
	x.items = make(map[string]*Item, len(items))
	x.claimed = make(map[string]string, keys)
}
