package gitsource

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watchDebounce coalesces the burst of events one ref update makes (lock
// file, rename, reflog) into one notification.
//
// Git writes a ref (or packed-refs) to a lock file and renames it into
// place, after the objects it names are written: the rename, a Create
// event of the ref file, means the new value is complete. For a local
// repository that event notifies at once (push to serve does not wait for
// the debounce), and the debounced notification follows as before; the
// reload it asks for finds nothing new when nothing else moved.
const watchDebounce = 20 * time.Millisecond

// Watch calls notify (debounced) whenever a branch ref may have moved: it
// watches HEAD, packed-refs and refs/heads/** of the repository (of the
// clone, for a remote site, so a Fetch that moves a branch notifies too).
// It returns when ctx is done, or on a watcher failure.
func (s *Source) Watch(ctx context.Context, notify func()) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("source: watch: %w", err)
	}
	defer w.Close()
	heads := filepath.Join(s.gitDir, "refs", "heads")
	if err := w.Add(s.gitDir); err != nil {
		return fmt.Errorf("source: watch %s: %w", s.gitDir, err)
	}
	if err := watchTree(w, heads); err != nil {
		return fmt.Errorf("source: watch %s: %w", heads, err)
	}
	// A ref that moved after the snapshot was loaded and before the
	// watch began made no event: look once now (a reload that finds the
	// same commit does nothing).
	notify()

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("source: watcher closed")
			}
			// An overflow loses events, not the watch: notify to be safe.
			s.log.Warn("source: watch error", "err", err)
			timer.Reset(watchDebounce)
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("source: watcher closed")
			}
			if !s.refEvent(ev, heads) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				// A new branch folder (refs/heads/feature/) needs its own watch.
				fi, err := os.Stat(ev.Name)
				if err == nil && fi.IsDir() {
					if err := watchTree(w, ev.Name); err != nil {
						s.log.Warn("source: watch new ref folder", "dir", ev.Name, "err", err)
					}
				} else if err == nil && !s.remote {
					// A ref renamed into place (see watchDebounce). A clone
					// of a remote site is written by go-git's Fetch, not
					// always by renames, and Sync reloads after it anyway.
					notify()
				}
			}
			timer.Reset(watchDebounce)
		case <-timer.C:
			notify()
		}
	}
}

// refEvent tells whether an event can mean a branch moved. Lock files are
// ignored: git renames them into place, and that rename is the event.
func (s *Source) refEvent(ev fsnotify.Event, heads string) bool {
	if strings.HasSuffix(ev.Name, ".lock") {
		return false
	}
	if ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Write) && !ev.Has(fsnotify.Create) {
		return false
	}
	if filepath.Dir(ev.Name) == s.gitDir {
		switch filepath.Base(ev.Name) {
		case "HEAD", "packed-refs", "refs":
			return true
		}
		return false
	}
	return ev.Name == heads || strings.HasPrefix(ev.Name, heads+string(filepath.Separator))
}

// watchTree adds dir and every folder below it to w.
func watchTree(w *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return w.Add(p)
		}
		return nil
	})
}
