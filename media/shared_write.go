package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/media/replica"
)

// claimKeys claims every key for owner in the bucket, all or none; it
// fails with a *replica.KeyTakenError when another item or upload holds
// one of the keys.
func (s *stateSync) claimKeys(ctx context.Context, owner string, keys []string) error {
	err := s.rep.Claim(ctx, owner, keys)
	var taken *replica.KeyTakenError
	if err != nil && !errors.As(err, &taken) {
		return storageError(err)
	}
	return err
}

// claimKeysDeferred is claimKeys whose claims' names syncNames makes
// durable, when the state can (replica.ClaimDeferred): syncNames must
// return nil before any object of keys is made.
func (s *stateSync) claimKeysDeferred(ctx context.Context, owner string, keys []string) (syncNames func(context.Context) error, err error) {
	sync, err := s.rep.ClaimDeferred(ctx, owner, keys)
	var taken *replica.KeyTakenError
	if err != nil && !errors.As(err, &taken) {
		return nil, storageError(err)
	}
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		if err := sync(ctx); err != nil {
			return storageError(err)
		}
		return nil
	}, nil
}

// releaseClaims deletes claims, best effort: a claim left behind only
// keeps a name from being used.
func (s *stateSync) releaseClaims(ctx context.Context, keys []string) {
	s.rep.Release(ctx, keys)
}

// sidecarAhead is the sidecar of a new item whose bytes are being made
// durable ahead of its create (PreparedCreator), beside other work.
type sidecarAhead struct {
	done chan struct{}
	data []byte
	obj  PreparedObject
	err  error
	// syncer syncs obj (sync) when it was written without a sync
	// (prepareSidecarUnsynced); nil when PrepareCreate synced it.
	syncer UnsyncedPreparer
}

// prepareSidecar starts making it's sidecar durable ahead of commit; nil
// when the state cannot. it must not change until commit.
func (s *stateSync) prepareSidecar(it *Item) *sidecarAhead {
	pc, ok := s.st.(PreparedCreator)
	if !ok {
		return nil
	}
	sa := &sidecarAhead{done: make(chan struct{})}
	go func() {
		defer close(sa.done)
		if sa.data, sa.err = encodeSidecar(it); sa.err == nil {
			sa.obj, sa.err = pc.PrepareCreate(sa.data)
		}
	}()
	return sa
}

// prepareSidecarUnsynced is prepareSidecar whose bytes are written and
// not synced, when the state can (UnsyncedPreparer): written reports
// when they are, and sync makes them durable, which it must before
// commit. nil when the state cannot prepare at all; when it can only
// prepare with a sync, sync does nothing.
func (s *stateSync) prepareSidecarUnsynced(it *Item) *sidecarAhead {
	up, ok := s.st.(UnsyncedPreparer)
	if !ok {
		return s.prepareSidecar(it)
	}
	sa := &sidecarAhead{done: make(chan struct{}), syncer: up}
	go func() {
		defer close(sa.done)
		if sa.data, sa.err = encodeSidecar(it); sa.err == nil {
			sa.obj, sa.err = up.PrepareCreateUnsynced(sa.data)
		}
	}()
	return sa
}

// sync makes the prepared bytes durable, once they are written (wait).
func (sa *sidecarAhead) sync() error {
	_, obj, err := sa.wait()
	if err != nil || sa.syncer == nil {
		return err
	}
	return sa.syncer.SyncPrepared(obj)
}

// wait is the prepared sidecar's outcome.
func (sa *sidecarAhead) wait() ([]byte, PreparedObject, error) {
	<-sa.done
	return sa.data, sa.obj, sa.err
}

// discard drops the prepared bytes unless commit took them; nil does
// nothing.
func (sa *sidecarAhead) discard() {
	if sa == nil {
		return
	}
	if _, obj, err := sa.wait(); err == nil {
		obj.Discard()
	}
}

