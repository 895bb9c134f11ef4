package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Upload size limits of the contract (§8).
const (
	DefaultMaxUploadLocal int64 = 50 << 20
	DefaultMaxUploadCloud int64 = 500 << 20
	// DefaultMaxPixels refuses images larger than 50 megapixels before any
	// decode: a 10 KB PNG can declare 100000×100000 pixels.
	DefaultMaxPixels = 50_000_000
)

// Config configures a Library.
type Config struct {
	// Root is the media root on local disk: sidecars live at
	// <Root>/<yyyy>/<mm>/.meta/<name>.yaml, explicit folders in
	// <Root>/.folders.yaml, temporary files in <Root>/.tmp. On local
	// storage it is also the storage root.
	Root    string
	Storage Storage
	// MaxUploadBytes bounds one file; 0 means DefaultMaxUploadLocal.
	MaxUploadBytes int64
	// MaxPixels bounds width×height of an image; 0 means DefaultMaxPixels.
	MaxPixels int
	Now       func() time.Time
	Logger    *slog.Logger
	// OnChange, when set, is called after every committed write (deleted
	// is true for a delete) and once for every item at Open, so that a
	// search index can follow the library. Calls for one item arrive in
	// the order of its writes. It receives a copy it may keep.
	OnChange func(it *Item, deleted bool)
	// OnDerive, when set, is told how long the derivatives of each image
	// took to render, and the error if rendering failed (for metrics).
	OnDerive func(took time.Duration, err error)
	// ReadOnly opens the library for reading only: Open writes nothing
	// (no temporary folder, no index cache, no crash recovery, no orphan
	// sweep; those are the writer's work), and every write fails with
	// ErrReadOnly.
	ReadOnly bool
	// State, when set, makes the library shared: its sidecars, folders,
	// claims and change log live in this store (a private area of the
	// bucket), Root only holds temporary files, and the library follows
	// the writes of other boxes every PollInterval (default
	// DefaultPollInterval). See shared.go.
	State        StateStore
	PollInterval time.Duration
}

// Library is the media library: an in-memory index of every item, rebuilt
// from the sidecars at Open, kept in step with every write. It is safe for
// concurrent use.
type Library struct {
	cfg  Config
	root *os.Root
	log  *slog.Logger
	now  func() time.Time
	// sweeps is true when the storage keeps its files under the media
	// root, where Open can find orphans by listing (see sweepLocal).
	sweeps bool

	// folderMu orders folder creation and deletion (write lock) against
	// writes that put an item in a folder (read lock), so an item never
	// lands in a folder that is being deleted.
	folderMu sync.RWMutex

	mu       sync.RWMutex
	items    map[string]*Item // by id; values are never mutated, only replaced
	claimed  map[string]string
	reserved map[string]time.Time
	inFolder map[string]int
	// locales counts the items that have text in each locale.
	locales  map[string]int
	explicit map[string]bool
	orders   map[string][]*Item // cached sort orders, dropped on every write (orderMu and mu held)
	orderMu  sync.Mutex
	locks    map[string]*sync.Mutex
	// sh is the state of a shared library (Config.State); nil otherwise.
	sh *sharedState
	// gate is the queue image decodes wait in (SetDeriveGate); nil: none.
	gate atomic.Pointer[DeriveGate]
	// writes counts index changes since Open, so Close rewrites the index
	// cache only when something changed.
	writes int
}

// tmpDir holds upload temp files and write intents.
const tmpDir = ".tmp"

// Open loads the library under cfg.Root: it reads every sidecar (in
// parallel), skips and logs the ones that do not parse, finishes or rolls
// back the writes a crash interrupted, removes orphans, and calls
// cfg.OnChange for every item.
func Open(ctx context.Context, cfg Config) (*Library, error) {
	if cfg.Root == "" {
		return nil, errors.New("media: empty root")
	}
	if cfg.Storage == nil {
		return nil, errors.New("media: no storage")
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = DefaultMaxUploadLocal
	}
	if cfg.MaxPixels <= 0 {
		cfg.MaxPixels = DefaultMaxPixels
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	abs, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("media: %w", err)
	}
	cfg.Root = abs
	if !cfg.ReadOnly {
		if err := os.MkdirAll(filepath.Join(abs, tmpDir), 0o755); err != nil {
			return nil, fmt.Errorf("media: %w", err)
		}
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("media: %w", err)
	}
	l := &Library{
		cfg:      cfg,
		root:     root,
		log:      cfg.Logger,
		now:      cfg.Now,
		items:    map[string]*Item{},
		claimed:  map[string]string{},
		reserved: map[string]time.Time{},
		inFolder: map[string]int{},
		locales:  map[string]int{},
		explicit: map[string]bool{},
		orders:   map[string][]*Item{},
		locks:    map[string]*sync.Mutex{},
	}
	if cfg.State != nil {
		if err := l.openShared(ctx); err != nil {
			root.Close()
			return nil, err
		}
		return l, nil
	}
	if lr, ok := cfg.Storage.(localRoot); ok && filepath.Clean(lr.Root()) == abs {
		l.sweeps = true
	}
	if err := l.load(ctx); err != nil {
		root.Close()
		return nil, err
	}
	l.writes = 0
	if cfg.OnChange != nil {
		for _, it := range l.items {
			cfg.OnChange(l.view(it), false)
		}
	}
	return l, nil
}

