// Package local is the media Storage on the local file system: objects are
// plain files at <root>/<key>, served by the HTTP layer under /uploads/.
package local

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/internal/ctxio"
	"github.com/folio-cms/folio/media/internal/objkey"
)

var _ media.Storage = (*Storage)(nil)

// URLPrefix is where the HTTP layer serves local objects.
const URLPrefix = "/uploads/"

// Storage stores objects as files under a root directory. All file access
// goes through an os.Root, so a symbolic link inside the media root cannot
// lead a key outside it.
type Storage struct {
	dir string
	// root is the handle on dir; nil until dir exists when it was
	// opened ReadOnly on a root not made yet (see dirRoot).
	root   atomic.Pointer[os.Root]
	rootMu sync.Mutex
	// dirs keeps the folders Put writes in open; set with root.
	dirs atomic.Pointer[openDirs]
	// base is prepended to URLPrefix in URLs: "" for site-relative URLs,
	// else an absolute URL without a trailing slash.
	base string
}

// Config configures local storage.
type Config struct {
	// Root is the media root directory, created if needed.
	Root string
	// ReadOnly opens a root that does not exist without creating it:
	// until it appears every object is missing (a read-only box serving
	// a media root no writer has made yet creates nothing).
	ReadOnly bool
	// PublicURL, when set, is the absolute base (scheme, host, optional
	// path) that URLs start with, so that a page on another origin can
	// point at the file: "https://media.example.com" gives
	// https://media.example.com/uploads/<key>. Empty gives site-relative
	// /uploads/<key>.
	PublicURL string
}

// New opens (creating it if needed) the media root directory; URLs are
// site-relative.
func New(root string) (*Storage, error) { return Open(Config{Root: root}) }

// Open opens local storage as c says.
func Open(c Config) (*Storage, error) {
	root := c.Root
	base, err := ParsePublicURL(c.PublicURL)
	if err != nil {
		return nil, err
	}
	if root == "" {
		return nil, errors.New("local storage: empty root directory")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("local storage: %w", err)
	}
	s := &Storage{dir: abs, base: base}
	if c.ReadOnly {
		if _, err := s.dirRoot(); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("local storage: %w", err)
		}
		return s, nil
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("local storage: %w", err)
	}
	if _, err := s.dirRoot(); err != nil {
		return nil, fmt.Errorf("local storage: %w", err)
	}
	return s, nil
}

// dirRoot is the handle on the root directory, opened on first use
// once the directory exists (an fs.ErrNotExist before).
func (s *Storage) dirRoot() (*os.Root, error) {
	if r := s.root.Load(); r != nil {
		return r, nil
	}
	s.rootMu.Lock()
	defer s.rootMu.Unlock()
	if r := s.root.Load(); r != nil {
		return r, nil
	}
	r, err := os.OpenRoot(s.dir)
	if err != nil {
		return nil, err
	}
	s.dirs.Store(newOpenDirs(r))
	s.root.Store(r)
	return r, nil
}

