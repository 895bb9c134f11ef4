package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/folio-cms/folio/media/internal/objkey"

	"github.com/folio-cms/folio/media/replica"
)

// AdoptInput names an object a client uploaded straight to storage with a
// presigned URL, to be registered as an item (the confirm step).
type AdoptInput struct {
	// Key is the library-relative key "<yyyy>/<mm>/<name>", as returned by
	// PresignKey (without the storage's site prefix).
	Key      string
	Filename string
	// MimeType and Size are what the client declared; the object must
	// match both.
	MimeType string
	Size     int64
	Folder   string
	// Staged, when set, is the staging key (Stager) the client uploaded
	// to: the object is checked there, copied server side to Key, and the
	// staged one deleted. When empty the object was uploaded to Key
	// itself (grants given before staging existed).
	Staged string
}

// Stager is the staging area of presigned uploads, when the library's
// state store has one (a bucket); nil otherwise.
func (l *Library) Stager() Stager {
	st, _ := l.cfg.State.(Stager)
	return st
}

// StagedKey is a new staging key for a presigned upload that will become
// key: "staging/<random>/<name>", unguessable, and never the key of
// another upload, so that a URL for one object can write no other.
func StagedKey(key string) string {
	return "staging/" + newID() + newID() + "/" + path.Base(key)
}

// PresignKey chooses the key for a direct upload of a file named filename
// of type mime, unique in the current month folder, and reserves it for
// ttl so that no other upload takes it before the confirm step. The
// filename is sanitized as for Create, with the extension of mime.
func (l *Library) PresignKey(ctx context.Context, filename, mime string, size int64, ttl time.Duration) (string, error) {
	if l.cfg.ReadOnly {
		return "", errReadOnly
	}
	if !Supported(mime) {
		return "", errorf(ErrUnsupportedType, "unsupported file type %q", mime)
	}
	if size <= 0 {
		return "", errorf(ErrBadInput, "size must be positive")
	}
	if size > l.cfg.MaxUploadBytes {
		return "", errorf(ErrTooLarge, "file larger than %d bytes", l.cfg.MaxUploadBytes)
	}
	name := SanitizeFilename(filename, mime)
	for range 64 {
		key := l.reservePresignKey(name, ttl)
		// The claim in the state holds the key on every box. Its owner is
		// the grant, not yet an item.
		err := l.sync.claimKeys(ctx, "presign "+l.now().Add(ttl).UTC().Format(time.RFC3339), []string{key})
		if err == nil {
			return key, nil
		}
		l.release(key, nil)
		var taken *replica.KeyTakenError
		if !errors.As(err, &taken) {
			return "", err
		}
		l.reserveUntil(key, l.now().Add(time.Hour))
	}
	return "", errors.New("media: no free name found")
}

// reservePresignKey picks the first free key for name in the current month
// folder and reserves it for ttl.
func (l *Library) reservePresignKey(name string, ttl time.Duration) string {
	now := l.now()
	month := now.UTC().Format("2006/01")
	var key string
	l.cat.write(func(x *index) {
		if len(x.reserved) > 10000 {
			// Grants that were never confirmed expire only when looked at;
			// drop them all now and then so they cannot pile up.
			for k, exp := range x.reserved {
				if !exp.IsZero() && !now.Before(exp) {
					delete(x.reserved, k)
				}
			}
		}
		for n := 0; ; n++ {
			cand := numbered(name, n)
			if n > 1000 {
				cand = strings.TrimSuffix(name, path.Ext(name)) + "-" + newID() + path.Ext(name)
			}
			key = month + "/" + cand
			// The derivatives are named later, at confirm, around what is
			// free then; only the original's key is reserved here.
			if x.free(key, now) {
				x.reserve(key, now.Add(ttl))
				return
			}
		}
	})
	return key
}

// checkAdoptKey refuses keys that are not a library key of the shape
// "<yyyy>/<mm>/<name>".
func checkAdoptKey(key string) error {
	segs := strings.Split(key, "/")
	if objkey.Check(key) != nil || len(segs) != 3 || !yearRe.MatchString(segs[0]) || !monthRe.MatchString(segs[1]) {
		return errorf(ErrBadInput, "invalid storage key")
	}
	return nil
}

