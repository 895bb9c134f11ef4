package media

import (
	"context"
	"errors"
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
//  1. at once: the spooled file's bytes and its name in tmpDir
//     (upload-<id>), the claim of its key (a sync of the claims' folder),
//     and the sidecar's bytes under a temporary name;
//  2. the key linked to the spooled file (no sync) and the sidecar
//     created (the commit point), then at once: the sidecar's folder and
//     the key's folder.
//
// The spooled name is removed after both. What a crash leaves:
//   - before the sidecar is durable: a spooled file no sidecar names,
//     which the next start removes (cleanTmp), and perhaps the claim and
//     the key's name, which the start after a crash sweeps (the claim was
//     durable before the key was linked, as store makes it durable
//     before an object's name);
//   - after: the sidecar, and the key's name or, when a crash of the
//     machine lost that (its folder not yet synced), the spooled name,
//     durable since round 1, which the next start links to the key
//     (cleanTmp).
//
// Every write answered survives a crash of the machine, as with store:
// the key's folder is synced before Create returns.
func (l *Library) createSpooled(ctx context.Context, sl SpoolLinker, orig *original, it *Item, name string, p *processed) (*Item, error) {
	synced := make(chan error, 1)
	go func() { synced <- sl.SyncSpooled(orig.file) }()
	waitSynced := sync.OnceValue(func() error { return <-synced })
	defer waitSynced() // before the file is closed
	side, err := l.reserveSpooled(ctx, it, name, p)
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
	if err := waitSynced(); err != nil {
		return fail(storageError(err), false)
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

// reserveSpooled picks a free name for it (its Key and Filename set) and
// claims it, as reserveShared does, with the bytes of its sidecar made
// durable beside the claim (prepareSidecar): nil when the state cannot.
// it must not change afterwards until commit.
func (l *Library) reserveSpooled(ctx context.Context, it *Item, name string, p *processed) (*sidecarAhead, error) {
	for range 64 {
		key, _ := l.reserveName(name, p)
		it.Key, it.Filename = key, path.Base(key)
		side := l.sync.prepareSidecar(it)
		err := l.sync.claimKeys(ctx, it.ID, []string{key})
		if err == nil {
			return side, nil
		}
		side.discard() // waits for the sidecar's goroutine, which reads it
		l.release(key, nil)
		var taken *replica.KeyTakenError
		if !errors.As(err, &taken) {
			return nil, err
		}
		l.reserveUntil(taken.Key, l.now().Add(time.Hour))
	}
	return nil, errors.New("media: no free name found")
}
