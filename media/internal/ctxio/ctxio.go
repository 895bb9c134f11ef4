// Package ctxio stops reads when a context ends, so a long copy from a
// client or into storage is abandoned with its request.
package ctxio

import (
	"context"
	"io"
)

// Reader returns r that fails with ctx's error once ctx is done.
func Reader(ctx context.Context, r io.Reader) io.Reader { return &reader{ctx: ctx, r: r} }

type reader struct {
	ctx context.Context
	r   io.Reader
}

func (c *reader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