// ParsePublicURL checks a public URL base and returns it without a
// trailing slash: an absolute http or https URL with a host and no query,
// fragment or user info. "" stays "".
func ParsePublicURL(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("local storage: public URL %q: %w", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", fmt.Errorf("local storage: public URL %q must be an absolute http(s) URL with no user, query or fragment", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// Root is the absolute path of the media root directory.
func (s *Storage) Root() string { return s.dir }

// Close releases the handle on the root directory.
func (s *Storage) Close() error {
	if d := s.dirs.Load(); d != nil {
		d.close()
	}
	if r := s.root.Load(); r != nil {
		return r.Close()
	}
	return nil
}

// Put writes the object to a temporary file beside its final place, syncs
// it, renames it over the key and syncs the directory, so that after a crash
// the key holds either the old bytes or the new ones, never a part. Temporary
// names begin with "." and so are never valid keys.
func (s *Storage) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	return s.put(ctx, key, r, size, true)
}

// PutNoSync is Put without the sync of the key's folder
// (media.FolderSyncer): the bytes are synced before the rename, so the
// key never names a part of them, but the name itself is durable only
// once SyncFolders has synced the folder.
func (s *Storage) PutNoSync(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	return s.put(ctx, key, r, size, false)
}

// SyncFolders syncs the folders of keys, each once (media.FolderSyncer):
// every name PutNoSync or MoveInNoSync made in them before the call is
// durable when it returns nil.
func (s *Storage) SyncFolders(ctx context.Context, keys []string) error {
	var done []string
	for _, key := range keys {
		if err := objkey.Check(key); err != nil {
			return err
		}
		dir := filepath.Dir(filepath.FromSlash(key))
		if slices.Contains(done, dir) {
			continue
		}
		dirs, err := s.folder(dir)
		if err == nil {
			err = dirs.fsyncDir(dir)
		}
		if err != nil {
			return fmt.Errorf("local storage: sync folder of %q: %w", key, err)
		}
		done = append(done, dir)
	}
	return nil
}

func (s *Storage) put(ctx context.Context, key string, r io.Reader, size int64, syncDir bool) (err error) {
	if err := objkey.Check(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	name := filepath.FromSlash(key)
	dir, base := filepath.Dir(name), filepath.Base(name)
	dirs, err := s.folder(dir)
	if err != nil {
		return fmt.Errorf("local storage: put %q: %w", key, err)
	}
	tmp := ".tmp-" + rand.Text()
	var f *os.File
	create := func() error {
		return dirs.do(dir, func(dirfd int) error {
			var fd int
			err := ignoringEINTR(func() (err error) {
				fd, err = unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o644)
				return err
			})
			if err != nil {
				return pathErr("open", filepath.Join(dir, tmp), err)
			}
			f = os.NewFile(uintptr(fd), tmp)
			return nil
		})
	}
	err = create()
	if errors.Is(err, fs.ErrNotExist) {
		// Removed since it was opened: made again.
		if dirs, err = s.folder(dir); err == nil {
			err = create()
		}
	}
	if err != nil {
		return fmt.Errorf("local storage: put %q: %w", key, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			dirs.do(dir, func(dirfd int) error { return unix.Unlinkat(dirfd, tmp, 0) })
		}
	}()
	src := ctxio.Reader(ctx, r)
	var n int64
	if size >= 0 {
		// One byte more than announced, to notice a longer body.
		n, err = io.Copy(f, io.LimitReader(src, size+1))
	} else {
		n, err = io.Copy(f, src)
	}
	if err != nil {
		return fmt.Errorf("local storage: put %q: %w", key, err)
	}
	if size >= 0 && n != size {
		return fmt.Errorf("local storage: put %q: got %d bytes, announced %d", key, n, size)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("local storage: put %q: %w", key, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("local storage: put %q: %w", key, err)
	}
	err = dirs.do(dir, func(dirfd int) error {
		return ignoringEINTR(func() error { return unix.Renameat(dirfd, tmp, dirfd, base) })
	})
	if err != nil {
		err = &os.LinkError{Op: "rename", Old: tmp, New: name, Err: err}
		return fmt.Errorf("local storage: put %q: %w", key, err)
	}
	if !syncDir {
		return nil
	}
	if err := dirs.fsyncDir(dir); err != nil {
		// The object is in place; only its durability across a crash is in
		// doubt. Report it rather than remove a complete object.
		return fmt.Errorf("local storage: put %q: sync dir: %w", key, err)
	}
	return nil
}

// MoveIn stores the whole of the file f (size bytes, of the media root's
// file system: an upload spooled in the library's temporary folder) under
// key by renaming it into place instead of copying its bytes
// (media.FileMover): f is made readable as Put's files are (0644),
// synced, renamed over the key, and the key's folder synced, as Put does.
// It reports false, having changed nothing but f's mode, when f is not a
// file it can take (another size, another file system); the caller then
// Puts it. Once it reports true f's name is gone from its folder.
func (s *Storage) MoveIn(ctx context.Context, key string, f *os.File, size int64) (moved bool, err error) {
	return s.moveIn(ctx, key, f, size, true)
}

// MoveInNoSync is MoveIn without the sync of the key's folder, as
// PutNoSync is Put without it (media.FolderSyncer).
func (s *Storage) MoveInNoSync(ctx context.Context, key string, f *os.File, size int64) (moved bool, err error) {
	return s.moveIn(ctx, key, f, size, false)
}

// PrepareMoveIn does to f what a MoveIn does to the file itself before
// renaming it, its mode made 0644 and its bytes synced, so that the
// caller can run it beside other work (media.Library.Create: the claims
// of the upload's keys, with their own sync); MoveInPrepared then moves
// f without it.
func (s *Storage) PrepareMoveIn(f *os.File) error {
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("local storage: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("local storage: %w", err)
	}
	return nil
}

// MoveInPrepared is MoveInNoSync of a file PrepareMoveIn returned nil
// for: its bytes are not synced again.
func (s *Storage) MoveInPrepared(ctx context.Context, key string, f *os.File, size int64) (moved bool, err error) {
	return s.moveInFile(ctx, key, f, size, false, false)
}

func (s *Storage) moveIn(ctx context.Context, key string, f *os.File, size int64, syncDir bool) (moved bool, err error) {
	return s.moveInFile(ctx, key, f, size, syncDir, true)
}

func (s *Storage) moveInFile(ctx context.Context, key string, f *os.File, size int64, syncDir, prepare bool) (moved bool, err error) {
	if err := objkey.Check(key); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != size || !filepath.IsAbs(f.Name()) {
		return false, nil
	}
	name := filepath.FromSlash(key)
	dir, base := filepath.Dir(name), filepath.Base(name)
	dirs, err := s.folder(dir)
	if err != nil {
		return false, fmt.Errorf("local storage: put %q: %w", key, err)
	}
	if prepare {
		if err := f.Chmod(0o644); err != nil {
			return false, fmt.Errorf("local storage: put %q: %w", key, err)
		}
		if err := f.Sync(); err != nil {
			return false, fmt.Errorf("local storage: put %q: %w", key, err)
		}
	}
	err = dirs.do(dir, func(dirfd int) error {
		return ignoringEINTR(func() error { return unix.Renameat(unix.AT_FDCWD, f.Name(), dirfd, base) })
	})
	if errors.Is(err, syscall.EXDEV) || errors.Is(err, fs.ErrNotExist) {
		// Another file system, or f's name gone: Put copies from the
		// open file instead.
		return false, nil
	}
	if err != nil {
		err = &os.LinkError{Op: "rename", Old: f.Name(), New: name, Err: err}
		return false, fmt.Errorf("local storage: put %q: %w", key, err)
	}
	if !syncDir {
		return true, nil
	}
	if err := dirs.fsyncDir(dir); err != nil {
		return true, fmt.Errorf("local storage: put %q: sync dir: %w", key, err)
	}
	return true, nil
}

// folder makes the folder dir exist and returns the open folders it is
// kept in: no system call when it is open already, else an open of it
// (or a MkdirAll when missing).
func (s *Storage) folder(dir string) (*openDirs, error) {
	root, err := s.dirRoot()
	if err != nil {
		return nil, err
	}
	dirs := s.dirs.Load()
	err = dirs.do(dir, func(int) error { return nil })
	if !errors.Is(err, fs.ErrNotExist) {
		return dirs, err
	}
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return dirs, dirs.do(dir, func(int) error { return nil })
}

// KeysFolded lists the keys of the objects whose key in lower case is
// lowerKey (several on a case-sensitive disk): the objects a claim, which
// is named by its key in lower case, may stand for. The folder is looked
// up as given.
func (s *Storage) KeysFolded(ctx context.Context, lowerKey string) ([]string, error) {
	if err := objkey.Check(lowerKey); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir, base := path.Split(lowerKey)
	d := "."
	if dir != "" {
		d = filepath.FromSlash(strings.TrimSuffix(dir, "/"))
	}
	root, err := s.dirRoot()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("local storage: %w", err)
	}
	f, err := root.Open(d)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("local storage: %w", err)
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("local storage: %w", err)
	}
	var keys []string
	for _, n := range names {
		if !strings.HasPrefix(n, ".") && strings.ToLower(n) == base {
			keys = append(keys, dir+n)
		}
	}
	return keys, nil
}

