package media_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// crash ends l as a killed process ends: its state is closed (the writer
// lock released), the library never is, so no checkpoint and no
// clean-shutdown mark are written.
func (e *env) crash(tb testing.TB, l *media.Library) {
	tb.Helper()
	state, ok := e.states[l]
	if !ok {
		tb.Fatal("library not open")
	}
	delete(e.states, l)
	state.Close()
}

// The only writer of a local state creates its log entries without
// fsync: a crash of the machine may lose them or leave them empty or cut
// short. Every write they told of was answered after its sidecar was
// durable, and the next start reconciles the sidecars: nothing answered
// is lost (creates, a patch, a delete, folders), what the crash damaged
// in the log is never applied, and a read-only box that started before
// the writer sees the same library once the writer is up (the writer logs
// what it recovered).
func TestCrash_UnsyncedLogEntriesLost(t *testing.T) {
	t.Run("Gap", func(t *testing.T) {
		// One entry lost in the middle, one left as zeros, one cut short,
		// the last ones lost.
		crashLosingLog(t, func(t *testing.T, path func(int) string, n int) {
			zero(t, path(0))
			os.Remove(path(1))
			cutShort(t, path(2))
			for i := 3; i < n; i++ {
				os.Remove(path(i))
			}
		})
	})
	t.Run("Tail", func(t *testing.T) {
		// The first entry left as zeros, the second cut short, the rest
		// lost: no gap, so a reader sees a log that simply ends early.
		crashLosingLog(t, func(t *testing.T, path func(int) string, n int) {
			zero(t, path(0))
			cutShort(t, path(1))
			for i := 2; i < n; i++ {
				os.Remove(path(i))
			}
		})
	})
}

func crashLosingLog(t *testing.T, damage func(t *testing.T, path func(int) string, n int)) {
	ctx := context.Background()
	e := newEnv(t)
	l := e.open(t)
	a := mustCreate(t, l, "a.png", pngBytes(t, 500, 300), "")
	doomed := mustCreate(t, l, "doomed.pdf", pdfBytes, "")
	e.close(t, l) // a clean close: a checkpoint covers the log so far

	logDir := filepath.Join(e.root, local.StateDir, "log")
	before := dirNames(t, logDir)

	l = e.open(t)
	b := mustCreate(t, l, "b.pdf", pdfBytes, "")
	if _, err := l.Patch(ctx, a.ID, media.Patch{Alt: ptr("patched before the crash")}); err != nil {
		t.Fatal(err)
	}
	if err := l.CreateFolder("/made"); err != nil {
		t.Fatal(err)
	}
	c := mustCreate(t, l, "c.pdf", pdfBytes, "/made")
	if err := l.Delete(ctx, doomed.ID); err != nil {
		t.Fatal(err)
	}
	if err := l.CreateFolder("/empty"); err != nil {
		t.Fatal(err)
	}
	e.crash(t, l)

	var after []string
	for _, n := range dirNames(t, logDir) {
		if !slices.Contains(before, n) {
			after = append(after, n)
		}
	}
	if len(after) != 6 {
		t.Fatalf("log entries since the checkpoint: %v, want 6", after)
	}
	damage(t, func(i int) string { return filepath.Join(logDir, after[i]) }, len(after))

	check := func(who string, l *media.Library, n int) {
		t.Helper()
		if got, ok := l.Get(a.ID); !ok || got.Alt != "patched before the crash" || got.Version != 2 {
			t.Errorf("%s: patched item %+v, %v", who, got, ok)
		}
		for _, it := range []*media.Item{b, c} {
			if got, ok := l.Get(it.ID); !ok || got.Key != it.Key || got.Folder != it.Folder {
				t.Errorf("%s: item created before the crash: %+v, %v", who, got, ok)
			}
		}
		if _, ok := l.Get(doomed.ID); ok {
			t.Errorf("%s: the item deleted before the crash is back", who)
		}
		if fs := l.Folders(); !slices.Contains(fs, "/made") || !slices.Contains(fs, "/empty") {
			t.Errorf("%s: folders %v", who, l.Folders())
		}
		if l.Len() != n {
			t.Errorf("%s: %d items, want %d", who, l.Len(), n)
		}
	}
	// A box that only reads starts first, then the writer.
	ro := *e
	ro.cfg.ReadOnly = true
	r := ro.open(t)
	l = e.open(t)
	check("writer after the crash", l, 3)
	for _, it := range []*media.Item{a, b, c} {
		for _, k := range append([]string{it.Key}, sizeKeys(it)...) {
			if !fileExists(t, keyPath(e.root, k)) {
				t.Errorf("file %s gone", k)
			}
		}
	}
	if fileExists(t, keyPath(e.root, doomed.Key)) {
		t.Error("the deleted item's file is back")
	}
	if err := r.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	check("read-only box", r, 3)
	// Writes go on, and a restart loads them.
	d := mustCreate(t, l, "d.pdf", pdfBytes, "")
	if err := r.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Get(d.ID); !ok {
		t.Error("read-only box: a write after the recovery")
	}
	e.close(t, l)
	l = e.open(t)
	check("restart after the recovery", l, 4)
}

