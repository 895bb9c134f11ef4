// Package chunks holds a list kept in chunks that lists made from one
// another share: a list patched with a few changes copies only the chunks
// the changes fall in, so a one-file push at a million files copies a
// thousand elements, not a million (and the collector has no million
// pointers to mark while they are copied).
package chunks

import (
	"iter"
	"sort"
)

// Size is the number of elements a chunk is made with; a patched chunk
// grows or shrinks with the changes in it and is cut again past twice
// that.
const Size = 1024

// List is a list of T in chunks. A List is a value: copying it copies
// the chunks' headers, not their elements. Its elements are never changed
// once it is made (Patch's elements are until Seal): every List made from
// another may share its chunks.
type List[T any] struct {
	parts [][]T // each non-empty, its capacity its length
	ends  []int // ends[k]: the elements of parts[:k+1]
	// own[k] tells that parts[k] was made by the Patch that made this
	// list, and may still be written (Mut) until Seal; nil when sealed.
	own []bool
	// flat is the slice Of made the list of (Slice's), nil for a
	// patched list.
	flat []T
}

// Of is the list of s's elements, in chunks of s itself (not copied): s
// must not be changed after but through Mut, until Seal.
func Of[T any](s []T) List[T] {
	l := List[T]{flat: s[:len(s):len(s)]}
	for i := 0; i < len(s); i += Size {
		j := min(i+Size, len(s))
		l.parts = append(l.parts, s[i:j:j])
		l.ends = append(l.ends, j)
		l.own = append(l.own, true)
	}
	return l
}

// Len is the number of elements.
func (l List[T]) Len() int {
	if len(l.ends) == 0 {
		return 0
	}
	return l.ends[len(l.ends)-1]
}

// part is the index of the chunk holding element i, and i's index in it.
func (l List[T]) part(i int) (int, int) {
	if i < 0 || i >= l.Len() {
		panic("chunks: index out of range")
	}
	k := sort.Search(len(l.ends), func(k int) bool { return l.ends[k] > i })
	start := 0
	if k > 0 {
		start = l.ends[k-1]
	}
	return k, i - start
}

// At is element i.
func (l List[T]) At(i int) T {
	k, j := l.part(i)
	return l.parts[k][j]
}

// Ptr is a pointer to element i, to read it without a copy: it must not
// be written through (Mut for that).
func (l List[T]) Ptr(i int) *T {
	k, j := l.part(i)
	return &l.parts[k][j]
}

// All yields each element's index and a pointer to it (not to be written
// through), in order.
func (l List[T]) All() iter.Seq2[int, *T] {
	return func(yield func(int, *T) bool) {
		i := 0
		for _, p := range l.parts {
			for j := range p {
				if !yield(i, &p[j]) {
					return
				}
				i++
			}
		}
	}
}

// Slice is the elements in one slice: the one Of made the list of, else a
// copy (a pass over every element: for the callers that read them all
// anyway). It must not be written to.
func (l List[T]) Slice() []T {
	switch {
	case l.flat != nil:
		return l.flat
	case len(l.parts) == 0:
		return nil
	case len(l.parts) == 1:
		return l.parts[0]
	}
	out := make([]T, 0, l.Len())
	for _, p := range l.parts {
		out = append(out, p...)
	}
	return out
}

// Chunks is the number of chunks.
func (l List[T]) Chunks() int { return len(l.parts) }

// Shared is the number of l's chunks that are chunks of o too.
func (l List[T]) Shared(o List[T]) int {
	in := map[*T]bool{}
	for _, p := range o.parts {
		in[&p[0]] = true
	}
	n := 0
	for _, p := range l.parts {
		if in[&p[0]] {
			n++
		}
	}
	return n
}

// Search is the index of the first element for which cmp is >= 0 (cmp is
// < 0 for the elements before the one looked for: the list is in that
// order), and whether cmp is 0 there.
func (l List[T]) Search(cmp func(*T) int) (int, bool) {
	k := sort.Search(len(l.parts), func(k int) bool {
		p := l.parts[k]
		return cmp(&p[len(p)-1]) >= 0
	})
	if k == len(l.parts) {
		return l.Len(), false
	}
	p := l.parts[k]
	j := sort.Search(len(p), func(j int) bool { return cmp(&p[j]) >= 0 })
	start := 0
	if k > 0 {
		start = l.ends[k-1]
	}
	return start + j, j < len(p) && cmp(&p[j]) == 0
}

// Step is one step of a Patch: the elements [From, To) of the list
// patched, or (From -1) one new element, zero until set through Mut.
type Step struct{ From, To int }

// Added is the index in the patched list of each new element of steps
// (From -1), in order.
func Added(steps []Step) []int {
	var idx []int
	at := 0
	for _, s := range steps {
		if s.From < 0 {
			idx = append(idx, at)
			at++
			continue
		}
		at += s.To - s.From
	}
	return idx
}

// Patch is the list of l's elements by steps (in order, each From at or
// after the last one's To). The chunks a copy step covers whole, with the
// element after them copied by the same step (or none after them), are
// l's; the others, and the new elements, are copied into new chunks,
// which Mut may write until Seal.
func (l List[T]) Patch(steps []Step) List[T] {
	// keep[k]: l's chunk k is shared
	keep := make(map[int]bool)
	for _, s := range steps {
		if s.From < 0 || s.To <= s.From {
			continue
		}
		k, j := l.part(s.From)
		if j > 0 {
			k++ // the first chunk that starts in the step
		}
		for ; k < len(l.parts) && (l.ends[k] < s.To || l.ends[k] == s.To && s.To == l.Len()); k++ {
			keep[k] = true
		}
	}
	var out List[T]
	var run []T // the new elements since the last shared chunk
	flush := func() {
		for len(run) > 0 {
			n := len(run)
			if n > 2*Size {
				n = Size
			}
			out.parts = append(out.parts, run[:n:n])
			out.ends = append(out.ends, out.Len()+n)
			out.own = append(out.own, true)
			run = run[n:]
		}
		run = nil
	}
	var zero T
	for _, s := range steps {
		if s.From < 0 {
			run = append(run, zero)
			continue
		}
		for i := s.From; i < s.To; {
			k, j := l.part(i)
			p := l.parts[k]
			if keep[k] {
				flush()
				out.parts = append(out.parts, p)
				out.ends = append(out.ends, out.Len()+len(p))
				out.own = append(out.own, false)
				i += len(p)
				continue
			}
			n := min(len(p)-j, s.To-i)
			run = append(run, p[j:j+n]...)
			i += n
		}
	}
	flush()
	return out
}

// Mut is a pointer to element i to write: its chunk is copied first when
// it is not one the Patch (or Of) that made l made. Only before Seal, and
// not from two goroutines at once.
func (l *List[T]) Mut(i int) *T {
	k, j := l.part(i)
	if l.own == nil {
		panic("chunks: Mut of a sealed list")
	}
	if !l.own[k] {
		p := append([]T(nil), l.parts[k]...)
		l.parts[k] = p[:len(p):len(p)]
		l.own[k] = true
	}
	return &l.parts[k][j]
}

// Seal ends Mut: the list may be shared.
func (l *List[T]) Seal() { l.own = nil }
