package local

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/internal/objkey"
)

var _ media.StateStore = (*State)(nil)

// State is a media.StateStore in a directory on local disk, so that a
// library on one box keeps its state exactly as boxes sharing a bucket
// do: one object a file at <dir>/<key>.
//
//   - Create writes a temporary file, syncs it, and hard-links it to its
//     key: link(2) fails when the key exists, so create-if-absent holds
//     against other processes too, with no lock.
//   - Replace and Delete hold the key's lock (a mutex within the process,
//     flock(2) on a lock file across processes; keys share 256 locks by
//     hash), compare the tag, and rename the synced temporary file over
//     the key.
//   - Every change syncs the key's directory (and the parents of the
//     directories it creates), so what a call reported survives a crash.
//
// A tag is the file's inode, modification time and size, so that a
// listing gives tags with one stat per object and no read. Every write
// sets the modification time from a nanosecond clock that never repeats
// within the State, so a file that reuses a freed inode still has a new
// tag; the file system must keep nanosecond times (ext4, XFS, Btrfs,
// tmpfs, APFS). Two processes on one directory could only repeat a tag by
// writing one key with the same size, inode and nanosecond.
// Names beginning with "." under dir (.tmp, .locks, .writer) are the
// store's own.
//
// A State opened for writing tries to take the writer lock (flock(2) on
// <dir>/.writer, held until Close): Exclusive reports whether it got it,
// that is whether no other process has the directory open for writing. A
// State opened with OpenStateReadOnly writes nothing, not even a lock
// file, and refuses every write.
type State struct {
	dir string
	// root is the directory; nil for a read-only State opened before the
	// directory existed, which opens it into late when it appears.
	root *os.Root
	// dirs keeps the directories the writes use open (nil when read-only).
	dirs     *openDirs
	late     atomic.Pointer[os.Root]
	lateMu   sync.Mutex
	readOnly bool
	// writer is the open lock file while this State holds the writer
	// lock; nil otherwise.
	writer *os.File
	// soleTaken is set by the first SoleWriter call.
	soleTaken atomic.Bool
	locks     [lockStripes]stripe
	// lastStamp is the last modification time uniqueNow gave, in Unix
	// nanoseconds.
	lastStamp atomic.Int64
}

const lockStripes = 256

type stripe struct {
	mu sync.Mutex
	f  *os.File // the lock file, opened on first use
}

const (
	stateTmp    = ".tmp"
	stateLocks  = ".locks"
	stateWriter = ".writer"
)

// ErrReadOnly is returned by the writes of a State opened read-only.
var ErrReadOnly = errors.New("local state: opened read-only")

// StateDir is the state directory of a library on one box, under its
// media root: <root>/.state. Its name begins with a dot, so no storage key
// reaches it and /uploads/ never serves it.
const StateDir = ".state"

// OpenState opens (creating it if needed) the state directory dir.
func OpenState(dir string) (*State, error) {
	if dir == "" {
		return nil, errors.New("local state: empty directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("local state: %w", err)
	}
	for _, d := range []string{abs, filepath.Join(abs, stateTmp), filepath.Join(abs, stateLocks)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("local state: %w", err)
		}
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("local state: %w", err)
	}
	st := &State{dir: abs, root: r, dirs: newOpenDirs(r)}
	if f, err := r.OpenFile(stateWriter, os.O_RDWR|os.O_CREATE, 0o644); err == nil {
		if flock(f, syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			st.writer = f
		} else {
			f.Close()
		}
	}
	if st.writer != nil {
		// Temporary files of writes a crash interrupted. Only the sole
		// writer may remove them: another one's may be in use.
		if ents, err := fs.ReadDir(r.FS(), stateTmp); err == nil {
			for _, e := range ents {
				r.Remove(stateTmp + "/" + e.Name())
			}
		}
	}
	return st, nil
}

