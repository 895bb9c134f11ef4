package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// migratedMarker, on the media root, records that its sidecars and folders
// were copied into the bucket, so that later starts skip the scan. The
// local files themselves are left as they were: nothing is lost, and
// copying again is harmless.
const migratedMarker = ".migrated-to-bucket"

// MigrateReport is what a migration of a media root into the bucket did.
type MigrateReport struct {
	// Items is the number of items found on the media root; Created of
	// them got their sidecar in the bucket by this run (the others were
	// there already).
	Items, Created int
	// Copied is the number of files (originals and derivatives) copied
	// into the bucket by this run; Present were there already with the
	// same bytes.
	Copied, Present int
	Folders         int
	// Skipped lists the items left out, each with its reason: none of
	// them is in the bucket's library.
	Skipped []MigrateSkip
}

// MigrateSkip is an item a migration left out.
type MigrateSkip struct {
	ID, Key, Reason string
}

// MigrateLocal copies the library on the media root (sidecars, folders,
// and the files of originals and derivatives that a local library keeps
// there) into the bucket, whether or not it was migrated before: a run
// cut short, or one made by a release that copied the metadata only, is
// finished. Every copy is create-if-absent and every file is verified by
// size and SHA-256 against the bucket's copy, so running it again changes
// nothing. An item whose key is taken in the bucket by another item or by
// other bytes, or whose file is nowhere, is skipped and reported, not
// overwritten. Only for a writer of a shared library.
func (l *Library) MigrateLocal(ctx context.Context) (*MigrateReport, error) {
	if l.cfg.ReadOnly {
		return nil, errReadOnly
	}
	m := l.mig
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.report; r != nil {
		// Open just did it.
		m.report = nil
		return r, nil
	}
	return m.migrate(ctx)
}

// migration moves into the library's state a library that an earlier
// release kept on the media root (sidecars beside the files) or in a
// state of its own (Config.MigrateFrom): items, folders and files. It
// writes the state only through the library's stateSync, and changes
// the catalog only as the state's log says.
//
// Its lock, mu, orders migrations (Open's, MigrateLocal's) and is the
// outermost a migration holds: the state's and the catalog's locks are
// taken inside it, by stateSync, never the other way round.
type migration struct {
	root     *os.Root
	rootPath string
	storage  Storage
	from     StateStore
	log      *slog.Logger
	sync     *stateSync

	mu sync.Mutex
	// report is the report of the migration Open made, until
	// MigrateLocal hands it out.
	report *MigrateReport
}

// migrateLocal is the migration Open makes of a media root that was never
// migrated (no marker); MigrateLocal returns its report.
func (m *migration) migrateLocal(ctx context.Context) error {
	if _, err := m.root.Stat(migratedMarker); err == nil {
		return nil
	}
	if _, err := m.root.Stat(foldersFile); errors.Is(err, fs.ErrNotExist) && m.from == nil {
		months, err := monthDirs(m.root)
		if err != nil {
			return err
		}
		if len(months) == 0 {
			return nil // nothing local to move
		}
	}
	r, err := m.migrate(ctx)
	if err != nil {
		return err
	}
	m.report = r
	return nil
}

