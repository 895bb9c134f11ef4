package media_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

func writeFile(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

func TestOpen_Restart(t *testing.T) {
	e := newEnv(t)
	l := e.open(t)
	if err := l.CreateFolder("/x"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, l, "a.png", pngBytes(t, 9, 9), "/x")
	b := mustCreate(t, l, "b.pdf", pdfBytes, "")
	mustCreate(t, l, "c.svg", []byte(evilSVG), "")
	if _, err := l.Patch(context.Background(), b.ID, media.Patch{Alt: ptr("alt: with: colons\nand a newline")}); err != nil {
		t.Fatal(err)
	}
	before, _ := l.List(media.Query{})
	folders := l.Folders()
	e.close(t, l) // its checkpoint is what the next start reads
	var seen []string
	e.cfg.OnChange = func(it *media.Item, deleted bool) { seen = append(seen, it.ID) }
	l2 := e.open(t)
	after, _ := l2.List(media.Query{})
	for i := range before {
		// Times come back from YAML equal but not identical in memory.
		if !before[i].CreatedAt.Equal(after[i].CreatedAt) {
			t.Errorf("createdAt %v != %v", before[i].CreatedAt, after[i].CreatedAt)
		}
		after[i].CreatedAt = before[i].CreatedAt
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("after restart:\n%+v\nwant\n%+v", after, before)
	}
	if len(seen) != 3 {
		t.Errorf("OnChange at Open saw %d items, want 3", len(seen))
	}
	if !reflect.DeepEqual(folders, l2.Folders()) {
		t.Errorf("folders %v != %v", l2.Folders(), folders)
	}
}

// TestOpen_CorruptSidecar: sidecars in the state that do not parse, or
// that say what no sidecar may (a key outside the key space, a file
// another item owns, an id that is not their name, a folder outside the
// root), are skipped and logged at a start that reads every sidecar (no
// checkpoint); the files of an item whose sidecar does not parse stay.
func TestOpen_CorruptSidecar(t *testing.T) {
	e := newEnv(t)
	l := e.open(t)
	good := mustCreate(t, l, "good.pdf", pdfBytes, "")
	bad := mustCreate(t, l, "bad.pdf", pdfBytes, "")
	e.close(t, l)
	sc, err := os.ReadFile(stateItem(e.root, good.ID))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(id string, pairs ...string) {
		b := bytes.ReplaceAll(sc, []byte(good.ID), []byte(id))
		for i := 0; i < len(pairs); i += 2 {
			b = bytes.Replace(b, []byte(pairs[i]), []byte(pairs[i+1]), 1)
		}
		writeFile(t, stateItem(e.root, id), b)
	}
	// A sidecar that does not parse: its item is skipped, its file kept.
	writeFile(t, stateItem(e.root, bad.ID), []byte("id: [unclosed\n"))
	edit("evilevilevilevil", "key: 2026/03/good.pdf", "key: ../../../etc/passwd")
	// A copy of a good sidecar under another id: the file is good's.
	edit("zzzzzzzzzzzzzzzz")
	edit("badidbadidbadidb", "id: badidbadidbadidb", "id: ../x")
	edit("badfolderbadfold", "folder: /", "folder: /../..")
	writeFile(t, stateItem(e.root, "emptyemptyemptye"), nil)
	if err := os.RemoveAll(filepath.Join(e.root, local.StateDir, "checkpoints")); err != nil {
		t.Fatal(err)
	}

	var logBuf bytes.Buffer
	e.cfg.Logger = newTestLogger(&logBuf)
	l2 := e.open(t)
	items, total := l2.List(media.Query{})
	if total != 1 || items[0].ID != good.ID {
		t.Errorf("items: %s", listNames(items))
	}
	if !fileExists(t, keyPath(e.root, bad.Key)) || !fileExists(t, keyPath(e.root, good.Key)) {
		t.Error("an original was deleted")
	}
	if n := strings.Count(logBuf.String(), "skipped"); n < 6 {
		t.Errorf("%d skips logged:\n%s", n, logBuf.String())
	}
}

// TestOpen_Leftovers: what a crash can leave is gone at the next start of
// the library (the only writer of its state), whether its storage is
// under the media root or elsewhere (as S3 is): the objects and claims of
// a create cut off before its sidecar, those of a delete cut off after
// its sidecar went (its log entry lost too), and the temporary files of
// uploads; files the library does not own stay.
func TestOpen_Leftovers(t *testing.T) {
	for _, elsewhere := range []bool{false, true} {
		t.Run(map[bool]string{false: "UnderRoot", true: "Elsewhere"}[elsewhere], func(t *testing.T) {
			ctx := context.Background()
			e := newEnv(t)
			var st media.Storage = e.store
			if elsewhere {
				ls, err := local.New(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				defer ls.Close()
				st, e.cfg.Storage = ls, ls
			}
			l := e.open(t)
			kept := mustCreate(t, l, "kept.png", pngBytes(t, 500, 300), "")
			gone := mustCreate(t, l, "gone.pdf", pdfBytes, "")
			e.close(t, l)

			e.withState(t, func(state *local.State) {
				// A create cut off after its objects, before its sidecar.
				leftover(t, st, state, "ghostghostghostg", "2026/03/ghost.png", pngBytes(t, 5, 5))
				leftover(t, st, state, "ghostghostghostg", "2026/03/ghost-150.webp", []byte("webp"))
				// A delete cut off after its sidecar, before its log entry.
				if err := state.Delete(ctx, "items/"+gone.ID+".yaml"); err != nil {
					t.Fatal(err)
				}
			})
			upTmp := filepath.Join(e.root, ".tmp", "upload-123")
			notOurs := filepath.Join(e.root, "notes", "keep.txt")
			for _, p := range []string{upTmp, notOurs} {
				writeFile(t, p, []byte("x"))
			}
			l2 := e.open(t)
			for _, k := range []string{"2026/03/ghost.png", "2026/03/ghost-150.webp", gone.Key} {
				if _, err := st.Stat(ctx, k); err == nil {
					t.Errorf("%s survived", k)
				}
			}
			for _, k := range append([]string{kept.Key}, sizeKeys(kept)...) {
				if _, err := st.Stat(ctx, k); err != nil {
					t.Errorf("file of a kept item: %v", err)
				}
			}
			if fileExists(t, upTmp) {
				t.Error("upload temporary file left")
			}
			if !fileExists(t, notOurs) {
				t.Error("a file the library does not own was removed")
			}
			if _, total := l2.List(media.Query{}); total != 1 {
				t.Errorf("%d items", total)
			}
			if !fileExists(t, filepath.Join(e.root, local.StateDir, "claims", "2026", "03", "kept.png")) {
				t.Error("the kept item's claim is gone")
			}
			for _, k := range []string{"ghost.png", "gone.pdf"} {
				if fileExists(t, filepath.Join(e.root, local.StateDir, "claims", "2026", "03", k)) {
					t.Errorf("claim of %s left", k)
				}
			}
		})
	}
}

// TestOpen_Checkpoint: Close writes a checkpoint and the next start reads
// it and the log after it; a write made behind both (by hand, or a log
// entry a crash lost) is found at the start; a damaged checkpoint is
// passed over for an older one or a reading of every sidecar.
func TestOpen_Checkpoint(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	l := e.open(t)
	a := mustCreate(t, l, "a.pdf", pdfBytes, "")
	b := mustCreate(t, l, "b.pdf", pdfBytes, "")
	e.close(t, l)
	checkpoints := func() []string {
		ents, _ := os.ReadDir(filepath.Join(e.root, local.StateDir, "checkpoints"))
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	first := checkpoints()
	if len(first) != 1 {
		t.Fatalf("checkpoints after Close: %v", first)
	}
	l2 := e.open(t)
	if _, err := l2.Patch(ctx, a.ID, media.Patch{Alt: ptr("changed after the checkpoint")}); err != nil {
		t.Fatal(err)
	}
	if err := l2.Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	e.close(t, l2)
	// As if the second checkpoint had never been written: the first and
	// the log after it.
	for _, c := range checkpoints() {
		if c != first[0] {
			os.Remove(filepath.Join(e.root, local.StateDir, "checkpoints", c))
		}
	}
	// A hand edit of the sidecar, behind the log (raising its version,
	// as every write does: a box keeps the newest version it knows).
	sc := stateItem(e.root, a.ID)
	data, _ := os.ReadFile(sc)
	data = bytes.Replace(data, []byte("version: 2"), []byte("version: 3"), 1)
	writeFile(t, sc, bytes.Replace(data, []byte("title: \"\""), []byte("title: by hand"), 1))

	l3 := e.open(t)
	g, ok := l3.Get(a.ID)
	if !ok || g.Alt != "changed after the checkpoint" || g.Title != "by hand" {
		t.Errorf("after a start from the checkpoint: %+v", g)
	}
	if _, ok := l3.Get(b.ID); ok {
		t.Error("deleted item back from the checkpoint")
	}
	e.close(t, l3)
	// Every checkpoint damaged: every sidecar is read.
	for _, c := range checkpoints() {
		writeFile(t, filepath.Join(e.root, local.StateDir, "checkpoints", c), []byte("garbage"))
	}
	l4 := e.open(t)
	if g, ok := l4.Get(a.ID); !ok || g.Title != "by hand" || l4.Len() != 1 {
		t.Errorf("with damaged checkpoints: %+v, %d items", g, l4.Len())
	}
}