// CleanTemp removes the temporary files of Puts a crash interrupted
// (".tmp-*" beside their key), in every folder of the storage. Call it
// only when no Put is running: the only writer, at its start.
func (s *Storage) CleanTemp(ctx context.Context) (removed int, err error) {
	root, err := s.dirRoot()
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("local storage: clean temporary files: %w", err)
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := root.Open(dir)
		if err != nil {
			return err
		}
		ents, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return err
		}
		for _, e := range ents {
			name := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir() && !strings.HasPrefix(e.Name(), "."):
				if err := walk(name); err != nil {
					return err
				}
			case e.Type().IsRegular() && strings.HasPrefix(e.Name(), ".tmp-"):
				if err := root.Remove(name); err != nil {
					return err
				}
				removed++
			}
		}
		return nil
	}
	if err := walk("."); err != nil {
		return removed, fmt.Errorf("local storage: clean temporary files: %w", err)
	}
	return removed, nil
}

func (s *Storage) syncDir(dir string) error {
	root, err := s.dirRoot()
	if err != nil {
		return err
	}
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Open reads an object. Directories are not objects.
func (s *Storage) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := objkey.Check(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	root, err := s.dirRoot()
	if err != nil {
		return nil, s.fsErr("open", key, err)
	}
	f, err := root.Open(filepath.FromSlash(key))
	if err != nil {
		return nil, s.fsErr("open", key, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, s.fsErr("open", key, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("local storage: open %q: %w", key, media.ErrNotExist)
	}
	return f, nil
}

// Stat returns the size of an object.
func (s *Storage) Stat(ctx context.Context, key string) (int64, error) {
	if err := objkey.Check(key); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	root, err := s.dirRoot()
	if err != nil {
		return 0, s.fsErr("stat", key, err)
	}
	fi, err := root.Stat(filepath.FromSlash(key))
	if err != nil {
		return 0, s.fsErr("stat", key, err)
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("local storage: stat %q: %w", key, media.ErrNotExist)
	}
	return fi.Size(), nil
}

// Delete removes an object. A directory at key is not an object and is left
// alone; empty parent directories are left too, since the media library
// keeps its sidecars in them.
func (s *Storage) Delete(ctx context.Context, key string) error {
	if err := objkey.Check(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	name := filepath.FromSlash(key)
	root, err := s.dirRoot()
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("local storage: delete %q: %w", key, err)
	}
	fi, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("local storage: delete %q: %w", key, err)
	}
	if fi.IsDir() {
		return nil
	}
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("local storage: delete %q: %w", key, err)
	}
	if err := s.syncDir(filepath.Dir(name)); err != nil {
		return fmt.Errorf("local storage: delete %q: sync dir: %w", key, err)
	}
	return nil
}

// DeletePrefix removes the folder prefix (ending in "/") and everything
// in it (media.PrefixDeleter).
func (s *Storage) DeletePrefix(ctx context.Context, prefix string) error {
	dir, ok := strings.CutSuffix(prefix, "/")
	if !ok {
		return fmt.Errorf("local storage: delete prefix %q: must end in /", prefix)
	}
	if err := objkey.Check(dir); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	name := filepath.FromSlash(dir)
	root, err := s.dirRoot()
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("local storage: delete prefix %q: %w", prefix, err)
	}
	err = root.RemoveAll(name)
	s.dirs.Load().forget(name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errNotDir) {
		return fmt.Errorf("local storage: delete prefix %q: %w", prefix, err)
	}
	return nil
}

// URL is where the HTTP layer serves the object, each segment escaped:
// /uploads/<key>, behind the public URL when one is configured.
func (s *Storage) URL(key string) string {
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return s.base + URLPrefix + strings.Join(segs, "/")
}

// errNotDir is what the file system says when a key goes through a file
// ("a.jpg/b"); for a storage that key simply does not exist.
var errNotDir error = syscall.ENOTDIR

func (s *Storage) fsErr(op, key string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir) {
		return fmt.Errorf("local storage: %s %q: %w", op, key, media.ErrNotExist)
	}
	return fmt.Errorf("local storage: %s %q: %w", op, key, err)
}
