package engine

// Per-field indexes of a list and the bitsets conditions select with.

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/folio-cms/folio/content"
)

// fieldIndex indexes one field over a list (the items of a type in slug
// order, or the pages in list order): the field's distinct values in
// order, each with the positions of the documents that hold it, and the
// positions of the documents that hold any value.
type fieldIndex struct {
	kind  fkind
	keys  []filterKey
	posts [][]int32 // ascending
	has   []int32   // ascending
	n     int
}

// lazyIndex builds an index once, on first use.
type lazyIndex struct {
	once sync.Once
	idx  atomic.Pointer[fieldIndex]
}

// get returns the index, made by build on the first call.
func (l *lazyIndex) get(build func() *fieldIndex) *fieldIndex {
	l.once.Do(func() { l.idx.Store(build()) })
	return l.idx.Load()
}

// buildIndex indexes field f over n documents; values hands the
// builder each value document i holds at the field (b.value, or b.text
// and b.instant for the built-in fields, which box nothing).
//
// It allocates a few slices and maps, not one thing per document: each
// (document, value) pair is recorded as a group number, then the
// postings are cut from one array by a counting sort.
func buildIndex(f *filterField, n int, values func(i int, b *indexBuilder)) *fieldIndex {
	b := &indexBuilder{f: f, pos: make([]int32, 0, n), gid: make([]int32, 0, n)}
	b.add = b.value
	for i := range n {
		b.cur, b.got = int32(i), false
		values(i, b)
	}
	return b.done(n)
}

// indexBuilder gathers the values of one field over a list.
type indexBuilder struct {
	f        *filterField
	add      func(any) // b.value, made once
	cur      int32     // the document being read
	got      bool      // it has a value
	has      []int32
	keys     []filterKey // by group
	byText   map[string]int32
	byNum    map[float64]int32
	byTime   map[time.Time]int32
	pos, gid []int32 // one (document, group) pair per value
}

// value records a value of the current document; one not of the
// field's kind counts for exists only.
func (b *indexBuilder) value(v any) {
	if v == nil {
		return
	}
	b.present()
	if k, ok := b.f.keyOf(v); ok {
		b.key(k)
	}
}

// text and instant record a value of a built-in field.
func (b *indexBuilder) text(s string) {
	b.present()
	b.key(filterKey{s: s})
}

func (b *indexBuilder) instant(t time.Time) {
	b.present()
	b.key(filterKey{t: t.UTC().Round(0)})
}

func (b *indexBuilder) present() {
	if !b.got {
		b.has = append(b.has, b.cur)
		b.got = true
	}
}

func (b *indexBuilder) key(k filterKey) {
	var g int32
	var ok bool
	switch b.f.kind {
	case kText:
		if b.byText == nil {
			b.byText = map[string]int32{}
		}
		if g, ok = b.byText[k.s]; !ok {
			g = int32(len(b.keys))
			b.byText[k.s] = g
		}
	case kNumber, kBool:
		if b.byNum == nil {
			b.byNum = map[float64]int32{}
		}
		if g, ok = b.byNum[k.n]; !ok {
			g = int32(len(b.keys))
			b.byNum[k.n] = g
		}
	case kTime:
		if b.byTime == nil {
			b.byTime = map[time.Time]int32{}
		}
		if g, ok = b.byTime[k.t]; !ok {
			g = int32(len(b.keys))
			b.byTime[k.t] = g
		}
	default:
		return
	}
	if !ok {
		b.keys = append(b.keys, k)
	}
	b.pos = append(b.pos, b.cur)
	b.gid = append(b.gid, g)
}

func (b *indexBuilder) done(n int) *fieldIndex {
	kind := b.f.kind
	ng := len(b.keys)
	// Groups in key order.
	order := make([]int32, ng)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return compareKeys(kind, b.keys[x], b.keys[y]) })
	rankOf := make([]int32, ng)
	for r, g := range order {
		rankOf[g] = int32(r)
	}
	// Counting sort of the pairs by rank; documents stay ascending
	// within a group, a document listed twice (a list holding a value
	// twice) is kept once.
	start := make([]int32, ng+1)
	for _, g := range b.gid {
		start[rankOf[g]+1]++
	}
	for r := range ng {
		start[r+1] += start[r]
	}
	all := make([]int32, len(b.pos))
	fill := slices.Clone(start[:ng])
	for i, p := range b.pos {
		r := rankOf[b.gid[i]]
		if f := fill[r]; f > start[r] && all[f-1] == p {
			continue
		}
		all[fill[r]] = p
		fill[r]++
	}
	idx := &fieldIndex{kind: kind, n: n, has: b.has, keys: make([]filterKey, ng), posts: make([][]int32, ng)}
	for r, g := range order {
		idx.keys[r] = b.keys[g]
		idx.posts[r] = all[start[r]:fill[r]:fill[r]]
	}
	return idx
}

