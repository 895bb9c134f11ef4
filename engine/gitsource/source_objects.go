package gitsource

import (
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The long-lived repository handle (s.repo) reads refs, and s.objects
// the commits they point to. Both list the packs and read their indexes
// once, on their first read from a pack, and never again: a pack added
// afterwards by another process (the git CLI's fetch of a remote site,
// a push to a local one) is invisible to them, and a commit there
// "missing" (a force-pushed branch was REF_NOT_FOUND). So a read that
// misses drops the indexes and tries once more: after every fetch, and
// after any other writer of packs (a push to a local site, a large one
// keeps its pack). Objects are named by their content, so a read that
// finds its object is never stale; only misses need this.

// objectsLocked is the reader of objects of s.repo's reads (folio's:
// objectStore, so that go-git never builds its offset-to-name map of
// the packs), opened on the first. Under s.mu.
func (s *Source) objectsLocked() *objectStore {
	if s.objects == nil {
		// long-lived: few bases kept between reads
		s.objects = openObjectStorage(s.gitDir, cache.NewObjectLRU(longLivedBaseCache))
	}
	return s.objects
}

// longLivedBaseCache bounds the delta bases the reader of refs' commits
// keeps.
const longLivedBaseCache = 2 << 20

// reindex makes the next read from a pack list the packs and read their
// indexes again. Under s.mu.
func (s *Source) reindex() {
	if r, ok := s.repo.Storer.(interface{ Reindex() }); ok {
		r.Reindex()
	}
	if s.objects != nil {
		s.objects.objs.reindex()
	}
}

// commitObject reads a commit, reindexing once on a miss. Under s.mu.
func (s *Source) commitObject(h plumbing.Hash) (*object.Commit, error) {
	c, err := object.GetCommit(s.objectsLocked(), h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		s.reindex()
		c, err = object.GetCommit(s.objectsLocked(), h)
	}
	return c, err
}

// encodedObject reads any object, reindexing once on a miss. Under
// s.mu.
func (s *Source) encodedObject(h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := s.objectsLocked().EncodedObject(plumbing.AnyObject, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		s.reindex()
		o, err = s.objectsLocked().EncodedObject(plumbing.AnyObject, h)
	}
	return o, err
}

// closeObjects closes the files the reads of refs' commits keep open.
func (s *Source) closeObjects() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.objects != nil {
		s.objects.objs.Close()
		s.objects = nil
	}
}
