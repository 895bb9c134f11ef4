package gitsource

import (
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The long-lived repository handle (s.repo) reads refs and the commits
// they point to. go-git's filesystem object store lists the packs and
// reads their indexes once, on its first read from a pack, and never
// again: a pack added afterwards by another process (the git CLI's fetch
// of a remote site, a push to a local one) is invisible to it, and a
// commit there "missing" (a force-pushed branch was REF_NOT_FOUND). So a
// read that misses drops the indexes and tries once more: after every
// fetch, and after any other writer of packs (a push to a local site, a
// large one keeps its pack). Objects are named by their content, so a
// read that finds its object is never stale; only misses need this.

// reindex makes the next read from a pack list the packs and read their
// indexes again. Under s.mu.
func (s *Source) reindex() {
	if r, ok := s.repo.Storer.(interface{ Reindex() }); ok {
		r.Reindex()
	}
}

// commitObject reads a commit through s.repo, reindexing once on a miss.
// Under s.mu.
func (s *Source) commitObject(h plumbing.Hash) (*object.Commit, error) {
	c, err := object.GetCommit(s.repo.Storer, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		s.reindex()
		c, err = object.GetCommit(s.repo.Storer, h)
	}
	return c, err
}

// encodedObject reads any object through s.repo, reindexing once on a
// miss. Under s.mu.
func (s *Source) encodedObject(h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := s.repo.Storer.EncodedObject(plumbing.AnyObject, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		s.reindex()
		o, err = s.repo.Storer.EncodedObject(plumbing.AnyObject, h)
	}
	return o, err
}
