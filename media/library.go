package media

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/folio-cms/folio/media/replica"
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
	// Root is the media root on local disk: temporary files live in
	// <Root>/.tmp. On local storage it is also the storage root, and the
	// state is in <Root>/.state (media/local.StateDir). A library that an
	// earlier release kept here (legacy.go) moves into State at Open.
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
	// State holds the library: its sidecars, folders, claims and change
	// log (a private area of the bucket, or media/local.State for a
	// library on one box). The library follows the writes of other boxes
	// (and a read-only box those of its writer) every PollInterval
	// (default DefaultPollInterval). See shared.go. Required.
	State        StateStore
	PollInterval time.Duration
	// MigrateFrom, when set, is the state of a library on one box (the
	// <root>/.state of local storage) that the first Open moves into
	// State, items, folders and files, as it moves a library that an
	// earlier release kept in sidecars on the media root (migrate.go).
	MigrateFrom StateStore
}

// Library is the media library: an in-memory index of every item, loaded
// from its state at Open, kept in step with every write and with the
// state's change log. It is safe for concurrent use.
//
// The library is four parts: Library itself (the API, and the write paths
// that put files in the storage), its catalog (the in-memory index), its
// stateSync (everything it reads from and writes to the state store) and
// its migration (a library of an earlier release moved in).
//
// Lock order. A goroutine that holds several of the library's locks took
// them in this order, outermost first, and releases the inner ones first:
//
//  0. the migration's (migration.mu): one migration at a time; held with
//     4 and 5 only;
//  1. an item's write lock (lockItem): the writes of one item, one at a
//     time (Patch, Delete, Regenerate);
//  2. folderMu: folder changes (write) against writes that put an item in
//     a folder (read);
//  3. the state's loopMu (stateSync): the poller's reads of the log,
//     checkpoints and rescans, one at a time; never held with 1 or 2;
//  4. the state's position lock (stateSync.at, locked, lockedRead): the
//     position in the log, the tombstones, the sidecars' tags;
//  5. the catalog's lock (catalog.read, catalog.write): the index; only
//     its order cache's lock nests inside it.
//
// The data of 4 and 5 is reached only through the functions named, which
// hand it to a func and release the lock when it returns (it is kept in a
// media/internal/guard value, which has no other way in), so what a
// piece of code holds is in its parameters: a func given an *index holds
// 5, one given a *position holds 4, and stateSync.locked and lockedRead
// are the only ways to hold both, in that order. 0 to 3 are held across
// calls to the state store and the storage; 4 and 5 never are, nor
// across OnChange.
type Library struct {
	cfg  Config
	root *os.Root
	log  *slog.Logger
	now  func() time.Time

	// folderMu orders folder creation and deletion (write lock) against
	// writes that put an item in a folder (read lock), so an item never
	// lands in a folder that is being deleted.
	folderMu sync.RWMutex

	// cat is the index every read answers from.
	cat *catalog
	// sync keeps the catalog in step with the state store (Config.State)
	// and writes to it.
	sync *stateSync
	// mig moves a library of an earlier release into the state.
	mig *migration
	// gate is the queue image decodes wait in (SetDeriveGate); nil: none.
	gate atomic.Pointer[DeriveGate]
}

// Open loads the library whose state is cfg.State: the newest
// checkpoint and the log after it (or every sidecar), after moving a
// library that an earlier release kept on the media root into the state
// (migrateLocal). The only writer of its state also settles what a crash
// left (sweepAtOpen). cfg.OnChange is called for every item. See
// shared.go.
func Open(ctx context.Context, cfg Config) (*Library, error) {
	if cfg.State == nil {
		return nil, errors.New("media: no state store (Config.State); a library on one box keeps it on local disk (media/local.OpenState)")
	}
	l, err := newLibrary(cfg)
	if err != nil {
		return nil, err
	}
	if err := l.openShared(ctx); err != nil {
		l.sync.close()
		if l.root != nil {
			l.root.Close()
		}
		return nil, err
	}
	return l, nil
}

// newLibrary checks cfg, fills its defaults and opens the media root.
func newLibrary(cfg Config) (*Library, error) {
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
	if err != nil && !(cfg.ReadOnly && errors.Is(err, fs.ErrNotExist)) {
		return nil, fmt.Errorf("media: %w", err)
	}
	// A read-only library never reads the media root itself (its state
	// and storage do): one that no writer has made yet is no error.
	return &Library{
		cfg:  cfg,
		root: root,
		log:  cfg.Logger,
		now:  cfg.Now,
		cat:  newCatalog(),
	}, nil
}

