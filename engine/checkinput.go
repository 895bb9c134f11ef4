package engine

import (
	"context"
	"errors"

	"github.com/folio-cms/folio/content"
)

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
	return paths, tree.Files.Slice(), nil
}
