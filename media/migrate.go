package media

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"
)

// migratedMarker, on the media root, records that its sidecars and folders
// were copied into the bucket, so that later starts skip the scan. The
// local files themselves are left as they were: nothing is lost, and
// copying again is harmless.
const migratedMarker = ".migrated-to-bucket"

// migrateLocal copies a library that an earlier release kept on the media
// root (sidecars under <yyyy>/<mm>/.meta, .folders.yaml) into the state
// store. It is idempotent: every copy is a create-if-absent, so a migration
// cut short is finished by the next start, and an item already in the
// bucket (perhaps changed there since) is left alone. It ends with a
// rescan entry in the log, which makes every box re-read the sidecars.
func (l *Library) migrateLocal(ctx context.Context) error {
	if _, err := l.root.Stat(migratedMarker); err == nil {
		return nil
	}
	if _, err := l.root.Stat(foldersFile); errors.Is(err, fs.ErrNotExist) {
		months, err := l.monthDirs()
		if err != nil {
			return err
		}
		if len(months) == 0 {
			return nil // nothing local to move
		}
	}
	old, err := Open(ctx, Config{Root: l.cfg.Root, Storage: l.cfg.Storage, ReadOnly: true, Logger: l.log})
	if err != nil {
		return fmt.Errorf("media: migrate: %w", err)
	}
	defer old.Close()
	old.mu.RLock()
	items := make([]*Item, 0, len(old.items))
	for _, it := range old.items {
		items = append(items, it)
	}
	folders := make([]string, 0, len(old.explicit))
	for p := range old.explicit {
		folders = append(folders, p)
	}
	old.mu.RUnlock()

	var created atomic.Int64
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				made, err := l.migrateItem(ctx, items[i])
				errs[i] = err
				if made {
					created.Add(1)
				}
			}
		})
	}
	for i := range items {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("media: migrate: %w", err)
	}
	if len(folders) > 0 {
		err := l.foldersShared(ctx, func(explicit map[string]bool) (map[string]bool, error) {
			union := map[string]bool{}
			for p := range explicit {
				union[p] = true
			}
			for _, p := range folders {
				union[p] = true
			}
			return union, nil
		})
		if err != nil {
			return fmt.Errorf("media: migrate folders: %w", err)
		}
	}
	if created.Load() > 0 {
		l.appendLog(ctx, logEntry{Op: opRescan})
	}
	l.log.Info("media: local library moved into the bucket", "items", len(items), "new", created.Load(), "folders", len(folders))
	marker := fmt.Appendf(nil, "The sidecars and folders of this media root were copied into the bucket's state area; folio reads them there now.\n")
	if err := writeFileAtomic(l.root, migratedMarker, marker); err != nil {
		return fmt.Errorf("media: migrate: %w", err)
	}
	return nil
}

// migrateItem claims the keys of it and creates its sidecar, unless it is
// there already. It reports whether it created the sidecar.
func (l *Library) migrateItem(ctx context.Context, it *Item) (bool, error) {
	for _, k := range itemKeys(it) {
		other, err := l.sh.rep.ClaimIfFree(ctx, it.ID, k)
		if err != nil {
			return false, err
		}
		if other != "" {
			l.log.Warn("media: migrate: a key is claimed by another item too", "key", k, "id", it.ID, "other", other)
		}
	}
	data, err := encodeSidecar(it)
	if err != nil {
		return false, err
	}
	_, err = l.sh.st.Create(ctx, itemStateKey(it.ID), data)
	if errors.Is(err, ErrPrecondition) {
		return false, nil
	}
	return err == nil, err
}
