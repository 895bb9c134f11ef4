package content

import (
	"iter"
	"math"
	"unsafe"
)

// frontMatter is how a Doc holds its front matter (or whole data
// document), in one of three forms:
//
//   - own: m is every key (a Doc Parse made);
//   - list: out is every key, m is nil (a Doc the parse cache decoded:
//     no map to hash into while a restart decodes every document);
//   - shared: m is the Data of an item (or page) read from the Doc, out
//     the keys m does not have (shareWith).
//
// Reading an item makes its Data from the front matter (the keys it did
// not take, and the Markdown body as "body"): the same values in a second
// map. The Doc, which the parse cache keeps for the next load, then keeps
// the item's map instead of its own: about 330 bytes less for every item
// at 7 keys. Neither map is modified once made, so the forms read the
// same. Reading is the same code for the three: out first, then m.
type frontMatter struct {
	m map[string]any
	// outP and outN are out, the keys m does not have: every key (list),
	// or those the item took (title, date, ...) and a front matter "body"
	// the Markdown body replaced in Data (shared). A pointer and a count,
	// not a slice: a frontMatter is 24 bytes, and one is kept with every
	// item a restart reads (newSharedFrontMatter).
	outP *MetaField
	outN uint32
	// bodyIsData: m's "body" is the item's Markdown body, not a key of
	// the front matter.
	bodyIsData bool
	shared     bool
}

// frontMatterOut is a frontMatter of the keys out (nil: none).
func frontMatterOut(out []MetaField) *frontMatter {
	f := &frontMatter{}
	f.setOut(out)
	return f
}

// out is the keys m does not have; nil when the frontMatter has none
// set, as the slice set was.
func (f *frontMatter) out() []MetaField {
	if f.outP == nil {
		return nil
	}
	return unsafe.Slice(f.outP, f.outN)
}

// setOut makes out the frontMatter's keys m does not have; the caller
// does not change them after.
func (f *frontMatter) setOut(out []MetaField) {
	if uint64(len(out)) > math.MaxUint32 {
		panic("content: a front matter of more than 2^32 keys")
	}
	f.outP, f.outN = unsafe.SliceData(out), uint32(len(out))
}

// MetaField is one key of a front matter and its value.
type MetaField struct {
	Key   string
	Value any
}

// NewDoc returns a Doc of front matter meta (nil: none); the other fields
// are set by the caller while it makes the Doc.
func NewDoc(meta map[string]any) *Doc {
	d := &Doc{}
	d.setMeta(meta)
	return d
}

// NewDocFields is NewDoc of the front matter fields (nil: none), which
// the Doc keeps: the caller must not change them, nor give a key twice.
func NewDocFields(fields []MetaField) *Doc {
	d := &Doc{}
	if fields != nil {
		d.fm.Store(frontMatterOut(fields))
	}
	return d
}

func (d *Doc) setMeta(meta map[string]any) {
	if meta == nil {
		d.fm.Store(nil) // none: nothing to hold
		return
	}
	d.fm.Store(&frontMatter{m: meta})
}

// Meta is the Doc's front matter as a map, which the caller must not
// modify: the Doc's own, or (a Doc an item was read from) a new one
// each call. Value, Len and Fields read it without a map.
func (d *Doc) Meta() map[string]any {
	f := d.fm.Load()
	if f == nil {
		return nil
	}
	if f.outN == 0 && !f.bodyIsData && (f.m != nil || f.outP == nil) {
		return f.m // own, or shared with the same keys
	}
	out := make(map[string]any, f.len())
	for k, v := range f.all {
		out[k] = v
	}
	return out
}

// Value is the front matter's value of key k.
func (d *Doc) Value(k string) (any, bool) {
	f := d.fm.Load()
	if f == nil {
		return nil, false
	}
	return f.value(k)
}

func (f *frontMatter) value(k string) (any, bool) {
	for _, o := range f.out() {
		if o.Key == k {
			return o.Value, true
		}
	}
	if k == "body" && f.bodyIsData {
		return nil, false
	}
	v, ok := f.m[k]
	return v, ok
}

// Len is the number of keys of the front matter.
func (d *Doc) Len() int {
	f := d.fm.Load()
	if f == nil {
		return 0
	}
	return f.len()
}

// HasMeta tells whether the Doc has a front matter (it may have no key).
func (d *Doc) HasMeta() bool {
	f := d.fm.Load()
	return f != nil && (f.m != nil || f.outP != nil)
}

// Fields are the keys and values of the front matter, in no order.
// (A closure small enough to inline: a range over it makes no
// allocation.)
func (d *Doc) Fields() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) { d.fm.Load().all(yield) }
}

func (f *frontMatter) len() int {
	n := len(f.m) + int(f.outN)
	if f.bodyIsData {
		n-- // m's "body" is the item's
	}
	return n
}

func (f *frontMatter) all(yield func(string, any) bool) {
	if f == nil {
		return
	}
	for _, o := range f.out() {
		if !yield(o.Key, o.Value) {
			return
		}
	}
	for k, v := range f.m {
		if f.bodyIsData && k == "body" {
			continue
		}
		if !yield(k, v) {
			return
		}
	}
}

// shareWith makes the Doc keep data, the Data of an item read from it
// (bodyIsData: data's "body" is the Markdown body), in place of its own
// map, and the keys data does not have beside it. Every other key of
// data must be the front matter's, with the same value: the item read
// them from it. Only the first item read from a Doc's own map does
// this; a Doc that shares one already is left as it is.
func (d *Doc) shareWith(data map[string]any, bodyIsData bool) {
	f := d.fm.Load()
	if f == nil || f.shared || !f.hasAny() {
		return
	}
	outside := func(k string) bool {
		_, in := data[k]
		return !in || (bodyIsData && k == "body")
	}
	n := 0
	for k := range f.all {
		if outside(k) {
			n++
		}
	}
	s, out := newSharedFrontMatter(n) // its out beside it: one object
	s.m, s.bodyIsData, s.shared = data, bodyIsData, true
	if n > 0 {
		for k, v := range f.all {
			if outside(k) {
				out = append(out, MetaField{k, v})
			}
		}
		s.setOut(out)
	}
	d.fm.CompareAndSwap(f, s)
}

// hasAny tells whether the front matter has a key.
func (f *frontMatter) hasAny() bool { return len(f.m) > 0 || f.outN > 0 }

// clone is a copy of the Doc that its maker may change (a Doc is never
// modified once shared).
func (d *Doc) clone() *Doc {
	nd := &Doc{Body: d.Body, HasBody: d.HasBody, Line: d.Line, Lines: d.Lines, lazy: d.lazy, refHint: d.refHint}
	nd.fm.Store(d.fm.Load())
	return nd
}

// WithMeta is a copy of the Doc with front matter meta (its body and
// lines kept).
func (d *Doc) WithMeta(meta map[string]any) *Doc {
	nd := d.clone()
	nd.setMeta(meta)
	return nd
}

// Get is Value(k) without whether the key is set: nil when it is not.
func (d *Doc) Get(k string) any {
	v, _ := d.Value(k)
	return v
}
