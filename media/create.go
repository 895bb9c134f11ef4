package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/folio-cms/folio/media/internal/ctxio"
	"github.com/folio-cms/folio/media/replica"
)

// UploadInput is one file of an upload.
type UploadInput struct {
	// Filename is the client's name for the file; only a sanitized last
	// element of it is kept.
	Filename string
	// Body is read once, to its end or to MaxUploadBytes+1.
	Body   io.Reader
	Folder string
	Alt    string
}

// Limits of the text fields of an item.
const (
	MaxAltBytes         = 1000
	MaxTitleBytes       = 1000
	MaxDescriptionBytes = 10000
)

func checkText(field, s string, max int) error {
	if len(s) > max {
		return errorf(ErrBadInput, "%s longer than %d bytes", field, max)
	}
	if !utf8.ValidString(s) {
		return errorf(ErrBadInput, "%s is not valid UTF-8", field)
	}
	return nil
}

// Create stores an uploaded file as a new item. The body is streamed to a
// temporary file (never held in memory) and refused beyond MaxUploadBytes;
// its type is sniffed from its bytes, never taken from its name.
//
// Writes are ordered so that a crash at any instant leaves no item or a
// whole one: the claims of its keys, original, derivatives, and the
// sidecar last; what a crash leaves claimed and not committed goes at the
// next start of the only writer, or after claimStale in a shared bucket
// (shared_sweep.go).
func (l *Library) Create(ctx context.Context, in UploadInput) (*Item, error) {
	if l.cfg.ReadOnly {
		return nil, errReadOnly
	}
	folder, err := l.checkFolder(in.Folder)
	if err != nil {
		return nil, err
	}
	if err := checkText("alt", in.Alt, MaxAltBytes); err != nil {
		return nil, err
	}
	// The item's id names the spooled file: a start after a crash finds
	// the item a spooled name stands for (cleanTmp, createSpooled).
	id := newID()
	f, err := os.OpenFile(filepath.Join(l.cfg.Root, tmpDir, spoolPrefix+id), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("media: temp file: %w", err)
	}
	spooled := &original{file: f}
	defer func() {
		f.Close()
		if !spooled.moved {
			os.Remove(f.Name())
		}
	}()
	size, err := copyLimited(f, ctxio.Reader(ctx, in.Body), l.cfg.MaxUploadBytes)
	if err != nil {
		return nil, err
	}
	mime, err := sniff(f, size)
	if err != nil {
		return nil, err
	}
	p, err := l.process(ctx, f, size, mime)
	if err != nil {
		return nil, err
	}
	name := SanitizeFilename(in.Filename, mime)
	if sl, ok := l.cfg.Storage.(SpoolLinker); ok && p.svg == nil && len(p.derivs) == 0 && sl.Spooled(f) {
		return l.createSpooled(ctx, sl, spooled, l.newItem(id, mime, size, in.Alt, folder, p), name, p)
	}
	// The spooled original, when it is what is stored, is synced beside
	// the claims (each a sync of their folder) instead of after them:
	// the two syncs overlap. It is not renamed into place before both
	// are done, so a crash leaves no name that a claim does not hold.
	if pm, ok := l.cfg.Storage.(PreparedMover); ok && p.svg == nil {
		spooled.prepare(pm)
		defer spooled.waitPrepared() // before the file is closed
	}
	key, dkeys, err := l.reserveShared(ctx, id, name, p)
	if err != nil {
		return nil, err
	}
	defer l.release(key, dkeys)

	src := spooled
	src.r = io.NewSectionReader(f, 0, size)
	if p.svg != nil {
		src = &original{r: bytes.NewReader(p.svg)}
		size = int64(len(p.svg))
	}
	it := l.newItem(id, mime, size, in.Alt, folder, p)
	it.Filename, it.Key = path.Base(key), key
	if err := l.store(ctx, it, src, p, dkeys); err != nil {
		l.sync.releaseClaims(ctx, l.unstored(ctx, append([]string{key}, dkeys...)))
		return nil, err
	}
	return l.view(it), nil
}

