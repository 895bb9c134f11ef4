package media

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"time"

	"github.com/folio-cms/folio/media/replica"
)

// spoolPrefix begins the name of an upload spooled in tmpDir; the item's
// id follows.
const spoolPrefix = "upload-"

// createSpooled stores an upload of one file, spooled in tmpDir, on a
// storage that can keep it there and link it to its key (SpoolLinker),
// and commits it: it is Create's write path for a file with no
// derivative (a PDF, a video, an image too small for one). It waits for
// two rounds of syncs where store waits for three:
//
//  1. the claim of its key and the sidecar's bytes under a temporary
//     name are written without a sync (and the spooled file readied);
//     then at once: the spooled file's bytes and its name in tmpDir
//     (upload-<id>), the claim's name (a sync of the claims' folder),
//     and the sidecar's bytes;
//  2. the key linked to the spooled file (no sync) and the sidecar
//     created (the commit point), then at once: the sidecar's folder and
//     the key's folder.
//
// No sync of the first round begins before all its files and names are
// made: on ext4 a sync that begins while another file is still being
// written is served by a second commit of the journal after the first
// (about twice the round's time on the benchmark's disk).
//
// The spooled name is removed after both. What a crash leaves:
//   - before the sidecar is durable: a spooled file no sidecar names,
//     which the next start removes (cleanTmp), and perhaps the claim and
//     the key's name, which the start after a crash sweeps (the claim's
//     name was durable before the key was linked, as store makes it
//     durable before an object's name);
//   - after: the sidecar, and the key's name or, when a crash of the
//     machine lost that (its folder not yet synced), the spooled name,
//     durable since round 1, which the next start links to the key
//     (cleanTmp).
//
// Every write answered survives a crash of the machine, as with store:
// the key's folder is synced before Create returns.
func (l *Library) createSpooled(ctx context.Context, sl SpoolLinker, orig *original, it *Item, name string, p *processed) (*Item, error) {
	if err := sl.PrepareSpooled(orig.file); err != nil {
		return nil, storageError(err)
	}
	side, syncClaims, err := l.reserveSpooled(ctx, it, name, p)
	if err != nil {
		return nil, err
	}
	defer l.release(it.Key, nil)
	defer side.discard()
	fail := func(err error, linked bool) (*Item, error) {
		if linked {
			l.deleteObjects(ctx, []string{it.Key}, "object of a failed write (its claim stays for the sweep)")
		}
		l.sync.releaseClaims(ctx, l.unstored(ctx, []string{it.Key}))
		return nil, err
	}
	if err := syncFirstRound(ctx, sl, orig, side, syncClaims); err != nil {
		return fail(err, false)
	}
	if err := sl.LinkSpooled(ctx, it.Key, orig.file); err != nil {
		return fail(storageError(err), false)
	}
	folder := make(chan error, 1)
	go func() { folder <- sl.SyncFolders(context.WithoutCancel(ctx), []string{it.Key}) }()
	if err := l.commitNew(ctx, it, side); err != nil {
		<-folder
		return fail(err, true)
	}
	if err := <-folder; err != nil {
		// Committed: the spooled name, durable, stands for the key until
		// the next start links it again.
		orig.moved = true
		l.log.Warn("media: the folder of an upload not synced; its spooled file is kept for the next start", "key", it.Key, "err", err)
	}
	return l.view(it), nil
}

// syncFirstRound is createSpooled's first round of syncs, once the
// sidecar's bytes are written: the spooled file's bytes and name, the
// claims' names and the sidecar's bytes, all at once. It returns when all
// are done.
func syncFirstRound(ctx context.Context, sl SpoolLinker, orig *original, side *sidecarAhead, syncClaims func(context.Context) error) error {
	if side != nil {
		if _, _, err := side.wait(); err != nil {
			return fmt.Errorf("media: write sidecar: %w", storageError(err))
		}
	}
	var spoolErr, claimErr error
	var wg sync.WaitGroup
	wg.Go(func() { spoolErr = sl.SyncSpooled(orig.file) })
	wg.Go(func() { claimErr = syncClaims(ctx) })
	var sideErr error
	if side != nil {
		sideErr = side.sync()
	}
	wg.Wait()
	switch {
	case spoolErr != nil:
		return storageError(spoolErr)
	case claimErr != nil:
		return claimErr
	case sideErr != nil:
		return fmt.Errorf("media: write sidecar: %w", storageError(sideErr))
	}
	return nil
}

// reserveSpooled picks a free name for it (its Key and Filename set) and
// claims it, as reserveShared does, with the bytes of its sidecar written
// beside the claim (prepareSidecarUnsynced: nil when the state cannot).
// Neither is synced yet where the state can defer it: syncClaims makes
// the claim's name durable, the sidecar's sync its bytes (syncFirstRound).
// it must not change afterwards until commit.
func (l *Library) reserveSpooled(ctx context.Context, it *Item, name string, p *processed) (side *sidecarAhead, syncClaims func(context.Context) error, err error) {
	for range 64 {
		key, _ := l.reserveName(name, p)
		it.Key, it.Filename = key, path.Base(key)
		side := l.sync.prepareSidecarUnsynced(it)
		syncClaims, err := l.sync.claimKeysDeferred(ctx, it.ID, []string{key})
		if err == nil {
			return side, syncClaims, nil
		}
		side.discard() // waits for the sidecar's goroutine, which reads it
		l.release(key, nil)
		var taken *replica.KeyTakenError
		if !errors.As(err, &taken) {
			return nil, nil, err
		}
		l.reserveUntil(taken.Key, l.now().Add(time.Hour))
	}
	return nil, nil, errors.New("media: no free name found")
}
