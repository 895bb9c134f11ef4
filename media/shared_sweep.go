package media

import (
	"context"
	"errors"
	"strings"
	"time"
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

// claimBody is what a claim holds: its owner (an item id, or "presign
// <expiry>") and the storage key in its case (the claim's name is lower
// case).
func claimBody(owner, key string) []byte { return []byte(owner + "\n" + key) }

func parseClaim(b []byte) (owner, key string, ok bool) {
	owner, key, ok = strings.Cut(string(b), "\n")
	return owner, key, ok && key != ""
}

// housekeepLoop runs reconcile on every box, and the claim sweep on
// writers, every reconcileEvery until Close.
func (l *Library) housekeepLoop() {
	t := time.NewTicker(reconcileEvery)
	defer t.Stop()
	for {
		select {
		case <-l.sh.stop:
			return
		case <-t.C:
		}
		ctx, cancel := l.stoppable(reconcileEvery)
		l.housekeep(ctx)
		cancel()
	}
}

func (l *Library) housekeep(ctx context.Context) {
	if err := l.reconcile(ctx); err != nil {
		l.log.Warn("media: reconciling with the bucket failed", "err", err)
		return
	}
	if !l.cfg.ReadOnly {
		if err := l.sweepClaims(ctx); err != nil {
			l.log.Warn("media: sweeping leftover claims failed", "err", err)
		}
	}
}

// reconcile lists the sidecars in the bucket and applies those whose tag
// the index does not know, and the deletes of those gone: what the log
// missed. A listing costs one request per thousand items.
func (l *Library) reconcile(ctx context.Context) error {
	listed := map[string]string{}
	if err := l.sh.st.List(ctx, stateItems, "", func(o StateObject) error {
		if id, ok := strings.CutSuffix(strings.TrimPrefix(o.Key, stateItems), ".yaml"); ok && ValidID(id) {
			listed[id] = o.ETag
		}
		return nil
	}); err != nil {
		return err
	}
	var fetch, gone []string
	l.mu.RLock()
	for id, tag := range listed {
		if l.sh.etags[id] != tag {
			fetch = append(fetch, id)
		}
	}
	for id := range l.items {
		if _, ok := listed[id]; !ok {
			gone = append(gone, id)
		}
	}
	l.mu.RUnlock()
	for _, id := range fetch {
		data, tag, err := l.sh.st.Get(ctx, itemStateKey(id))
		if errors.Is(err, ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		it, err := decodeSharedSidecar(id, data)
		if err != nil {
			l.log.Error("media: corrupt sidecar in the bucket; item skipped", "id", id, "err", err)
			continue
		}
		l.apply(&logEntry{Op: opPut, Item: it, ETag: tag})
	}
	for _, id := range gone {
		_, _, err := l.sh.st.Get(ctx, itemStateKey(id))
		if errors.Is(err, ErrNotExist) {
			l.apply(&logEntry{Op: opDelete, Item: &Item{ID: id}, At: l.now().UTC()})
		} else if err != nil {
			return err
		}
	}
	if len(fetch)+len(gone) > 0 {
		l.log.Info("media: reconciled with the bucket", "read", len(fetch), "gone", len(gone))
	}
	return nil
}

// sweepClaims removes what interrupted writes left: a claim older than
// claimStale whose key no item owns (and no presigned upload still may),
// with the object under that key. It is the shared library's intent
// mechanism: a claim is written before any object, and the sidecar is the
// commit point.
func (l *Library) sweepClaims(ctx context.Context) error {
	var old []string
	cutoff := l.now().Add(-claimStale)
	if err := l.sh.st.List(ctx, stateClaims, "", func(o StateObject) error {
		if !o.LastModified.Before(cutoff) {
			return nil
		}
		// A claim is named by its key in lower case, as l.claimed is
		// keyed: the claims of known items need no read.
		l.mu.RLock()
		_, owned := l.claimed[strings.TrimPrefix(o.Key, stateClaims)]
		l.mu.RUnlock()
		if !owned {
			old = append(old, o.Key)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, ck := range old {
		data, _, err := l.sh.st.Get(ctx, ck)
		if errors.Is(err, ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		owner, key, ok := parseClaim(data)
		if !ok || claimStateKey(key) != ck || checkAdoptKey(key) != nil {
			l.log.Warn("media: malformed claim left alone", "claim", ck)
			continue
		}
		l.mu.RLock()
		_, owned := l.claimed[claimKey(key)]
		_, reserved := l.reserved[claimKey(key)]
		l.mu.RUnlock()
		if owned || reserved {
			continue
		}
		if exp, ok := strings.CutPrefix(owner, "presign "); ok {
			t, err := time.Parse(time.RFC3339, exp)
			if err == nil && l.now().Before(t.Add(presignRetain)) {
				continue
			}
		}
		if err := l.cfg.Storage.Delete(ctx, key); err != nil {
			return err
		}
		if err := l.sh.st.Delete(ctx, ck); err != nil {
			return err
		}
		l.log.Warn("media: leftover of an interrupted write removed", "key", key)
	}
	return nil
}