// OpenStateReadOnly opens the state directory dir for reading only:
// nothing under it is created or changed, and every write fails with
// ErrReadOnly. A directory that does not exist yet (no writer has
// started) reads as empty until a writer makes it: every read looks for
// it again, so a box that follows the state picks it up at its next poll.
func OpenStateReadOnly(dir string) (*State, error) {
	if dir == "" {
		return nil, errors.New("local state: empty directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("local state: %w", err)
	}
	st := &State{dir: abs, readOnly: true}
	if _, err := st.readRoot(); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("local state: %w", err)
	}
	return st, nil
}

// readRoot is the directory to read from: root, or for a read-only State
// opened before the directory existed, the directory opened by the first
// read that finds it (fs.ErrNotExist until then).
func (st *State) readRoot() (*os.Root, error) {
	if st.root != nil {
		return st.root, nil
	}
	if r := st.late.Load(); r != nil {
		return r, nil
	}
	st.lateMu.Lock()
	defer st.lateMu.Unlock()
	if r := st.late.Load(); r != nil {
		return r, nil
	}
	r, err := os.OpenRoot(st.dir)
	if err != nil {
		return nil, err
	}
	st.late.Store(r)
	return r, nil
}

// Exclusive reports whether this State holds the writer lock: no other
// process has the directory open for writing (until Close).
func (st *State) Exclusive() bool { return st.writer != nil }

// SoleWriter reports, to its first caller only, whether this State is
// Exclusive: the one library that opens it first is then the only writer
// of the directory, so what it finds claimed and not committed at its
// start was left by a crash. A second library on the same State (tests
// open several boxes on one) is told false.
func (st *State) SoleWriter() bool {
	return st.writer != nil && st.soleTaken.CompareAndSwap(false, true)
}

// Dir is the state directory.
func (st *State) Dir() string { return st.dir }

// Close releases the directory and the lock files.
func (st *State) Close() error {
	for i := range st.locks {
		s := &st.locks[i]
		s.mu.Lock()
		if s.f != nil {
			s.f.Close()
			s.f = nil
		}
		s.mu.Unlock()
	}
	if st.writer != nil {
		st.writer.Close() // releases the writer lock
		st.writer = nil
	}
	if st.dirs != nil {
		st.dirs.close()
	}
	if r := st.late.Swap(nil); r != nil {
		r.Close()
	}
	if st.root == nil {
		return nil
	}
	return st.root.Close()
}

// checkKey refuses what objkey refuses: absolute, dot or dotfile segments
// (which keeps the store's own files out of the key space), and the rest.
func checkKey(op, key string) error {
	if err := objkey.Check(key); err != nil {
		return fmt.Errorf("local state: %s: %w", op, err)
	}
	return nil
}

func (st *State) Get(ctx context.Context, key string) ([]byte, string, error) {
	if err := checkKey("get", key); err != nil {
		return nil, "", err
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	if st.dirs != nil {
		data, tag, err := st.getAt(key)
		if !errors.Is(err, syscall.ELOOP) {
			return data, tag, err
		}
		// A symbolic link (never one the store made): as os.Root reads it.
	}
	root, err := st.readRoot()
	if err != nil {
		return nil, "", st.wrap("get", key, err)
	}
	f, err := root.Open(filepath.FromSlash(key))
	if err != nil {
		return nil, "", st.wrap("get", key, err)
	}
	defer f.Close()
	// The tag and the bytes come from one open file: a rename over the
	// key meanwhile does not change them.
	fi, err := f.Stat()
	if err != nil {
		return nil, "", st.wrap("get", key, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, "", fmt.Errorf("local state: get %q: %w", key, media.ErrNotExist)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, "", st.wrap("get", key, err)
	}
	return data, tagOf(fi), nil
}

// getAt is Get on the key's directory kept open (a writer's State): an
// open, a stat, a read and a close per object where a path through the
// root opened every directory on the way first (a start without a
// checkpoint reads every sidecar).
func (st *State) getAt(key string) (data []byte, tag string, err error) {
	name := filepath.FromSlash(key)
	dir, base := filepath.Dir(name), filepath.Base(name)
	err = st.dirs.do(dir, func(dirfd int) error {
		var fd int
		err := ignoringEINTR(func() (err error) {
			fd, err = unix.Openat(dirfd, base, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
			return err
		})
		if err != nil {
			return pathErr("open", name, err)
		}
		defer unix.Close(fd)
		// The tag and the bytes come from one open file: a rename over
		// the key meanwhile does not change them.
		var s unix.Stat_t
		if err := unix.Fstat(fd, &s); err != nil {
			return pathErr("fstat", name, err)
		}
		if s.Mode&unix.S_IFMT != unix.S_IFREG {
			return pathErr("open", name, fs.ErrNotExist)
		}
		buf := make([]byte, 0, s.Size+1)
		for {
			n, err := unix.Read(fd, buf[len(buf):cap(buf)])
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				return pathErr("read", name, err)
			}
			if n == 0 {
				break
			}
			buf = buf[:len(buf)+n]
			if int64(len(buf)) == s.Size {
				// All the stat said: no read to see the end. The store
				// never writes an object in place (a new version is a
				// new file renamed over it), so it is whole.
				break
			}
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
		}
		data, tag = buf, statTag(&s)
		return nil
	})
	if err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			err = pathErr("open", name, fs.ErrNotExist)
		}
		return nil, "", st.wrap("get", key, err)
	}
	return data, tag, nil
}

