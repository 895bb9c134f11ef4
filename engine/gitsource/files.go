package gitsource

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
)

// Files reads branches and the files of commits of a repository, in
// process: what an editor's backend reads (Decap's entries, a side
// branch's head) without a git process per read. It reads what the git
// CLI reads: objects written since it opened (a write's loose objects, a
// fetch's or a push's pack) included, so it can read the commits another
// writer of the repository (package engine/write) has just made. It is
// safe for concurrent use; reads run one at a time.
type Files struct {
	gitDir string

	mu sync.Mutex
	st *objectStore // opened on the first read
}

// FileEntry is one file of a commit: its path (the site's) and blob.
type FileEntry struct {
	Path string
	Blob string
}

// filesCache is the object cache of a Files: trees and delta bases of
// the reads of one editor's page.
const filesCache = 8 * cache.MiByte

// OpenFiles reads the repository at gitDir (a bare repository or a .git
// directory).
func OpenFiles(gitDir string) *Files { return &Files{gitDir: gitDir} }

// Close releases the files the reads keep open; a read after it opens
// them again.
func (f *Files) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.st == nil {
		return nil
	}
	err := f.st.Close()
	f.st = nil
	return err
}

// object reads an object, listing the packs again once on a miss (a
// pack written since they were listed). Under f.mu.
func (f *Files) object(h plumbing.Hash) (plumbing.EncodedObject, error) {
	f.storage()
	o, err := f.st.EncodedObject(plumbing.AnyObject, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		f.st.Reindex()
		o, err = f.st.EncodedObject(plumbing.AnyObject, h)
	}
	return o, err
}

// tree is the tree rev names (see Resolve): a commit's, or a tree
// itself, tags peeled, as git ls-tree reads a tree-ish. Under f.mu.
func (f *Files) tree(rev string) (*object.Tree, error) {
	h, err := f.resolve(rev)
	if err != nil {
		return nil, err
	}
	o, err := f.peel(h)
	if err != nil {
		return nil, err
	}
	if o.Type() == plumbing.CommitObject {
		c, err := object.DecodeCommit(f.st, o)
		if err != nil {
			return nil, fmt.Errorf("gitsource: commit %s: %w", rev, err)
		}
		if o, err = f.object(c.TreeHash); err != nil {
			return nil, fmt.Errorf("gitsource: tree of %s: %w", rev, err)
		}
	}
	if o.Type() != plumbing.TreeObject {
		return nil, fmt.Errorf("gitsource: %s is a %s, not a tree or a commit", rev, o.Type())
	}
	return object.DecodeTree(f.st, o)
}

