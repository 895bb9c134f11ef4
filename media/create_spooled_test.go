package media_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// waitSignal waits for ch, or fails after five seconds with what waited.
func waitSignal(ch <-chan struct{}, what string) error {
	select {
	case <-ch:
		return nil
	case <-time.After(5 * time.Second):
		return errors.New(what + " waited 5 s")
	}
}

// roundsState is the real local state whose claims wait until a
// sidecar's bytes begin to be written, telling when a sidecar's create
// begins.
type roundsState struct {
	*local.State
	sidecarBytes, sidecarName chan struct{}
	bytesOnce, nameOnce       sync.Once
}

func (r *roundsState) CreateNameSynced(ctx context.Context, key string, data []byte) (string, error) {
	if strings.HasPrefix(key, "claims/") {
		if err := waitSignal(r.sidecarBytes, "the claim, for the sidecar's bytes,"); err != nil {
			return "", err
		}
	}
	return r.State.CreateNameSynced(ctx, key, data)
}

func (r *roundsState) CreateUnsynced(ctx context.Context, key string, data []byte) (string, error) {
	if strings.HasPrefix(key, "claims/") {
		if err := waitSignal(r.sidecarBytes, "the claim, for the sidecar's bytes,"); err != nil {
			return "", err
		}
	}
	return r.State.CreateUnsynced(ctx, key, data)
}

func (r *roundsState) PrepareCreate(data []byte) (media.PreparedObject, error) {
	r.bytesOnce.Do(func() { close(r.sidecarBytes) })
	return r.State.PrepareCreate(data)
}

func (r *roundsState) PrepareCreateUnsynced(data []byte) (media.PreparedObject, error) {
	r.bytesOnce.Do(func() { close(r.sidecarBytes) })
	return r.State.PrepareCreateUnsynced(data)
}

func (r *roundsState) CreatePrepared(ctx context.Context, key string, po media.PreparedObject) (string, error) {
	r.nameOnce.Do(func() { close(r.sidecarName) })
	return r.State.CreatePrepared(ctx, key, po)
}

// roundsStorage is the real local storage whose folder syncs wait until
// the sidecar's create begins.
type roundsStorage struct {
	*local.Storage
	after <-chan struct{}
}

func (r *roundsStorage) SyncFolders(ctx context.Context, keys []string) error {
	if err := waitSignal(r.after, "the folder's sync, for the sidecar's create,"); err != nil {
		return err
	}
	return r.Storage.SyncFolders(ctx, keys)
}