// Open reads an object as a stream (media.StateOpener).
func (st *State) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := checkKey("get", key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	root, err := st.readRoot()
	if err != nil {
		return nil, st.wrap("get", key, err)
	}
	f, err := root.Open(filepath.FromSlash(key))
	if err != nil {
		return nil, st.wrap("get", key, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, st.wrap("get", key, err)
		}
		return nil, fmt.Errorf("local state: get %q: %w", key, media.ErrNotExist)
	}
	return f, nil
}

func (st *State) Create(ctx context.Context, key string, data []byte) (string, error) {
	return st.create(ctx, key, data, true, true)
}

// CreateUnsynced is Create without its two fsyncs (of the file, and of
// its directory): the object is there for every reader at once, as after
// Create, but a crash of the machine (not of the process: the page cache
// survives that) may lose it, or leave it empty or cut short. The library
// uses it, as the only writer of its state, for what a start recovers
// without it: its log entries (media/shared.go, openShared).
func (st *State) CreateUnsynced(ctx context.Context, key string, data []byte) (string, error) {
	return st.create(ctx, key, data, false, false)
}

// CreateNameSynced is Create without the fsync of the file: its name is
// durable when it returns (its directory is synced), its bytes are not:
// after a crash of the machine the object may be there empty or cut
// short. The library uses it, as the only writer of its state, for its
// claims, whose name is the storage key they claim (media/shared.go,
// openShared).
func (st *State) CreateNameSynced(ctx context.Context, key string, data []byte) (string, error) {
	return st.create(ctx, key, data, false, true)
}

func (st *State) create(ctx context.Context, key string, data []byte, syncData, syncName bool) (string, error) {
	if st.readOnly {
		return "", fmt.Errorf("local state: create %q: %w", key, ErrReadOnly)
	}
	if err := checkKey("create", key); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	name := filepath.FromSlash(key)
	dir, base := filepath.Dir(name), filepath.Base(name)
	if err := st.ensureDir(dir); err != nil {
		return "", st.wrap("create", key, err)
	}
	// Taken already: refused without writing and syncing a temporary
	// file (a log append probing its next place, a claim of a name in
	// use). The link below still decides a race.
	if st.dirs.peek(dir, func(fd int) error {
		var s unix.Stat_t
		return unix.Fstatat(fd, base, &s, unix.AT_SYMLINK_NOFOLLOW)
	}) == nil {
		return "", fmt.Errorf("local state: create %q: %w", key, media.ErrPrecondition)
	}
	tmp, tag, err := st.writeTemp(data, syncData)
	if err != nil {
		return "", st.wrap("create", key, err)
	}
	return st.linkTemp(key, tmp, tag, syncName)
}