// walkValues calls fn with each value at path below v, lists flattened
// at every level.
func walkValues(v any, path []string, fn func(any)) {
	switch x := v.(type) {
	case nil:
		return
	case []any:
		for _, e := range x {
			walkValues(e, path, fn)
		}
		return
	}
	if len(path) == 0 {
		fn(v)
		return
	}
	if m, ok := v.(map[string]any); ok {
		walkValues(m[path[0]], path[1:], fn)
	}
}

// itemValues hands b what an item holds at a filter field.
func itemValues(b *indexBuilder, f *filterField, it *content.Item) {
	switch f.builtin {
	case "publishedAt":
		b.instant(it.PublishedAt)
	case "updatedAt":
		b.instant(it.UpdatedAt)
	case "slug":
		b.text(it.Slug)
	case "title":
		b.text(it.Title)
	default:
		if v, ok := it.Data[f.path[0]]; ok {
			walkValues(v, f.path[1:], b.add)
		}
	}
}

// bitset is a set of positions.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int32)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) addAll(post []int32) {
	for _, p := range post {
		b.set(p)
	}
}

func (b bitset) and(o bitset) {
	for i := range b {
		b[i] &= o[i]
	}
}

// not complements the set over n positions.
func (b bitset) not(n int) {
	for i := range b {
		b[i] = ^b[i]
	}
	if r := n & 63; r != 0 && len(b) > 0 {
		b[len(b)-1] &= 1<<uint(r) - 1
	}
}

func (b bitset) count() int {
	c := 0
	for _, w := range b {
		c += bits.OnesCount64(w)
	}
	return c
}

// match is the set of positions a condition keeps. The cost is that of
// the postings it reads (the matching documents), plus, for contains,
// one look at each distinct value of the field.
func (idx *fieldIndex) match(c *cond) (bitset, error) {
	b := newBitset(idx.n)
	find := func(k filterKey) (int, bool) {
		return slices.BinarySearchFunc(idx.keys, k, func(a, b filterKey) int { return compareKeys(idx.kind, a, b) })
	}
	union := func(from, to int) {
		for i := from; i < to; i++ {
			b.addAll(idx.posts[i])
		}
	}
	switch c.op {
	case "exists":
		b.addAll(idx.has)
		if !c.exists {
			b.not(idx.n)
		}
	case "eq", "ne", "in", "nin":
		for _, k := range c.keys {
			if i, ok := find(k); ok {
				b.addAll(idx.posts[i])
			}
		}
		if c.op == "ne" || c.op == "nin" {
			b.not(idx.n)
		}
	case "gt", "gte":
		i, found := find(c.keys[0])
		if found && c.op == "gt" {
			i++
		}
		union(i, len(idx.keys))
	case "lt", "lte":
		i, found := find(c.keys[0])
		if found && c.op == "lte" {
			i++
		}
		union(0, i)
	case "startsWith":
		p := c.keys[0].s
		i, _ := find(c.keys[0])
		j := i
		for j < len(idx.keys) && strings.HasPrefix(idx.keys[j].s, p) {
			j++
		}
		union(i, j)
	case "contains":
		if len(idx.keys) > MaxContainsValues {
			return nil, badFilter(c.f.name, "contains: the field has more than %d distinct values; use eq, in or startsWith", MaxContainsValues)
		}
		s := c.keys[0].s
		for i, k := range idx.keys {
			if strings.Contains(k.s, s) {
				b.addAll(idx.posts[i])
			}
		}
	}
	return b, nil
}

// selection is the set of positions all conditions keep.
func selection(cs []cond, n int, index func(f *filterField) *fieldIndex) (bitset, error) {
	var all bitset
	for i := range cs {
		m, err := index(&cs[i].f).match(&cs[i])
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = m
		} else {
			all.and(m)
		}
	}
	if all == nil {
		all = newBitset(n)
		all.not(n)
	}
	return all, nil
}

func indexKey(f *filterField) string {
	k := strconv.Itoa(int(f.kind)) + f.name
	if f.orString {
		k += "\x00s"
	}
	return k
}
