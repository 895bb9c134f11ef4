package gitsource

import (
	"io"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/folio-cms/folio/content"
)

// What the engine reads of a source beyond its snapshots' files: the
// names of its caches, the paths of the site root, and the objects the
// history index walks.

// SiteID names the site a cache belongs to: the repository (or the remote
// URL, without credentials) and the site root.
func (s *Source) SiteID() string { return s.siteID() }

// CacheKey is the parser generation of the persisted caches
// (SourceConfig.CacheKey, or the running build's).
func (s *Source) CacheKey() string { return s.cfg.CacheKey }

// CachePath is the persisted parse cache's file; "" when there is no
// cache dir. Caches that live beside it (the engine's validation cache)
// are named after it.
func (s *Source) CachePath() string { return s.cache }

// DocNames names the documents of the parse cache by document: their
// blob's 20 bytes and their extension, as the parse cache keys them.
func (s *Source) DocNames() map[*content.Doc]string {
	c := s.docs
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[*content.Doc]string, c.docs.len())
	for k, e := range c.docs.all() {
		out[e.doc] = string(k.blob[:]) + k.ext
	}
	return out
}

// RepoPath is the repository path of a site path.
func (s *Source) RepoPath(p string) string { return s.repoPath(p) }

// SitePath is the site path of a repository path; false when it is not
// below the site root.
func (s *Source) SitePath(p string) (string, bool) { return s.sitePath(p) }

// RelevantInRepo tells whether a repository path is a file the site
// reads (the history index walks whole commits).
func (s *Source) RelevantInRepo(p string) bool { return s.relevantInRepo(p) }

// LooseTree reads tree h from its loose object file, where a push
// writes the trees it changed, about four times faster than the object
// store (looseTrees), unless the last Load decoded it already (a push's
// new trees: the history index asks for them next); false when the
// tree is not loose, or reads oddly: the object store reads it then,
// and reports what is wrong. Safe for concurrent use.
func (s *Source) LooseTree(h plumbing.Hash) ([]object.TreeEntry, bool) {
	if m := s.loadedTrees.Load(); m != nil {
		if entries, ok := m.flat[h]; ok {
			return entries, true
		}
		if d := m.recs[h]; d != nil {
			return d.flatEntries(), true
		}
	}
	lt, _ := s.loose.Get().(*looseTrees)
	if lt == nil {
		lt = &looseTrees{objects: filepath.Join(s.gitDir, "objects")}
	}
	defer s.loose.Put(lt)
	return lt.read(h)
}

// Objects is a reader of a repository's objects (see OpenObjects); not
// safe for concurrent use.
type Objects interface {
	storer.EncodedObjectStorer
	io.Closer
}

// OpenObjects opens the repository's objects, for a reader of its own
// (the history index); the caller closes it. Its reads are folio's
// (objectStore), with their own cache of delta bases; cacheBytes is
// the cache of the rest of go-git's store.
func (s *Source) OpenObjects(cacheBytes cache.FileSize) Objects {
	return openObjectStorage(s.gitDir, cache.NewObjectLRU(cacheBytes))
}
