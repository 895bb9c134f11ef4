// Package bincodec is the encoding of folio's binary cache files (the
// parse cache in engine/gitsource, the validation cache in engine):
// uvarints, varints and length-prefixed strings, appended by an Encoder
// and read back by a Decoder that never panics or allocates by a length
// it has not checked against the bytes left. A decoder that meets bytes
// it cannot read sets Err to ErrCorrupt once and reads zeros from then
// on, so a caller checks Err once at the end.
package bincodec

import (
	"encoding/binary"
	"errors"
)

// ErrCorrupt is the error of data a Decoder could not read.
var ErrCorrupt = errors.New("corrupt cache data")

// Encoder appends values to B.
type Encoder struct{ B []byte }

// Uvarint appends v as an unsigned varint.
func (e *Encoder) Uvarint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }

// Varint appends v as a signed varint.
func (e *Encoder) Varint(v int64) { e.B = binary.AppendVarint(e.B, v) }

// Str appends s's length and its bytes.
func (e *Encoder) Str(s string) { e.Uvarint(uint64(len(s))); e.B = append(e.B, s...) }

// Decoder reads values from B; Err is the first failure.
type Decoder struct {
	B   []byte
	Err error
}

// Fail records ErrCorrupt (if nothing failed before) and drops what is
// left, so every later read returns a zero value.
func (d *Decoder) Fail() {
	if d.Err == nil {
		d.Err = ErrCorrupt
	}
	d.B = nil
}

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Varint reads a signed varint.
func (d *Decoder) Varint() int64 {
	v, n := binary.Varint(d.B)
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Byte1 reads one byte.
func (d *Decoder) Byte1() byte {
	if len(d.B) < 1 {
		d.Fail()
		return 0
	}
	c := d.B[0]
	d.B = d.B[1:]
	return c
}

// Bytes reads n bytes; the result shares B's memory.
func (d *Decoder) Bytes(n uint64) []byte {
	if uint64(len(d.B)) < n {
		d.Fail()
		return nil
	}
	v := d.B[:n]
	d.B = d.B[n:]
	return v
}

// Str reads a length-prefixed string.
func (d *Decoder) Str() string { return string(d.Bytes(d.Uvarint())) }

// Count reads a length and checks it against the bytes left, so corrupt
// data cannot make the decoder allocate a huge slice or map.
func (d *Decoder) Count() int {
	n := d.Uvarint()
	if n > uint64(len(d.B)) {
		d.Fail()
		return 0
	}
	return int(n)
}