// commit creates the sidecar of a new item (prepared ahead when side is
// not nil), adds it to the index and logs it.
func (s *stateSync) commit(ctx context.Context, it *Item, side *sidecarAhead) error {
	var data []byte
	var tag string
	var err error
	if side != nil {
		var obj PreparedObject
		if data, obj, err = side.wait(); err != nil {
			return fmt.Errorf("media: write sidecar: %w", storageError(err))
		}
		tag, err = s.st.(PreparedCreator).CreatePrepared(ctx, itemStateKey(it.ID), obj)
	} else {
		if data, err = encodeSidecar(it); err != nil {
			return err
		}
		tag, err = s.st.Create(ctx, itemStateKey(it.ID), data)
	}
	if errors.Is(err, ErrPrecondition) {
		// The id is new and random: a sidecar already there is this very
		// write, made by an attempt whose answer a reset or a timeout lost
		// before the client retried it. Its bytes tell.
		if got, gtag, gerr := s.st.Get(ctx, itemStateKey(it.ID)); gerr == nil && bytes.Equal(got, data) {
			tag, err = gtag, nil
		}
	}
	if err != nil {
		return fmt.Errorf("media: write sidecar: %w", storageError(err))
	}
	e := logEntry{Op: opPut, Item: it, ETag: tag}
	s.apply(&e)
	s.appendLog(ctx, e)
	return nil
}

// swapSidecar reads the sidecar of id afresh, makes its next version with
// change and writes that back with a compare-and-swap, reading again while
// other boxes change or delete it (at most casRetries times); the swap is
// applied and logged. It returns the new item and the one it replaced.
// maybeWritten tells an error of the write itself, after which the swap
// may have happened all the same.
func (s *stateSync) swapSidecar(ctx context.Context, id string, change func(cur *Item) (*Item, error)) (next, cur *Item, maybeWritten bool, err error) {
	for range casRetries {
		data, etag, err := s.st.Get(ctx, itemStateKey(id))
		if errors.Is(err, ErrNotExist) {
			return nil, nil, false, errorf(ErrNotFound, "media item not found")
		}
		if err != nil {
			return nil, nil, false, storageError(err)
		}
		cur, err := decodeSharedSidecar(id, data)
		if err != nil {
			return nil, nil, false, fmt.Errorf("media: sidecar of %s: %w", id, err)
		}
		next, err := change(cur)
		if err != nil {
			return nil, nil, false, err
		}
		out, err := encodeSidecar(next)
		if err != nil {
			return nil, nil, false, err
		}
		tag, err := s.st.Replace(ctx, itemStateKey(id), out, etag)
		if errors.Is(err, ErrPrecondition) || errors.Is(err, ErrNotExist) {
			continue // changed or deleted meanwhile: read again
		}
		if err != nil {
			return nil, nil, true, fmt.Errorf("media: write sidecar: %w", storageError(err))
		}
		e := logEntry{Op: opPut, Item: next, ETag: tag}
		s.apply(&e)
		s.appendLog(ctx, e)
		return next, cur, false, nil
	}
	return nil, nil, false, errorf(ErrConflict, "media item is being changed by others; try again")
}

// foldersShared changes the folder list in the bucket with a compare-and-
// swap: edit gets the index, inside the catalog's lock held for reading,
// after it has taken in the list as the bucket has it (index.explicit),
// and returns the new list or an error.
func (s *stateSync) foldersShared(ctx context.Context, edit func(x *index) (map[string]bool, error)) error {
	for range casRetries {
		fs, etag, err := s.readFolders(ctx)
		if err != nil {
			return storageError(err)
		}
		s.setFolders(fs.Folders, fs.Version)
		var next map[string]bool
		s.cat.read(func(x *index) { next, err = edit(x) })
		if err != nil {
			return err
		}
		doc := foldersState{Version: fs.Version + 1}
		for p := range next {
			doc.Folders = append(doc.Folders, p)
		}
		slices.Sort(doc.Folders)
		data, err := yaml.Marshal(&doc)
		if err != nil {
			return err
		}
		if etag == "" {
			_, err = s.st.Create(ctx, stateFolders, data)
		} else {
			_, err = s.st.Replace(ctx, stateFolders, data, etag)
		}
		if errors.Is(err, ErrPrecondition) || errors.Is(err, ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("media: save folders: %w", storageError(err))
		}
		s.setFolders(doc.Folders, doc.Version)
		s.appendLog(ctx, logEntry{Op: opFolders, Folders: doc.Folders, FoldersVersion: doc.Version})
		return nil
	}
	return errorf(ErrConflict, "the folder list is being changed by others; try again")
}