func zero(tb testing.TB, path string) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	writeFile(tb, path, make([]byte, len(data)))
}

func cutShort(tb testing.TB, path string) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	writeFile(tb, path, data[:len(data)/2])
}

func dirNames(tb testing.TB, dir string) []string {
	tb.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// The only writer creates its claims with their names synced and their
// bytes not: after a crash of the machine, a claim made just before may
// be empty. Its name (the key in lower case) still settles it at the
// next start: the objects of a write the crash cut off before its
// sidecar go, whatever the case of their key; a committed item whose
// claim lost its bytes keeps its files; nothing else is touched.
func TestCrash_UnreadableClaims(t *testing.T) {
	e := newEnv(t)
	l := e.open(t)
	kept := mustCreate(t, l, "kept.png", pngBytes(t, 500, 300), "")
	e.crash(t, l)

	claimPath := func(key string) string {
		return filepath.Join(e.root, local.StateDir, "claims", filepath.FromSlash(strings.ToLower(key)))
	}
	e.withState(t, func(state *local.State) {
		// A create cut off after its objects, before its sidecar, whose
		// claims the crash emptied; and one whose claim is cut short.
		leftover(t, e.store, state, "ghostghostghostg", "2026/03/Ghost.png", pngBytes(t, 5, 5))
		leftover(t, e.store, state, "ghostghostghostg", "2026/03/Ghost-150.webp", []byte("webp"))
	})
	writeFile(t, claimPath("2026/03/Ghost.png"), nil)
	data, err := os.ReadFile(claimPath("2026/03/Ghost-150.webp"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, claimPath("2026/03/Ghost-150.webp"), data[:3])
	// The committed item's claims emptied too.
	for _, k := range append([]string{kept.Key}, sizeKeys(kept)...) {
		writeFile(t, claimPath(k), nil)
	}
	notOurs := filepath.Join(e.root, "2026", "03", "notes.txt")
	writeFile(t, notOurs, []byte("x"))

	l = e.open(t)
	for _, k := range []string{"2026/03/Ghost.png", "2026/03/Ghost-150.webp"} {
		if fileExists(t, keyPath(e.root, k)) {
			t.Errorf("object %s of the cut-off write survived", k)
		}
		if fileExists(t, claimPath(k)) {
			t.Errorf("unreadable claim of %s left", k)
		}
	}
	if got, ok := l.Get(kept.ID); !ok || len(got.Sizes) != len(kept.Sizes) {
		t.Fatalf("committed item after the crash: %+v, %v", got, ok)
	}
	for _, k := range append([]string{kept.Key}, sizeKeys(kept)...) {
		if !fileExists(t, keyPath(e.root, k)) {
			t.Errorf("file %s of the committed item gone", k)
		}
		if !fileExists(t, claimPath(k)) {
			t.Errorf("claim of %s of the committed item gone", k)
		}
	}
	if !fileExists(t, notOurs) {
		t.Error("a file no claim names was removed")
	}
	// The names are free again, and writes go on.
	g := mustCreate(t, l, "Ghost.png", pngBytes(t, 5, 5), "")
	if g.Key != "2026/03/Ghost.png" {
		t.Errorf("the freed name: got %s", g.Key)
	}
}
