package engine

import (
	"encoding/binary"
	"errors"
)

// The validation cache's encoding: uvarints, varints and length-prefixed
// strings, as the parse cache's (package gitsource) are written.

type cacheEncoder struct{ b []byte }

func (e *cacheEncoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *cacheEncoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *cacheEncoder) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }

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