// newItem is the first version of an upload's item, before its key.
func (l *Library) newItem(id, mime string, size int64, alt, folder string, p *processed) *Item {
	return &Item{
		ID:            id,
		MimeType:      mime,
		Size:          size,
		Width:         p.width,
		Height:        p.height,
		Alt:           alt,
		Folder:        folder,
		FocalX:        DefaultFocal,
		FocalY:        DefaultFocal,
		CreatedAt:     l.now().UTC(),
		Placeholder:   p.placeholder,
		DominantColor: p.dominantColor,
		Version:       1,
	}
}

// original is the original of a write: its bytes, and when they are the
// whole of a file spooled on the media root's disk, that file, which a
// storage that can (FileMover) takes by renaming it; moved tells the
// caller it is gone.
type original struct {
	r     io.Reader
	file  *os.File
	moved bool
	// prepared waits for the PrepareMoveIn of file started by prepare
	// and returns its error; nil when none was started.
	prepared func() error
}

// prepare starts pm.PrepareMoveIn of the spooled file.
func (o *original) prepare(pm PreparedMover) {
	done := make(chan error, 1)
	go func() { done <- pm.PrepareMoveIn(o.file) }()
	o.prepared = sync.OnceValue(func() error { return <-done })
}

// waitPrepared waits for the PrepareMoveIn prepare started, if any.
func (o *original) waitPrepared() {
	if o.prepared != nil {
		o.prepared()
	}
}

// store puts the original (when orig is not nil) and the derivatives,
// whose keys are claimed, then commits the item with its sidecar. On
// failure it removes what it put, best effort; the caller releases the
// claims of the keys that hold nothing (unstored), and a claim whose
// object could not be removed stays for the sweep.
func (l *Library) store(ctx context.Context, it *Item, orig *original, p *processed, dkeys []string) (err error) {
	var put []string
	defer func() {
		if err != nil {
			l.deleteObjects(ctx, put, "object of a failed write (its claim stays for the sweep)")
		}
	}()
	// On a storage that can, the folder of the objects (the original and
	// its derivatives share one) is synced once, after the last, instead
	// of after each: every object's bytes are synced before its name is
	// made, and every name is durable before the sidecar, the commit
	// point, is created. A crash before that leaves names that no
	// sidecar holds, whose claims (made durable before the first object)
	// tell the next start to remove them, as for a crash between two
	// objects.
	fsy, _ := l.cfg.Storage.(FolderSyncer)
	if orig != nil {
		put = append(put, it.Key)
		if err := l.putOriginal(ctx, it, orig, fsy); err != nil {
			return storageError(err)
		}
	}
	for i, d := range p.derivs {
		if err := ctx.Err(); err != nil {
			return err
		}
		put = append(put, dkeys[i])
		body, size := bytes.NewReader(d.data), int64(len(d.data))
		if fsy != nil {
			err = fsy.PutNoSync(ctx, dkeys[i], body, size, "image/webp")
		} else {
			err = l.cfg.Storage.Put(ctx, dkeys[i], body, size, "image/webp")
		}
		if err != nil {
			return storageError(err)
		}
		it.Sizes = append(it.Sizes, Size{Width: d.width, Height: d.height, Key: dkeys[i]})
	}
	var side *sidecarAhead
	if fsy != nil && len(put) > 0 {
		// The sidecar's bytes are synced beside the folder's sync; its
		// name is made after both, as it was made after the folder's.
		side = l.sync.prepareSidecar(it)
		defer side.discard()
		if err := fsy.SyncFolders(ctx, put); err != nil {
			return storageError(err)
		}
	}
	return l.commitNew(ctx, it, side)
}

// putOriginal stores the original under it.Key: the spooled file renamed
// into place where the storage can take it, else its bytes put; without
// the sync of its folder when fsy is not nil (store syncs it).
func (l *Library) putOriginal(ctx context.Context, it *Item, orig *original, fsy FolderSyncer) error {
	if orig.file != nil {
		var moved bool
		var err error
		pm, _ := l.cfg.Storage.(PreparedMover)
		if fsy != nil && pm != nil && orig.prepared != nil {
			if err := orig.prepared(); err != nil {
				return err
			}
			moved, err = pm.MoveInPrepared(ctx, it.Key, orig.file, it.Size)
		} else if fsy != nil {
			moved, err = fsy.MoveInNoSync(ctx, it.Key, orig.file, it.Size)
		} else if fm, ok := l.cfg.Storage.(FileMover); ok {
			moved, err = fm.MoveIn(ctx, it.Key, orig.file, it.Size)
		}
		orig.moved = moved
		if moved || err != nil {
			return err
		}
	}
	if fsy != nil {
		return fsy.PutNoSync(ctx, it.Key, orig.r, it.Size, it.MimeType)
	}
	return l.cfg.Storage.Put(ctx, it.Key, orig.r, it.Size, it.MimeType)
}