// Close stops following the state (the only writer of its state writes
// a checkpoint first) and releases the media root. Call it after the
// last write has returned.
func (l *Library) Close() error {
	l.sync.close()
	if l.root == nil {
		return nil
	}
	return l.root.Close()
}

// MaxUploadBytes is the configured bound of one file.
func (l *Library) MaxUploadBytes() int64 { return l.cfg.MaxUploadBytes }

// Storage is the storage the library writes to.
func (l *Library) Storage() Storage { return l.cfg.Storage }

// Len is the number of items.
func (l *Library) Len() int {
	var n int
	l.cat.read(func(x *index) { n = len(x.items) })
	return n
}

// Stats counts the items of the library and the bytes of their originals
// (derivatives not included), for metrics. It walks the index: call it per
// scrape, not per request.
func (l *Library) Stats() (items int, bytes int64) {
	l.cat.read(func(x *index) {
		for _, it := range x.items {
			bytes += it.Size
		}
		items = len(x.items)
	})
	return items, bytes
}

// Get returns a copy of the item with the given id, URLs filled in.
func (l *Library) Get(id string) (*Item, bool) {
	var it *Item
	var ok bool
	l.cat.read(func(x *index) { it, ok = x.items[id] })
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

// lockItem serialises the writes of one item and returns the unlock.
func (l *Library) lockItem(id string) func() {
	var m *sync.Mutex
	l.cat.write(func(x *index) { m = x.itemLock(id) })
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
	l.cat.read(func(x *index) { id, ok = x.claimed[claimKey(key)] })
	return id, ok
}

// ByKey returns a copy of the item that owns a storage key (its original
// or a derivative), URLs filled in: what an "/uploads/<key>" reference in
// content names.
func (l *Library) ByKey(key string) (*Item, bool) {
	var it *Item
	var ok bool
	l.cat.read(func(x *index) {
		var id string
		if id, ok = x.claimed[claimKey(key)]; ok {
			it, ok = x.items[id]
		}
	})
	if !ok {
		return nil, false
	}
	return l.view(it), true
}

// openShared loads a shared library: after the leftovers of a crash and
// the migration of a library an earlier release kept on the media root,
// the newest checkpoint, else every sidecar, then the log after it; and
// starts following the log.
func (l *Library) openShared(ctx context.Context) error {
	l.sync = &stateSync{
		st:       l.cfg.State,
		rep:      replica.New(l.cfg.State, replica.Errors{NotExist: ErrNotExist, Precondition: ErrPrecondition}, l.now, l.log),
		box:      rand.Text()[:12],
		cat:      l.cat,
		storage:  l.cfg.Storage,
		readOnly: l.cfg.ReadOnly,
		log:      l.log,
		now:      l.now,
		onChange: l.changed,
		poll:     l.cfg.PollInterval,
		stop:     make(chan struct{}),
	}
	l.sync.at(func(p *position) { p.tombs, p.etags = replica.Tombs{}, map[string]string{} })
	if l.sync.poll <= 0 {
		l.sync.poll = DefaultPollInterval
	}
	if !l.cfg.ReadOnly {
		// Temporary files of uploads a crash (kill -9) interrupted: the
		// bucket's claims settle those writes, the files are only litter.
		l.cleanTmp(ctx)
		l.mig = &migration{root: l.root, rootPath: l.cfg.Root, storage: l.cfg.Storage, from: l.cfg.MigrateFrom, log: l.log, sync: l.sync}
		if err := l.mig.migrateLocal(ctx); err != nil {
			return err
		}
	}
	return l.sync.open(ctx)
}

// Sync applies the changes other boxes made since the last call. A
// library calls it by itself every poll interval; tests and tools call it
// to catch up at once.
func (l *Library) Sync(ctx context.Context) error {
	return l.sync.tail(ctx)
}

// Checkpoint writes the whole library, as of the last log entry applied,
// as one object, so that a new box starts from it instead of reading every
// sidecar; then it deletes the log entries and checkpoints that the one
// before it covers (kept for logRetain, for boxes polling behind).
func (l *Library) Checkpoint(ctx context.Context) error { return l.sync.checkpoint(ctx) }
