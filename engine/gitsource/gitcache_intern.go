package gitsource

import "unsafe"

// A site's documents repeat the same front-matter keys (title, date,
// tags) and many of the same short values (an author, a category, a
// tag), and a restart decodes them from the parse cache one document at
// a time: made anew each time they cost a string per key, and a string
// and its box (the 16-byte header an `any` holding a string points to)
// per value. An interner makes each one once per cache file, and the
// documents share it (strings are immutable, and so is a boxed one).

const (
	// internMaxLen: longer values are taken for unique (a title, an
	// excerpt, a URL) and not looked up; keys are interned up to
	// internMaxKey bytes.
	internMaxLen = 32
	internMaxKey = 64
	// internSlots: the tables are direct-mapped caches of this many
	// entries (a string takes the slot of its hash, and a new one
	// replaces the old): bounded, and no map to grow while a site's
	// unique values pass through; the values that repeat stay.
	internSlots = 1 << 12
)

// interner holds the strings, and the boxed strings, of one decode.
type interner struct {
	strs  [internSlots]string
	vals  [internSlots]any
	slab  strSlab    // the bytes of the strings it makes
	boxes valueBoxes // the boxes of the values it makes (gitcache_boxes.go)
}

func newInterner() *interner { return new(interner) }

// internSlot is the slot of b: FNV-1a, on at most internMaxKey bytes.
func internSlot(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h % internSlots
}

// str is string(b), the same string for the same bytes while it stays
// in its slot.
func (in *interner) str(b []byte) string {
	if len(b) > internMaxKey {
		return in.slab.str(b)
	}
	slot := &in.strs[internSlot(b)]
	if *slot == string(b) && len(b) > 0 { // no allocation for the comparison
		return *slot
	}
	s := in.slab.str(b)
	*slot = s
	return s
}

// value is string(b) in an `any`, the same box for the same bytes when
// they are short.
func (in *interner) value(b []byte) any {
	if len(b) > internMaxLen {
		return in.boxes.strs.box(in.slab.str(b))
	}
	slot := &in.vals[internSlot(b)]
	if s, ok := (*slot).(string); ok && s == string(b) {
		return *slot
	}
	v := in.boxes.strs.box(in.slab.str(b))
	*slot = v
	return v
}

// A restart's decode makes a string for every key and value it does not
// find in its interner (a title, an excerpt, a date written as text, a
// path): at 10k files some 45,000 small objects, each its own allocation
// of its size class, which the collector sweeps one by one and whose
// spans stay part full. A strSlab cuts them from shared blocks instead.
// A block is freed once none of its strings is used: the decode's
// strings belong to the documents it decodes, which live together.

// slabBlock is the size of a strSlab's blocks; strings longer than
// slabMaxStr are made on their own (a block is not wasted on one).
const (
	slabBlock  = 16 << 10
	slabMaxStr = 1 << 10
)

// strSlab makes strings in blocks of bytes it never writes again. Its
// zero value is ready; it is not safe for concurrent use.
type strSlab struct{ buf []byte }

// bytes is a copy of b in the slab's current block, its capacity its
// length (an append to it copies); nil when b is empty.
func (sl *strSlab) bytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	s := sl.str(b)
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// str is string(b), its bytes in the slab's current block.
func (sl *strSlab) str(b []byte) string {
	switch {
	case len(b) == 0:
		return ""
	case len(b) > slabMaxStr:
		return string(b)
	}
	if cap(sl.buf)-len(sl.buf) < len(b) {
		sl.buf = make([]byte, 0, slabBlock)
	}
	n := len(sl.buf)
	sl.buf = append(sl.buf, b...)
	return unsafe.String(&sl.buf[n], len(b))
}
