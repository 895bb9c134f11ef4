package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/folio-cms/folio/media"
)

// prepared is an object's bytes written under a temporary name, for
// CreatePrepared (media.PreparedObject): synced by PrepareCreate, or
// written by PrepareCreateUnsynced and kept open (fd) until SyncPrepared
// syncs them.
type prepared struct {
	st       *State
	tmp, tag string
	once     sync.Once
	mu       sync.Mutex
	fd       int // -1 once synced, or when PrepareCreate synced them
}

// Discard removes the temporary file if CreatePrepared did not take it.
func (p *prepared) Discard() {
	p.once.Do(func() {
		p.closeFD()
		p.st.removeTemp(p.tmp)
	})
}

// closeFD closes the file kept open for SyncPrepared, if still open.
func (p *prepared) closeFD() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fd >= 0 {
		unix.Close(p.fd)
		p.fd = -1
	}
}

// PrepareCreate writes data to a temporary file and syncs it, so that a
// caller can make the bytes of an object durable beside other work and
// create it later with CreatePrepared (an upload's sidecar, beside the
// sync of its original's folder).
func (st *State) PrepareCreate(data []byte) (media.PreparedObject, error) {
	if st.readOnly {
		return nil, fmt.Errorf("local state: create: %w", ErrReadOnly)
	}
	tmp, tag, err := st.writeTemp(data, true)
	if err != nil {
		return nil, st.wrap("create", "", err)
	}
	return &prepared{st: st, tmp: tmp, tag: tag, fd: -1}, nil
}

// PrepareCreateUnsynced is PrepareCreate without the sync
// (media.UnsyncedPreparer): the bytes are written to a temporary file,
// their writing to the disk begun (startWriteback), and SyncPrepared
// makes them durable, which it must before CreatePrepared. An upload
// writes every file of its first round this way before it syncs any.
func (st *State) PrepareCreateUnsynced(data []byte) (media.PreparedObject, error) {
	if st.readOnly {
		return nil, fmt.Errorf("local state: create: %w", ErrReadOnly)
	}
	tmp, tag, fd, err := st.writeTempFile(data, false, true)
	if err != nil {
		return nil, st.wrap("create", "", err)
	}
	startWriteback(fd)
	return &prepared{st: st, tmp: tmp, tag: tag, fd: fd}, nil
}

// SyncPrepared makes the bytes PrepareCreateUnsynced wrote durable
// (media.UnsyncedPreparer); for those PrepareCreate wrote it does nothing.
func (st *State) SyncPrepared(po media.PreparedObject) error {
	p, ok := po.(*prepared)
	if !ok || p.st != st {
		return errors.New("local state: sync: not prepared by this state")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fd < 0 {
		return nil
	}
	if err := ignoringEINTR(func() error { return unix.Fsync(p.fd) }); err != nil {
		return st.wrap("create", "", pathErr("fsync", p.tmp, err))
	}
	unix.Close(p.fd)
	p.fd = -1
	return nil
}

// SyncNames makes the names of the objects at keys durable: a sync of
// each of their directories, once each (media/replica.NameSyncer). An
// upload creates the claim of its key with CreateUnsynced and syncs its
// name this way beside the other syncs of its first round.
func (st *State) SyncNames(ctx context.Context, keys []string) error {
	if st.readOnly {
		return fmt.Errorf("local state: sync: %w", ErrReadOnly)
	}
	var done []string
	for _, key := range keys {
		if err := checkKey("sync", key); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		dir := filepath.Dir(filepath.FromSlash(key))
		if slices.Contains(done, dir) {
			continue
		}
		if err := st.dirs.fsyncDir(dir); err != nil {
			return st.wrap("sync", key, err)
		}
		done = append(done, dir)
	}
	return nil
}

// CreatePrepared is Create of the bytes PrepareCreate wrote: the key's
// name is made (link(2): ErrPrecondition when it exists) and synced. The
// temporary file is gone afterwards, whatever the outcome.
func (st *State) CreatePrepared(ctx context.Context, key string, po media.PreparedObject) (string, error) {
	p, ok := po.(*prepared)
	if !ok || p.st != st {
		return "", fmt.Errorf("local state: create %q: not prepared by this state", key)
	}
	taken := false
	p.once.Do(func() { taken = true })
	if !taken {
		return "", fmt.Errorf("local state: create %q: prepared object used already", key)
	}
	p.mu.Lock()
	unsynced := p.fd >= 0
	p.mu.Unlock()
	if unsynced {
		p.closeFD()
		st.removeTemp(p.tmp)
		return "", fmt.Errorf("local state: create %q: prepared bytes not synced (SyncPrepared)", key)
	}
	if err := checkKey("create", key); err != nil {
		st.removeTemp(p.tmp)
		return "", err
	}
	if err := ctx.Err(); err != nil {
		st.removeTemp(p.tmp)
		return "", err
	}
	dir := filepath.Dir(filepath.FromSlash(key))
	if err := st.ensureDir(dir); err != nil {
		st.removeTemp(p.tmp)
		return "", st.wrap("create", key, err)
	}
	return st.linkTemp(key, p.tmp, p.tag, true)
}

// linkTemp links the temporary file tmp (tag tag) to key, syncing the
// key's directory when syncName, and removes tmp.
func (st *State) linkTemp(key, tmp, tag string, syncName bool) (string, error) {
	defer st.removeTemp(tmp)
	name := filepath.FromSlash(key)
	dir, base := filepath.Dir(name), filepath.Base(name)
	// The temporary file's tag is the key's once linked: same inode,
	// modification time and size.
	link := func() error {
		return st.dirs.do(stateTmp, func(tmpfd int) error {
			return st.dirs.do(dir, func(fd int) error {
				return ignoringEINTR(func() error { return unix.Linkat(tmpfd, tmp, fd, base, 0) })
			})
		})
	}
	err := link()
	if errors.Is(err, fs.ErrNotExist) {
		// The directory was removed since it was opened (by hand, or
		// another process): make it again.
		if err = st.ensureDir(dir); err == nil {
			err = link()
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("local state: create %q: %w", key, media.ErrPrecondition)
		}
		return "", st.wrap("create", key, &os.LinkError{Op: "link", Old: tmp, New: name, Err: err})
	}
	if syncName {
		if err := st.dirs.fsyncDir(dir); err != nil {
			return "", st.wrap("create", key, err)
		}
	}
	return tag, nil
}
