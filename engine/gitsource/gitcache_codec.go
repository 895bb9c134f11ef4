package gitsource

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
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

type cacheEncoder struct{ b []byte }

func (e *cacheEncoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *cacheEncoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *cacheEncoder) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }

// Body kinds of a persisted document.
const (
	cbodyNone   byte = iota // no Markdown body
	cbodySource             // the Markdown source follows
	cbodyInBlob             // the body is the blob from this offset on
)

func (e *cacheEncoder) doc(d *content.Doc, bodyOff int) error {
	if err := e.strMap(d.Meta); err != nil {
		return err
	}
	switch {
	case bodyOff >= 0:
		e.b = append(e.b, cbodyInBlob)
		e.uvarint(uint64(bodyOff))
	case d.Body.Lazy():
		// Read from a blob, but where it starts is not known: its text
		// (this does not happen with the Source's own documents).
		src, err := d.Body.SourceErr()
		if err != nil {
			return err
		}
		e.b = append(e.b, cbodySource)
		e.str(src)
	case d.Body.Source() != "":
		e.b = append(e.b, cbodySource)
		e.str(d.Body.Source()) // the Markdown, not HTML: it renders on first use
	default:
		e.b = append(e.b, cbodyNone)
	}
	if d.HasBody {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
	e.varint(int64(d.Line))
	// The lines of keys, so that problems found in a document read from
	// the cache name the same path:line as on the first parse.
	if enc := d.LazyLines(); enc != nil {
		e.b = append(e.b, enc...) // as a cache decoded them: not decoded to encode
		return nil
	}
	lines := d.KeyLines()
	e.uvarint(uint64(len(lines)))
	for k, l := range lines {
		e.str(k)
		e.varint(int64(l))
	}
	return nil
}

func (e *cacheEncoder) strMap(m map[string]any) error {
	if m == nil {
		e.b = append(e.b, 0)
		return nil
	}
	e.b = append(e.b, 1)
	e.uvarint(uint64(len(m)))
	for k, v := range m {
		e.str(k)
		if err := e.value(v); err != nil {
			return err
		}
	}
	return nil
}

func (e *cacheEncoder) value(v any) error {
	switch v := v.(type) {
	case nil:
		e.b = append(e.b, ctagNil)
	case string:
		e.b = append(e.b, ctagString)
		e.str(v)
	case bool:
		if v {
			e.b = append(e.b, ctagTrue)
		} else {
			e.b = append(e.b, ctagFalse)
		}
	case int:
		e.b = append(e.b, ctagInt)
		e.varint(int64(v))
	case int64:
		e.b = append(e.b, ctagInt64)
		e.varint(v)
	case int32:
		e.b = append(e.b, ctagInt32)
		e.varint(int64(v))
	case uint64:
		e.b = append(e.b, ctagUint64)
		e.uvarint(v)
	case uint:
		e.b = append(e.b, ctagUint)
		e.uvarint(uint64(v))
	case float64:
		e.b = append(e.b, ctagFloat64)
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v))
	case float32:
		e.b = append(e.b, ctagFloat32)
		e.b = binary.LittleEndian.AppendUint32(e.b, math.Float32bits(v))
	case time.Time:
		bin, err := v.MarshalBinary()
		if err != nil {
			return err
		}
		e.b = append(e.b, ctagTime)
		e.str(string(bin))
	case json.Number:
		e.b = append(e.b, ctagJSONNumber)
		e.str(string(v))
	case []any:
		e.b = append(e.b, ctagSlice)
		e.uvarint(uint64(len(v)))
		for _, x := range v {
			if err := e.value(x); err != nil {
				return err
			}
		}
	case []string:
		e.b = append(e.b, ctagStringSlice)
		e.uvarint(uint64(len(v)))
		for _, x := range v {
			e.str(x)
		}
	case map[string]any:
		if v == nil {
			e.b = append(e.b, ctagNil)
			return nil
		}
		e.b = append(e.b, ctagMap)
		e.uvarint(uint64(len(v)))
		for k, x := range v {
			e.str(k)
			if err := e.value(x); err != nil {
				return err
			}
		}
	case map[any]any:
		e.b = append(e.b, ctagAnyMap)
		e.uvarint(uint64(len(v)))
		for k, x := range v {
			if err := e.value(k); err != nil {
				return err
			}
			if err := e.value(x); err != nil {
				return err
			}
		}
	case []map[string]any:
		e.b = append(e.b, ctagMapSlice)
		e.uvarint(uint64(len(v)))
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

var errCacheCorrupt = errors.New("corrupt cache data")

type cacheDecoder struct {
	b   []byte
	err error
}

func (d *cacheDecoder) fail() {
	if d.err == nil {
		d.err = errCacheCorrupt
	}
	d.b = nil
}

func (d *cacheDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *cacheDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *cacheDecoder) byte1() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *cacheDecoder) bytes(n uint64) []byte {
	if uint64(len(d.b)) < n {
		d.fail()
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *cacheDecoder) str() string { return string(d.bytes(d.uvarint())) }

// count reads a length and checks it against the bytes left, so corrupt
// data cannot make the decoder allocate a huge slice or map.
func (d *cacheDecoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

// doc decodes a document of a file of extension ext; inBlob makes the
// body that starts at an offset of the document's blob. It returns that
// offset, or -1.
func (d *cacheDecoder) doc(ext string, inBlob func(off int) content.Markdown) (*content.Doc, int) {
	doc := &content.Doc{Meta: d.strMap()}
	off := -1
	switch d.byte1() {
	case cbodyNone:
	case cbodySource:
		if src := d.str(); src != "" {
			doc.Body = content.BodyOf(ext, src)
		}
	case cbodyInBlob:
		v := d.uvarint()
		if v > content.MaxFileSize {
			d.fail()
			return nil, -1
		}
		off = int(v)
		doc.Body = inBlob(off)
	default:
		d.fail()
		return nil, -1
	}
	doc.HasBody = d.byte1() == 1
	doc.Line = int(d.varint())
	// The lines of keys stay encoded (a copy of their bytes) until a
	// problem needs one: decodeLines.
	start := d.b
	if n := d.count(); n > 0 && d.err == nil {
		for range n {
			d.bytes(d.uvarint())
			d.varint()
		}
		if d.err == nil {
			doc.SetLazyLines(slices.Clone(start[:len(start)-len(d.b)]), decodeLines)
		}
	}
	if d.err != nil {
		return nil, -1
	}
	return doc, off
}

// decodeLines decodes the lines of keys doc encoded (checked then).
func decodeLines(enc []byte) map[string]int {
	d := &cacheDecoder{b: enc}
	n := d.count()
	lines := make(map[string]int, n)
	for range n {
		k := d.str()
		lines[k] = int(d.varint())
	}
	if d.err != nil {
		return nil
	}
	return lines
}

func (d *cacheDecoder) strMap() map[string]any {
	if d.byte1() == 0 {
		return nil
	}
	n := d.count()
	m := make(map[string]any, n)
	for range n {
		if d.err != nil {
			return nil
		}
		k := d.str()
		m[k] = d.value()
	}
	return m
}

func (d *cacheDecoder) value() any {
	switch tag := d.byte1(); tag {
	case ctagNil:
		return nil
	case ctagString:
		return d.str()
	case ctagTrue:
		return true
	case ctagFalse:
		return false
	case ctagInt:
		return int(d.varint())
	case ctagInt64:
		return d.varint()
	case ctagInt32:
		return int32(d.varint())
	case ctagUint64:
		return d.uvarint()
	case ctagUint:
		return uint(d.uvarint())
	case ctagFloat64:
		b := d.bytes(8)
		if b == nil {
			return nil
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case ctagFloat32:
		b := d.bytes(4)
		if b == nil {
			return nil
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b))
	case ctagTime:
		var t time.Time
		if err := t.UnmarshalBinary(d.bytes(d.uvarint())); err != nil {
			d.fail()
		}
		return t
	case ctagJSONNumber:
		return json.Number(d.str())
	case ctagSlice:
		n := d.count()
		s := make([]any, n)
		for i := range s {
			if d.err != nil {
				return nil
			}
			s[i] = d.value()
		}
		return s
	case ctagStringSlice:
		n := d.count()
		s := make([]string, n)
		for i := range s {
			s[i] = d.str()
		}
		return s
	case ctagMap:
		n := d.count()
		m := make(map[string]any, n)
		for range n {
			if d.err != nil {
				return nil
			}
			k := d.str()
			m[k] = d.value()
		}
		return m
	case ctagAnyMap:
		n := d.count()
		m := make(map[any]any, n)
		for range n {
			if d.err != nil {
				return nil
			}
			k := d.value()
			if !cacheKeyComparable(k) {
				d.fail()
				return nil
			}
			m[k] = d.value()
		}
		return m
	case ctagMapSlice:
		n := d.count()
		s := make([]map[string]any, n)
		for i := range s {
			if d.err != nil {
				return nil
			}
			s[i] = d.strMap()
		}
		return s
	default:
		d.fail()
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
