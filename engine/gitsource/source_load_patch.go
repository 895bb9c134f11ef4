package gitsource

import (
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/folio-cms/folio/content/chunks"
)

// A Load whose walk reused most of the last Load's folders (a push of a
// few files) makes its file list from the last one's: the folders whose
// tree changed are compared with their last records (diffRecs), and the
// last Load's lists are copied with the changed files taken out and put
// in (patchPlan). Only the changed files are looked up in the cache and
// given a time; the others keep the last Load's document, blob and
// Updated time. The work is a copy of the lists and the changed folders'
// entries, not a pass over every file.

// maxPatchedFiles is the number of changed files up to which a Load
// patches the last one's lists.
const maxPatchedFiles = 1024

// treeChanges are the relevant files that differ between two walks: the
// paths the old one has and the new one lacks or has with another blob or
// mode (gone), and the new one's files the old one lacks or has otherwise
// (added). A changed file is in both. Each is in path order.
type treeChanges struct {
	gone  []string
	added []gitFile
}

func (ch *treeChanges) tooMany() bool {
	return len(ch.gone) > maxPatchedFiles || len(ch.added) > maxPatchedFiles
}

// diffRecs adds to ch the files that differ between old and d, records of
// the same folder in two walks; a folder whose record is the same pointer
// (its tree did not change) is not looked into, nor the entries walkDir
// took from old as they were (spans). It returns false when the changes
// are too many or a folder's files are not in path order (a malformed
// tree): then the caller lists every file.
func diffRecs(old, d *dirRec, ch *treeChanges, spans map[*dirRec]treeSpan) bool {
	if old == d {
		return true
	}
	// the parts to compare: all of them, or those between what d took
	// from old
	sp, spanned := spans[d]
	spanned = spanned && sp.old == old
	oldParts, parts := old.parts, d.parts
	if spanned {
		oldParts, parts = old.parts[sp.pre:sp.sufOld], d.parts[sp.pre:sp.sufNew]
	}
	a, b := &fileIter{parts: oldParts}, &fileIter{parts: parts}
	for {
		of, f := a.peek(), b.peek()
		if of == nil && f == nil {
			break
		}
		switch {
		case of != nil && f != nil && of.path == f.path:
			if *of != *f {
				ch.gone = append(ch.gone, of.path)
				ch.added = append(ch.added, *f)
			}
			a.next()
			b.next()
		case f == nil || of != nil && of.path < f.path:
			ch.gone = append(ch.gone, of.path)
			a.next()
		default:
			ch.added = append(ch.added, *f)
			b.next()
		}
		if ch.tooMany() {
			return false
		}
	}
	if d.sorted = d.filesSorted(sp, spanned); !d.sorted {
		return false
	}
	// the subfolders, by name
	for _, p := range parts {
		for k, e := range p.entries {
			if e.Mode != filemode.Dir || p.slot[k] < 0 {
				continue
			}
			kid := p.dirs[p.slot[k]]
			oldKid := old.kid(e.Name)
			if oldKid == nil {
				if len(ch.added)+kid.total > maxPatchedFiles {
					return false
				}
				kid.collect(&ch.added)
				continue
			}
			if !diffRecs(oldKid, kid, ch, spans) {
				return false
			}
		}
	}
	for _, p := range oldParts {
		for k, e := range p.entries {
			if e.Mode != filemode.Dir || p.slot[k] < 0 || d.kid(e.Name) != nil {
				continue
			}
			kid := p.dirs[p.slot[k]]
			if len(ch.gone)+kid.total > maxPatchedFiles {
				return false
			}
			var files []gitFile
			kid.collect(&files)
			for _, f := range files {
				ch.gone = append(ch.gone, f.path)
			}
		}
	}
	return true
}

// changesSince returns the files that differ between the walks old and
// root, in path order, or ok false when there are too many (or the trees
// are malformed).
func changesSince(old, root *dirRec, spans map[*dirRec]treeSpan) (ch treeChanges, ok bool) {
	if old == nil || !diffRecs(old, root, &ch, spans) {
		return treeChanges{}, false
	}
	slices.Sort(ch.gone)
	slices.SortFunc(ch.added, gitFileOrder)
	if len(slices.Compact(slices.Clone(ch.gone))) != len(ch.gone) ||
		len(slices.CompactFunc(slices.Clone(ch.added), func(a, b gitFile) bool { return a.path == b.path })) != len(ch.added) {
		return treeChanges{}, false // one path twice: a malformed tree
	}
	return ch, true
}

// patchPlan is how the new list is made from last (in path order) with
// ch's changes: the steps of last's Patch (the new elements are ch.added,
// in order); ok is false when a gone path is not in last (the walks do
// not match the list).
func patchPlan(last chunks.List[gitFile], ch treeChanges) (steps []chunks.Step, ok bool) {
	i, gi, ai := 0, 0, 0
	for gi < len(ch.gone) || ai < len(ch.added) {
		goneFirst := ai == len(ch.added) || gi < len(ch.gone) && ch.gone[gi] <= ch.added[ai].path
		p := ""
		if goneFirst {
			p = ch.gone[gi]
		} else {
			p = ch.added[ai].path
		}
		k, found := findFile(last, p)
		if k < i {
			// before the rest of last: p was gone just now (a changed
			// file), or the changes are not in order
			k, found = i, i < last.Len() && last.Ptr(i).path == p
		}
		if k > i {
			steps = append(steps, chunks.Step{From: i, To: k})
		}
		i = k
		if goneFirst {
			if !found {
				return nil, false
			}
			i++
			gi++
			continue
		}
		if found {
			return nil, false // added but not gone: the list has it
		}
		steps = append(steps, chunks.Step{From: -1})
		ai++
	}
	if n := last.Len(); i < n {
		steps = append(steps, chunks.Step{From: i, To: n})
	}
	return steps, true
}

// samePathsAs tells whether ch only changed files in place: every path
// gone is added back.
func (ch *treeChanges) samePaths() bool {
	if len(ch.gone) != len(ch.added) {
		return false
	}
	for i, p := range ch.gone {
		if ch.added[i].path != p {
			return false
		}
	}
	return true
}

// changedPaths are the paths ch names, in path order, each once.
func (ch *treeChanges) changedPaths() []string {
	out := make([]string, 0, len(ch.gone)+len(ch.added))
	out = append(out, ch.gone...)
	for _, f := range ch.added {
		out = append(out, f.path)
	}
	slices.SortFunc(out, strings.Compare)
	return slices.Compact(out)
}
