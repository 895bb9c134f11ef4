package media

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/gob"
	"errors"
	"slices"
	"strings"
	"time"
)

// loadCheckpoint replaces the index with the newest checkpoint, if there
// is one at or after minSeq. It reports whether it found one.
func (l *Library) loadCheckpoint(ctx context.Context, minSeq int64) (bool, error) {
	l.sh.loopMu.Lock()
	defer l.sh.loopMu.Unlock()
	return l.loadCheckpointLocked(ctx, minSeq)
}

func (l *Library) loadCheckpointLocked(ctx context.Context, minSeq int64) (bool, error) {
	newest, err := l.checkpoints(ctx)
	if err != nil {
		return false, err
	}
	for i := len(newest) - 1; i >= 0; i-- {
		if newest[i] < minSeq {
			break
		}
		doc, err := l.readCheckpoint(ctx, newest[i])
		if errors.Is(err, ErrNotExist) {
			continue
		}
		if err != nil {
			l.log.Error("media: checkpoint unreadable; trying an older one", "seq", newest[i], "err", err)
			continue
		}
		items := make([]*Item, 0, len(doc.Items))
		for i := range doc.Items {
			if err := checkEntryItem(&doc.Items[i]); err != nil {
				l.log.Error("media: invalid item in a checkpoint skipped", "id", doc.Items[i].ID, "err", err)
				continue
			}
			items = append(items, compacted(&doc.Items[i]))
		}
		l.replaceAll(items, doc.ETags, doc.Folders, doc.FoldersVersion, doc.Tombs, doc.Seq)
		l.mu.Lock()
		l.sh.checkpointSeq, l.sh.checkpointAt = doc.Seq, doc.At
		l.mu.Unlock()
		return true, nil
	}
	return false, nil
}

// checkpoints lists the sequence numbers of the checkpoints, oldest first.
func (l *Library) checkpoints(ctx context.Context) ([]int64, error) {
	var out []int64
	err := l.sh.st.List(ctx, stateCheckpoints, "", func(o StateObject) error {
		if n, ok := seqOf(o.Key, stateCheckpoints); ok {
			out = append(out, n)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

func (l *Library) readCheckpoint(ctx context.Context, seq int64) (*checkpointDoc, error) {
	data, _, err := l.sh.st.Get(ctx, checkpointStateKey(seq))
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var doc checkpointDoc
	if err := gob.NewDecoder(zr).Decode(&doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// maybeCheckpoint writes a checkpoint when the log has grown enough since
// the newest one, then compacts.
func (l *Library) maybeCheckpoint(ctx context.Context) error {
	l.mu.RLock()
	behind := l.sh.seq - l.sh.checkpointSeq
	old := l.now().Sub(l.sh.checkpointAt) > checkpointAge
	l.mu.RUnlock()
	if behind <= 0 || (behind < checkpointEvery && !old) {
		return nil
	}
	return l.Checkpoint(ctx)
}

// Checkpoint writes the whole library, as of the last log entry applied,
// as one object, so that a new box starts from it instead of reading every
// sidecar; then it deletes the log entries and checkpoints that the one
// before it covers (kept for logRetain, for boxes polling behind).
func (l *Library) Checkpoint(ctx context.Context) error {
	if l.sh == nil || l.cfg.ReadOnly {
		return nil
	}
	l.sh.loopMu.Lock()
	defer l.sh.loopMu.Unlock()
	l.mu.RLock()
	doc := checkpointDoc{
		Seq:            l.sh.seq,
		Items:          make([]Item, 0, len(l.items)),
		FoldersVersion: l.sh.foldersVersion,
		Tombs:          make(map[string]time.Time, len(l.sh.tombs)),
		ETags:          make(map[string]string, len(l.items)),
		At:             l.now().UTC(),
	}
	for id, it := range l.items {
		doc.Items = append(doc.Items, *it)
		if tag, ok := l.sh.etags[id]; ok {
			doc.ETags[id] = tag
		}
	}
	for p := range l.explicit {
		doc.Folders = append(doc.Folders, p)
	}
	for id, at := range l.sh.tombs {
		if doc.At.Sub(at) < tombRetain {
			doc.Tombs[id] = at
		}
	}
	l.mu.RUnlock()
	if doc.Seq == 0 {
		return nil
	}
	slices.SortFunc(doc.Items, func(a, b Item) int { return strings.Compare(a.ID, b.ID) })
	slices.Sort(doc.Folders)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err := gob.NewEncoder(zw).Encode(&doc); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if _, err := l.sh.st.Create(ctx, checkpointStateKey(doc.Seq), buf.Bytes()); err != nil && !errors.Is(err, ErrPrecondition) {
		return err
	}
	l.mu.Lock()
	l.sh.checkpointSeq, l.sh.checkpointAt = doc.Seq, doc.At
	l.mu.Unlock()
	return l.compact(ctx)
}

// compact deletes what the second newest checkpoint covers: older
// checkpoints, and log entries up to it written over logRetain ago.
func (l *Library) compact(ctx context.Context) error {
	cps, err := l.checkpoints(ctx)
	if err != nil || len(cps) < 2 {
		return err
	}
	keep := cps[len(cps)-2]
	for _, n := range cps[:len(cps)-2] {
		if err := l.sh.st.Delete(ctx, checkpointStateKey(n)); err != nil {
			return err
		}
	}
	cutoff := l.now().Add(-logRetain)
	var old []string
	if err := l.sh.st.List(ctx, stateLog, "", func(o StateObject) error {
		n, ok := seqOf(o.Key, stateLog)
		if !ok || n > keep {
			return errStopList
		}
		if o.LastModified.Before(cutoff) {
			old = append(old, o.Key)
		}
		return nil
	}); err != nil && !errors.Is(err, errStopList) {
		return err
	}
	for _, k := range old {
		if err := l.sh.st.Delete(ctx, k); err != nil {
			return err
		}
	}
	return nil
}
