package gitsource

import (
	"bytes"
	"encoding/binary"
	"io"

	"github.com/klauspost/compress/flate"
)

// A push of one file into a folder of 500k entries writes the folder's
// tree again whole, and at git's default core.looseCompression (level 1)
// deflated: 15 MB of stream for 28.5 MB of tree at 1M files, whose
// inflate is most of a push's reload. Deflate is deterministic: the same
// compressor at the same level writes the same bits for the same bytes,
// so the new tree's stream starts with the last one's bits up to about
// the block where the trees first differ. A big tree's stream is kept
// with where each of its deflate blocks ended (zStream, on the folder's
// record); the next read of the folder's tree finds the longest start
// the two streams share, takes the output up to the last block end
// within it from the last tree's bytes (the record's parts), and resumes
// the inflater there, with that output's last 32 KB as its window.
//
// The inflater's state at a block's end is its window and its position
// in the input, both set by the input before it: the same bits give the
// same output. Anything else (a stream written by another zlib, at
// another level, a tree changed at its start) shares a shorter start or
// none, and is inflated from further back or whole. The stream's
// Adler-32 is checked over the whole tree as the stored streams' is, by
// parts (walkLoose), so a resumed read is checked as a full one is.

// resumeMin is the compressed size from which a tree's stream is kept:
// below it a full inflate costs less than keeping the stream.
const resumeMin = 256 << 10

// zStream is a tree's loose zlib stream as read, kept on the folder's
// record for the next read to resume from.
type zStream struct {
	z    []byte
	head string // the tree's loose header, "tree <size>\x00"
	size int    // the inflated size, header included
	// ends are where the stream's blocks ended, but the last.
	ends []zBlockEnd
}

// zBlockEnd is the end of a deflate block: the bytes inflated before
// it (the loose header included) and the bits of deflate read (after
// the two bytes of zlib's header).
type zBlockEnd struct {
	out, bit int64
}

// readDeflated inflates the zlib stream z of a big loose tree into lt's
// out buffer, resuming from prev (the last tree's stream, whose inflated
// bytes after its header are prevTree's, in order) where the two share
// their start: the tree's header and content, the Adler-32 the stream
// ends with (not checked: walkLoose checks it by parts), and the stream
// kept for the next read, nil when the stream is not as expected.
func (lt *looseTrees) readDeflated(z []byte, prev *zStream, prevTree func(dst []byte, from int)) (head, b []byte, sum uint32, zs *zStream, ok bool) {
	if len(z) < 2 || z[0]&0x0f != 8 || z[0]>>4 > 7 || z[1]&0x20 != 0 || (uint(z[0])<<8|uint(z[1]))%31 != 0 {
		return nil, nil, 0, nil, false
	}
	zs = &zStream{}
	from := zBlockEnd{}
	if prev != nil && prevTree != nil {
		from, zs.ends = resumePoint(z, prev)
	}
	var out []byte
	var opts []flate.ReaderOpt
	k := 0 // the header's length, NUL included
	if from.out > 0 {
		// The output before from is the last tree's: its header
		// (the same bytes: from is after it) and its first bytes.
		k = len(prev.head)
		size, ok := treeHeader(prev.head[:k-1])
		if !ok || size+k != prev.size {
			return nil, nil, 0, nil, false
		}
		out = lt.outBuf(size + k)
		copy(out, prev.head)
		prevTree(out[k:from.out], 0)
		window := out[max(0, from.out-32<<10):from.out]
		opts = append(opts, flate.WithResumeFrom(flate.InflateCheckpoint{
			UncompressedOffset: from.out, CompressedOffset: from.bit / 8, BitOffset: uint8(from.bit % 8), Window: window}))
	}
	opts = append(opts, flate.WithEobCallback(func(cp flate.InflateCheckpoint) {
		zs.ends = append(zs.ends, zBlockEnd{out: cp.UncompressedOffset, bit: cp.CompressedOffset*8 + int64(cp.BitOffset)})
	}))
	lt.br.Reset(z[2+from.bit/8:])
	fr := flate.NewReaderOpts(&lt.br, opts...)
	if from.out == 0 {
		kept := lt.zr
		lt.zr = fr
		hb, size, ok := lt.treeHead()
		lt.zr = kept
		if !ok || size > 1100*len(z) || size > maxObjectSize {
			return nil, nil, 0, nil, false
		}
		k = bytes.IndexByte(hb[:], 0) + 1
		out = lt.outBuf(size + k)
		copy(out, hb[:k])
		from.out = int64(k)
	}
	if _, err := io.ReadFull(fr, out[from.out:]); err != nil {
		return nil, nil, 0, nil, false
	}
	var one [1]byte
	if m, err := fr.Read(one[:]); m != 0 || err != io.EOF {
		return nil, nil, 0, nil, false
	}
	// The flate reader read no further than its last block (it reads
	// byte by byte from a bytes.Reader): the Adler-32 follows.
	var tail [4]byte
	if _, err := io.ReadFull(&lt.br, tail[:]); err != nil {
		return nil, nil, 0, nil, false
	}
	zs.z = append([]byte(nil), z...)
	zs.head = string(out[:k])
	zs.size = len(out)
	return out[:k], out[k:], binary.BigEndian.Uint32(tail[:]), zs, true
}

// outBuf is lt's out buffer, n bytes long.
func (lt *looseTrees) outBuf(n int) []byte {
	if cap(lt.out) < n {
		lt.out = make([]byte, n+n/8)
	}
	return lt.out[:n]
}

// resumePoint is the last block end of prev's stream whose bits z has
// too (zero: none), and prev's block ends up to it.
func resumePoint(z []byte, prev *zStream) (zBlockEnd, []zBlockEnd) {
	same := commonPrefix(z, prev.z)
	i := len(prev.ends)
	// The block end's last byte (a partial one too) must be the same.
	for i > 0 && 2+(prev.ends[i-1].bit+7)/8 > int64(same) {
		i--
	}
	for i > 0 && prev.ends[i-1].out <= int64(len(prev.head)) {
		i-- // the header is read from the stream, not taken
	}
	if i == 0 {
		return zBlockEnd{}, nil
	}
	return prev.ends[i-1], append([]zBlockEnd(nil), prev.ends[:i]...)
}

// commonPrefix is the length of the start a and b share.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	const chunk = 4096
	i := 0
	for i+chunk <= n && bytes.Equal(a[i:i+chunk], b[i:i+chunk]) {
		i += chunk
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
