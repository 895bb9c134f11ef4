package gitsource

import (
	"encoding/binary"
	"hash/adler32"
)

// A served repository set up with core.looseCompression 0
// (docs/deploy.md) has git write a push's loose objects uncompressed:
// their zlib stream is a run of stored blocks, each a 5-byte header and
// up to 64 KB of the object as it is. Such a stream is read here
// without the inflater: the blocks' bytes are moved together in the
// buffer the file was read into, which becomes the tree's bytes, and
// checked against the stream's Adler-32. A 500k-entry folder's tree
// (28.5 MB) is then a read of the file, one move in place and a
// checksum, instead of an inflate through the decoder's window and a
// copy into a second buffer.

// inflateStored returns the content of the zlib stream z when it is made
// of stored blocks only, moved to the start of z (z is overwritten); ok
// false when a block is compressed (the inflater reads it) or the stream
// is malformed (z unchanged), or its checksum is wrong (z
// overwritten). Bytes after the stream's checksum
// are ignored, as the inflater does.
func inflateStored(z []byte) (out []byte, ok bool) {
	out, sum, ok := storedStream(z)
	if !ok || adler32.Checksum(out) != sum {
		return nil, false
	}
	return out, true
}

// storedStream is inflateStored without the checksum's check: the
// content moved to the start of z and the Adler-32 the stream ends with,
// for a caller that checks it by parts (source_tree_parts.go).
func storedStream(z []byte) (out []byte, sum uint32, ok bool) {
	// The zlib header: deflate, no preset dictionary, its check.
	if len(z) < 2 || z[0]&0x0f != 8 || z[0]>>4 > 7 || z[1]&0x20 != 0 || (uint(z[0])<<8|uint(z[1]))%31 != 0 {
		return nil, 0, false
	}
	// First the blocks' headers, so that z is left as it was when the
	// stream is not all stored blocks. Stored blocks end on a byte: each
	// header is a byte of which the low three bits are BFINAL and BTYPE
	// (00: stored), then LEN and its complement.
	r := 2
	for {
		if r+5 > len(z) {
			return nil, 0, false
		}
		h := z[r]
		if h&0x06 != 0 {
			return nil, 0, false // a compressed block
		}
		n := int(binary.LittleEndian.Uint16(z[r+1:]))
		if binary.LittleEndian.Uint16(z[r+3:]) != ^uint16(n) || r+5+n > len(z) {
			return nil, 0, false
		}
		r += 5 + n
		if h&1 != 0 {
			break
		}
	}
	end := r
	if end+4 > len(z) {
		return nil, 0, false
	}
	sum = binary.BigEndian.Uint32(z[end:])
	w := 0
	for r = 2; r < end; {
		n := int(binary.LittleEndian.Uint16(z[r+1:]))
		w += copy(z[w:], z[r+5:r+5+n])
		r += 5 + n
	}
	return z[:w], sum, true
}
