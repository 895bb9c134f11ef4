package gitsource

import (
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/folio-cms/folio/content"
)

// A site whose root is a folder of its repository (SourceConfig.Root, or
// the root: of the folio.yaml at the repository's root) is read from
// that folder's tree: every path a Load gives is below it, as if the
// folder were the repository.

// siteRootOf is the site root of the commit whose tree is top:
// SourceConfig.Root, else the root: of its folio.yaml.
func (s *Source) siteRootOf(tc *treeEntries, top plumbing.Hash) (string, error) {
	if s.cfg.Root != "" {
		return s.cfg.Root, nil
	}
	entries, err := tc.get(top)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.Mode != filemode.Regular && e.Mode != filemode.Executable || !content.IsRootConfig(e.Name) {
			continue
		}
		if last := s.rootCfg; last.blob == e.Hash && last.name == e.Name {
			return last.root, nil // the same file: not read and parsed at every push
		}
		b, err := object.GetBlob(tc.st, e.Hash)
		if err != nil || b.Size > content.MaxFileSize {
			return "", nil // the site's own reading reports it
		}
		r, err := b.Reader()
		if err != nil {
			return "", err
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return "", err
		}
		doc, err := content.Parse(e.Name, data)
		if err != nil {
			return "", nil
		}
		root, err := content.RootOf(doc)
		if err != nil {
			return "", fmt.Errorf("%s: %w", e.Name, err)
		}
		s.rootCfg = rootConfig{name: e.Name, blob: e.Hash, root: root}
		return root, nil
	}
	return "", nil
}

// rootConfig is the site root a folio.yaml (its name and blob) said.
type rootConfig struct {
	name string
	blob plumbing.Hash
	root string
}

// subtree is the tree of folder root below tree h; zero (an empty tree)
// when there is no such folder.
func (tc *treeEntries) subtree(h plumbing.Hash, root string) (plumbing.Hash, error) {
	if root == "" || h.IsZero() {
		return h, nil
	}
	for _, name := range splitPath(root) {
		entries, err := tc.get(h)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		next := plumbing.ZeroHash
		for _, e := range entries {
			if e.Name == name && e.Mode == filemode.Dir {
				next = e.Hash
				break
			}
		}
		if next.IsZero() {
			return next, nil
		}
		h = next
	}
	return h, nil
}

// siteTree is the tree of the site root (tc.root) of a commit whose
// tree is h; zero when the commit has no such folder.
func (tc *treeEntries) siteTree(h plumbing.Hash) (plumbing.Hash, error) {
	return tc.subtree(h, tc.root)
}

func splitPath(p string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			if i > start {
				out = append(out, p[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// SiteRoot is the site root of the last Load ("" : the repository's
// root).
func (s *Source) SiteRoot() string {
	if r := s.siteRoot.Load(); r != nil {
		return *r
	}
	return s.cfg.Root
}

// repoPath is the repository path of a site path.
func (s *Source) repoPath(p string) string {
	if r := s.SiteRoot(); r != "" {
		return r + "/" + p
	}
	return p
}

// sitePath is the site path of a repository path; false when it is not
// below the site root.
func (s *Source) sitePath(p string) (string, bool) {
	if r := s.SiteRoot(); r != "" {
		return strings.CutPrefix(p, r+"/")
	}
	return p, true
}

// relevantInRepo is relevant for a repository path (the history index
// walks whole commits).
func (s *Source) relevantInRepo(p string) bool {
	rel, ok := s.sitePath(p)
	return ok && s.relevant(rel)
}