func (m *migration) migrate(ctx context.Context) (*MigrateReport, error) {
	items, folders, err := readLegacy(ctx, m.root, m.log)
	if err != nil {
		return nil, fmt.Errorf("media: migrate: %w", err)
	}
	if m.from != nil {
		more, fs, err := readStateLibrary(ctx, m.from, m.log)
		if err != nil {
			return nil, fmt.Errorf("media: migrate: %w", err)
		}
		items = append(items, more...)
		folders = append(folders, fs...)
	}
	// An item in both (the old sidecars a migration into the local state
	// left) once: the state's, the newer.
	byID := make(map[string]*Item, len(items))
	for _, it := range items {
		byID[it.ID] = it
	}
	items = items[:0]
	for _, it := range byID {
		items = append(items, it)
	}
	slices.SortFunc(items, func(a, b *Item) int { return strings.Compare(a.Key, b.Key) })

	rep := &MigrateReport{Items: len(items), Folders: len(folders)}
	var mu sync.Mutex
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				res, err := m.migrateItem(ctx, items[i])
				errs[i] = err
				mu.Lock()
				rep.Copied += res.copied
				rep.Present += res.present
				if res.created {
					rep.Created++
				}
				if res.skip != nil {
					rep.Skipped = append(rep.Skipped, *res.skip)
				}
				mu.Unlock()
			}
		})
	}
	for i := range items {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("media: migrate: %w", err)
	}
	slices.SortFunc(rep.Skipped, func(a, b MigrateSkip) int { return strings.Compare(a.Key, b.Key) })
	if len(folders) > 0 {
		err := m.sync.foldersShared(ctx, func(x *index) (map[string]bool, error) {
			union := map[string]bool{}
			for p := range x.explicit {
				union[p] = true
			}
			for _, p := range folders {
				union[p] = true
			}
			return union, nil
		})
		if err != nil {
			return nil, fmt.Errorf("media: migrate folders: %w", err)
		}
	}
	if rep.Created > 0 {
		m.sync.appendLog(ctx, logEntry{Op: opRescan})
	}
	for _, sk := range rep.Skipped {
		m.log.Error("media: migrate: item skipped", "id", sk.ID, "key", sk.Key, "reason", sk.Reason)
	}
	m.log.Info("media: library of the media root moved into the state store", "items", rep.Items, "new", rep.Created,
		"copied", rep.Copied, "present", rep.Present, "skipped", len(rep.Skipped), "folders", len(folders))
	if len(rep.Skipped) > 0 {
		// No marker: the next start (or `folio media migrate`) tries the
		// skipped items again once their clash is resolved.
		return rep, nil
	}
	marker := fmt.Appendf(nil, "The sidecars and folders of this media root were copied into the library's state (<root>/.state on local storage, the bucket's state area on S3); folio reads them there now.\n")
	if err := writeFileAtomic(m.root, migratedMarker, marker); err != nil {
		return nil, fmt.Errorf("media: migrate: %w", err)
	}
	return rep, nil
}

