package gitsource

import (
	"bytes"
	"fmt"
	"io"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// objectStore is the object store a Load (and the history index, and a
// body's read) reads through: go-git's, but for the reads of objects,
// which gitObjects does (so that go-git never builds its offset-to-name
// map of the packs). Not safe for concurrent use.
type objectStore struct {
	*filesystem.Storage
	objs *gitObjects
}

// largeObject is the size over which a blob is read only when its
// reader is: the parse reads no blob over content.MaxFileSize.
const largeObject = 4 << 20

// EncodedObject reads object h, of type t (or any: plumbing.AnyObject).
func (s *objectStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, size, data, err := s.objs.read(h, largeObject)
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && typ != t {
		return nil, plumbing.ErrObjectNotFound
	}
	return &readObject{s: s, h: h, t: typ, size: size, data: data}, nil
}

// HasEncodedObject is nil when object h is there.
func (s *objectStore) HasEncodedObject(h plumbing.Hash) error {
	ok, err := s.objs.has(h)
	if err != nil {
		return err
	}
	if !ok {
		return plumbing.ErrObjectNotFound
	}
	return nil
}

// EncodedObjectSize is the size of object h.
func (s *objectStore) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	_, size, _, err := s.objs.read(h, -1)
	return size, err
}

// Reindex makes the next read list the packs and read their indexes
// again (a pack written since).
func (s *objectStore) Reindex() {
	s.objs.reindex()
	s.Storage.Reindex()
}

// Close closes the files the reads opened.
func (s *objectStore) Close() error {
	s.objs.Close()
	return s.Storage.Close()
}

// tree reads the entries of tree h (canonical modes, as go-git's), their
// names cut from the object's bytes: one string for all.
func (s *objectStore) tree(h plumbing.Hash) ([]object.TreeEntry, error) {
	typ, size, data, err := s.objs.read(h, maxObjectSize)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != size {
		return nil, fmt.Errorf("tree %s: %d bytes, over the %d a tree may have", h, size, maxObjectSize)
	}
	if typ != plumbing.TreeObject {
		return nil, plumbing.ErrObjectNotFound
	}
	raw := ""
	if len(data) > 0 {
		// the bytes read are never written again
		raw = unsafe.String(&data[0], len(data))
	}
	entries, _, ok := parseTree(raw)
	if !ok {
		return nil, fmt.Errorf("tree %s: %w", h, object.ErrMalformedTree)
	}
	return entries, nil
}

// readObject is an object read by an objectStore; a blob over
// largeObject is read when its reader is.
type readObject struct {
	s    *objectStore
	h    plumbing.Hash
	t    plumbing.ObjectType
	size int64
	data []byte // nil: not read yet
}

func (o *readObject) Hash() plumbing.Hash           { return o.h }
func (o *readObject) Type() plumbing.ObjectType     { return o.t }
func (o *readObject) SetType(t plumbing.ObjectType) { o.t = t }
func (o *readObject) Size() int64                   { return o.size }
func (o *readObject) SetSize(s int64)               { o.size = s }

func (o *readObject) Reader() (io.ReadCloser, error) {
	data := o.data
	if data == nil && o.size > 0 {
		_, _, d, err := o.s.objs.read(o.h, 1<<62)
		if err != nil {
			return nil, err
		}
		data = d
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

func (o *readObject) Writer() (io.WriteCloser, error) {
	return nil, plumbing.ErrInvalidType // read only
}
