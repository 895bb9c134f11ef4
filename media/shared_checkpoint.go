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
func (s *stateSync) loadCheckpoint(ctx context.Context, minSeq int64) (bool, error) {
	s.loopMu.Lock()
	defer s.loopMu.Unlock()
	return s.loadCheckpointLocked(ctx, minSeq)
}

func (s *stateSync) loadCheckpointLocked(ctx context.Context, minSeq int64) (bool, error) {
	newest, err := s.rep.Checkpoints(ctx)
	if err != nil {
		return false, err
	}
	for i := len(newest) - 1; i >= 0; i-- {
		if newest[i] < minSeq {
			break
		}
		doc, err := s.readCheckpoint(ctx, newest[i])
		if errors.Is(err, ErrNotExist) {
			continue
		}
		if err != nil {
			s.log.Error("media: checkpoint unreadable; trying an older one", "seq", newest[i], "err", err)
			continue
		}
		items := make([]*Item, 0, len(doc.Items))
		for i := range doc.Items {
			if err := checkEntryItem(&doc.Items[i]); err != nil {
				s.log.Error("media: invalid item in a checkpoint skipped", "id", doc.Items[i].ID, "err", err)
				continue
			}
			items = append(items, compacted(&doc.Items[i]))
		}
		s.replaceAll(items, doc.ETags, doc.Folders, doc.FoldersVersion, doc.Tombs, doc.Seq)
		s.at(func(p *position) { p.checkpointSeq, p.checkpointAt = doc.Seq, doc.At })
		return true, nil
	}
	return false, nil
}

func (s *stateSync) readCheckpoint(ctx context.Context, seq int64) (*checkpointDoc, error) {
	r, err := s.rep.OpenCheckpoint(ctx, seq)
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
// the newest one, then compacts; not in the first checkpointQuiet after
// Open.
func (s *stateSync) maybeCheckpoint(ctx context.Context) error {
	now := s.now()
	var behind int64
	var old, quiet bool
	s.at(func(p *position) {
		behind = p.seq - p.checkpointSeq
		old = now.Sub(p.checkpointAt) > checkpointAge
		quiet = now.Before(p.quietUntil)
	})
	if quiet || behind <= 0 || (behind < checkpointEvery && !old) {
		return nil
	}
	return s.checkpoint(ctx)
}

// checkpoint is Library.Checkpoint.
func (s *stateSync) checkpoint(ctx context.Context) error {
	if s.readOnly {
		return nil
	}
	s.loopMu.Lock()
	defer s.loopMu.Unlock()
	at := s.now().UTC()
	var doc checkpointDoc
	s.lockedRead(func(p *position, x *index) {
		doc = checkpointDoc{
			Seq:            p.seq,
			Items:          make([]Item, 0, len(x.items)),
			FoldersVersion: p.foldersVersion,
			ETags:          make(map[string]string, len(x.items)),
			At:             at,
		}
		for id, it := range x.items {
			doc.Items = append(doc.Items, *it)
			if tag, ok := p.etags[id]; ok {
				doc.ETags[id] = tag
			}
		}
		for f := range x.explicit {
			doc.Folders = append(doc.Folders, f)
		}
		doc.Tombs = p.tombs.Recent(doc.At)
	})
	if doc.Seq == 0 {
		return nil
	}
	slices.SortFunc(doc.Items, func(a, b Item) int { return strings.Compare(a.ID, b.ID) })
	slices.Sort(doc.Folders)
	err := s.rep.WriteCheckpoint(ctx, doc.Seq, func(w io.Writer) error {
		return gob.NewEncoder(w).Encode(&doc)
	})
	if err != nil {
		return err
	}
	s.at(func(p *position) { p.checkpointSeq, p.checkpointAt = doc.Seq, doc.At })
	return s.rep.Compact(ctx, logRetain)
}