// readStateLibrary reads every item and the folders of a library's
// state store (another library's: the source of a migration). Sidecars
// that do not parse are logged and left out.
func readStateLibrary(ctx context.Context, st StateStore, log *slog.Logger) ([]*Item, []string, error) {
	var ids []string
	if err := st.List(ctx, stateItems, "", func(o StateObject) error {
		if id, ok := strings.CutSuffix(strings.TrimPrefix(o.Key, stateItems), ".yaml"); ok && ValidID(id) {
			ids = append(ids, id)
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	var items []*Item
	for _, id := range ids {
		data, _, err := st.Get(ctx, itemStateKey(id))
		if errors.Is(err, ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		it, err := decodeSharedSidecar(id, data)
		if err != nil {
			log.Error("media: migrate: corrupt sidecar skipped", "id", id, "err", err)
			continue
		}
		items = append(items, it)
	}
	fs, _, err := readFoldersOf(ctx, st)
	if err != nil {
		return nil, nil, err
	}
	return items, fs.Folders, nil
}

type migrated struct {
	created         bool
	copied, present int
	skip            *MigrateSkip
}

// migrateItem claims the keys of it, copies its files into the bucket
// when the media root has them, and creates its sidecar, each unless it is
// there already. A key claimed by another item, or holding other bytes,
// skips the item: its claims made by this call are removed again and
// nothing of it is written.
func (m *migration) migrateItem(ctx context.Context, it *Item) (res migrated, err error) {
	skip := func(key, reason string) (migrated, error) {
		res.skip = &MigrateSkip{ID: it.ID, Key: key, Reason: reason}
		return res, nil
	}
	var mine []string // claims this item holds
	defer func() {
		if res.skip == nil && err == nil {
			return
		}
		// Not migrated: its names are free again (a claim this item held
		// from an earlier, cut-off run included), unless an earlier run
		// registered it.
		if _, _, gerr := m.sync.st.Get(ctx, itemStateKey(it.ID)); errors.Is(gerr, ErrNotExist) {
			m.sync.rep.Release(ctx, mine)
		}
	}()
	for _, k := range itemKeys(it) {
		other, err := m.sync.rep.ClaimIfFree(ctx, it.ID, k)
		if err != nil {
			return res, err
		}
		if other != "" {
			owner, _, _ := strings.Cut(other, "\n")
			return skip(k, fmt.Sprintf("the name is taken in the bucket (by %s)", owner))
		}
		mine = append(mine, k)
	}
	for _, k := range itemKeys(it) {
		mime := it.MimeType
		if k != it.Key {
			mime = "image/webp"
		}
		state, reason, err := m.migrateFile(ctx, k, mime)
		if err != nil {
			return res, err
		}
		switch {
		case reason != "":
			return skip(k, reason)
		case state == fileCopied:
			res.copied++
		default:
			res.present++
		}
	}
	data, err := encodeSidecar(it)
	if err != nil {
		return res, err
	}
	_, err = m.sync.st.Create(ctx, itemStateKey(it.ID), data)
	if errors.Is(err, ErrPrecondition) {
		return res, nil
	}
	res.created = err == nil
	return res, err
}

const (
	filePresent = iota
	fileCopied
)

// migrateFile puts the media root's file at key into the bucket unless
// the bucket has it, and checks that the bucket's copy has the same size
// and SHA-256. A reason is returned when the key cannot be the item's:
// other bytes in the bucket, or no file anywhere.
func (m *migration) migrateFile(ctx context.Context, key, mime string) (state int, reason string, err error) {
	if lr, ok := m.storage.(localRoot); ok && filepath.Clean(lr.Root()) == m.rootPath {
		// Local storage on the media root: the storage's file is the
		// media root's, already where it belongs.
		_, err := m.storage.Stat(ctx, key)
		if errors.Is(err, ErrNotExist) {
			return 0, "the file is not on the media root", nil
		}
		return filePresent, "", err
	}
	local, lsize, lerr := m.localSum(key)
	if lerr != nil && !errors.Is(lerr, fs.ErrNotExist) {
		return 0, "", fmt.Errorf("media: migrate: read %s: %w", key, lerr)
	}
	size, err := m.storage.Stat(ctx, key)
	switch {
	case errors.Is(err, ErrNotExist) && lerr != nil:
		return 0, "the file is neither on the media root nor in the bucket", nil
	case errors.Is(err, ErrNotExist):
		f, err := m.root.Open(filepath.FromSlash(key))
		if err != nil {
			return 0, "", err
		}
		err = m.storage.Put(ctx, key, f, lsize, mime)
		f.Close()
		if err != nil {
			return 0, "", err
		}
		state = fileCopied
		if size, err = m.storage.Stat(ctx, key); err != nil {
			return 0, "", err
		}
	case err != nil:
		return 0, "", err
	case lerr != nil:
		// In the bucket and not on disk: a library that kept its files
		// in the bucket already.
		return filePresent, "", nil
	}
	if size != lsize {
		return 0, fmt.Sprintf("the bucket holds other bytes under this name (%d bytes, the media root's file %d)", size, lsize), nil
	}
	rc, err := m.storage.Open(ctx, key)
	if err != nil {
		return 0, "", err
	}
	h := sha256.New()
	_, err = io.Copy(h, rc)
	rc.Close()
	if err != nil {
		return 0, "", err
	}
	if !bytes.Equal(h.Sum(nil), local) {
		return 0, "the bucket holds other bytes under this name (SHA-256 differs)", nil
	}
	return state, "", nil
}

// localRoot is implemented by storages that keep objects as files under a
// directory (media/local).
type localRoot interface{ Root() string }

// localSum is the SHA-256 and size of the media root's file at key.
func (m *migration) localSum(key string) ([]byte, int64, error) {
	f, err := m.root.Open(filepath.FromSlash(key))
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, 0, err
	}
	return h.Sum(nil), n, nil
}