// Close saves the index cache for a fast next start and releases the
// media root. Call it after the last write has returned.
func (l *Library) Close() error {
	l.closeShared()
	l.mu.RLock()
	changed := l.writes > 0 && !l.cfg.ReadOnly && l.sh == nil
	l.mu.RUnlock()
	if changed {
		l.SaveIndexCache()
	}
	return l.root.Close()
}

// MaxUploadBytes is the configured bound of one file.
func (l *Library) MaxUploadBytes() int64 { return l.cfg.MaxUploadBytes }

// Storage is the storage the library writes to.
func (l *Library) Storage() Storage { return l.cfg.Storage }

// Len is the number of items.
func (l *Library) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.items)
}

// Stats counts the items of the library and the bytes of their originals
// (derivatives not included), for metrics. It walks the index: call it per
// scrape, not per request.
func (l *Library) Stats() (items int, bytes int64) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	for _, it := range l.items {
		bytes += it.Size
	}
	return len(l.items), bytes
}

// Get returns a copy of the item with the given id, URLs filled in.
func (l *Library) Get(id string) (*Item, bool) {
	l.mu.RLock()
	it, ok := l.items[id]
	l.mu.RUnlock()
	if !ok {
		return nil, false
	}
	return l.view(it), true
}

// view returns a copy of it that the caller may change, with URLs.
func (l *Library) view(it *Item) *Item {
	c := *it
	c.URL = l.cfg.Storage.URL(it.Key)
	if it.Sizes != nil {
		c.Sizes = make([]Size, len(it.Sizes))
		for i, s := range it.Sizes {
			s.URL = l.cfg.Storage.URL(s.Key)
			c.Sizes[i] = s
		}
	}
	return &c
}

// itemKeys lists every storage key an item owns: original and derivatives.
func itemKeys(it *Item) []string {
	keys := []string{it.Key}
	for _, s := range it.Sizes {
		keys = append(keys, s.Key)
	}
	return keys
}

// claimKey normalises a key for the claimed and reserved sets. Names are
// compared without case, because originals on a case-insensitive disk
// (macOS, Windows) would otherwise overwrite each other.
func claimKey(k string) string { return strings.ToLower(k) }

// addLocked puts it in the index; l.mu must be held for writing.
func (l *Library) addLocked(it *Item) {
	l.items[it.ID] = it
	for _, k := range itemKeys(it) {
		l.claimed[claimKey(k)] = it.ID
	}
	l.inFolder[it.Folder]++
	l.countLocales(it, 1)
	clear(l.orders)
	l.writes++
}

// removeLocked takes it out of the index; l.mu must be held for writing.
func (l *Library) removeLocked(it *Item) {
	delete(l.items, it.ID)
	for _, k := range itemKeys(it) {
		if l.claimed[claimKey(k)] == it.ID {
			delete(l.claimed, claimKey(k))
		}
	}
	if l.inFolder[it.Folder]--; l.inFolder[it.Folder] <= 0 {
		delete(l.inFolder, it.Folder)
	}
	l.countLocales(it, -1)
	clear(l.orders)
	l.writes++
}

// lockItem serialises the writes of one item and returns the unlock.
func (l *Library) lockItem(id string) func() {
	l.mu.Lock()
	m, ok := l.locks[id]
	if !ok {
		m = new(sync.Mutex)
		l.locks[id] = m
	}
	l.mu.Unlock()
	m.Lock()
	return m.Unlock
}

func (l *Library) changed(it *Item, deleted bool) {
	if l.cfg.OnChange != nil {
		l.cfg.OnChange(l.view(it), deleted)
	}
}

// copyN copies at most limit bytes and reports ErrTooLarge beyond them.
func copyLimited(dst io.Writer, src io.Reader, limit int64) (int64, error) {
	n, err := io.Copy(dst, io.LimitReader(src, limit+1))
	if err != nil {
		return n, err
	}
	if n > limit {
		return n, errorf(ErrTooLarge, "file larger than %d bytes", limit)
	}
	return n, nil
}

// OwnerOf returns the id of the item that owns a storage key (its
// original or a derivative), so that a file served under /uploads/ can
// name its item (the surrogate key "media:<id>"). It is ByKey without the
// copy: one map lookup. An item's keys never change while it lives.
func (l *Library) OwnerOf(key string) (id string, ok bool) {
	l.mu.RLock()
	id, ok = l.claimed[claimKey(key)]
	l.mu.RUnlock()
	return id, ok
}

// ByKey returns a copy of the item that owns a storage key (its original
// or a derivative), URLs filled in: what an "/uploads/<key>" reference in
// content names.
func (l *Library) ByKey(key string) (*Item, bool) {
	l.mu.RLock()
	id, ok := l.claimed[claimKey(key)]
	var it *Item
	if ok {
		it, ok = l.items[id]
	}
	l.mu.RUnlock()
	if !ok {
		return nil, false
	}
	return l.view(it), true
}
