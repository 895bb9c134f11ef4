package media

import (
	"slices"
	"strings"
	"time"
)

// The in-memory index of the library: its maps and what keeps them in step.

// itemKeys lists every storage key an item owns: original and derivatives.
func itemKeys(it *Item) []string {
	keys := []string{it.Key}
	for _, s := range it.Sizes {
		keys = append(keys, s.Key)
	}
	return keys
}

// claimKey normalises a key for the claimed and reserved sets. Names are
// compared without case, because originals on a case-insensitive disk
// (macOS, Windows) would otherwise overwrite each other.
func claimKey(k string) string { return strings.ToLower(k) }

// addLocked puts it in the index; l.mu must be held for writing.
func (l *Library) addLocked(it *Item) {
	l.items[it.ID] = it
	for _, k := range itemKeys(it) {
		l.claimed[claimKey(k)] = it.ID
	}
	l.inFolder[it.Folder]++
	l.countLocales(it, 1)
	clear(l.orders)
}

// removeLocked takes it out of the index; l.mu must be held for writing.
func (l *Library) removeLocked(it *Item) {
	delete(l.items, it.ID)
	for _, k := range itemKeys(it) {
		if l.claimed[claimKey(k)] == it.ID {
			delete(l.claimed, claimKey(k))
		}
	}
	if l.inFolder[it.Folder]--; l.inFolder[it.Folder] <= 0 {
		delete(l.inFolder, it.Folder)
	}
	l.countLocales(it, -1)
	clear(l.orders)
}

// countLocales adds d to the count of each locale of it; l.mu is held for
// writing.
func (l *Library) countLocales(it *Item, d int) {
	seen := map[string]bool{}
	itemLocales(it, func(loc string) {
		if seen[loc] {
			return
		}
		seen[loc] = true
		if l.locales[loc] += d; l.locales[loc] <= 0 {
			delete(l.locales, loc)
		}
	})
}

// folderExistsRLocked reports whether the clean path p is a folder; l.mu
// is held.
func (l *Library) folderExistsRLocked(p string) bool {
	if p == RootFolder || l.explicit[p] || l.inFolder[p] > 0 {
		return true
	}
	for q := range l.explicit {
		if below(q, p) {
			return true
		}
	}
	for q := range l.inFolder {
		if below(q, p) {
			return true
		}
	}
	return false
}

func (l *Library) allFreeLocked(keys []string) bool {
	for _, k := range keys {
		if !l.freeLocked(k) {
			return false
		}
	}
	return true
}

// freeLocked reports whether no item claims key and no write reserves it.
func (l *Library) freeLocked(key string) bool {
	k := claimKey(key)
	if _, ok := l.claimed[k]; ok {
		return false
	}
	if exp, ok := l.reserved[k]; ok {
		if exp.IsZero() || l.now().Before(exp) {
			return false
		}
		delete(l.reserved, k)
	}
	return true
}

// reserveLocked holds key until expires (zero: until released).
func (l *Library) reserveLocked(key string, expires time.Time) {
	l.reserved[claimKey(key)] = expires
}

// orderRLocked returns every item in ascending order of the sort field,
// building and caching it on the first call after a write. l.mu is held
// for reading; building under a read lock is safe because the cache is
// only filled with a fresh slice under orderMu.
func (l *Library) orderRLocked(sort string) []*Item {
	switch sort {
	case SortFilename, SortSize:
	default:
		sort = SortCreatedAt
	}
	l.orderMu.Lock()
	defer l.orderMu.Unlock()
	if o, ok := l.orders[sort]; ok {
		return o
	}
	es := make([]sortEntry, 0, len(l.items))
	for _, it := range l.items {
		es = append(es, newSortEntry(it, sort))
	}
	slices.SortFunc(es, func(a, b sortEntry) int { return compareEntries(a, b, sort) })
	o := make([]*Item, len(es))
	for i, e := range es {
		o[i] = e.it
	}
	l.orders[sort] = o
	return o
}

// presize makes the empty index's maps for items; l.mu is held.
func (l *Library) presize(items []*Item, etags int) {
	keys := 0
	for _, it := range items {
		if it != nil {
			keys += 1 + len(it.Sizes)
		}
	}
	l.items = make(map[string]*Item, len(items))
	l.claimed = make(map[string]string, keys)
	if len(l.sh.etags) == 0 {
		l.sh.etags = make(map[string]string, etags)
	}
}
