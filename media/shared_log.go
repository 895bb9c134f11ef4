package media

// Following the shared change log: tailing it, applying its entries,
// appending this box's.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/gob"
	"errors"
	"time"

	"github.com/folio-cms/folio/media/replica"
)

// closeCheckpointTimeout bounds the checkpoint Close writes.
const closeCheckpointTimeout = time.Minute

// follow polls the log until Close; writers also write checkpoints and
// compact the log.
func (l *Library) follow() {
	t := time.NewTicker(l.sh.poll)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-l.sh.stop:
			return
		case <-t.C:
		}
		ctx, cancel := l.stoppable(time.Minute)
		// A failure is logged when it begins and when it ends, not at
		// every poll of a bucket that is down.
		switch err := l.Sync(ctx); {
		case err != nil && ctx.Err() == nil && !failing:
			failing = true
			l.log.Warn("media: following the shared library's log failed; retrying every poll", "err", err)
		case err == nil && failing:
			failing = false
			l.log.Info("media: following the shared library's log again")
		}
		if !l.cfg.ReadOnly && ctx.Err() == nil {
			if err := l.maybeCheckpoint(ctx); err != nil && ctx.Err() == nil {
				l.log.Warn("media: checkpoint failed", "err", err)
			}
		}
		cancel()
	}
}

// stoppable is a context that ends after d or when the library closes.
func (l *Library) stoppable(d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	go func() {
		select {
		case <-l.sh.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// Sync applies the changes other boxes made since the last call. A
// library calls it by itself every poll interval; tests and tools call it
// to catch up at once.
func (l *Library) Sync(ctx context.Context) error {
	return l.tail(ctx)
}

// tail applies the log entries after the last one applied.
func (l *Library) tail(ctx context.Context) error {
	l.sh.loopMu.Lock()
	defer l.sh.loopMu.Unlock()
	var seq int64
	l.sh.at(func(p *position) { seq = p.seq })
	err := l.sh.rep.Tail(ctx, seq, func(n int64, data []byte) (bool, error) {
		var e logEntry
		if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&e); err != nil {
			l.log.Error("media: corrupt log entry skipped", "entry", replica.LogKey(n), "err", err)
		} else if e.Op == opRescan {
			// The rescan moves the position past this entry.
			return true, l.rescanLocked(ctx)
		} else {
			l.apply(&e)
		}
		l.sh.at(func(p *position) { p.seq = n })
		return false, nil
	})
	var behind *replica.BehindError
	if !errors.As(err, &behind) {
		return err
	}
	// The entries between were compacted: start again from the newest
	// checkpoint, which covers them; the next call goes on from there.
	l.log.Info("media: behind the log's compaction; reloading from a checkpoint", "at", behind.At, "next", behind.Next)
	loaded, err := l.loadCheckpointLocked(ctx, behind.At+1)
	if err != nil || loaded {
		return err
	}
	return l.rescanLocked(ctx)
}

// apply makes one log entry's change in the index, unless the index holds
// it already or something newer (entries of one item can reach the log out
// of the order their sidecar writes won in; Version orders them).
func (l *Library) apply(e *logEntry) {
	switch e.Op {
	case opPut:
		if err := checkEntryItem(e.Item); err != nil {
			l.log.Error("media: invalid item in the log skipped", "err", err)
			return
		}
		it := *e.Item
		added := false
		l.sh.locked(func(p *position, x *index) {
			if p.tombs.Buried(it.ID) {
				return
			}
			cur, ok := x.items[it.ID]
			if ok && cur.Version >= it.Version {
				if cur.Version == it.Version && e.ETag != "" {
					p.etags[it.ID] = e.ETag
				}
				return
			}
			if ok {
				x.remove(cur)
			}
			x.add(&it)
			if e.ETag != "" {
				p.etags[it.ID] = e.ETag
			} else {
				delete(p.etags, it.ID)
			}
			added = true
		})
		if added {
			l.changed(&it, false)
		}
	case opDelete:
		if e.Item == nil || !ValidID(e.Item.ID) {
			return
		}
		var cur *Item
		var ok bool
		l.sh.locked(func(p *position, x *index) {
			p.tombs.Bury(e.Item.ID, e.At)
			delete(p.etags, e.Item.ID)
			if cur, ok = x.items[e.Item.ID]; ok {
				x.remove(cur)
				delete(x.locks, cur.ID)
			}
		})
		if ok {
			l.changed(cur, true)
		}
	case opFolders:
		l.setFolders(e.Folders, e.FoldersVersion)
	}
}

// setFolders replaces the explicit folders with a newer version.
func (l *Library) setFolders(folders []string, version int) {
	next := map[string]bool{}
	for _, p := range folders {
		if c, err := CleanFolder(p); err == nil && c != RootFolder {
			next[c] = true
		}
	}
	l.sh.locked(func(p *position, x *index) {
		if version <= p.foldersVersion {
			return
		}
		x.setFolders(next)
		p.foldersVersion = version
	})
}

// appendLog writes e at the next free place of the log. The write has
// already been committed to its sidecar: failing here delays other boxes
// until the next rescan or checkpoint, so the failure is logged, not
// returned.
func (l *Library) appendLog(ctx context.Context, e logEntry) {
	e.At = l.now().UTC()
	e.Box, e.Nonce = l.sh.box, rand.Text()
	data, err := encodeGob(&e)
	if err == nil {
		err = l.appendLogData(context.WithoutCancel(ctx), data)
	}
	if err == nil {
		return
	}
	l.log.Error("media: change not written to the shared log yet; retrying in the background", "op", e.Op, "err", err)
	// The write itself is done (its sidecar is the truth) and was
	// answered: the other boxes must still hear of it within seconds of
	// the bucket answering again, not at the next reconcile (10 min).
	// Appending the same entry late is safe: boxes apply an item's
	// versions, and folder lists, only forward.
	select {
	case <-l.sh.stop:
		return
	default:
	}
	l.sh.bg.Go(func() { l.retryLog(e.Op, data) })
}

// retryLog appends an entry whose first append failed, with a growing
// pause between tries, until it is written or the library closes.
func (l *Library) retryLog(op string, data []byte) {
	wait := logRetryFirst
	for try := 1; ; try++ {
		select {
		case <-l.sh.stop:
			l.log.Error("media: change never written to the shared log; other boxes see it at their next rescan", "op", op)
			return
		case <-time.After(wait):
		}
		ctx, cancel := l.stoppable(time.Minute)
		err := l.appendLogData(ctx, data)
		cancel()
		if err == nil {
			l.log.Info("media: change written to the shared log after retrying", "op", op, "tries", try)
			return
		}
		wait = min(2*wait, logRetryMax)
	}
}

// The pauses between tries of retryLog.
const (
	logRetryFirst = 250 * time.Millisecond
	logRetryMax   = 10 * time.Second
)

// appendLogData appends after the last entry this library knows of: the
// last it applied or the last it appended itself, so that a box that
// writes faster than it polls does not try every place it filled since.
func (l *Library) appendLogData(ctx context.Context, data []byte) error {
	var seq int64
	l.sh.at(func(p *position) { seq = max(p.seq, p.appended) + 1 })
	n, err := l.sh.rep.Append(ctx, seq, data)
	if err == nil {
		l.sh.at(func(p *position) { p.appended = max(p.appended, n) })
	}
	return err
}
