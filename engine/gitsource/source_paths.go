package gitsource

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Paths lists every file path of a commit below the site root (as site
// paths), relevant or not: folio check looks among them for what the
// site holds that folio does not read.
func (s *Source) Paths(ctx context.Context, commit string) ([]string, error) {
	if !plumbing.IsHash(commit) {
		return nil, fmt.Errorf("source: paths of %q: not a commit hash", commit)
	}
	st := s.openStorage(cache.NewObjectLRU(32 * cache.MiByte))
	defer st.Close()
	c, err := object.GetCommit(st, plumbing.NewHash(commit))
	if err != nil {
		return nil, fmt.Errorf("source: paths of %s: %w", commit, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("source: paths of %s: %w", commit, err)
	}
	if r := s.SiteRoot(); r != "" {
		if tree, err = tree.Tree(r); err != nil {
			return nil, fmt.Errorf("source: paths of %s below %s: %w", commit, r, err)
		}
	}
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	var out []string
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("source: paths of %s: %w", commit, err)
		}
		if e.Mode.IsFile() {
			out = append(out, name)
		}
	}
}
