package media_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// preparingStorage is the real local storage, telling when an upload's
// original begins to be made ready (synced) for its move, or synced
// where it was spooled.
type preparingStorage struct {
	*local.Storage
	started           chan struct{}
	once              sync.Once
	prepared, spooled atomic.Int64
}

func (p *preparingStorage) PrepareMoveIn(f *os.File) error {
	p.prepared.Add(1)
	p.once.Do(func() { close(p.started) })
	return p.Storage.PrepareMoveIn(f)
}

func (p *preparingStorage) SyncSpooled(f *os.File) error {
	p.spooled.Add(1)
	p.once.Do(func() { close(p.started) })
	return p.Storage.SyncSpooled(f)
}

// claimsAfter is the real local state whose creates of claims wait until
// after (a signal), or fail after five seconds.
type claimsAfter struct {
	*local.State
	after <-chan struct{}
}

func (c *claimsAfter) wait(key string) error {
	if !strings.HasPrefix(key, "claims/") {
		return nil
	}
	select {
	case <-c.after:
		return nil
	case <-time.After(5 * time.Second):
		return errors.New("the claim waited 5 s for the original's sync to begin")
	}
}

func (c *claimsAfter) Create(ctx context.Context, key string, data []byte) (string, error) {
	if err := c.wait(key); err != nil {
		return "", err
	}
	return c.State.Create(ctx, key, data)
}

func (c *claimsAfter) CreateNameSynced(ctx context.Context, key string, data []byte) (string, error) {
	if err := c.wait(key); err != nil {
		return "", err
	}
	return c.State.CreateNameSynced(ctx, key, data)
}

// An upload's original is synced beside the claims of its keys (each
// with a sync of the claims' folder), not after them: a claim waiting for
// the original's sync to begin does not hold the upload up. The original
// is still renamed into place only after both, and the item is whole. (A
// PDF's claim is made without a sync, before any sync of its round
// begins, and so does not wait here: the syncs then run at once, see
// TestCreate_SpooledUploadWritesBeforeSyncing.)
func TestCreate_OriginalSyncedBesideTheClaims(t *testing.T) {
	e := newEnv(t)
	store := &preparingStorage{Storage: e.store, started: make(chan struct{})}
	st, err := local.OpenState(filepath.Join(e.root, local.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	cfg := e.cfg
	cfg.Storage = store
	cfg.State = &claimsAfter{State: st, after: store.started}
	l, err := media.Open(context.Background(), cfg)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(); st.Close() })
	it := mustCreate(t, l, "a.pdf", pdfBytes, "")
	if n, m := store.prepared.Load(), store.spooled.Load(); n != 0 || m != 1 {
		t.Errorf("the PDF's original prepared %d times and synced where spooled %d times, want 0 and 1", n, m)
	}
	got, err := os.ReadFile(filepath.Join(e.root, filepath.FromSlash(it.Key)))
	if err != nil || string(got) != string(pdfBytes) {
		t.Fatalf("original: %q, %v", got, err)
	}
	fi, err := os.Stat(filepath.Join(e.root, filepath.FromSlash(it.Key)))
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("original's mode: %v, %v", fi.Mode(), err)
	}
	// A PNG (two derivatives beside the original) too.
	mustCreate(t, l, "b.png", pngBytes(t, 420, 300), "")
	if n := store.prepared.Load(); n != 1 {
		t.Errorf("the PNG's original prepared %d times, want 1", n)
	}
}

// syncAfterSidecar is the real local storage whose folder syncs wait
// until the sidecar's bytes begin to be written (a signal), or fail after
// five seconds.
type syncAfterSidecar struct {
	*local.Storage
	after <-chan struct{}
}

func (s *syncAfterSidecar) SyncFolders(ctx context.Context, keys []string) error {
	select {
	case <-s.after:
		return s.Storage.SyncFolders(ctx, keys)
	case <-time.After(5 * time.Second):
		return errors.New("the folder's sync waited 5 s for the sidecar's bytes")
	}
}

// preparingState is the real local state, telling when a sidecar's bytes
// begin to be written ahead of its create.
type preparingState struct {
	*local.State
	started  chan struct{}
	prepared atomic.Int64
}

func (p *preparingState) PrepareCreate(data []byte) (media.PreparedObject, error) {
	if p.prepared.Add(1) == 1 {
		close(p.started)
	}
	return p.State.PrepareCreate(data)
}

func (p *preparingState) PrepareCreateUnsynced(data []byte) (media.PreparedObject, error) {
	if p.prepared.Add(1) == 1 {
		close(p.started)
	}
	return p.State.PrepareCreateUnsynced(data)
}

// An upload's sidecar has its bytes synced beside the sync of its
// original's folder, and only its name made after: the folder's sync
// waiting for the sidecar's bytes does not hold the upload up. The item
// is whole, and its sidecar reads back as the index has it; no temporary
// file is left in the state.
func TestCreate_SidecarSyncedBesideTheFolder(t *testing.T) {
	e := newEnv(t)
	st, err := local.OpenState(filepath.Join(e.root, local.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	ps := &preparingState{State: st, started: make(chan struct{})}
	cfg := e.cfg
	cfg.Storage = &syncAfterSidecar{Storage: e.store, after: ps.started}
	cfg.State = ps
	l, err := media.Open(context.Background(), cfg)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(); st.Close() })
	it := mustCreate(t, l, "a.pdf", pdfBytes, "")
	png := mustCreate(t, l, "b.png", pngBytes(t, 420, 300), "")
	if n := ps.prepared.Load(); n != 2 {
		t.Errorf("sidecars prepared %d times, want 2", n)
	}
	for _, want := range []*media.Item{it, png} {
		data, _, err := st.Get(context.Background(), "items/"+want.ID+".yaml")
		if err != nil || !strings.Contains(string(data), "id: "+want.ID) || !strings.Contains(string(data), want.Key) {
			t.Errorf("sidecar of %s: %q, %v", want.ID, data, err)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(e.root, local.StateDir, ".tmp")); len(ents) != 0 {
		t.Errorf("%d temporary files left in the state", len(ents))
	}
	// The restart reads them back.
	e.close(t, l)
	l2 := e.open(t)
	for _, want := range []*media.Item{it, png} {
		if got, ok := l2.Get(want.ID); !ok || got.Key != want.Key || len(got.Sizes) != len(want.Sizes) {
			t.Errorf("after a restart: %+v %v, want %+v", got, ok, want)
		}
	}
}
