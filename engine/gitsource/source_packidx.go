package gitsource

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/go-git/go-git/v5/plumbing"
)

// packIndex is a pack's .idx (version 2, gitformat-pack(5)): the
// fan-out table, the sorted object names and their offsets in the pack,
// read into memory; the CRC table is not read. It answers where an
// object is (find), never which object is at an offset: that reverse
// map is what go-git builds for its first packed read (110 MB at a
// million files), and folio's reads do not need it.
type packIndex struct {
	pack   string // the .pack file
	fanout [256]uint32
	count  int
	names  []byte // count × 20
	offs   []byte // count × 4, big-endian; the high bit indexes large
	large  []byte // × 8
	sum    []byte // the pack's checksum (its last 20 bytes)
}

const (
	idxHeader  = 8 + 256*4 // magic, version, fan-out
	idxTrailer = 2 * 20    // the pack's checksum and the index's
)

var idxMagic = []byte{0xff, 't', 'O', 'c'}

// readPackIndex reads the index at path (pack-*.idx).
func readPackIndex(path string) (*packIndex, error) {
	return readPackIndexSum(path, false)
}

// readPackIndexSum reads the index at path, and with verify checks its
// own checksum (its last 20 bytes: the SHA-1 of the rest), for a reader
// that does not check the names of the objects it reads (packReader):
// a damaged offset would give another object's bytes. About 20 ms at a
// million files (40 MB), once a Load that parses many blobs.
func readPackIndexSum(path string, verify bool) (*packIndex, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	bad := func(why string) error { return fmt.Errorf("pack index %s: %s", path, why) }
	if size < idxHeader+idxTrailer {
		return nil, bad("truncated")
	}
	head := make([]byte, idxHeader)
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if !bytes.Equal(head[:4], idxMagic) || binary.BigEndian.Uint32(head[4:]) != 2 {
		return nil, bad("not a version 2 index")
	}
	ix := &packIndex{pack: path[:len(path)-len(".idx")] + ".pack"}
	prev := uint32(0)
	for i := range ix.fanout {
		n := binary.BigEndian.Uint32(head[8+4*i:])
		if n < prev {
			return nil, bad("fan-out table not ascending")
		}
		ix.fanout[i], prev = n, n
	}
	ix.count = int(prev)
	// names, CRCs and offsets, then 8 bytes per large offset
	rest := size - idxHeader - idxTrailer - int64(ix.count)*28
	if rest < 0 || rest%8 != 0 {
		return nil, bad("size does not match its object count")
	}
	ix.names = make([]byte, ix.count*20)
	if _, err := f.ReadAt(ix.names, idxHeader); err != nil {
		return nil, err
	}
	tail := make([]byte, size-idxHeader-int64(ix.count)*24)
	if _, err := f.ReadAt(tail, idxHeader+int64(ix.count)*24); err != nil {
		return nil, err
	}
	if verify {
		d := sha1.New()
		d.Write(head)
		d.Write(ix.names)
		crcs := io.NewSectionReader(f, idxHeader+int64(ix.count)*20, int64(ix.count)*4)
		if _, err := io.CopyBuffer(d, crcs, make([]byte, 64<<10)); err != nil {
			return nil, err
		}
		d.Write(tail[:len(tail)-20])
		if !bytes.Equal(d.Sum(nil), tail[len(tail)-20:]) {
			return nil, bad("its checksum is not its bytes'")
		}
	}
	ix.offs = tail[:ix.count*4]
	ix.large = tail[ix.count*4 : len(tail)-idxTrailer]
	ix.sum = tail[len(tail)-idxTrailer : len(tail)-20]
	return ix, nil
}

// errPackIndex is an offset the index cannot give.
var errPackIndex = errors.New("corrupt pack index")

// find is the offset of object h in the pack; ok false when the pack
// does not hold it.
func (ix *packIndex) find(h plumbing.Hash) (off int64, ok bool, err error) {
	lo := 0
	if h[0] > 0 {
		lo = int(ix.fanout[h[0]-1])
	}
	hi := int(ix.fanout[h[0]])
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch bytes.Compare(ix.names[m*20:m*20+20], h[:]) {
		case 0:
			o, err := ix.offset(m)
			return o, err == nil, err
		case -1:
			lo = m + 1
		default:
			hi = m
		}
	}
	return 0, false, nil
}

// offset is the pack offset of the i-th object.
func (ix *packIndex) offset(i int) (int64, error) {
	o := binary.BigEndian.Uint32(ix.offs[i*4:])
	if o&0x80000000 == 0 {
		return int64(o), nil
	}
	k := int(o & 0x7fffffff)
	if k >= len(ix.large)/8 {
		return 0, errPackIndex
	}
	l := binary.BigEndian.Uint64(ix.large[k*8:])
	if l > 1<<62 {
		return 0, errPackIndex
	}
	return int64(l), nil
}
