package gitsource

import (
	"time"
	"unsafe"
)

// A value in an `any` that is not a pointer is a pointer to a copy of
// it (its box): a restart's decode made one for every title, date,
// price and list of tags of every document, some six to eight objects
// a document that the collector marks in every collection of the
// start, and each collection of a million-file restart marks millions.
// A boxSlab makes the boxes of one type in chunks instead: an `any`
// whose pointer is to an element of the chunk. Nothing writes a boxed
// value, so elements never change once made; a chunk is freed once no
// value in it is used (the values belong to the documents decoded, which
// live together: a document dropped from the cache later keeps its
// chunk while the others of it are kept, at most the decode's size).

// boxChunk is the number of values of a boxSlab's chunks.
const boxChunk = 128

// eface is the layout of an `any`: its type, and a pointer to its value
// for a type that is not pointer-shaped.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// boxSlab makes `any`s of T, which must not be pointer-shaped (a
// pointer, map, chan, func or a struct or array of one of them): a
// string, a time, a number, a slice. Its zero value is ready; it is not
// safe for concurrent use.
type boxSlab[T any] struct {
	buf []T
	typ unsafe.Pointer // T's type, as an `any` of T holds it
}

// box is v in an `any`, the same as any(v).
func (b *boxSlab[T]) box(v T) any {
	if b.typ == nil {
		var zero any = *new(T)
		b.typ = (*eface)(unsafe.Pointer(&zero)).typ
	}
	if len(b.buf) == cap(b.buf) {
		b.buf = make([]T, 0, boxChunk)
	}
	b.buf = append(b.buf, v)
	var a any
	*(*eface)(unsafe.Pointer(&a)) = eface{typ: b.typ, data: unsafe.Pointer(&b.buf[len(b.buf)-1])}
	return a
}

// valueBoxes are the boxSlabs of one decode, one for each type the
// parse cache decodes into a box of its own.
type valueBoxes struct {
	strs     boxSlab[string]
	times    boxSlab[time.Time]
	ints     boxSlab[int]
	int64s   boxSlab[int64]
	uint64s  boxSlab[uint64]
	floats   boxSlab[float64]
	lists    boxSlab[[]any]
	strLists boxSlab[[]string]
	// elems are the elements of the lists: a list is cut from them with
	// its capacity its length, so that an append to it copies.
	elems []any
	strs2 []string
}

// list is a list of n values, cut from vb.elems.
func (vb *valueBoxes) list(n int) []any { return cutList(&vb.elems, n) }

// strList is a list of n strings, cut from vb.strs2.
func (vb *valueBoxes) strList(n int) []string { return cutList(&vb.strs2, n) }

// cutList is a list of n elements cut from the chunk *pool, a new chunk
// when it has no room, its own slice when n is over a chunk's share;
// never nil: an empty list encodes as [], not null.
func cutList[T any](pool *[]T, n int) []T {
	if n == 0 {
		return []T{}
	}
	if n > boxChunk {
		return make([]T, n)
	}
	if cap(*pool)-len(*pool) < n {
		*pool = make([]T, 0, 4*boxChunk)
	}
	i := len(*pool)
	*pool = (*pool)[:i+n]
	return (*pool)[i : i+n : i+n]
}
