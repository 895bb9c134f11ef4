package media

import (
	"context"
	"encoding/gob"
	"errors"
	"io"
	"slices"
	"strings"
)

// loadCheckpoint replaces the index with the newest checkpoint, if there
// is one at or after minSeq. It reports whether it found one.
func (l *Library) loadCheckpoint(ctx context.Context, minSeq int64) (bool, error) {
	l.sh.loopMu.Lock()
	defer l.sh.loopMu.Unlock()
	return l.loadCheckpointLocked(ctx, minSeq)
}

func (l *Library) loadCheckpointLocked(ctx context.Context, minSeq int64) (bool, error) {
	newest, err := l.sh.rep.Checkpoints(ctx)
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

func (l *Library) readCheckpoint(ctx context.Context, seq int64) (*checkpointDoc, error) {
	r, err := l.sh.rep.OpenCheckpoint(ctx, seq)
	if err != nil {
		return nil, err
	}
	var doc checkpointDoc
	if err := gob.NewDecoder(r).Decode(&doc); err != nil {
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
	if l.cfg.ReadOnly {
		return nil
	}
	l.sh.loopMu.Lock()
	defer l.sh.loopMu.Unlock()
	l.mu.RLock()
	doc := checkpointDoc{
		Seq:            l.sh.seq,
		Items:          make([]Item, 0, len(l.items)),
		FoldersVersion: l.sh.foldersVersion,
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
	doc.Tombs = l.sh.tombs.Recent(doc.At)
	l.mu.RUnlock()
	if doc.Seq == 0 {
		return nil
	}
	slices.SortFunc(doc.Items, func(a, b Item) int { return strings.Compare(a.ID, b.ID) })
	slices.Sort(doc.Folders)
	err := l.sh.rep.WriteCheckpoint(ctx, doc.Seq, func(w io.Writer) error {
		return gob.NewEncoder(w).Encode(&doc)
	})
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.sh.checkpointSeq, l.sh.checkpointAt = doc.Seq, doc.At
	l.mu.Unlock()
	return l.sh.rep.Compact(ctx, logRetain)
}
