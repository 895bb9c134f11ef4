package local_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
	"github.com/folio-cms/folio/media/storagetest"
)

func newState(t *testing.T) *local.State {
	t.Helper()
	st, err := local.OpenState(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestState_Conformance(t *testing.T) {
	storagetest.RunState(t, func(t *testing.T) media.StateStore { return newState(t) })
}

// Two States on one directory, as two processes would have: creates and
// replaces still have one winner, and each sees the other's writes.
func TestState_TwoOpeners(t *testing.T) {
	a := newState(t)
	b, err := local.OpenState(a.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	tag, err := a.Create(ctx, "items/x.yaml", []byte("1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Create(ctx, "items/x.yaml", []byte("2")); !errors.Is(err, media.ErrPrecondition) {
		t.Fatalf("create on the second opener: %v", err)
	}
	data, btag, err := b.Get(ctx, "items/x.yaml")
	if err != nil || string(data) != "1" || btag != tag {
		t.Fatalf("get on the second opener = %q %q %v", data, btag, err)
	}
	if _, err := b.Replace(ctx, "items/x.yaml", []byte("2"), tag); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Replace(ctx, "items/x.yaml", []byte("3"), tag); !errors.Is(err, media.ErrPrecondition) {
		t.Fatalf("stale replace on the first opener: %v", err)
	}
}

// The store's own files are not keys: dot segments are refused, and a
// write a crash left in .tmp is gone at the next open and never listed.
func TestState_OwnFiles(t *testing.T) {
	st := newState(t)
	ctx := context.Background()
	for _, k := range []string{".tmp/x", "a/../b", "/abs", ".locks/00", ""} {
		if _, err := st.Create(ctx, k, nil); err == nil {
			t.Errorf("create %q accepted", k)
		}
	}
	leftover := filepath.Join(st.Dir(), ".tmp", "torn")
	if err := os.WriteFile(leftover, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st2, err := local.OpenState(st.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if _, err := os.Stat(leftover); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temporary file left at open: %v", err)
	}
	n := 0
	if err := st2.List(ctx, "", "", func(media.StateObject) error { n++; return nil }); err != nil || n != 0 {
		t.Fatalf("list of an empty store: %d objects, %v", n, err)
	}
}

// The first State opened for writing on a directory is its only writer;
// a second one (as another process would open it) is not, and neither
// removes the other's temporary files; once the first closes, the next
// opener is exclusive again.
func TestState_Exclusive(t *testing.T) {
	a := newState(t)
	if !a.Exclusive() {
		t.Fatal("the first opener is not exclusive")
	}
	if !a.SoleWriter() || a.SoleWriter() {
		t.Error("SoleWriter is not true for its first caller only")
	}
	inUse := filepath.Join(a.Dir(), ".tmp", "in-use")
	if err := os.WriteFile(inUse, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := local.OpenState(a.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if b.Exclusive() || b.SoleWriter() {
		t.Error("a second opener is exclusive too")
	}
	if _, err := os.Stat(inUse); err != nil {
		t.Errorf("the second opener removed the first one's temporary file: %v", err)
	}
	b.Close()
	a.Close()
	c, err := local.OpenState(a.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Exclusive() {
		t.Error("the opener after both closed is not exclusive")
	}
}

// A State opened read-only reads what a writer wrote, refuses every
// write, and creates nothing (not even a lock file).
func TestState_ReadOnly(t *testing.T) {
	w := newState(t)
	ctx := context.Background()
	tag, err := w.Create(ctx, "items/x.yaml", []byte("1"))
	if err != nil {
		t.Fatal(err)
	}
	before := dirTree(t, w.Dir())
	ro, err := local.OpenStateReadOnly(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if ro.Exclusive() || ro.SoleWriter() {
		t.Error("a read-only State is exclusive")
	}
	if data, rtag, err := ro.Get(ctx, "items/x.yaml"); err != nil || string(data) != "1" || rtag != tag {
		t.Errorf("get = %q %q %v", data, rtag, err)
	}
	n := 0
	if err := ro.List(ctx, "items/", "", func(media.StateObject) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("list: %d objects, %v", n, err)
	}
	if _, err := ro.Create(ctx, "items/y.yaml", nil); !errors.Is(err, local.ErrReadOnly) {
		t.Errorf("create: %v", err)
	}
	if _, err := ro.Replace(ctx, "items/x.yaml", nil, tag); !errors.Is(err, local.ErrReadOnly) {
		t.Errorf("replace: %v", err)
	}
	if err := ro.Delete(ctx, "items/x.yaml"); !errors.Is(err, local.ErrReadOnly) {
		t.Errorf("delete: %v", err)
	}
	ro.Close()
	if after := dirTree(t, w.Dir()); after != before {
		t.Errorf("the read-only State changed the directory:\n%s\nthen\n%s", before, after)
	}
}

// A State opened read-only on a directory no writer made yet reads as
// empty, and reads what a writer puts there once it makes it.
func TestState_ReadOnlyBeforeTheWriter(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "state")
	ro, err := local.OpenStateReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, _, err := ro.Get(ctx, "items/x.yaml"); !errors.Is(err, media.ErrNotExist) {
		t.Errorf("get before the writer: %v", err)
	}
	n := 0
	if err := ro.List(ctx, "", "", func(media.StateObject) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("list before the writer: %d, %v", n, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the read-only State made the directory: %v", err)
	}
	w, err := local.OpenState(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Create(ctx, "items/x.yaml", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if data, _, err := ro.Get(ctx, "items/x.yaml"); err != nil || string(data) != "1" {
		t.Errorf("get after the writer: %q, %v", data, err)
	}
	if err := ro.List(ctx, "items/", "", func(media.StateObject) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("list after the writer: %d, %v", n, err)
	}
}

// dirTree is every path under dir with its size and modification time.
func dirTree(t *testing.T, dir string) string {
	t.Helper()
	var out []byte
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out = append(out, p+" "+strconv.FormatInt(fi.Size(), 10)+" "+fi.ModTime().String()+"\n"...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// What one write of the shared protocol costs on local disk: a create
// (a claim, a sidecar, a log entry) and a compare-and-swap (a patch).
func BenchmarkState_Create(b *testing.B) {
	st, err := local.OpenState(filepath.Join(b.TempDir(), "state"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	data := make([]byte, 400)
	i := 0
	for b.Loop() {
		i++
		if _, err := st.Create(context.Background(), "items/"+strconv.Itoa(i)+".yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkState_Replace(b *testing.B) {
	st, err := local.OpenState(filepath.Join(b.TempDir(), "state"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	data := make([]byte, 400)
	tag, err := st.Create(context.Background(), "items/x.yaml", data)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if tag, err = st.Replace(context.Background(), "items/x.yaml", data, tag); err != nil {
			b.Fatal(err)
		}
	}
}

// CreateUnsynced and CreateNameSynced create as Create does (visible at
// once, refused when the key exists), without (some of) its fsyncs.
func TestState_CreateUnsynced(t *testing.T) {
	ctx := context.Background()
	st, err := local.OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tag, err := st.CreateUnsynced(ctx, "log/00000000000000000001", []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	data, got, err := st.Get(ctx, "log/00000000000000000001")
	if err != nil || string(data) != "one" || got != tag {
		t.Fatalf("get after CreateUnsynced: %q %q %v (tag %q)", data, got, err, tag)
	}
	if _, err := st.CreateUnsynced(ctx, "log/00000000000000000001", []byte("two")); !errors.Is(err, media.ErrPrecondition) {
		t.Errorf("CreateUnsynced over an existing key: %v", err)
	}
	tag, err = st.CreateNameSynced(ctx, "claims/2026/03/a.png", []byte("id\n2026/03/a.png"))
	if err != nil {
		t.Fatal(err)
	}
	if data, got, err := st.Get(ctx, "claims/2026/03/a.png"); err != nil || string(data) != "id\n2026/03/a.png" || got != tag {
		t.Errorf("get after CreateNameSynced: %q %q %v", data, got, err)
	}
	if _, err := st.CreateNameSynced(ctx, "claims/2026/03/a.png", nil); !errors.Is(err, media.ErrPrecondition) {
		t.Errorf("CreateNameSynced over an existing key: %v", err)
	}
}

// PrepareCreateUnsynced writes an object's bytes ahead of its create
// without syncing them: CreatePrepared refuses them until SyncPrepared
// has synced them, then creates the object with the prepared tag; a
// discarded one leaves no temporary file. SyncNames syncs the folders of
// objects CreateUnsynced made.
func TestState_PrepareCreateUnsynced(t *testing.T) {
	ctx := context.Background()
	st := newState(t)
	po, err := st.PrepareCreateUnsynced([]byte("sidecar"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreatePrepared(ctx, "items/a.yaml", po); err == nil {
		t.Fatal("unsynced bytes created")
	}
	if _, _, err := st.Get(ctx, "items/a.yaml"); !errors.Is(err, media.ErrNotExist) {
		t.Errorf("a refused create left the object: %v", err)
	}
	po, err = st.PrepareCreateUnsynced([]byte("sidecar"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SyncPrepared(po); err != nil {
		t.Fatal(err)
	}
	if err := st.SyncPrepared(po); err != nil {
		t.Errorf("a second sync: %v", err)
	}
	tag, err := st.CreatePrepared(ctx, "items/a.yaml", po)
	if err != nil {
		t.Fatal(err)
	}
	if data, got, err := st.Get(ctx, "items/a.yaml"); err != nil || string(data) != "sidecar" || got != tag {
		t.Errorf("get after CreatePrepared: %q %q %v (tag %q)", data, got, err, tag)
	}
	discarded, err := st.PrepareCreateUnsynced([]byte("gone"))
	if err != nil {
		t.Fatal(err)
	}
	discarded.Discard()
	if ents, err := os.ReadDir(filepath.Join(st.Dir(), ".tmp")); err != nil || len(ents) != 0 {
		t.Errorf("temporary files left: %v %v", ents, err)
	}
	if _, err := st.CreateUnsynced(ctx, "claims/2026/03/a.png", []byte("id\n2026/03/a.png")); err != nil {
		t.Fatal(err)
	}
	if err := st.SyncNames(ctx, []string{"claims/2026/03/a.png", "claims/2026/03/b.png"}); err != nil {
		t.Errorf("SyncNames: %v", err)
	}
	if err := st.SyncNames(ctx, []string{"../a"}); err == nil {
		t.Error("SyncNames of a key outside the state")
	}
}

// The State keeps the directories it writes in open: one removed (and
// made again) behind its back, by hand or by another process, is noticed,
// and a write never lands in the directory that is gone.
func TestState_DirectoryRemovedWhileOpen(t *testing.T) {
	st := newState(t)
	ctx := context.Background()
	if _, err := st.Create(ctx, "claims/2026/11/a.jpg", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(st.Dir(), "claims", "2026")); err != nil {
		t.Fatal(err)
	}
	// Missing: the create makes the directories again.
	tag, err := st.Create(ctx, "claims/2026/11/b.jpg", []byte("2"))
	if err != nil {
		t.Fatal(err)
	}
	data, gtag, err := st.Get(ctx, "claims/2026/11/b.jpg")
	if err != nil || string(data) != "2" || gtag != tag {
		t.Fatalf("get after the directory was made again = %q %q %v (create's tag %q)", data, gtag, err, tag)
	}
	// Removed and made again by someone else: the new one is used.
	if err := os.RemoveAll(filepath.Join(st.Dir(), "claims", "2026")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(st.Dir(), "claims", "2026", "11"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(ctx, "claims/2026/11/c.jpg", []byte("3")); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(st.Dir(), "claims", "2026", "11", "c.jpg")); err != nil || string(data) != "3" {
		t.Fatalf("c.jpg on disk = %q %v", data, err)
	}
	tag, err = st.Create(ctx, "items/x.yaml", []byte("1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(st.Dir(), "items")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(st.Dir(), "items"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Replace(ctx, "items/x.yaml", []byte("2"), tag); !errors.Is(err, media.ErrNotExist) {
		t.Fatalf("replace of a key whose directory was removed: %v", err)
	}
	if err := st.Delete(ctx, "items/x.yaml"); err != nil {
		t.Fatal(err)
	}
	tag, err = st.Create(ctx, "items/x.yaml", []byte("3"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Replace(ctx, "items/x.yaml", []byte("4"), tag); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(st.Dir(), "items", "x.yaml")); err != nil || string(data) != "4" {
		t.Fatalf("x.yaml on disk = %q %v", data, err)
	}
}