// Adopt registers an object already in storage (the presigned flow): its
// size must be the declared one, its sniffed type the declared type, and
// the key's extension that type's. An object that fails these checks is
// deleted, so a refused upload leaves nothing behind. Images get their
// derivatives as on Create.
func (l *Library) Adopt(ctx context.Context, in AdoptInput) (*Item, error) {
	if l.cfg.ReadOnly {
		return nil, errReadOnly
	}
	if err := checkAdoptKey(in.Key); err != nil {
		return nil, err
	}
	folder, err := l.checkFolder(in.Folder)
	if err != nil {
		return nil, err
	}
	l.cat.write(func(x *index) {
		if _, taken := x.claimed[claimKey(in.Key)]; taken {
			err = errorf(ErrConflict, "this object is already a media item")
			return
		}
		// Held for the whole adoption, so a second confirm of the same key
		// waits out the first and then finds it claimed.
		if exp, ok := x.reserved[claimKey(in.Key)]; ok && exp.IsZero() {
			err = errorf(ErrConflict, "this object is being registered")
			return
		}
		x.reserve(in.Key, time.Time{})
	})
	if err != nil {
		return nil, err
	}
	var dkeys []string
	defer func() { l.release(in.Key, dkeys) }()

	if in.Staged != "" {
		return l.adoptStaged(ctx, in, folder, &dkeys)
	}
	size, err := l.cfg.Storage.Stat(ctx, in.Key)
	if errors.Is(err, ErrNotExist) {
		return nil, errNotUploaded
	}
	if err != nil {
		return nil, storageError(err)
	}
	it, dkeys, err := l.adopt(ctx, in, folder, size, l.cfg.Storage.Open)
	if err != nil && !transient(err) {
		// A refused or failed confirm deletes the upload: the client
		// uploads again with a new grant.
		if derr := l.cfg.Storage.Delete(context.WithoutCancel(ctx), in.Key); derr != nil {
			l.log.Error("media: refused upload not deleted", "key", in.Key, "err", derr)
		}
	}
	return it, err
}

// errNotUploaded is Adopt's error for a key with no object (yet).
var errNotUploaded = errorf(ErrNotUploaded, "nothing was uploaded under this storageKey; send the file to uploadUrl first")

// transient tells the failures after which the same confirm may succeed
// (storage down, client gone, queue full) from those that refuse it.
func transient(err error) bool {
	return errors.Is(err, ErrUnavailable) || errors.Is(err, context.Canceled) || errors.Is(err, ErrBusy)
}

// adoptStaged is Adopt of an upload in the staging area: the version
// read and checked is the one copied to the final key (If-Match on the
// copy), so a second PUT to the same presigned URL during or after the
// confirm changes nothing public. The staged object is deleted once the
// item is registered, or when it is refused.
func (l *Library) adoptStaged(ctx context.Context, in AdoptInput, folder string, dkeys *[]string) (*Item, error) {
	st := l.Stager()
	if st == nil {
		return nil, errors.New("media: this storage has no staging area")
	}
	size, etag, err := st.StatStaged(ctx, in.Staged)
	if errors.Is(err, ErrNotExist) {
		return nil, errNotUploaded
	}
	if err != nil {
		return nil, storageError(err)
	}
	open := func(ctx context.Context, _ string) (io.ReadCloser, error) { return st.OpenStaged(ctx, in.Staged, etag) }
	promote := func(ctx context.Context, mime string) error { return st.Promote(ctx, in.Staged, etag, in.Key, mime) }
	it, dk, err := l.adoptWith(ctx, in, folder, size, open, promote)
	*dkeys = dk
	if errors.Is(err, ErrPrecondition) {
		err = errorf(ErrBadInput, "the uploaded object was replaced while it was being confirmed")
	}
	if err != nil && (transient(err) || errors.Is(err, ErrFolderNotFound) || errors.Is(err, ErrConflict)) {
		// The same grant may be confirmed again (the HTTP layer keeps it).
		return nil, err
	}
	// Registered, or refused: the staged object has served its purpose.
	if derr := st.DeleteStaged(context.WithoutCancel(ctx), in.Staged); derr != nil {
		l.log.Warn("media: staged upload not deleted", "staged", in.Staged, "err", derr)
	}
	return it, err
}

func (l *Library) adopt(ctx context.Context, in AdoptInput, folder string, size int64, open func(context.Context, string) (io.ReadCloser, error)) (*Item, []string, error) {
	return l.adoptWith(ctx, in, folder, size, open, nil)
}

