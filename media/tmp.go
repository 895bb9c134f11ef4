package media

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tmpDir, under the media root, holds the temporary files of uploads,
// confirms and regenerations.
const tmpDir = ".tmp"

// cleanTmp removes the files left in .tmp by writes a crash interrupted
// (upload, confirm and regenerate temp files). The media root belongs to
// one writer: nothing else writes there while it opens. An upload
// spooled there (upload-<id>) whose item was committed stands for the
// item's original when a crash of the machine lost the original's name
// (createSpooled): it is linked to the item's key first (restoreSpooled).
func (l *Library) cleanTmp(ctx context.Context) {
	ents, err := fs.ReadDir(l.root.FS(), tmpDir)
	if err != nil {
		l.log.Warn("media: cannot read the temporary folder", "err", err)
		return
	}
	n := 0
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if id, ok := strings.CutPrefix(e.Name(), spoolPrefix); ok && ValidID(id) {
			if err := l.restoreSpooled(ctx, id, e.Name()); err != nil {
				l.log.Warn("media: spooled upload of a committed item kept", "file", e.Name(), "err", err)
				continue
			}
		}
		if err := l.root.Remove(filepath.Join(tmpDir, e.Name())); err != nil {
			l.log.Warn("media: temporary file not removed", "file", e.Name(), "err", err)
			continue
		}
		n++
	}
	if n > 0 {
		l.log.Info("media: removed temporary files of interrupted writes", "files", n)
	}
}

// restoreSpooled links the spooled upload tmpDir/name of the item id to
// the item's key when the item is committed (its sidecar is in the
// state, or in the state it migrates from) and the key holds no file,
// and syncs the key's folder. nil means the spooled file may go: no item
// of that id, or its original in place. An error keeps it (a sidecar
// that cannot be read or parsed, a spooled file of another size, a
// failed link), so that a typo in a sidecar never costs the file.
func (l *Library) restoreSpooled(ctx context.Context, id, name string) error {
	it, err := l.committedItem(ctx, id)
	if err != nil || it == nil {
		return err
	}
	key := filepath.FromSlash(it.Key)
	if _, err := l.root.Lstat(key); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	spooled := filepath.Join(tmpDir, name)
	fi, err := l.root.Lstat(spooled)
	if err != nil {
		return err
	}
	if fi.Size() != it.Size {
		return fmt.Errorf("%d bytes, its item %s says %d", fi.Size(), it.Key, it.Size)
	}
	dir := filepath.Dir(key)
	if err := l.root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := l.root.Link(spooled, key); err != nil {
		return err
	}
	d, err := l.root.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	d.Close()
	if err != nil {
		return err
	}
	l.log.Info("media: the original of an upload a crash cut short put back under its key", "id", id, "key", it.Key)
	return nil
}

// committedItem is the item whose sidecar is in the state of a library
// whose originals are files of the media root (its storage a
// SpoolLinker, or the local state it migrates from); nil when there is
// none. A library on a bucket never left an original in the media root.
func (l *Library) committedItem(ctx context.Context, id string) (*Item, error) {
	var states []StateStore
	if _, ok := l.cfg.Storage.(SpoolLinker); ok {
		states = append(states, l.cfg.State)
	}
	if l.cfg.MigrateFrom != nil {
		states = append(states, l.cfg.MigrateFrom)
	}
	for _, st := range states {
		data, _, err := st.Get(ctx, itemStateKey(id))
		if errors.Is(err, ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return decodeSharedSidecar(id, data)
	}
	return nil, nil
}

// TempFile creates a temporary file in the library's temporary folder
// (on the media root's disk, removed at the next start if left there):
// for a caller that spools an upload before it gives it to Create.
func (l *Library) TempFile(pattern string) (*os.File, error) {
	if l.cfg.ReadOnly {
		return nil, errReadOnly
	}
	return os.CreateTemp(filepath.Join(l.cfg.Root, tmpDir), pattern)
}
