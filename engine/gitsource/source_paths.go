package engine

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/folio-cms/folio/content"
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

// CheckInput is what folio check looks at beyond the problems of the
// published snapshot: every path of its commit and its content files
// (parsed, from the cache the load filled).
func (e *Engine) CheckInput(ctx context.Context) (paths []string, files []content.File, err error) {
	p := e.published.Load()
	if p == nil {
		return nil, nil, errors.New("no snapshot")
	}
	if paths, err = e.src.Paths(ctx, p.Commit); err != nil {
		return nil, nil, err
	}
	tree, err := e.src.Load(ctx, p.Commit)
	if err != nil {
		return nil, nil, err
	}
	return paths, tree.Files, nil
}
