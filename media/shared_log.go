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
func (s *stateSync) follow() {
	t := time.NewTicker(s.poll)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		ctx, cancel := s.stoppable(time.Minute)
		// A failure is logged when it begins and when it ends, not at
		// every poll of a bucket that is down.
		switch err := s.tail(ctx); {
		case err != nil && ctx.Err() == nil && !failing:
			failing = true
			s.log.Warn("media: following the shared library's log failed; retrying every poll", "err", err)
		case err == nil && failing:
			failing = false
			s.log.Info("media: following the shared library's log again")
		}
		if !s.readOnly && ctx.Err() == nil {
			if err := s.maybeCheckpoint(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("media: checkpoint failed", "err", err)
			}
		}
		cancel()
	}
}

// stoppable is a context that ends after d or when the library closes.
func (s *stateSync) stoppable(d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// tail applies the log entries after the last one applied.
func (s *stateSync) tail(ctx context.Context) error {
	s.loopMu.Lock()
	defer s.loopMu.Unlock()
	var seq int64
	s.at(func(p *position) { seq = p.seq })
	err := s.rep.Tail(ctx, seq, func(n int64, data []byte) (bool, error) {
		var e logEntry
		if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&e); err != nil {
			s.log.Error("media: corrupt log entry skipped", "entry", replica.LogKey(n), "err", err)
		} else if e.Op == opRescan {
			// The rescan moves the position past this entry.
			_, err := s.rescanLocked(ctx)
			return true, err
		} else {
			s.apply(&e)
		}
		s.at(func(p *position) { p.seq = n })
		return false, nil
	})
	var behind *replica.BehindError
	if !errors.As(err, &behind) {
		return err
	}
	// The entries between were compacted: start again from the newest
	// checkpoint, which covers them; the next call goes on from there.
	s.log.Info("media: behind the log's compaction; reloading from a checkpoint", "at", behind.At, "next", behind.Next)
	loaded, err := s.loadCheckpointLocked(ctx, behind.At+1)
	if err != nil || loaded {
		return err
	}
	_, err = s.rescanLocked(ctx)
	return err
}

// apply makes one log entry's change in the index, unless the index holds
// it already or something newer (entries of one item can reach the log out
// of the order their sidecar writes won in; Version orders them).
func (s *stateSync) apply(e *logEntry) {
	switch e.Op {
	case opPut:
		if err := checkEntryItem(e.Item); err != nil {
			s.log.Error("media: invalid item in the log skipped", "err", err)
			return
		}
		it := *e.Item
		added := false
		s.locked(func(p *position, x *index) {
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
			s.onChange(&it, false)
		}
	case opDelete:
		if e.Item == nil || !ValidID(e.Item.ID) {
			return
		}
		var cur *Item
		var ok bool
		s.locked(func(p *position, x *index) {
			p.tombs.Bury(e.Item.ID, e.At)
			delete(p.etags, e.Item.ID)
			if cur, ok = x.items[e.Item.ID]; ok {
				x.remove(cur)
				delete(x.locks, cur.ID)
			}
		})
		if ok {
			s.onChange(cur, true)
		}
	case opFolders:
		s.setFolders(e.Folders, e.FoldersVersion)
	}
}

// setFolders replaces the explicit folders with a newer version.
func (s *stateSync) setFolders(folders []string, version int) {
	next := map[string]bool{}
	for _, p := range folders {
		if c, err := CleanFolder(p); err == nil && c != RootFolder {
			next[c] = true
		}
	}
	s.locked(func(p *position, x *index) {
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
func (s *stateSync) appendLog(ctx context.Context, e logEntry) {
	e.At = s.now().UTC()
	e.Box, e.Nonce = s.box, rand.Text()
	data, err := s.entries.encode(&e)
	if err == nil {
		err = s.appendLogData(context.WithoutCancel(ctx), data)
	}
	if err == nil {
		return
	}
	s.log.Error("media: change not written to the shared log yet; retrying in the background", "op", e.Op, "err", err)
	// The write itself is done (its sidecar is the truth) and was
	// answered: the other boxes must still hear of it within seconds of
	// the bucket answering again, not at the next reconcile (10 min).
	// Appending the same entry late is safe: boxes apply an item's
	// versions, and folder lists, only forward.
	select {
	case <-s.stop:
		return
	default:
	}
	s.bg.Go(func() { s.retryLog(e.Op, data) })
}

// retryLog appends an entry whose first append failed, with a growing
// pause between tries, until it is written or the library closes.
func (s *stateSync) retryLog(op string, data []byte) {
	wait := logRetryFirst
	for try := 1; ; try++ {
		select {
		case <-s.stop:
			s.log.Error("media: change never written to the shared log; other boxes see it at their next rescan", "op", op)
			return
		case <-time.After(wait):
		}
		ctx, cancel := s.stoppable(time.Minute)
		err := s.appendLogData(ctx, data)
		cancel()
		if err == nil {
			s.log.Info("media: change written to the shared log after retrying", "op", op, "tries", try)
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
func (s *stateSync) appendLogData(ctx context.Context, data []byte) error {
	var seq int64
	s.at(func(p *position) { seq = max(p.seq, p.appended) + 1 })
	n, err := s.rep.Append(ctx, seq, data)
	if err == nil {
		s.at(func(p *position) { p.appended = max(p.appended, n) })
	}
	return err
}