// subtree is the tree at the repository path dir ("" : t itself); nil
// when dir is not a folder of t. Under f.mu.
func (f *Files) subtree(t *object.Tree, dir string) (*object.Tree, error) {
	for _, name := range splitPath(dir) {
		e, err := t.FindEntry(name)
		if errors.Is(err, object.ErrEntryNotFound) || err == nil && e.Mode != filemode.Dir {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		o, err := f.object(e.Hash)
		if err != nil {
			return nil, err
		}
		if t, err = object.DecodeTree(f.st, o); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// isBlob tells whether a tree entry is a file (a blob: regular,
// executable or a symbolic link), as git ls-tree's "blob" type.
func isBlob(m filemode.FileMode) bool {
	return m != filemode.Dir && m != filemode.Submodule
}

// Head is the commit branch points to; "" when there is no such branch
// (or the name is not one), as `git rev-parse --verify --quiet
// refs/heads/<branch>^{commit}`.
func (f *Files) Head(branch string) (string, error) {
	if CheckRefName(branch) != nil {
		return "", nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.storage()
	h, ok, err := f.ref(plumbing.NewBranchReferenceName(branch))
	if err != nil || !ok {
		return "", err
	}
	// Peel to the commit (a branch at a tag object).
	o, err := f.peel(h)
	if errors.Is(err, ErrUnknownRevision) {
		return "", nil // as rev-parse --verify: no such commit
	}
	if err != nil || o.Type() != plumbing.CommitObject {
		return "", err
	}
	return o.Hash().String(), nil
}

// BlobAt is the blob of the file at the repository path p in commit (a
// revision: see Resolve); "" when p is not a file there.
func (f *Files) BlobAt(commit, p string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, err := f.tree(commit)
	if err != nil {
		return "", err
	}
	dir, name := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	if t, err = f.subtree(t, dir); err != nil || t == nil || name == "" {
		return "", err
	}
	e, err := t.FindEntry(name)
	if errors.Is(err, object.ErrEntryNotFound) || err == nil && !isBlob(e.Mode) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return e.Hash.String(), nil
}

// Has tells whether the repository path p is an entry of the tree of
// rev (see Resolve): a file, a folder or a submodule, as git ls-tree
// --name-only lists it.
func (f *Files) Has(rev, p string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, err := f.tree(rev)
	if err != nil {
		return false, err
	}
	dir, name := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	if t, err = f.subtree(t, dir); err != nil || t == nil || name == "" {
		return false, err
	}
	_, err = t.FindEntry(name)
	if errors.Is(err, object.ErrEntryNotFound) {
		return false, nil
	}
	return err == nil, err
}

// List lists the files of commit below the repository folder dir ("" :
// all), at any depth, in Git's order (git ls-tree -r): path order, a
// folder sorting as its name followed by "/". Paths are the
// repository's.
func (f *Files) List(commit, dir string) ([]FileEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, err := f.tree(commit)
	if err != nil {
		return nil, err
	}
	if t, err = f.subtree(t, dir); err != nil || t == nil {
		return nil, err
	}
	prefix := ""
	if dir = strings.Trim(dir, "/"); dir != "" {
		prefix = dir + "/"
	}
	var out []FileEntry
	var walk func(t *object.Tree, prefix string) error
	walk = func(t *object.Tree, prefix string) error {
		for _, e := range t.Entries {
			switch {
			case e.Mode == filemode.Dir:
				if err := checkPathLen(prefix, e.Name); err != nil {
					return err
				}
				o, err := f.object(e.Hash)
				if err != nil {
					return err
				}
				sub, err := object.DecodeTree(f.st, o)
				if err != nil {
					return err
				}
				if err := walk(sub, prefix+e.Name+"/"); err != nil {
					return err
				}
			case isBlob(e.Mode):
				out = append(out, FileEntry{Path: prefix + e.Name, Blob: e.Hash.String()})
			}
		}
		return nil
	}
	if err := walk(t, prefix); err != nil {
		return nil, err
	}
	return out, nil
}

// Blobs reads blobs (full hashes; a tag's is the blob it tags, as git
// cat-file blob reads it), in the order of ids.
func (f *Files) Blobs(ids []string) ([][]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([][]byte, 0, len(ids))
	for _, id := range ids {
		if !plumbing.IsHash(id) || len(id) != 40 {
			return nil, fmt.Errorf("gitsource: %q is not a blob hash", id)
		}
		o, err := f.peel(plumbing.NewHash(id))
		if err != nil {
			return nil, fmt.Errorf("gitsource: blob %s: %w", id, err)
		}
		if o.Type() != plumbing.BlobObject {
			return nil, fmt.Errorf("gitsource: %s is a %s, not a blob", id, o.Type())
		}
		// Its readers read content files (Decap's entries, a write's
		// base), which folio never reads over content.MaxFileSize: a
		// big file named so is not read whole (a GB, once for the
		// object and once more here, at each request).
		if o.Size() > content.MaxFileSize {
			return nil, fault.New(fault.TooLarge, "blob %s is %d bytes, over the limit of %d for a content file", id, o.Size(), content.MaxFileSize)
		}
		r, err := o.Reader()
		if err != nil {
			return nil, fmt.Errorf("gitsource: blob %s: %w", id, err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("gitsource: blob %s: %w", id, err)
		}
		out = append(out, data)
	}
	return out, nil
}