// An upload of one file waits for two rounds of syncs, not three: the
// sidecar's bytes are synced beside the claim of its key (a claim that
// waits for them does not hold the upload up), and the sync of the key's
// folder runs beside the sidecar's create (a folder sync that waits for
// it does not either). The item is whole, its original readable as Put
// makes files, and nothing is left in the temporary folder.
func TestCreate_SpooledUploadWaitsForTwoRounds(t *testing.T) {
	e := newEnv(t)
	st, err := local.OpenState(filepath.Join(e.root, local.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	rs := &roundsState{State: st, sidecarBytes: make(chan struct{}), sidecarName: make(chan struct{})}
	cfg := e.cfg
	cfg.State = rs
	cfg.Storage = &roundsStorage{Storage: e.store, after: rs.sidecarName}
	l, err := media.Open(context.Background(), cfg)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(); st.Close() })
	it := mustCreate(t, l, "a.pdf", pdfBytes, "")
	path := filepath.Join(e.root, filepath.FromSlash(it.Key))
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(pdfBytes) {
		t.Fatalf("original: %q, %v", got, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("original's mode: %v, %v", fi.Mode(), err)
	}
	if ents, _ := os.ReadDir(filepath.Join(e.root, ".tmp")); len(ents) != 0 {
		t.Errorf("left in the temporary folder: %v", ents)
	}
	// A second upload of the name gets the next one.
	if b := mustCreate(t, l, "a.pdf", pdfBytes, ""); b.Key == it.Key || b.ID == it.ID {
		t.Errorf("second upload: key %s id %s, first %s %s", b.Key, b.ID, it.Key, it.ID)
	}
	e.close(t, l)
	l2 := e.open(t)
	if got, ok := l2.Get(it.ID); !ok || got.Key != it.Key {
		t.Errorf("after a restart: %+v %v", got, ok)
	}
}

// roundOne records, in order, the writes and the syncs of an upload's
// first round: the real local storage and state, with each claim's
// write held back a little so that a sync begun before it shows.
type roundOne struct {
	mu     sync.Mutex
	events []string
}

func (r *roundOne) add(e string) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

type roundOneStorage struct {
	*local.Storage
	r *roundOne
}

func (s *roundOneStorage) PrepareSpooled(f *os.File) error {
	err := s.Storage.PrepareSpooled(f)
	s.r.add("write spool")
	return err
}

func (s *roundOneStorage) SyncSpooled(f *os.File) error {
	s.r.add("sync spool")
	return s.Storage.SyncSpooled(f)
}

type roundOneState struct {
	*local.State
	r *roundOne
}

func (s *roundOneState) claim(key string, create func() (string, error), synced bool) (string, error) {
	if !strings.HasPrefix(key, "claims/") {
		return create()
	}
	time.Sleep(20 * time.Millisecond)
	if synced {
		s.r.add("sync claim") // its name synced within the create
	}
	tag, err := create()
	s.r.add("write claim")
	return tag, err
}

func (s *roundOneState) Create(ctx context.Context, key string, data []byte) (string, error) {
	return s.claim(key, func() (string, error) { return s.State.Create(ctx, key, data) }, true)
}

func (s *roundOneState) CreateNameSynced(ctx context.Context, key string, data []byte) (string, error) {
	return s.claim(key, func() (string, error) { return s.State.CreateNameSynced(ctx, key, data) }, true)
}

func (s *roundOneState) CreateUnsynced(ctx context.Context, key string, data []byte) (string, error) {
	return s.claim(key, func() (string, error) { return s.State.CreateUnsynced(ctx, key, data) }, false)
}

func (s *roundOneState) SyncNames(ctx context.Context, keys []string) error {
	s.r.add("sync claim")
	return s.State.SyncNames(ctx, keys)
}

func (s *roundOneState) PrepareCreate(data []byte) (media.PreparedObject, error) {
	s.r.add("sync sidecar") // its bytes synced within it
	po, err := s.State.PrepareCreate(data)
	s.r.add("write sidecar")
	return po, err
}

func (s *roundOneState) PrepareCreateUnsynced(data []byte) (media.PreparedObject, error) {
	po, err := s.State.PrepareCreateUnsynced(data)
	s.r.add("write sidecar")
	return po, err
}

func (s *roundOneState) SyncPrepared(po media.PreparedObject) error {
	s.r.add("sync sidecar")
	return s.State.SyncPrepared(po)
}

// An upload of one file makes every file and name of its first round
// (the spooled file readied, the claim of its key, the sidecar's bytes)
// before it begins any of the round's syncs (of the spooled file, the
// claim's name, the sidecar's bytes), which then run at once: on ext4 a
// sync begun while another file is still being written waits for a
// second commit of the journal. The item is whole after a restart.
func TestCreate_SpooledUploadWritesBeforeSyncing(t *testing.T) {
	e := newEnv(t)
	st, err := local.OpenState(filepath.Join(e.root, local.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	r := &roundOne{}
	cfg := e.cfg
	cfg.State = &roundOneState{State: st, r: r}
	cfg.Storage = &roundOneStorage{Storage: e.store, r: r}
	l, err := media.Open(context.Background(), cfg)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(); st.Close() })
	r.mu.Lock()
	r.events = nil // the start's
	r.mu.Unlock()
	it := mustCreate(t, l, "a.pdf", pdfBytes, "")
	r.mu.Lock()
	events := slices.Clone(r.events)
	r.mu.Unlock()
	firstSync := slices.IndexFunc(events, func(e string) bool { return strings.HasPrefix(e, "sync ") })
	for _, want := range []string{"write spool", "write claim", "write sidecar", "sync spool", "sync claim", "sync sidecar"} {
		i := slices.Index(events, want)
		if i < 0 {
			t.Errorf("%s: not done (%v)", want, events)
		}
		if strings.HasPrefix(want, "write ") && i > firstSync {
			t.Errorf("%s after the first sync began: %v", want, events)
		}
	}
	got, err := os.ReadFile(filepath.Join(e.root, filepath.FromSlash(it.Key)))
	if err != nil || string(got) != string(pdfBytes) {
		t.Fatalf("original: %q, %v", got, err)
	}
	e.close(t, l)
	if got, ok := e.open(t).Get(it.ID); !ok || got.Key != it.Key {
		t.Errorf("after a restart: %+v %v", got, ok)
	}
}
