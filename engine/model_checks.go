package engine

import (
	"iter"
	"slices"
	"strings"
)

// checkList is a load's checks in path order, in chunks: a reload whose
// checks are the last ones' with a few paths made again (patchChecks)
// shares the chunks it did not change instead of copying 144 bytes a
// document. A chunk is never changed once its load is done (a branch's
// model state shares its fork's).
type checkList struct {
	chunks [][]docCheck // none empty
	n      int
}

// checkChunk is the size of the chunks a list of checks is cut into; a
// patched chunk that grows past twice that is cut again.
const checkChunk = 1024

// newCheckList cuts flat into chunks (no copy).
func newCheckList(flat []docCheck) *checkList {
	l := &checkList{n: len(flat)}
	l.add(flat)
	return l
}

// add appends the checks cs, in pieces of checkChunk.
func (l *checkList) add(cs []docCheck) {
	for len(cs) > 0 {
		k := min(len(cs), checkChunk)
		l.chunks = append(l.chunks, cs[:k:k])
		cs = cs[k:]
	}
}

func (l *checkList) len() int {
	if l == nil {
		return 0
	}
	return l.n
}

// all are the checks in path order; read only.
func (l *checkList) all() iter.Seq[*docCheck] {
	return func(yield func(*docCheck) bool) {
		if l == nil {
			return
		}
		for _, ch := range l.chunks {
			for i := range ch {
				if !yield(&ch[i]) {
					return
				}
			}
		}
	}
}

// withFindings are the checks whose result has something (violations,
// unique values, bare references): all that the passes over the checks
// for problems, documents to hold back and the whole-site rules read.
func withFindings(checks iter.Seq[*docCheck]) []docCheck {
	var out []docCheck
	for c := range checks {
		if c.res.f != nil {
			out = append(out, *c)
		}
	}
	return out
}

// patchFindings are last's checks with findings but for the paths
// changed (in path order), and the changed checks with findings: the
// findings of a patched list, in path order.
func patchFindings(last []docCheck, changed []string, made []*docCheck) []docCheck {
	out := make([]docCheck, 0, len(last)+len(made))
	j := 0
	for i := range last {
		if _, gone := slices.BinarySearch(changed, last[i].path); gone {
			continue
		}
		for j < len(made) && made[j].path < last[i].path {
			if made[j].res.f != nil {
				out = append(out, *made[j])
			}
			j++
		}
		out = append(out, last[i])
	}
	for ; j < len(made); j++ {
		if made[j].res.f != nil {
			out = append(out, *made[j])
		}
	}
	return out
}

// patchList makes the list of last with the checks of the paths changed
// made again by remake (ok false: the path has none now); the chunks
// that hold none of them are last's. It returns the list and the new
// checks, in path order (pointers into the new list's chunks).
func patchList(last *checkList, changed []string, remake func(p string) (docCheck, bool)) (*checkList, []*docCheck) {
	out := &checkList{chunks: make([][]docCheck, 0, len(last.chunks)+1)}
	var made []*docCheck
	merge := func(ch []docCheck, paths []string) {
		merged := make([]docCheck, 0, len(ch)+len(paths))
		var at []int
		i := 0
		for _, p := range paths {
			k := i
			for k < len(ch) && ch[k].path < p {
				k++
			}
			merged = append(merged, ch[i:k]...)
			for i = k; i < len(ch) && ch[i].path == p; i++ {
			}
			if c, ok := remake(p); ok {
				at = append(at, len(merged))
				merged = append(merged, c)
			}
		}
		merged = append(merged, ch[i:]...)
		for _, k := range at {
			made = append(made, &merged[k])
		}
		out.n += len(merged)
		if len(merged) <= 2*checkChunk {
			if len(merged) > 0 {
				out.chunks = append(out.chunks, merged[:len(merged):len(merged)])
			}
			return
		}
		out.add(merged)
	}
	if len(last.chunks) == 0 {
		merge(nil, changed)
		return out, made
	}
	pi := 0
	for ci, ch := range last.chunks {
		// the changed paths before the next chunk's first (the first
		// chunk also takes those before its own first, the last the
		// rest)
		end := len(changed)
		if ci+1 < len(last.chunks) {
			next := last.chunks[ci+1][0].path
			end = pi
			for end < len(changed) && strings.Compare(changed[end], next) < 0 {
				end++
			}
		}
		if end == pi {
			out.chunks = append(out.chunks, ch)
			out.n += len(ch)
			continue
		}
		merge(ch, changed[pi:end])
		pi = end
	}
	return out, made
}

// checkCursor reads a list's checks in order.
type checkCursor struct {
	chunks [][]docCheck
	ci, i  int
}

func (l *checkList) cursor() *checkCursor {
	if l == nil {
		return &checkCursor{}
	}
	return &checkCursor{chunks: l.chunks}
}

// peek is the check at the cursor, nil past the last.
func (c *checkCursor) peek() *docCheck {
	for c.ci < len(c.chunks) && c.i >= len(c.chunks[c.ci]) {
		c.ci, c.i = c.ci+1, 0
	}
	if c.ci == len(c.chunks) {
		return nil
	}
	return &c.chunks[c.ci][c.i]
}

func (c *checkCursor) next() { c.i++ }
