package gitsource

import (
	"strings"
)

// A push of one file into a folder of 500k entries writes the folder's
// tree again whole, and a Load reads it whole (its loose object has no
// other form). What changed in it is found by its bytes: the parts of the
// last record whose bytes the new tree has at either end are taken as
// they are (walkLoose, source_tree_parts.go); only the entries between
// are merged with the last record by name, and compared by diffRecs.

// treeSpan is what a folder's record took from old, the record of the
// same folder in the last walk: its parts [0, pre) are old's [0, pre),
// and its parts from sufNew on are old's from sufOld on.
type treeSpan struct {
	old                 *dirRec
	pre, sufNew, sufOld int
}

// setSpan records what d took from old as it was.
func (tc *treeEntries) setSpan(d *dirRec, sp treeSpan) {
	if tc.spans == nil {
		tc.spans = map[*dirRec]treeSpan{}
	}
	tc.spans[d] = sp
}

// filesSorted tells whether d's files are in path order: those it took
// from a record known to be in order need only the rest looked at, with
// the file on either side of it.
func (d *dirRec) filesSorted(sp treeSpan, spanned bool) bool {
	if !spanned || !sp.old.sorted {
		return filesInOrder(d.parts, nil, nil)
	}
	var before, after *gitFile
	for k := sp.pre - 1; k >= 0 && before == nil; k-- {
		if fs := d.parts[k].files; len(fs) > 0 {
			before = &fs[len(fs)-1]
		}
	}
	for k := sp.sufNew; k < len(d.parts) && after == nil; k++ {
		if fs := d.parts[k].files; len(fs) > 0 {
			after = &fs[0]
		}
	}
	return filesInOrder(d.parts[sp.pre:sp.sufNew], before, after)
}

// filesInOrder tells whether the files of parts, after first and before
// last (either nil: none), are in path order.
func filesInOrder(parts []*dirPart, first, last *gitFile) bool {
	prev := first
	for _, p := range parts {
		for i := range p.files {
			f := &p.files[i]
			if prev != nil && strings.Compare(prev.path, f.path) > 0 {
				return false
			}
			prev = f
		}
	}
	return prev == nil || last == nil || strings.Compare(prev.path, last.path) <= 0
}
