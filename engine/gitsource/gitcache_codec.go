package gitsource

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/folio-cms/folio/engine/internal/bincodec"
	"math"
	"slices"
	"time"

	"github.com/folio-cms/folio/content"
)

// The persisted cache uses a small tagged binary encoding instead of gob or
// JSON: gob needs every concrete type behind `any` registered and is slow on
// interface-heavy maps, JSON loses time.Time and int-vs-float. This one
// round-trips exactly what parsers put in front matter, and a value it does
// not know makes its document not persisted (parsed again after a restart)
// rather than persisted wrong.

const (
	ctagNil byte = iota
	ctagString
	ctagTrue
	ctagFalse
	ctagInt
	ctagInt64
	ctagUint64
	ctagFloat64
	ctagTime
	ctagSlice
	ctagMap
	ctagAnyMap
	ctagMapSlice
	ctagStringSlice
	ctagJSONNumber
	ctagUint
	ctagInt32
	ctagFloat32
)

var errCacheUnencodable = errors.New("value type not encodable")

// cacheEncoder writes the parse cache; with lines, the lines of keys of
// the documents read from the cache are compact in that table.
type cacheEncoder struct {
	bincodec.Encoder
	lines *lineKeys
}

// Body kinds of a persisted document.
const (
	cbodyNone   byte = iota // no Markdown body
	cbodySource             // the Markdown source follows
	cbodyInBlob             // the body is the blob from this offset on
)

func (e *cacheEncoder) doc(d *content.Doc, bodyOff int) error {
	if err := e.meta(d); err != nil {
		return err
	}
	switch {
	case bodyOff >= 0:
		e.B = append(e.B, cbodyInBlob)
		e.Uvarint(uint64(bodyOff))
	case d.Body.Lazy():
		// Read from a blob, but where it starts is not known: its text
		// (this does not happen with the Source's own documents).
		src, err := d.Body.SourceErr()
		if err != nil {
			return err
		}
		e.B = append(e.B, cbodySource)
		e.Str(src)
	case d.Body.Source() != "":
		e.B = append(e.B, cbodySource)
		e.Str(d.Body.Source()) // the Markdown, not HTML: it renders on first use
	default:
		e.B = append(e.B, cbodyNone)
	}
	if d.HasBody {
		e.B = append(e.B, 1)
	} else {
		e.B = append(e.B, 0)
	}
	e.B = append(e.B, byte(d.RefHint()))
	e.Varint(int64(d.Line))
	// The lines of keys, so that problems found in a document read from
	// the cache name the same path:line as on the first parse.
	if enc := d.LazyLines(); enc != nil {
		// As a cache decoded them: not decoded to encode.
		if e.lines != nil {
			if !e.lines.expand(e, enc) {
				return errCacheUnencodable
			}
			return nil
		}
		e.B = append(e.B, enc...)
		return nil
	}
	if enc := d.PackedLines(); enc != nil {
		// As Parse packed them: the cache file's own encoding.
		e.B = append(e.B, enc...)
		return nil
	}
	lines := d.KeyLines()
	e.Uvarint(uint64(len(lines)))
	for k, l := range lines {
		e.Str(k)
		e.Varint(int64(l))
	}
	return nil
}

// meta is strMap of the document's front matter, read without a map
// (a document an item was read from keeps the item's: content.Doc).
func (e *cacheEncoder) meta(d *content.Doc) error {
	if !d.HasMeta() {
		e.B = append(e.B, 0)
		return nil
	}
	e.B = append(e.B, 1)
	e.Uvarint(uint64(d.Len()))
	for k, v := range d.Fields() {
		e.Str(k)
		if err := e.value(v); err != nil {
			return err
		}
	}
	return nil
}

func (e *cacheEncoder) strMap(m map[string]any) error {
	if m == nil {
		e.B = append(e.B, 0)
		return nil
	}
	e.B = append(e.B, 1)
	e.Uvarint(uint64(len(m)))
	for k, v := range m {
		e.Str(k)
		if err := e.value(v); err != nil {
			return err
		}
	}
	return nil
}

