package gitsource

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
)

// A restart reads the parse cache a block at a time, not whole: each
// block's bytes are let go once its documents are decoded, instead of
// the whole file (367 MB at a million files) staying in the heap while
// the documents are made and the trees walked. The checksum is of the
// whole file, so it is checked at its end, before any document read is
// kept: the decoders are bounded by the bytes they are given
// (FuzzParseCache), whatever they read.

// errCacheVersion: the file is not a cache of this version.
var errCacheVersion = errors.New("not a cache file of this version")

// cacheReader reads a cache file: its bytes before the checksum go
// through sum as they are read.
type cacheReader struct {
	br   *bufio.Reader
	sum  uint32
	left int64 // bytes of the file not read by br's reader yet, the checksum's 4 too
}

// newCacheReader checks the file's magic: a cache of an earlier version
// (version 2 held every body, 670 MB at 100k files) is not read at all.
func newCacheReader(f *os.File) (*cacheReader, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < int64(len(cacheMagic)+4) {
		return nil, errCacheVersion
	}
	r := &cacheReader{left: fi.Size()}
	r.br = bufio.NewReaderSize(readerFunc(func(p []byte) (int, error) {
		n, err := f.Read(p)
		// every byte before the last 4 is checksummed
		if h := min(int64(n), r.left-4); h > 0 {
			r.sum = crc32.Update(r.sum, crc32.IEEETable, p[:h])
		}
		r.left -= int64(n)
		return n, err
	}), 1<<20)
	head := make([]byte, len(cacheMagic))
	if _, err := io.ReadFull(r.br, head); err != nil || string(head) != cacheMagic {
		return nil, errCacheVersion
	}
	return r, nil
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// unread is how many bytes of the file are left to read, the checksum
// included.
func (r *cacheReader) unread() int64 { return r.left + int64(r.br.Buffered()) }

func (r *cacheReader) uvarint() (uint64, error) {
	v, err := binary.ReadUvarint(r.br)
	if err != nil {
		return 0, errCacheCorrupt
	}
	return v, nil
}

// bytes reads n bytes into a new slice: no more than the file has left.
func (r *cacheReader) bytes(n uint64) ([]byte, error) {
	return r.bytesInto(n, nil)
}

// bytesInto reads n bytes into buf if it can hold them, else into a new
// slice: no more than the file has left.
func (r *cacheReader) bytesInto(n uint64, buf []byte) ([]byte, error) {
	if n > uint64(r.unread()) {
		return nil, errCacheCorrupt
	}
	var b []byte
	if uint64(cap(buf)) >= n {
		b = buf[:n]
	} else {
		b = make([]byte, n)
	}
	if _, err := io.ReadFull(r.br, b); err != nil {
		return nil, errCacheCorrupt
	}
	return b, nil
}

func (r *cacheReader) str() (string, error) {
	n, err := r.uvarint()
	if err != nil {
		return "", err
	}
	b, err := r.bytes(n)
	return string(b), err
}

// block reads the next block of documents; false after the last. Its
// bytes go into reuse (a block decoded already, whose bytes no document
// keeps) when it can hold them: at a million files the blocks add up to
// 366 MB of garbage otherwise, made while the heap grows to gigabytes.
func (r *cacheReader) block(reuse []byte) (docBlock, bool, error) {
	tag, err := r.br.ReadByte()
	switch {
	case err != nil:
		return docBlock{}, false, errCacheCorrupt
	case tag == 0:
		return docBlock{}, false, nil
	case tag != 2:
		return docBlock{}, false, errCacheCorrupt
	}
	size, err1 := r.uvarint()
	count, err2 := r.uvarint()
	if err := cmp.Or(err1, err2); err != nil {
		return docBlock{}, false, err
	}
	if uint64(cap(reuse)) < size && size <= uint64(r.unread()) {
		// blocks are about cacheBlock bytes, each over it by its last
		// document: room for the next one too
		reuse = make([]byte, 0, size+size/8)
	}
	data, err := r.bytesInto(size, reuse)
	if err != nil {
		return docBlock{}, false, err
	}
	return docBlock{data: data, count: int(min(count, size/24))}, true, nil // a document takes more than 24 bytes
}
