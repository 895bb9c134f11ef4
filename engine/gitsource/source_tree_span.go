package gitsource

import (
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// A push of one file into a folder of 500k entries writes the folder's
// tree again whole, and a Load reads it whole (its loose object has no
// other form). What changed in it is found by its bytes: the entries
// before the first byte that differs from the last tree's, and those
// after the last one, are the last tree's, and their records (the files'
// paths and relevance, the subfolders' walks) are taken as they are; only
// the entries between are merged with the last record by name, and
// compared by diffRecs.

// treeSpan is what a folder's record took from old, the record of the
// same folder in the last walk: its entries [0, pre) are old's [0, pre),
// and its entries from sufNew on are old's from sufOld on.
type treeSpan struct {
	old                 *dirRec
	pre, sufNew, sufOld int
}

// maxSuffixTries bounds the entries sameSpan tries as the first of the
// common end: one of the first few starts in old as well unless a name
// or hash holds what looks like an entry's start.
const maxSuffixTries = 16

// sameSpan is the span of d's entries that are old's, by the bytes of
// their trees; none when either tree's bytes are not known.
func sameSpan(old, d *dirRec) treeSpan {
	n := len(d.entries)
	if old == nil {
		return treeSpan{pre: 0, sufNew: n, sufOld: 0}
	}
	m := len(old.entries)
	sp := treeSpan{old: old, pre: 0, sufNew: n, sufOld: m}
	if old.raw == "" || d.raw == "" {
		return sp
	}
	a, b := old.raw, d.raw
	p := commonPrefix(a, b)
	s := commonSuffix(a[p:], b[p:])
	// The entries that end within the common start are old's: the same
	// bytes parse the same.
	sp.pre = sort.Search(n, func(i int) bool { return int(d.ends[i]) > p })
	// An entry within the common end that starts as far from the end
	// as one of old's is old's, and every one after it.
	i := sort.Search(n, func(i int) bool { return entryStart(d.ends, i) >= len(b)-s })
	for tries := 0; i < n && tries < maxSuffixTries; i, tries = i+1, tries+1 {
		at := len(a) - (len(b) - entryStart(d.ends, i))
		j := sort.Search(m, func(j int) bool { return entryStart(old.ends, j) >= at })
		if j < m && entryStart(old.ends, j) == at {
			sp.sufNew, sp.sufOld = i, j
			break
		}
	}
	return sp
}

func entryStart(ends []int32, i int) int {
	if i == 0 {
		return 0
	}
	return int(ends[i-1])
}

// commonPrefix is the length of the longest common start of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	// compare in blocks: the string comparison is a memcmp
	const block = 4096
	i := 0
	for i+block <= n && a[i:i+block] == b[i:i+block] {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is the length of the longest common end of a and b.
func commonSuffix(a, b string) int {
	n := min(len(a), len(b))
	const block = 4096
	i := 0
	for i+block <= n && a[len(a)-i-block:len(a)-i] == b[len(b)-i-block:len(b)-i] {
		i += block
	}
	for i < n && a[len(a)-i-1] == b[len(b)-i-1] {
		i++
	}
	return i
}

// keepFrom takes old's records of its entries [lo, hi), which are d's
// from at on: their slots, relevant files and subfolders, appended to
// d's.
func (d *dirRec) keepFrom(old *dirRec, lo, hi, at int) {
	fileLo, dirLo := old.slotsFrom(lo)
	fileHi, dirHi := old.slotsFrom(hi)
	fshift, dshift := int32(len(d.files)-fileLo), int32(len(d.dirs)-dirLo)
	for i := lo; i < hi; i++ {
		s := old.slot[i]
		switch {
		case s < 0:
		case old.entries[i].Mode == filemode.Dir:
			s += dshift
		default:
			s += fshift
		}
		d.slot[at+i-lo] = s
	}
	for k := dirLo; k < dirHi; k++ {
		d.before = append(d.before, old.before[k]+int(fshift))
		d.total += old.dirs[k].total
	}
	d.dirs = append(d.dirs, old.dirs[dirLo:dirHi]...)
	d.files = append(d.files, old.files[fileLo:fileHi]...)
	d.total += fileHi - fileLo
}

// slotsFrom is the index in files of the first relevant file at entry i
// or after, and in dirs of the first subfolder (len(files), len(dirs)
// when none).
func (d *dirRec) slotsFrom(i int) (file, dir int) {
	// up to the next file, counting the subfolders on the way: those
	// with as many files before them come after i, the rest before
	file, seen := len(d.files), 0
	for ; i < len(d.entries); i++ {
		if s := d.slot[i]; s >= 0 {
			if d.entries[i].Mode != filemode.Dir {
				file = int(s)
				break
			}
			seen++
		}
	}
	after := sort.Search(len(d.before), func(k int) bool { return d.before[k] > file })
	return file, after - seen
}

// setSpan records what d took from old as it was, if anything.
func (tc *treeEntries) setSpan(d *dirRec, sp treeSpan) {
	if sp.old == nil || sp.pre == 0 && sp.sufNew == len(d.entries) {
		return
	}
	if tc.spans == nil {
		tc.spans = map[*dirRec]treeSpan{}
	}
	tc.spans[d] = sp
}

// filesSorted tells whether d's files are in path order: those it took
// from a record known to be in order need only the rest looked at.
func (d *dirRec) filesSorted(sp treeSpan, spanned bool) bool {
	if !spanned || !sp.old.sorted {
		return isSortedFiles(d.files)
	}
	lo, _ := d.slotsFrom(sp.pre)
	hi, _ := d.slotsFrom(sp.sufNew)
	// the middle, with one file of each side
	return isSortedFiles(d.files[max(lo-1, 0):min(hi+1, len(d.files))])
}

func isSortedFiles(files []gitFile) bool {
	for i := 1; i < len(files); i++ {
		if strings.Compare(files[i-1].path, files[i].path) > 0 {
			return false
		}
	}
	return true
}
