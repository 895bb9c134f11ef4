package gitsource

import (
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// A push of one file into a folder of 500k entries writes the folder's
// tree again whole: its new bytes are the last tree's but for a small
// region. The entries before that region and after it are the last
// tree's, at the same place from the start or from the end: they are
// taken from the last tree's entries (their names cut from the new bytes)
// instead of parsed again; only the region between is parsed.

// lastTree is the last walk's tree of a folder, as read from its loose
// object: its bytes, entries (names cut from raw) and where each ends.
type lastTree struct {
	raw     string
	entries []object.TreeEntry
	ends    []int32
}

// parseTreeFrom is parseTree(s) for a tree whose last version was old:
// the same entries and ends, the unchanged ones taken from old's.
func parseTreeFrom(s string, old *lastTree) ([]object.TreeEntry, []int32, bool) {
	entries, ends, _, ok := reparseTree(s, old)
	return entries, ends, ok
}

// reparseTree is parseTreeFrom, and the number of entries it parsed.
func reparseTree(s string, old *lastTree) (entries []object.TreeEntry, ends []int32, parsed int, ok bool) {
	if old == nil || old.raw == "" || len(old.entries) != len(old.ends) || len(old.entries) == 0 {
		entries, ends, ok = parseTree(s)
		return entries, ends, len(entries), ok
	}
	a := old.raw
	p := commonPrefix(a, s)
	suf := commonSuffix(a[p:], s[p:])
	delta := len(a) - len(s) // where an entry of the common end starts in a, less where in s
	// the entries that end within the common start are old's
	pre := sort.Search(len(old.ends), func(i int) bool { return int(old.ends[i]) > p })
	entries = make([]object.TreeEntry, 0, len(old.entries)+8)
	ends = make([]int32, 0, len(old.entries)+8)
	for i := range pre {
		entries = append(entries, reentry(s, old.entries[i], int(old.ends[i])))
	}
	ends = append(ends, old.ends[:pre]...)
	// parse on from there, until an entry starts in the common end where
	// one of old's starts: old's from it on follow
	at := 0
	if pre > 0 {
		at = int(old.ends[pre-1])
	}
	for at < len(s) {
		if at >= len(s)-suf {
			j := sort.Search(len(old.ends), func(j int) bool { return int(old.ends[j]) > at+delta })
			if j > 0 && int(old.ends[j-1]) == at+delta || j == 0 && at+delta == 0 {
				for k := j; k < len(old.entries); k++ {
					end := int(old.ends[k]) - delta
					entries = append(entries, reentry(s, old.entries[k], end))
					ends = append(ends, int32(end))
				}
				return entries, ends, parsed, true
			}
		}
		e, n, ok := parseEntry(s[at:])
		if !ok {
			return nil, nil, parsed, false
		}
		at += n
		parsed++
		entries = append(entries, e)
		ends = append(ends, int32(at))
	}
	return entries, ends, parsed, true
}

// reentry is entry e of an old tree, ending at end in s (the same bytes):
// its name cut from s.
func reentry(s string, e object.TreeEntry, end int) object.TreeEntry {
	nameEnd := end - len(plumbing.Hash{}) - 1
	e.Name = s[nameEnd-len(e.Name) : nameEnd]
	return e
}