func (e *cacheEncoder) value(v any) error {
	switch v := v.(type) {
	case nil:
		e.B = append(e.B, ctagNil)
	case string:
		e.B = append(e.B, ctagString)
		e.Str(v)
	case bool:
		if v {
			e.B = append(e.B, ctagTrue)
		} else {
			e.B = append(e.B, ctagFalse)
		}
	case int:
		e.B = append(e.B, ctagInt)
		e.Varint(int64(v))
	case int64:
		e.B = append(e.B, ctagInt64)
		e.Varint(v)
	case int32:
		e.B = append(e.B, ctagInt32)
		e.Varint(int64(v))
	case uint64:
		e.B = append(e.B, ctagUint64)
		e.Uvarint(v)
	case uint:
		e.B = append(e.B, ctagUint)
		e.Uvarint(uint64(v))
	case float64:
		e.B = append(e.B, ctagFloat64)
		e.B = binary.LittleEndian.AppendUint64(e.B, math.Float64bits(v))
	case float32:
		e.B = append(e.B, ctagFloat32)
		e.B = binary.LittleEndian.AppendUint32(e.B, math.Float32bits(v))
	case time.Time:
		bin, err := v.MarshalBinary()
		if err != nil {
			return err
		}
		e.B = append(e.B, ctagTime)
		e.Str(string(bin))
	case json.Number:
		e.B = append(e.B, ctagJSONNumber)
		e.Str(string(v))
	case []any:
		e.B = append(e.B, ctagSlice)
		e.Uvarint(uint64(len(v)))
		for _, x := range v {
			if err := e.value(x); err != nil {
				return err
			}
		}
	case []string:
		e.B = append(e.B, ctagStringSlice)
		e.Uvarint(uint64(len(v)))
		for _, x := range v {
			e.Str(x)
		}
	case map[string]any:
		if v == nil {
			e.B = append(e.B, ctagNil)
			return nil
		}
		e.B = append(e.B, ctagMap)
		e.Uvarint(uint64(len(v)))
		for k, x := range v {
			e.Str(k)
			if err := e.value(x); err != nil {
				return err
			}
		}
	case map[any]any:
		e.B = append(e.B, ctagAnyMap)
		e.Uvarint(uint64(len(v)))
		for k, x := range v {
			if err := e.value(k); err != nil {
				return err
			}
			if err := e.value(x); err != nil {
				return err
			}
		}
	case []map[string]any:
		e.B = append(e.B, ctagMapSlice)
		e.Uvarint(uint64(len(v)))
		for _, m := range v {
			if err := e.strMap(m); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%w: %T", errCacheUnencodable, v)
	}
	return nil
}

// cacheDecoder reads the parse cache: bincodec's values, and documents.
// With an interner (a whole cache file's decode), keys and short string
// values repeated across documents are made once (gitcache_intern.go).
type cacheDecoder struct {
	bincodec.Decoder
	in    *interner
	lines *lineKeys // the documents' lines of keys are kept compact
	// lineMemo: the index in lines of the keys this decoder saw (lines
	// is shared by the decoders of a file's blocks, and locked)
	lineMemo map[string]int
	scratch  []byte // compactLines's, reused
}

// key reads a map key (or another name that repeats: an extension).
func (d *cacheDecoder) key() string {
	if d.in == nil {
		return d.Str()
	}
	return d.in.str(d.Bytes(d.Uvarint()))
}

// strValue reads a string value, boxed.
func (d *cacheDecoder) strValue() any {
	if d.in == nil {
		return d.Str()
	}
	return d.in.value(d.Bytes(d.Uvarint()))
}

// errCacheCorrupt is the error of a parse cache that cannot be read.
var errCacheCorrupt = bincodec.ErrCorrupt

// doc decodes a document of a file of extension ext; inBlob is the
// reader of the body that starts at an offset of the document's blob.
// It returns that offset, or -1. The Doc, its lazy body and its lines
// are one object (content.NewCachedDoc).
func (d *cacheDecoder) doc(ext string, inBlob func(off int) content.BodySource) (*content.Doc, int) {
	c := content.CachedDoc{Fields: d.fields(), Ext: ext}
	var body content.Markdown // a body held in memory
	off := -1
	switch d.Byte1() {
	case cbodyNone:
	case cbodySource:
		if src := d.Str(); src != "" {
			body = content.BodyOf(ext, src)
		}
	case cbodyInBlob:
		v := d.Uvarint()
		if v > content.MaxFileSize {
			d.Fail()
			return nil, -1
		}
		off = int(v)
		c.Body = inBlob(off)
	default:
		d.Fail()
		return nil, -1
	}
	c.HasBody = d.Byte1() == 1
	// What Parse found of the document's strings for the reference
	// checker: a restart does not read them again.
	hint := d.Byte1()
	if hint >= 1<<3 {
		d.Fail()
		return nil, -1
	}
	c.RefHint = content.RefHint(hint)
	c.Line = int(d.Varint())
	// The lines of keys stay encoded until a problem needs one: with the
	// keys in a table (gitcache_lines.go) when the cache file is read,
	// else a copy of their bytes (decodeLines).
	if d.lines != nil {
		if enc := d.compactLines(d.lines); enc != nil {
			c.Lines, c.Decode = enc, d.lines.decodeFn
		}
	} else {
		start := d.B
		if n := d.Count(); n > 0 && d.Err == nil {
			for range n {
				d.Bytes(d.Uvarint())
				d.Varint()
			}
			if d.Err == nil {
				c.Lines, c.Decode = slices.Clone(start[:len(start)-len(d.B)]), decodeLines
			}
		}
	}
	if d.Err != nil {
		return nil, -1
	}
	doc := content.NewCachedDoc(c)
	if body != (content.Markdown{}) {
		doc.Body = body
	}
	return doc, off
}

// decodeLines decodes the lines of keys doc encoded (checked then).
func decodeLines(enc []byte) map[string]int {
	d := newCacheDecoder(enc)
	n := d.Count()
	lines := make(map[string]int, n)
	for range n {
		k := d.Str()
		lines[k] = int(d.Varint())
	}
	if d.Err != nil {
		return nil
	}
	return lines
}

// fields is strMap of a document's front matter, as the list of its
// keys a content.Doc keeps (NewDocFields): no map to make and hash into
// for every document of a restart. A key given twice is a corrupt file.
func (d *cacheDecoder) fields() []content.MetaField {
	if d.Byte1() == 0 {
		return nil
	}
	n := d.Count()
	out := make([]content.MetaField, n)
	for i := range out {
		if d.Err != nil {
			return nil
		}
		out[i].Key = d.key()
		out[i].Value = d.value()
	}
	if d.Err != nil || hasDuplicateKey(out) {
		d.Fail()
		return nil
	}
	return out
}

func hasDuplicateKey(fields []content.MetaField) bool {
	if len(fields) > 16 {
		seen := make(map[string]bool, len(fields))
		for _, f := range fields {
			if seen[f.Key] {
				return true
			}
			seen[f.Key] = true
		}
		return false
	}
	for i := 1; i < len(fields); i++ {
		for j := range i {
			if fields[i].Key == fields[j].Key {
				return true
			}
		}
	}
	return false
}

func (d *cacheDecoder) strMap() map[string]any {
	if d.Byte1() == 0 {
		return nil
	}
	n := d.Count()
	m := make(map[string]any, n)
	for range n {
		if d.Err != nil {
			return nil
		}
		k := d.key()
		m[k] = d.value()
	}
	return m
}

func (d *cacheDecoder) value() any {
	var vb *valueBoxes // the boxes of a whole file's decode; nil: any(v)
	if d.in != nil {
		vb = &d.in.boxes
	}
	switch tag := d.Byte1(); tag {
	case ctagNil:
		return nil
	case ctagString:
		return d.strValue()
	case ctagTrue:
		return true
	case ctagFalse:
		return false
	case ctagInt:
		v := int(d.Varint())
		if vb == nil || uint(v) < 256 { // Go boxes these without an allocation
			return v
		}
		return vb.ints.box(v)
	case ctagInt64:
		v := d.Varint()
		if vb == nil || uint64(v) < 256 {
			return v
		}
		return vb.int64s.box(v)
	case ctagInt32:
		return int32(d.Varint())
	case ctagUint64:
		v := d.Uvarint()
		if vb == nil || v < 256 {
			return v
		}
		return vb.uint64s.box(v)
	case ctagUint:
		return uint(d.Uvarint())
	case ctagFloat64:
		b := d.Bytes(8)
		if b == nil {
			return nil
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(b))
		if vb == nil {
			return v
		}
		return vb.floats.box(v)
	case ctagFloat32:
		b := d.Bytes(4)
		if b == nil {
			return nil
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b))
	case ctagTime:
		var t time.Time
		if err := t.UnmarshalBinary(d.Bytes(d.Uvarint())); err != nil {
			d.Fail()
		}
		if vb == nil {
			return t
		}
		return vb.times.box(t)
	case ctagJSONNumber:
		return json.Number(d.Str())
	case ctagSlice:
		n := d.Count()
		var s []any
		if vb == nil {
			s = make([]any, n)
		} else {
			s = vb.list(n)
		}
		for i := range s {
			if d.Err != nil {
				return nil
			}
			s[i] = d.value()
		}
		if vb == nil {
			return s
		}
		return vb.lists.box(s)
	case ctagStringSlice:
		n := d.Count()
		var s []string
		if vb == nil {
			s = make([]string, n)
		} else {
			s = vb.strList(n)
		}
		for i := range s {
			s[i] = d.key()
		}
		if vb == nil {
			return s
		}
		return vb.strLists.box(s)
	case ctagMap:
		n := d.Count()
		m := make(map[string]any, n)
		for range n {
			if d.Err != nil {
				return nil
			}
			k := d.key()
			m[k] = d.value()
		}
		return m
	case ctagAnyMap:
		n := d.Count()
		m := make(map[any]any, n)
		for range n {
			if d.Err != nil {
				return nil
			}
			k := d.value()
			if !cacheKeyComparable(k) {
				d.Fail()
				return nil
			}
			m[k] = d.value()
		}
		return m
	case ctagMapSlice:
		n := d.Count()
		s := make([]map[string]any, n)
		for i := range s {
			if d.Err != nil {
				return nil
			}
			s[i] = d.strMap()
		}
		return s
	default:
		d.Fail()
		return nil
	}
}

// cacheKeyComparable refuses decoded map keys that would panic as map keys.
func cacheKeyComparable(k any) bool {
	switch k.(type) {
	case []any, []string, map[string]any, map[any]any, []map[string]any:
		return false
	}
	return true
}

func newCacheEncoder(b []byte) *cacheEncoder {
	return &cacheEncoder{Encoder: bincodec.Encoder{B: b}}
}

func newCacheDecoder(b []byte) *cacheDecoder {
	return &cacheDecoder{Decoder: bincodec.Decoder{B: b}}
}