// unstored returns the keys whose object is gone (or never was), so that
// their claims can be released after a failed write.
func (l *Library) unstored(ctx context.Context, keys []string) []string {
	ctx = context.WithoutCancel(ctx)
	var out []string
	for _, k := range keys {
		if _, err := l.cfg.Storage.Stat(ctx, k); errors.Is(err, ErrNotExist) {
			out = append(out, k)
		}
	}
	return out
}

// commitNew creates the sidecar of a new item in the state (the commit
// point), adds it to the index and logs it, after checking, under the
// folder read lock, that its folder still exists.
func (l *Library) commitNew(ctx context.Context, it *Item, side *sidecarAhead) error {
	l.folderMu.RLock()
	defer l.folderMu.RUnlock()
	if !l.folderExists(it.Folder) {
		return errorf(ErrFolderNotFound, "folder %s not found", it.Folder)
	}
	return l.sync.commit(ctx, it, side)
}

// reserveName picks the first free name "<name>", "<name-1>", … in the
// current month folder such that neither the original's key nor any of its
// derivative keys is claimed by an item or reserved by a write in flight,
// and reserves them all until release.
func (l *Library) reserveName(name string, p *processed) (key string, dkeys []string) {
	now := l.now()
	month := now.UTC().Format("2006/01")
	l.cat.write(func(x *index) {
		for n := 0; ; n++ {
			cand := numbered(name, n)
			if n > 1000 {
				// Pathological: a thousand files of one name in one month.
				cand = numbered(name, 0)
				cand = cand[:len(cand)-len(path.Ext(cand))] + "-" + newID() + path.Ext(cand)
			}
			key = month + "/" + cand
			dkeys = dkeys[:0]
			for _, d := range p.derivs {
				dkeys = append(dkeys, derivativeKey(key, d.width))
			}
			if x.free(key, now) && x.allFree(dkeys, now) {
				x.reserve(key, time.Time{})
				for _, k := range dkeys {
					x.reserve(k, time.Time{})
				}
				return
			}
		}
	})
	return key, dkeys
}

// release drops the reservations of key and dkeys.
func (l *Library) release(key string, dkeys []string) {
	l.cat.write(func(x *index) {
		x.release(key)
		x.release(dkeys...)
	})
}

// reserveUntil holds key until t (zero: until released).
func (l *Library) reserveUntil(key string, t time.Time) {
	l.cat.write(func(x *index) { x.reserve(key, t) })
}

// storageError keeps the storage's own error for the log and the HTTP
// layer (ErrUnavailable → 503) but never shows a key to the client: the
// HTTP layer shows only sentinel messages.
func storageError(err error) error {
	if errors.Is(err, ErrUnavailable) {
		return err
	}
	return fmt.Errorf("media: storage: %w", err)
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// reserveShared picks a name as reserveName does and claims its keys in
// the bucket for id, trying the next name while another box holds one.
func (l *Library) reserveShared(ctx context.Context, id, name string, p *processed) (string, []string, error) {
	for range 64 {
		key, dkeys := l.reserveName(name, p)
		err := l.sync.claimKeys(ctx, id, append([]string{key}, dkeys...))
		if err == nil {
			return key, dkeys, nil
		}
		l.release(key, dkeys)
		var taken *replica.KeyTakenError
		if !errors.As(err, &taken) {
			return "", nil, err
		}
		// Held elsewhere: skip it here for a while (an upload in flight
		// on another box becomes an item this box learns of).
		l.reserveUntil(taken.Key, l.now().Add(time.Hour))
	}
	return "", nil, errors.New("media: no free name found")
}
