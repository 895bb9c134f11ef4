package media

// A rescan: the library read again from the sidecars and folders in the
// state store.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/media/replica"
)

// rescan reads every sidecar and the folder list, and replaces the index
// with what they say. The log position is taken first, so entries written
// during the scan are applied again after it (which is harmless).
// It returns what a listing of the sidecars would have said (listSidecars:
// id to tag, with the tags of the reads), so that a start that rescans
// does not list them again to reconcile.
func (s *stateSync) rescan(ctx context.Context) (map[string]string, error) {
	s.loopMu.Lock()
	defer s.loopMu.Unlock()
	return s.rescanLocked(ctx)
}

// keyLister is a StateStore that lists keys alone more cheaply than with
// their tags (media/local.State: a directory read, no stat per object).
// The rescan needs no tag from its listing: it reads every sidecar, and
// the read gives the tag.
type keyLister interface {
	ListKeys(ctx context.Context, prefix string, fn func(key string) error) error
}

// listSidecarIDs lists the ids of the sidecars.
func (s *stateSync) listSidecarIDs(ctx context.Context) ([]string, error) {
	var ids []string
	add := func(key string) {
		if id, ok := strings.CutSuffix(strings.TrimPrefix(key, stateItems), ".yaml"); ok && ValidID(id) {
			ids = append(ids, id)
		}
	}
	if kl, ok := s.st.(keyLister); ok {
		err := kl.ListKeys(ctx, stateItems, func(key string) error { add(key); return nil })
		return ids, err
	}
	err := s.st.List(ctx, stateItems, "", func(o StateObject) error { add(o.Key); return nil })
	return ids, err
}

func (s *stateSync) rescanLocked(ctx context.Context) (map[string]string, error) {
	last, err := s.rep.Last(ctx)
	if err != nil {
		return nil, err
	}
	ids, err := s.listSidecarIDs(ctx)
	if err != nil {
		return nil, err
	}
	items := make([]*Item, len(ids))
	tags := make([]string, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 32 {
		wg.Go(func() {
			for i := range next {
				data, tag, err := s.st.Get(ctx, itemStateKey(ids[i]))
				if errors.Is(err, ErrNotExist) {
					continue // deleted meanwhile
				}
				tags[i] = tag
				if err != nil {
					errs[i] = err
					continue
				}
				it, err := decodeSharedSidecar(ids[i], data)
				if err != nil {
					s.log.Error("media: corrupt sidecar in the bucket; item skipped", "id", ids[i], "err", err)
					continue
				}
				items[i] = it
			}
		})
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	fs, _, err := s.readFolders(ctx)
	if err != nil {
		return nil, err
	}
	etags := make(map[string]string, len(ids))
	listed := make(map[string]string, len(ids))
	for i, id := range ids {
		if tags[i] != "" {
			listed[id] = tags[i] // a corrupt one too, as a listing has it
		}
		if items[i] != nil {
			etags[id] = tags[i]
		}
	}
	s.replaceAll(items, etags, fs.Folders, fs.Version, nil, last)
	return listed, nil
}

// readFolders reads folders.yaml; a missing one is an empty list.
func (s *stateSync) readFolders(ctx context.Context) (foldersState, string, error) {
	return readFoldersOf(ctx, s.st)
}

// readFoldersOf reads folders.yaml of st; a missing one is an empty list.
func readFoldersOf(ctx context.Context, st StateStore) (foldersState, string, error) {
	data, etag, err := st.Get(ctx, stateFolders)
	if errors.Is(err, ErrNotExist) {
		return foldersState{}, "", nil
	}
	if err != nil {
		return foldersState{}, "", err
	}
	var fs foldersState
	if err := yaml.Unmarshal(data, &fs); err != nil {
		return foldersState{}, "", fmt.Errorf("media: %s does not parse: %w", stateFolders, err)
	}
	return fs, etag, nil
}

// replaceAll makes the index what items say, as of log entry seq, and
// tells OnChange what changed: an item added or changed, or deleted.
func (s *stateSync) replaceAll(items []*Item, etags map[string]string, folders []string, foldersVersion int, tombs replica.Tombs, seq int64) {
	var changed, deleted, conflicts []*Item
	s.locked(func(p *position, x *index) {
		// The first load (at Open) fills an empty index: its maps are made
		// at their final size (growing them item by item was a third of a
		// start from a checkpoint), and nothing can be missing from items.
		fresh := len(x.items) == 0
		var seen map[string]bool
		if fresh {
			x.presize(items)
			if len(p.etags) == 0 {
				p.etags = make(map[string]string, len(etags))
			}
			changed = make([]*Item, 0, len(items))
		} else {
			seen = make(map[string]bool, len(items))
		}
		for _, it := range items {
			if it == nil {
				continue
			}
			if fresh {
				if _, dup := x.items[it.ID]; dup {
					continue
				}
			} else {
				if seen[it.ID] {
					continue
				}
				seen[it.ID] = true
			}
			cur, ok := x.items[it.ID]
			if tag, known := etags[it.ID]; known && (!ok || cur.Version <= it.Version) {
				p.etags[it.ID] = tag
			}
			if ok && cur.Version >= it.Version {
				continue
			}
			conflict := false
			for k := range keysOf(it) {
				if owner, taken := x.claimed[claimKey(k)]; taken && owner != it.ID {
					conflict = true
				}
			}
			if conflict {
				conflicts = append(conflicts, it)
				continue
			}
			if ok {
				x.remove(cur)
			}
			x.add(it)
			changed = append(changed, it)
		}
		for id, cur := range x.items {
			if !fresh && !seen[id] {
				x.remove(cur)
				delete(p.etags, id)
				deleted = append(deleted, cur)
			}
		}
		for id, at := range tombs {
			p.tombs.Bury(id, at)
		}
		p.seq = seq
		p.foldersVersion = -1 // what was read replaces what was known
	})
	for _, it := range conflicts {
		s.log.Error("media: item claims a file another item owns; skipped", "id", it.ID, "key", it.Key)
	}
	s.setFolders(folders, max(foldersVersion, 0))
	for _, it := range deleted {
		s.onChange(it, true)
	}
	for _, it := range changed {
		s.onChange(it, false)
	}
}
