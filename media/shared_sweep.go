package media

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/folio-cms/folio/media/replica"
)

// Housekeeping of a shared library, done in the background.
const (
	// reconcileEvery is how often a box compares the sidecars in the
	// bucket with its index, for writes whose log entry was never written
	// (a writer that died between the sidecar and the log).
	reconcileEvery = 10 * time.Minute
	// claimStale is how old a claim must be before the sweep may take it
	// for a leftover: an upload holds its claims from after its body is
	// received until its sidecar is written.
	claimStale = time.Hour
	// presignRetain keeps the claim of a presigned upload past its grant's
	// expiry, as the grants are kept.
	presignRetain = 24 * time.Hour
)

// housekeepLoop runs reconcile on every box, and the claim sweep on
// writers, every reconcileEvery until Close.
func (s *stateSync) housekeepLoop() {
	t := time.NewTicker(reconcileEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		ctx, cancel := s.stoppable(reconcileEvery)
		s.housekeep(ctx)
		cancel()
	}
}

func (s *stateSync) housekeep(ctx context.Context) {
	if _, err := s.reconcile(ctx); err != nil {
		s.log.Warn("media: reconciling with the bucket failed", "err", err)
		return
	}
	if !s.readOnly {
		if err := s.sweepClaims(ctx, false); err != nil {
			s.log.Warn("media: sweeping leftover claims failed", "err", err)
		}
	}
}

// reconcile lists the sidecars in the bucket and applies those whose tag
// the index does not know, and the deletes of those gone, and reads the
// folder list: what the log missed. It returns the changes it applied, as
// log entries. A listing costs one request per thousand items.
func (s *stateSync) reconcile(ctx context.Context) ([]logEntry, error) {
	listed, err := s.listSidecars(ctx)
	if err != nil {
		return nil, err
	}
	return s.reconcileListed(ctx, listed)
}

// listSidecars lists the sidecars in the bucket: item id to tag.
func (s *stateSync) listSidecars(ctx context.Context) (map[string]string, error) {
	listed := map[string]string{}
	err := s.st.List(ctx, stateItems, "", func(o StateObject) error {
		if id, ok := strings.CutSuffix(strings.TrimPrefix(o.Key, stateItems), ".yaml"); ok && ValidID(id) {
			listed[id] = o.ETag
		}
		return nil
	})
	return listed, err
}

// sidecarListing is a listSidecars running beside a start's other work
// (see openShared).
type sidecarListing struct {
	done   chan struct{}
	listed map[string]string
	err    error
}

func (s *stateSync) listSidecarsAsync(ctx context.Context) *sidecarListing {
	sl := &sidecarListing{done: make(chan struct{})}
	go func() {
		defer close(sl.done)
		sl.listed, sl.err = s.listSidecars(ctx)
	}()
	return sl
}

// listedAlready is a listing made by other means (a rescan's reads).
func listedAlready(listed map[string]string) *sidecarListing {
	sl := &sidecarListing{done: make(chan struct{}), listed: listed}
	close(sl.done)
	return sl
}

// wait is the listing's outcome once it is done; nil waits for nothing.
func (sl *sidecarListing) wait() (map[string]string, error) {
	if sl == nil {
		return nil, nil
	}
	<-sl.done
	return sl.listed, sl.err
}

// reconcileListed is reconcile with its listing made already.
func (s *stateSync) reconcileListed(ctx context.Context, listed map[string]string) ([]logEntry, error) {
	var applied []logEntry
	fs, _, err := s.readFolders(ctx)
	if err != nil {
		return nil, err
	}
	var newer bool
	s.at(func(p *position) { newer = fs.Version > p.foldersVersion })
	if newer {
		e := logEntry{Op: opFolders, Folders: fs.Folders, FoldersVersion: fs.Version}
		s.apply(&e)
		applied = append(applied, e)
	}
	var fetch, gone []string
	s.lockedRead(func(p *position, x *index) {
		for id, tag := range listed {
			if p.etags[id] != tag {
				fetch = append(fetch, id)
			}
		}
		for id := range x.items {
			if _, ok := listed[id]; !ok {
				gone = append(gone, id)
			}
		}
	})
	for _, id := range fetch {
		data, tag, err := s.st.Get(ctx, itemStateKey(id))
		if errors.Is(err, ErrNotExist) {
			continue
		}
		if err != nil {
			return applied, err
		}
		it, err := decodeSharedSidecar(id, data)
		if err != nil {
			s.log.Error("media: corrupt sidecar in the bucket; item skipped", "id", id, "err", err)
			continue
		}
		e := logEntry{Op: opPut, Item: it, ETag: tag}
		s.apply(&e)
		applied = append(applied, e)
	}
	for _, id := range gone {
		var cur *Item
		s.cat.read(func(x *index) { cur = x.items[id] })
		_, _, err := s.st.Get(ctx, itemStateKey(id))
		if errors.Is(err, ErrNotExist) && cur != nil {
			e := logEntry{Op: opDelete, Item: cur, At: s.now().UTC()}
			s.apply(&e)
			applied = append(applied, e)
		} else if err != nil && !errors.Is(err, ErrNotExist) {
			return applied, err
		}
	}
	if len(fetch)+len(gone) > 0 || newer {
		s.log.Info("media: reconciled with the bucket", "read", len(fetch), "gone", len(gone), "folders", newer)
	}
	return applied, nil
}

// sweepClaims removes what interrupted writes left: a claim older than
// claimStale (of any age with anyAge) whose key no item owns (and no
// presigned upload still may), with the object under that key
// (replica.SweepClaims).
func (s *stateSync) sweepClaims(ctx context.Context, anyAge bool) error {
	return s.rep.SweepClaims(ctx, replica.Sweep{
		Stale:         claimStale,
		AnyAge:        anyAge,
		PresignRetain: presignRetain,
		Held: func(k string) (held bool) {
			s.cat.read(func(x *index) {
				_, owned := x.claimed[k]
				_, reserved := x.reserved[k]
				held = owned || reserved
			})
			return held
		},
		Unloaded: func(ctx context.Context, owner string) (bool, error) {
			var loaded bool
			s.cat.read(func(x *index) { _, loaded = x.items[owner] })
			if loaded || !ValidID(owner) {
				return false, nil
			}
			_, _, err := s.st.Get(ctx, itemStateKey(owner))
			if errors.Is(err, ErrNotExist) {
				return false, nil
			}
			return err == nil, err
		},
		Valid:        checkAdoptKey,
		DeleteObject: s.storage.Delete,
		Unreadable:   s.unreadableClaim(),
	})
}

// foldedKeys is implemented by a storage that can list the keys a claim's
// name (a key in lower case) stands for (media/local.Storage).
type foldedKeys interface {
	KeysFolded(ctx context.Context, lowerKey string) ([]string, error)
}

// unreadableClaim settles, for the sweep at the only writer's start after
// a crash, a claim whose bytes the crash lost (claims are created with
// their names synced only, see openShared) and that no item holds: a
// write the crash cut off before its sidecar, so its objects go. Nil when
// the storage cannot list a claim's objects: such claims are left alone.
func (s *stateSync) unreadableClaim() func(ctx context.Context, lowerKey string) error {
	fk, ok := s.storage.(foldedKeys)
	if !ok || !s.exclusive {
		return nil
	}
	return func(ctx context.Context, lowerKey string) error {
		keys, err := fk.KeysFolded(ctx, lowerKey)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := s.storage.Delete(ctx, k); err != nil {
				return err
			}
		}
		return nil
	}
}