// adoptWith checks the object read with open, makes its derivatives and
// registers it. promote, when set, puts the checked object (not an SVG:
// its sanitized copy is stored instead) at in.Key first; an item that is
// then not registered has that copy deleted again.
func (l *Library) adoptWith(ctx context.Context, in AdoptInput, folder string, size int64,
	open func(context.Context, string) (io.ReadCloser, error), promote func(context.Context, string) error) (it *Item, dkeys []string, err error) {
	if size != in.Size {
		return nil, nil, errorf(ErrBadInput, "uploaded object has %d bytes, declared %d", size, in.Size)
	}
	if size > l.cfg.MaxUploadBytes {
		return nil, nil, errorf(ErrTooLarge, "file larger than %d bytes", l.cfg.MaxUploadBytes)
	}
	f, err := os.CreateTemp(filepath.Join(l.cfg.Root, tmpDir), "adopt-*")
	if err != nil {
		return nil, nil, fmt.Errorf("media: temp file: %w", err)
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	rc, err := open(ctx, in.Key)
	if err != nil {
		return nil, nil, storageError(err)
	}
	n, err := copyLimited(f, rc, l.cfg.MaxUploadBytes)
	rc.Close()
	if err != nil {
		return nil, nil, err
	}
	if n != size {
		return nil, nil, errorf(ErrBadInput, "uploaded object changed while being read")
	}
	mime, err := sniff(f, size)
	if err != nil {
		return nil, nil, err
	}
	if mime != in.MimeType {
		return nil, nil, errorf(ErrBadInput, "uploaded file is %s, declared %s", mime, in.MimeType)
	}
	extOK := false
	for _, e := range typeExts[mime] {
		if strings.ToLower(path.Ext(in.Key)) == e {
			extOK = true
		}
	}
	if !extOK {
		return nil, nil, errorf(ErrBadInput, "storage key extension does not match the file type")
	}
	p, err := l.process(ctx, f, size, mime)
	if err != nil {
		return nil, nil, err
	}
	id := newID()
	dkeys = l.reserveDerivatives(in.Key, p, 0)
	if dkeys, err = l.claimDerivatives(ctx, id, in.Key, p, dkeys, 0); err != nil {
		return nil, dkeys, err
	}
	it = &Item{
		ID:            id,
		Filename:      path.Base(in.Key),
		MimeType:      mime,
		Size:          size,
		Width:         p.width,
		Height:        p.height,
		Folder:        folder,
		FocalX:        DefaultFocal,
		FocalY:        DefaultFocal,
		CreatedAt:     l.now().UTC(),
		Key:           in.Key,
		Placeholder:   p.placeholder,
		DominantColor: p.dominantColor,
		Version:       1,
	}
	if promote != nil {
		defer func() {
			if err != nil {
				// Not registered: nothing public may stay at the key.
				if derr := l.cfg.Storage.Delete(context.WithoutCancel(ctx), in.Key); derr != nil {
					l.log.Error("media: copy of a refused upload not deleted", "key", in.Key, "err", derr)
				}
			}
		}()
	}
	if p.svg != nil {
		// The sanitized SVG replaces the upload under the same key.
		it.Size = int64(len(p.svg))
		if err := l.cfg.Storage.Put(ctx, in.Key, bytesReader(p.svg), it.Size, mime); err != nil {
			return nil, dkeys, storageError(err)
		}
	} else if promote != nil {
		if err := promote(ctx, mime); err != nil {
			if errors.Is(err, ErrPrecondition) {
				return nil, dkeys, err
			}
			return nil, dkeys, storageError(err)
		}
	}
	if err := l.store(ctx, it, nil, p, dkeys); err != nil {
		l.sync.releaseClaims(ctx, l.unstored(ctx, dkeys))
		return nil, dkeys, err
	}
	return l.view(it), dkeys, nil
}

// reserveDerivatives names the derivatives of an original whose name is
// fixed (adopted, or regenerated): "<stem>-<w>.webp", else
// "<stem>-<n>-<w>.webp" for the first n from on that is free for every
// width.
func (l *Library) reserveDerivatives(key string, p *processed, from int) []string {
	if len(p.derivs) == 0 {
		return nil
	}
	now := l.now()
	var dkeys []string
	l.cat.write(func(x *index) {
		for n := from; ; n++ {
			base := numbered(key, n)
			if n-from > 1000 {
				base = numbered(key, 0)
				base = strings.TrimSuffix(base, path.Ext(base)) + "-" + newID() + path.Ext(base)
			}
			dkeys = nil
			for _, d := range p.derivs {
				dkeys = append(dkeys, derivativeKey(base, d.width))
			}
			if x.allFree(dkeys, now) {
				for _, k := range dkeys {
					x.reserve(k, time.Time{})
				}
				return
			}
		}
	})
	return dkeys
}

// claimDerivatives claims the derivative keys of an adopted original in
// the bucket, naming them anew while another box holds one. dkeys are the
// ones reserveDerivatives chose from from on; the returned ones are
// reserved instead.
func (l *Library) claimDerivatives(ctx context.Context, id, key string, p *processed, dkeys []string, from int) ([]string, error) {
	for range 64 {
		err := l.sync.claimKeys(ctx, id, dkeys)
		if err == nil {
			return dkeys, nil
		}
		l.release("", dkeys)
		var taken *replica.KeyTakenError
		if !errors.As(err, &taken) {
			return nil, err
		}
		l.reserveUntil(taken.Key, l.now().Add(time.Hour))
		dkeys = l.reserveDerivatives(key, p, from)
	}
	return nil, errors.New("media: no free name found")
}

// Reserve holds key until the given time, as PresignKey does, so that no
// upload takes it. Reservations live in memory: a server that keeps its
// presign grants across restarts calls Reserve for every outstanding grant
// after Open, or a Create could pick the key of an upload still to come.
func (l *Library) Reserve(key string, until time.Time) error {
	if l.cfg.ReadOnly {
		return errReadOnly
	}
	if err := checkAdoptKey(key); err != nil {
		return err
	}
	var err error
	l.cat.write(func(x *index) {
		if _, taken := x.claimed[claimKey(key)]; taken {
			err = errorf(ErrConflict, "this key belongs to a media item")
			return
		}
		if exp, ok := x.reserved[claimKey(key)]; ok && (exp.IsZero() || exp.After(until)) {
			return
		}
		x.reserve(key, until)
	})
	return err
}
