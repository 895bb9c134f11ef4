package gitsource

import (
	"bufio"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/klauspost/compress/zlib"

	"github.com/folio-cms/folio/content"
)

// packBlobs reads whole (non-delta) blobs straight from the repository's
// pack files, for a Load with many documents to parse (a cold start). It is
// about twice as cheap per blob as go-git's object store on the same packs:
// zlib reads from a bufio.Reader instead of go-git's byte-at-a-time
// scanner, and there is no copy into a cached object nor a SHA-1 of it.
// Anything else (a delta, a loose object, a pack it cannot read) is left to
// the object store: read reports ok false.
type packBlobs struct {
	packs []packFile
}

type packFile struct {
	path string // .pack
	idx  *packIndex
}

// openPackBlobs decodes the index of every pack of the repository.
func openPackBlobs(gitDir string) *packBlobs {
	idxs, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "pack-*.idx"))
	pb := &packBlobs{}
	for _, p := range idxs {
		idx, err := readPackIndexSum(p, true) // read checks no object's name
		if err != nil {
			continue
		}
		pb.packs = append(pb.packs, packFile{path: idx.pack, idx: idx})
	}
	return pb
}

// packReader is one worker's reader: open pack files and a reused zlib
// reader and buffer.
type packReader struct {
	pb    *packBlobs
	files map[string]*os.File
	br    *bufio.Reader
	zr    io.ReadCloser
	// reuse: each read's bytes are valid until the next read only (buf
	// is read into again): for a parse that keeps nothing of them.
	reuse bool
	buf   []byte
}

func (pb *packBlobs) reader() *packReader {
	return &packReader{pb: pb, files: map[string]*os.File{}}
}

func (r *packReader) Close() {
	for _, f := range r.files {
		f.Close()
	}
	if r.zr != nil {
		r.zr.Close()
	}
}

const packBlobType = 3 // OBJ_BLOB in a pack entry header

// read returns the blob's bytes (nil, with its size, when it is over
// content.MaxFileSize; with reuse, valid until the next read), or ok
// false when the blob is not a whole object in a known pack.
func (r *packReader) read(h plumbing.Hash) (data []byte, size int64, ok bool) {
	if r == nil {
		return nil, 0, false
	}
	for _, p := range r.pb.packs {
		off, found, ferr := p.idx.find(h)
		if ferr != nil || !found {
			continue
		}
		f := r.files[p.path]
		if f == nil {
			var err error
			if f, err = os.Open(p.path); err != nil {
				return nil, 0, false
			}
			r.files[p.path] = f
		}
		return r.readAt(f, off)
	}
	return nil, 0, false
}

func (r *packReader) readAt(f *os.File, off int64) ([]byte, int64, bool) {
	sec := io.NewSectionReader(f, off, 1<<62)
	if r.br == nil {
		r.br = bufio.NewReaderSize(sec, 8<<10)
	} else {
		r.br.Reset(sec)
	}
	b, err := r.br.ReadByte()
	if err != nil {
		return nil, 0, false
	}
	typ := (b >> 4) & 7
	size := int64(b & 15)
	for shift := 4; b&0x80 != 0; shift += 7 {
		if b, err = r.br.ReadByte(); err != nil || shift > 56 {
			return nil, 0, false
		}
		size |= int64(b&0x7f) << shift
	}
	if typ != packBlobType {
		return nil, 0, false // a delta (or no blob): the object store resolves it
	}
	if size > content.MaxFileSize {
		return nil, size, true
	}
	if r.zr == nil {
		if r.zr, err = zlib.NewReader(r.br); err != nil {
			return nil, 0, false
		}
	} else if err := r.zr.(zlib.Resetter).Reset(r.br, nil); err != nil {
		return nil, 0, false
	}
	var data []byte
	if r.reuse {
		if int64(cap(r.buf)) < size {
			r.buf = make([]byte, size)
		}
		data = r.buf[:size]
	} else {
		data = make([]byte, size)
	}
	if _, err := io.ReadFull(r.zr, data); err != nil {
		return nil, 0, false // the object store reports what is wrong
	}
	// The stream must end here; reaching its end checks its Adler-32.
	var one [1]byte
	if n, err := r.zr.Read(one[:]); n != 0 || err != io.EOF {
		return nil, 0, false
	}
	return data, size, true
}
