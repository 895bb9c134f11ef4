package search

// arena hands out values of T in chunks, so that a text's analysis
// reuses the values of the one before rather than allocating each: the
// tokens of the words and the frequencies of a build were half of the
// bytes it allocated, and so of its collections, each of which marks
// the whole site's documents.
type arena[T any] struct {
	chunks [][]T
	n      int // values handed out since reset
}

// arenaChunk is the most values one chunk holds.
const arenaChunk = 256

// next is a zero value of a, allocating a chunk of up to hint values (an
// estimate of those still to come) when the chunks are full.
func (a *arena[T]) next(hint int) *T {
	c, i := a.n/arenaChunk, a.n%arenaChunk
	if c == len(a.chunks) {
		a.chunks = append(a.chunks, make([]T, max(1, min(arenaChunk, hint))))
	} else if i == len(a.chunks[c]) {
		// A short chunk is full: a full-size one from here on (the
		// values already handed out stay in the short one).
		a.chunks[c] = make([]T, arenaChunk)
	}
	a.n++
	return &a.chunks[c][i]
}

// reset makes every value of a free to hand out again; nothing may
// refer to one then. The values are zeroed, so they keep nothing alive.
func (a *arena[T]) reset() {
	for c := 0; c*arenaChunk < a.n; c++ {
		clear(a.chunks[c][:min(len(a.chunks[c]), a.n-c*arenaChunk)])
	}
	a.n = 0
}
