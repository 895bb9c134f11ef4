package local

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// openDirs keeps directories under an os.Root open for the write path, so
// that an operation on <dir>/<name> is one system call on the directory's
// descriptor (openat, linkat, renameat, fsync…) instead of an open of every
// component of dir first: os.Root resolves a path one component at a
// time, and an upload made about fifty such opens (claims/<yyyy>/<mm>,
// items, log, .tmp and <yyyy>/<mm> again for every operation).
//
// A directory is opened through the root (no symbolic link followed), so
// a descriptor it keeps is one the root would have reached; names are
// then used one component at a time with AT_SYMLINK_NOFOLLOW or
// O_NOFOLLOW. A directory removed while open (its descriptor then names
// a dead directory: lookups in it fail with ENOENT, creations too) is
// noticed by the ENOENT itself: do checks whether the directory is still
// linked and, when not, drops it and tries once more on a fresh open, so
// an operation never lands in a directory that is gone.
//
// At most maxOpenDirs stay open; one past that closes another. Closing is
// safe while another goroutine uses the descriptor: every use holds a
// reference (syscall.RawConn.Control) and the descriptor is closed after
// the last.
type openDirs struct {
	root *os.Root
	mu   sync.Mutex
	open map[string]*openDir
}

type openDir struct {
	f  *os.File
	rc syscall.RawConn

	// The directory's fsyncs, made one for every caller that comes
	// while one runs (group commit): a caller needs a sync that starts
	// after its change, so it waits for the one running to end and then
	// one more, which every caller that came meanwhile shares.
	syncMu  sync.Mutex
	syncEnd *sync.Cond
	syncing bool
	started uint64 // syncs started
	ended   uint64 // the number of the last sync ended
	syncErr error  // its error
}

// maxOpenDirs bounds the descriptors an openDirs keeps: the state uses a
// handful (.tmp, items, log, the claims of this month), the storage one
// folder a month.
const maxOpenDirs = 64

func newOpenDirs(root *os.Root) *openDirs {
	return &openDirs{root: root, open: map[string]*openDir{}}
}

// errDirClosed is sync's signal that the directory was closed (evicted)
// meanwhile.
var errDirClosed = errors.New("local: directory closed")

// errStaleDir is do's signal that a kept directory is no longer linked.
var errStaleDir = errors.New("local: directory removed while open")

// do runs fn with the descriptor of dir (a slash-free, cleaned relative
// path as filepath.Dir gives, "." for the root). A missing directory is
// an error wrapping fs.ErrNotExist (the caller creates it and tries
// again).
func (d *openDirs) do(dir string, fn func(dirfd int) error) error {
	for attempt := 0; ; attempt++ {
		od, err := d.get(dir)
		if err != nil {
			return err
		}
		var ferr error
		cerr := od.rc.Control(func(fd uintptr) {
			ferr = fn(int(fd))
			if errors.Is(ferr, syscall.ENOENT) && attempt == 0 && !linked(int(fd)) {
				ferr = errStaleDir
			}
		})
		switch {
		case cerr != nil && attempt < 2:
			// Closed by an eviction meanwhile: open it again.
			d.drop(dir, od)
			continue
		case cerr != nil:
			return cerr
		case ferr == errStaleDir:
			d.drop(dir, od)
			continue
		}
		return ferr
	}
}

// peek is do for a lookup whose ENOENT may be wrong when dir was removed
// while open (a hint: the create that follows it decides), without the
// check that the directory is still linked.
func (d *openDirs) peek(dir string, fn func(dirfd int) error) error {
	od, err := d.get(dir)
	if err != nil {
		return err
	}
	var ferr error
	if err := od.rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// linked reports whether the directory open at fd is still in the tree:
// a removed directory has no links left.
func linked(fd int) bool {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false
	}
	return st.Nlink > 0
}

func (d *openDirs) get(dir string) (*openDir, error) {
	d.mu.Lock()
	od := d.open[dir]
	d.mu.Unlock()
	if od != nil {
		return od, nil
	}
	f, err := d.root.Open(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		f.Close()
		if err == nil {
			err = &os.PathError{Op: "open", Path: dir, Err: syscall.ENOTDIR}
		}
		return nil, err
	}
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	od = &openDir{f: f, rc: rc}
	od.syncEnd = sync.NewCond(&od.syncMu)
	d.mu.Lock()
	defer d.mu.Unlock()
	if cur := d.open[dir]; cur != nil {
		f.Close() // opened by another goroutine meanwhile
		return cur, nil
	}
	if len(d.open) >= maxOpenDirs {
		for k, o := range d.open {
			o.f.Close()
			delete(d.open, k)
			break
		}
	}
	d.open[dir] = od
	return od, nil
}

// drop closes dir's descriptor od, unless another has replaced it.
func (d *openDirs) drop(dir string, od *openDir) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.open[dir] == od {
		delete(d.open, dir)
	}
	od.f.Close()
}

// forget closes every kept directory at or under dir (a folder removed
// by this process).
func (d *openDirs) forget(dir string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	prefix := dir + string(filepath.Separator)
	for k, o := range d.open {
		if k == dir || len(k) > len(prefix) && k[:len(prefix)] == prefix {
			o.f.Close()
			delete(d.open, k)
		}
	}
}

// close closes every kept directory.
func (d *openDirs) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, o := range d.open {
		o.f.Close()
		delete(d.open, k)
	}
}

// fsyncDir syncs the directory dir: every change made in it before the
// call is durable when it returns nil. Callers that come while a sync of
// dir runs share the next one.
func (d *openDirs) fsyncDir(dir string) error {
	for attempt := 0; ; attempt++ {
		od, err := d.get(dir)
		if err != nil {
			return err
		}
		err = od.sync()
		if errors.Is(err, errDirClosed) && attempt < 2 {
			d.drop(dir, od) // closed by an eviction meanwhile
			continue
		}
		return pathErr("fsync", dir, err)
	}
}

// sync runs or joins an fsync of the directory that starts after the
// call.
func (od *openDir) sync() error {
	od.syncMu.Lock()
	defer od.syncMu.Unlock()
	need := od.started + 1 // the one running, if any, started before
	for od.ended < need {
		if od.syncing {
			od.syncEnd.Wait()
			continue
		}
		od.syncing = true
		od.started++
		n := od.started
		od.syncMu.Unlock()
		var err error
		if cerr := od.rc.Control(func(fd uintptr) {
			err = ignoringEINTR(func() error { return unix.Fsync(int(fd)) })
		}); cerr != nil {
			err = errDirClosed
		}
		od.syncMu.Lock()
		od.syncing = false
		od.ended, od.syncErr = n, err
		od.syncEnd.Broadcast()
	}
	// A sync numbered need or later started after this call: its
	// outcome is this call's.
	return od.syncErr
}

// pathErr wraps a system call's error as os does, nil staying nil.
func pathErr(op, name string, err error) error {
	if err == nil {
		return nil
	}
	return &os.PathError{Op: op, Path: name, Err: err}
}

// ignoringEINTR repeats fn while it is interrupted by a signal.
func ignoringEINTR(fn func() error) error {
	for {
		if err := fn(); err != syscall.EINTR {
			return err
		}
	}
}
