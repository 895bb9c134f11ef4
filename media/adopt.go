package media

import (
	"context"
	"errors"
	"fmt"
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
		if l.sh == nil {
			return key, nil
		}
		// Shared: the claim in the bucket holds the key on every box. Its
		// owner is the grant, not yet an item.
		err := l.claimKeys(ctx, "presign "+l.now().Add(ttl).UTC().Format(time.RFC3339), []string{key})
		if err == nil {
			return key, nil
		}
		l.release(key, nil)
		var taken *replica.KeyTakenError
		if !errors.As(err, &taken) {
			return "", err
		}
		l.mu.Lock()
		l.reserveLocked(key, l.now().Add(time.Hour))
		l.mu.Unlock()
	}
	return "", errors.New("media: no free name found")
}

// reservePresignKey picks the first free key for name in the current month
// folder and reserves it for ttl.
func (l *Library) reservePresignKey(name string, ttl time.Duration) string {
	month := l.now().UTC().Format("2006/01")
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.reserved) > 10000 {
		// Grants that were never confirmed expire only when looked at;
		// drop them all now and then so they cannot pile up.
		now := l.now()
		for k, exp := range l.reserved {
			if !exp.IsZero() && !now.Before(exp) {
				delete(l.reserved, k)
			}
		}
	}
	for n := 0; ; n++ {
		cand := numbered(name, n)
		if n > 1000 {
			cand = strings.TrimSuffix(name, path.Ext(name)) + "-" + newID() + path.Ext(name)
		}
		key := month + "/" + cand
		// The derivatives are named later, at confirm, around what is
		// free then; only the original's key is reserved here.
		if l.freeLocked(key) {
			l.reserveLocked(key, l.now().Add(ttl))
			return key
		}
	}
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
	l.mu.Lock()
	if _, taken := l.claimed[claimKey(in.Key)]; taken {
		l.mu.Unlock()
		return nil, errorf(ErrConflict, "this object is already a media item")
	}
	// Held for the whole adoption, so a second confirm of the same key
	// waits out the first and then finds it claimed.
	if exp, ok := l.reserved[claimKey(in.Key)]; ok && exp.IsZero() {
		l.mu.Unlock()
		return nil, errorf(ErrConflict, "this object is being registered")
	}
	l.reserveLocked(in.Key, time.Time{})
	l.mu.Unlock()
	var dkeys []string
	defer func() { l.release(in.Key, dkeys) }()

	size, err := l.cfg.Storage.Stat(ctx, in.Key)
	if errors.Is(err, ErrNotExist) {
		return nil, errorf(ErrNotFound, "no uploaded object under this key")
	}
	if err != nil {
		return nil, storageError(err)
	}
	it, dkeys, err := l.adopt(ctx, in, folder, size)
	if err != nil && !errors.Is(err, ErrUnavailable) && !errors.Is(err, context.Canceled) {
		// A refused or failed confirm deletes the upload: the client
		// uploads again with a new grant.
		if derr := l.cfg.Storage.Delete(context.WithoutCancel(ctx), in.Key); derr != nil {
			l.log.Error("media: refused upload not deleted", "key", in.Key, "err", derr)
		}
	}
	return it, err
}

func (l *Library) adopt(ctx context.Context, in AdoptInput, folder string, size int64) (*Item, []string, error) {
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
	rc, err := l.cfg.Storage.Open(ctx, in.Key)
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
	dkeys := l.reserveDerivatives(in.Key, p, 0)
	if l.sh != nil {
		if dkeys, err = l.claimDerivatives(ctx, id, in.Key, p, dkeys, 0); err != nil {
			return nil, dkeys, err
		}
	}
	it := &Item{
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
	if p.svg != nil {
		// The sanitized SVG replaces the upload under the same key.
		it.Size = int64(len(p.svg))
		if err := l.cfg.Storage.Put(ctx, in.Key, bytesReader(p.svg), it.Size, mime); err != nil {
			return nil, dkeys, storageError(err)
		}
	}
	if err := l.store(ctx, it, nil, p, dkeys, false); err != nil {
		if l.sh != nil {
			l.releaseClaims(ctx, dkeys)
		}
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
	l.mu.Lock()
	defer l.mu.Unlock()
	for n := from; ; n++ {
		base := numbered(key, n)
		if n-from > 1000 {
			base = numbered(key, 0)
			base = strings.TrimSuffix(base, path.Ext(base)) + "-" + newID() + path.Ext(base)
		}
		var dkeys []string
		for _, d := range p.derivs {
			dkeys = append(dkeys, derivativeKey(base, d.width))
		}
		if l.allFreeLocked(dkeys) {
			for _, k := range dkeys {
				l.reserveLocked(k, time.Time{})
			}
			return dkeys
		}
	}
}

// claimDerivatives claims the derivative keys of an adopted original in
// the bucket, naming them anew while another box holds one. dkeys are the
// ones reserveDerivatives chose from from on; the returned ones are
// reserved instead.
func (l *Library) claimDerivatives(ctx context.Context, id, key string, p *processed, dkeys []string, from int) ([]string, error) {
	for range 64 {
		err := l.claimKeys(ctx, id, dkeys)
		if err == nil {
			return dkeys, nil
		}
		l.release("", dkeys)
		var taken *replica.KeyTakenError
		if !errors.As(err, &taken) {
			return nil, err
		}
		l.mu.Lock()
		l.reserveLocked(taken.Key, l.now().Add(time.Hour))
		l.mu.Unlock()
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
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, taken := l.claimed[claimKey(key)]; taken {
		return errorf(ErrConflict, "this key belongs to a media item")
	}
	if exp, ok := l.reserved[claimKey(key)]; ok && (exp.IsZero() || exp.After(until)) {
		return nil
	}
	l.reserveLocked(key, until)
	return nil
}
