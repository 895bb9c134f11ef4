package write

import (
	"context"
	"fmt"
	"time"

	"github.com/folio-cms/folio/content/fault"
)

// Writes are made one at a time: each takes the writer's one slot for
// the whole of its read, commit and push. A push to a remote that hangs
// holds it up to Config.PushTimeout (and as long again for the look at
// the remote after it), so a write waits for the slot at most
// Config.QueueWait and is then refused, nothing written, rather than
// left waiting minutes behind it.

// DefaultQueueWait is Config.QueueWait's default.
const DefaultQueueWait = 10 * time.Second

// BusyError is a write that waited Config.QueueWait for the write before
// it (a push to a slow or hanging remote) and was not made: a
// fault.GitUnavailable (503) that says when to try again.
type BusyError struct {
	Waited     time.Duration
	RetryAfter time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("another write has been waiting on the Git remote for longer than this one may wait (%s); nothing was written: try again in %d s", e.Waited, int(e.RetryAfter/time.Second))
}

func (e *BusyError) Unwrap() error {
	return &fault.Error{Code: fault.GitUnavailable, Message: e.Error(), RetryAfter: e.RetryAfter}
}

// lock takes the writer's slot, waiting at most Config.QueueWait; the
// caller calls unlock when done.
func (w *Writer) lock(ctx context.Context) (unlock func(), err error) {
	select {
	case w.slot <- struct{}{}:
		return w.unlock, nil
	default:
	}
	t := time.NewTimer(w.cfg.QueueWait)
	defer t.Stop()
	select {
	case w.slot <- struct{}{}:
		return w.unlock, nil
	case <-t.C:
		return nil, &BusyError{Waited: w.cfg.QueueWait, RetryAfter: max(time.Second, w.cfg.QueueWait)}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (w *Writer) unlock() { <-w.slot }

// remoteCtx bounds a look at the remote (a fetch, an ls-remote) made while
// the slot is held, as a push is.
func (w *Writer) remoteCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, w.cfg.PushTimeout)
}

// head is the commit branch points to ("" : no such branch), read while
// no fetch of the engine rewrites the clone's refs (Config.RefLock): a
// ref read in the middle of one can look absent, and a branch taken for
// absent would be started anew.
func (w *Writer) head(ctx context.Context, branch string) (string, error) {
	defer w.lockRefs()()
	return w.repo.head(ctx, branch)
}
