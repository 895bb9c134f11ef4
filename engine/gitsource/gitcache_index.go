package gitsource

import (
	"iter"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
)

// docIndex is the parse cache's map of its documents by key (blob and
// extension). A key's extension is a number in the index's list of them
// (a site's documents have a handful): a slot of the map is 32 bytes,
// where a docKey with its extension as a string made it 48 (the map of
// every document of the site, kept while it runs: 0.3 MB at 10k). Callers
// hold the document cache's lock.
type docIndex struct {
	m    map[docSlot]*docEntry
	exts []string // the extensions, by number
}

// docSlot is a docKey as the index keys it.
type docSlot struct {
	blob plumbing.Hash
	ext  uint32 // in docIndex.exts
}

// newDocIndex is an empty index with room for n documents.
func newDocIndex(n int) *docIndex { return &docIndex{m: make(map[docSlot]*docEntry, n)} }

// slot is k's slot; ok false when no key has its extension.
func (x *docIndex) slot(k docKey) (docSlot, bool) {
	i := slices.Index(x.exts, k.ext)
	return docSlot{k.blob, uint32(i)}, i >= 0
}

// get is k's entry; nil when there is none.
func (x *docIndex) get(k docKey) *docEntry {
	if x == nil {
		return nil
	}
	s, ok := x.slot(k)
	if !ok {
		return nil
	}
	return x.m[s]
}

// set makes e k's entry.
func (x *docIndex) set(k docKey, e *docEntry) {
	s, ok := x.slot(k)
	if !ok {
		s.ext = uint32(len(x.exts))
		x.exts = append(x.exts, k.ext)
	}
	x.m[s] = e
}

func (x *docIndex) len() int {
	if x == nil {
		return 0
	}
	return len(x.m)
}

// all yields every key and its entry, in no order.
func (x *docIndex) all() iter.Seq2[docKey, *docEntry] {
	return func(yield func(docKey, *docEntry) bool) {
		if x == nil {
			return
		}
		for s, e := range x.m {
			if !yield(docKey{blob: s.blob, ext: x.exts[s.ext]}, e) {
				return
			}
		}
	}
}

// deleteIf deletes the entries drop says to, and tells whether it did.
func (x *docIndex) deleteIf(drop func(*docEntry) bool) bool {
	deleted := false
	for s, e := range x.m {
		if drop(e) {
			delete(x.m, s)
			deleted = true
		}
	}
	return deleted
}

// delete deletes k's entry.
func (x *docIndex) delete(k docKey) {
	if s, ok := x.slot(k); ok {
		delete(x.m, s)
	}
}