func (st *State) Replace(ctx context.Context, key string, data []byte, etag string) (string, error) {
	if st.readOnly {
		return "", fmt.Errorf("local state: replace %q: %w", key, ErrReadOnly)
	}
	if err := checkKey("replace", key); err != nil {
		return "", err
	}
	if etag == "" || etag == "*" {
		return "", fmt.Errorf("local state: replace %q: an etag is required", key)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	tmp, tag, err := st.writeTemp(data, true)
	if err != nil {
		return "", st.wrap("replace", key, err)
	}
	defer st.removeTemp(tmp)
	name := filepath.FromSlash(key)
	dir, base := filepath.Dir(name), filepath.Base(name)
	unlock, err := st.lock(key)
	if err != nil {
		return "", st.wrap("replace", key, err)
	}
	defer unlock()
	err = st.dirs.do(dir, func(fd int) error {
		var s unix.Stat_t
		if err := unix.Fstatat(fd, base, &s, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return pathErr("lstat", name, err)
		}
		if statTag(&s) != etag {
			return errStaleTag
		}
		return nil
	})
	if errors.Is(err, errStaleTag) {
		return "", fmt.Errorf("local state: replace %q: %w", key, media.ErrPrecondition)
	}
	if err != nil {
		return "", st.wrap("replace", key, err)
	}
	err = st.dirs.do(stateTmp, func(tmpfd int) error {
		return st.dirs.do(dir, func(fd int) error {
			return ignoringEINTR(func() error { return unix.Renameat(tmpfd, tmp, fd, base) })
		})
	})
	if err != nil {
		return "", st.wrap("replace", key, &os.LinkError{Op: "rename", Old: tmp, New: name, Err: err})
	}
	if err := st.dirs.fsyncDir(dir); err != nil {
		return "", st.wrap("replace", key, err)
	}
	return tag, nil
}

// errStaleTag is Replace's signal that the key's tag is not the one given.
var errStaleTag = errors.New("stale tag")

func (st *State) Delete(ctx context.Context, key string) error {
	if st.readOnly {
		return fmt.Errorf("local state: delete %q: %w", key, ErrReadOnly)
	}
	if err := checkKey("delete", key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	name := filepath.FromSlash(key)
	dir, base := filepath.Dir(name), filepath.Base(name)
	unlock, err := st.lock(key)
	if err != nil {
		return st.wrap("delete", key, err)
	}
	defer unlock()
	err = st.dirs.do(dir, func(fd int) error {
		return pathErr("unlinkat", name, ignoringEINTR(func() error { return unix.Unlinkat(fd, base, 0) }))
	})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		return st.wrap("delete", key, err)
	}
	if err := st.dirs.fsyncDir(dir); err != nil {
		return st.wrap("delete", key, err)
	}
	return nil
}

// writeTemp writes data to a new file under .tmp with a fresh
// modification time, synced when durable, and returns its name (in .tmp)
// and its tag.
func (st *State) writeTemp(data []byte, durable bool) (name, tag string, err error) {
	name, tag, _, err = st.writeTempFile(data, durable, false)
	return name, tag, err
}

// writeTempFile is writeTemp, returning the file open (its descriptor)
// when keep, else -1.
func (st *State) writeTempFile(data []byte, durable, keep bool) (name, tag string, kept int, err error) {
	name, kept = rand.Text(), -1
	err = st.dirs.do(stateTmp, func(tmpfd int) (err error) {
		var fd int
		err = ignoringEINTR(func() (err error) {
			fd, err = unix.Openat(tmpfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o644)
			return err
		})
		if err != nil {
			return pathErr("open", name, err)
		}
		defer func() {
			if keep && err == nil {
				kept = fd
				return
			}
			if cerr := unix.Close(fd); err == nil && cerr != nil {
				err = pathErr("close", name, cerr)
			}
			if err != nil {
				unix.Unlinkat(tmpfd, name, 0)
			}
		}()
		for b := data; len(b) > 0; {
			n, err := unix.Write(fd, b)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				return pathErr("write", name, err)
			}
			b = b[n:]
		}
		// The time is set before the sync, which makes it durable with
		// the bytes: a tag never changes across a crash.
		ts := unix.NsecToTimespec(st.uniqueNow().UnixNano())
		if err := unix.UtimesNanoAt(tmpfd, name, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return pathErr("utimensat", name, err)
		}
		if durable {
			if err := ignoringEINTR(func() error { return unix.Fsync(fd) }); err != nil {
				return pathErr("fsync", name, err)
			}
		}
		var s unix.Stat_t
		if err := unix.Fstat(fd, &s); err != nil {
			return pathErr("fstat", name, err)
		}
		tag = statTag(&s)
		return nil
	})
	if err != nil {
		return "", "", -1, err
	}
	return name, tag, kept, nil
}

