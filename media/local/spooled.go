package local

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/folio-cms/folio/media/internal/objkey"
)

// spoolDir is the folder of the media root where media.Library spools
// uploads (media's tmpDir).
const spoolDir = ".tmp"

// Spooled reports whether f is a file SyncSpooled and LinkSpooled can
// take (media.SpoolLinker): one directly in the temporary folder of this
// storage's root, where the library spools its uploads.
func (s *Storage) Spooled(f *os.File) bool {
	return filepath.IsAbs(f.Name()) && filepath.Dir(f.Name()) == filepath.Join(s.dir, spoolDir)
}

// PrepareSpooled readies the spooled upload f for SyncSpooled
// (media.SpoolLinker): its mode made 0644 as Put's files, and the writing
// of its bytes begun, without waiting for it, so that the file's blocks
// are allocated before any sync of the upload's first round begins (see
// startWriteback).
func (s *Storage) PrepareSpooled(f *os.File) error {
	if !s.Spooled(f) {
		return fmt.Errorf("local storage: %s is not in the temporary folder", f.Name())
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("local storage: %w", err)
	}
	startWriteback(int(f.Fd()))
	return nil
}

// SyncSpooled makes the spooled upload f, which PrepareSpooled readied,
// durable where it is (media.SpoolLinker): its bytes and its name in the
// temporary folder synced, the two syncs at once. Syncs of the folder
// that overlap (concurrent uploads) share one.
func (s *Storage) SyncSpooled(f *os.File) error {
	if !s.Spooled(f) {
		return fmt.Errorf("local storage: %s is not in the temporary folder", f.Name())
	}
	dirs, err := s.folder(spoolDir)
	if err != nil {
		return fmt.Errorf("local storage: %w", err)
	}
	named := make(chan error, 1)
	go func() { named <- dirs.fsyncDir(spoolDir) }()
	err = f.Sync()
	if nerr := <-named; err == nil {
		err = nerr
	}
	if err != nil {
		return fmt.Errorf("local storage: %w", err)
	}
	return nil
}

// LinkSpooled gives the spooled upload f the name key too, a hard link,
// without syncing key's folder (SyncFolders does; media.SpoolLinker): f
// keeps its name in the temporary folder, which stands for the key until
// the caller removes it. A file already at key (one no item holds: put
// there by hand) is replaced, as Put replaces it.
func (s *Storage) LinkSpooled(ctx context.Context, key string, f *os.File) error {
	if err := objkey.Check(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !s.Spooled(f) {
		return fmt.Errorf("local storage: put %q: %s is not in the temporary folder", key, f.Name())
	}
	name := filepath.FromSlash(key)
	dir, base := filepath.Dir(name), filepath.Base(name)
	dirs, err := s.folder(dir)
	if err != nil {
		return fmt.Errorf("local storage: put %q: %w", key, err)
	}
	link := func(to string) error {
		return dirs.do(dir, func(dirfd int) error {
			return ignoringEINTR(func() error { return unix.Linkat(unix.AT_FDCWD, f.Name(), dirfd, to, 0) })
		})
	}
	err = link(base)
	if errors.Is(err, fs.ErrNotExist) {
		// The folder was removed since it was opened: made again.
		if dirs, err = s.folder(dir); err == nil {
			err = link(base)
		}
	}
	if errors.Is(err, fs.ErrExist) {
		tmp := ".tmp-" + rand.Text()
		if err = link(tmp); err == nil {
			err = dirs.do(dir, func(dirfd int) error {
				return ignoringEINTR(func() error { return unix.Renameat(dirfd, tmp, dirfd, base) })
			})
			if err != nil {
				dirs.do(dir, func(dirfd int) error { return unix.Unlinkat(dirfd, tmp, 0) })
			}
		}
	}
	if err != nil {
		err = &os.LinkError{Op: "link", Old: f.Name(), New: name, Err: err}
		return fmt.Errorf("local storage: put %q: %w", key, err)
	}
	return nil
}