// removeTemp removes a temporary file writeTemp made (once it is linked
// to its key, or was not), best effort: the next sole writer's open
// removes what is left.
func (st *State) removeTemp(name string) {
	st.dirs.do(stateTmp, func(tmpfd int) error { return unix.Unlinkat(tmpfd, name, 0) })
}

// ensureDir makes dir exist (and durable) unless it is open already.
func (st *State) ensureDir(dir string) error {
	err := st.dirs.do(dir, func(int) error { return nil })
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := st.mkdirDurable(dir); err != nil {
		return err
	}
	return st.dirs.do(dir, func(int) error { return nil })
}

func (st *State) syncDir(dir string) error {
	d, err := st.root.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// mkdirDurable creates dir and its missing parents, syncing the parent of
// each directory it creates.
func (st *State) mkdirDurable(dir string) error {
	if dir == "." || dir == "" {
		return nil
	}
	if fi, err := st.root.Stat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", dir)
		}
		return nil
	}
	parent := filepath.Dir(dir)
	if err := st.mkdirDurable(parent); err != nil {
		return err
	}
	if err := st.root.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return st.syncDir(parent)
}

// lock takes the lock of key, within the process and across processes.
func (st *State) lock(key string) (unlock func(), err error) {
	h := fnv.New32a()
	h.Write([]byte(key))
	i := h.Sum32() % lockStripes
	s := &st.locks[i]
	s.mu.Lock()
	if s.f == nil {
		f, err := st.root.OpenFile(path.Join(stateLocks, fmt.Sprintf("%02x", i)), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		s.f = f
	}
	if err := flock(s.f, syscall.LOCK_EX); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	return func() {
		flock(s.f, syscall.LOCK_UN)
		s.mu.Unlock()
	}, nil
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func (st *State) wrap(op, key string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("local state: %s %q: %w", op, key, media.ErrNotExist)
	}
	return fmt.Errorf("local state: %s %q: %w", op, key, err)
}

// tagOf is the tag of a state file: inode, modification time and size.
func tagOf(fi fs.FileInfo) string {
	var ino uint64
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = uint64(s.Ino)
	}
	return makeTag(ino, fi.ModTime().UnixNano(), fi.Size())
}

// statTag is tagOf of what a stat system call gave.
func statTag(s *unix.Stat_t) string {
	return makeTag(uint64(s.Ino), s.Mtim.Nano(), s.Size)
}

// makeTag is fmt.Sprintf("%x-%x-%x", ino, mtime, size) in one
// allocation: a start without a checkpoint makes one for every sidecar.
func makeTag(ino uint64, mtime, size int64) string {
	var b [64]byte
	t := strconv.AppendUint(b[:0], ino, 16)
	t = append(t, '-')
	t = strconv.AppendInt(t, mtime, 16)
	t = append(t, '-')
	t = strconv.AppendInt(t, size, 16)
	return string(t)
}

// uniqueNow is the current time, later than every time it gave before.
func (st *State) uniqueNow() time.Time {
	for {
		last := st.lastStamp.Load()
		now := time.Now().UnixNano()
		if now <= last {
			now = last + 1
		}
		if st.lastStamp.CompareAndSwap(last, now) {
			return time.Unix(0, now)
		}
	}
}
