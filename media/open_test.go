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
	if !reflect.DeepEqual(l.Folders(), l2.Folders()) {
		t.Errorf("folders %v != %v", l2.Folders(), l.Folders())
	}
}

func TestOpen_CorruptSidecar(t *testing.T) {
	e := newEnv(t)
	l := e.open(t)
	good := mustCreate(t, l, "good.pdf", pdfBytes, "")
	bad := mustCreate(t, l, "bad.pdf", pdfBytes, "")
	sc, err := os.ReadFile(sidecarOf(e.root, good.Key))
	if err != nil {
		t.Fatal(err)
	}
	meta := filepath.Dir(sidecarOf(e.root, good.Key))
	// A sidecar that does not parse: its item is skipped, its file kept.
	writeFile(t, sidecarOf(e.root, bad.Key), []byte("id: [unclosed\n"))
	// A sidecar claiming a key outside its place.
	writeFile(t, filepath.Join(meta, "evil.pdf.yaml"), bytes.Replace(sc, []byte("key: 2026/03/good.pdf"), []byte("key: ../../../etc/passwd"), 1))
	// A copy of a good sidecar: same id, so the second is refused.
	writeFile(t, keyPath(e.root, "2026/03/copy.pdf"), pdfBytes)
	writeFile(t, filepath.Join(meta, "copy.pdf.yaml"), bytes.Replace(sc, []byte("key: 2026/03/good.pdf"), []byte("key: 2026/03/copy.pdf"), 1))
	// Bad id, bad folder.
	writeFile(t, filepath.Join(meta, "badid.pdf.yaml"), bytes.Replace(bytes.Replace(sc, []byte("key: 2026/03/good.pdf"), []byte("key: 2026/03/badid.pdf"), 1), []byte("id: "+good.ID), []byte("id: ../x"), 1))
	writeFile(t, filepath.Join(meta, "badfolder.pdf.yaml"), bytes.Replace(bytes.Replace(sc, []byte("key: 2026/03/good.pdf"), []byte("key: 2026/03/badfolder.pdf"), 1), []byte("folder: /"), []byte("folder: /../.."), 1))
	writeFile(t, filepath.Join(meta, "empty.pdf.yaml"), nil)

	var logBuf bytes.Buffer
	e.cfg.Logger = newTestLogger(&logBuf)
	l2 := e.open(t)
	items, total := l2.List(media.Query{})
	if total != 1 || items[0].ID != good.ID {
		t.Errorf("items: %s", listNames(items))
	}
	if !fileExists(t, keyPath(e.root, bad.Key)) {
		t.Error("the original of a corrupt sidecar was deleted")
	}
	if n := strings.Count(logBuf.String(), "skipped"); n < 6 {
		t.Errorf("%d skips logged:\n%s", n, logBuf.String())
	}
}

func TestOpen_OrphansLocal(t *testing.T) {
	e := newEnv(t)
	l := e.open(t)
	it := mustCreate(t, l, "kept.pdf", pdfBytes, "")
	l.Close()
	// What a crash can leave: an original without sidecar, storage and
	// sidecar temp files, an upload temp file.
	orphan := keyPath(e.root, "2026/03/orphan.pdf")
	orphanOld := keyPath(e.root, "2025/12/old-900.webp")
	stTmp := keyPath(e.root, "2026/03/.tmp-XYZ")
	scTmp := filepath.Join(e.root, "2026", "03", ".meta", ".tmp-ABC")
	upTmp := filepath.Join(e.root, ".tmp", "upload-123")
	notOurs := filepath.Join(e.root, "notes", "keep.txt")
	for _, p := range []string{orphan, orphanOld, stTmp, scTmp, upTmp, notOurs} {
		writeFile(t, p, []byte("x"))
	}
	l2 := e.open(t)
	for _, p := range []string{orphan, orphanOld, stTmp, scTmp, upTmp} {
		if fileExists(t, p) {
			t.Errorf("%s not cleaned", p)
		}
	}
	if !fileExists(t, keyPath(e.root, it.Key)) || !fileExists(t, notOurs) {
		t.Error("cleanup removed a file it does not own")
	}
	if _, ok := l2.Get(it.ID); !ok {
		t.Error("item lost")
	}
}

// TestOpen_Intents runs the library over a storage that is not under its
// root, as with S3: orphans can only be found through the intents.
func TestOpen_Intents(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	st, err := local.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e.cfg.Storage = st
	l := e.open(t)
	kept := mustCreate(t, l, "kept.pdf", pdfBytes, "")
	gone := mustCreate(t, l, "gone.pdf", pdfBytes, "")
	if ents, _ := os.ReadDir(filepath.Join(e.root, ".tmp")); len(ents) != 0 {
		t.Errorf("intents left after committed writes: %v", ents)
	}
	l.Close()

	// A create that crashed after its objects, before its sidecar.
	for _, k := range []string{"2026/03/ghost.pdf", "2026/03/ghost-150.webp"} {
		if err := st.Put(ctx, k, bytes.NewReader(pdfBytes), int64(len(pdfBytes)), "application/pdf"); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(e.root, ".tmp", "intent-1.yaml"), []byte("key: 2026/03/ghost.pdf\nkeys: [2026/03/ghost.pdf, 2026/03/ghost-150.webp]\n"))
	// A create that crashed after its sidecar, before dropping the intent.
	writeFile(t, filepath.Join(e.root, ".tmp", "intent-2.yaml"), []byte("key: "+kept.Key+"\nkeys: ["+kept.Key+"]\n"))
	// A delete that crashed after removing the sidecar.
	if err := os.Remove(sidecarOf(e.root, gone.Key)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.root, ".tmp", "intent-3.yaml"), []byte("key: "+gone.Key+"\nkeys: ["+gone.Key+"]\n"))
	// An intent that tries to delete outside the key space.
	writeFile(t, filepath.Join(e.root, ".tmp", "intent-4.yaml"), []byte("key: 2026/03/x.pdf\nkeys: [../../etc/passwd, 2026/../../x]\n"))
	writeFile(t, filepath.Join(e.root, ".tmp", "intent-5.yaml"), []byte("{{{"))

	l2 := e.open(t)
	for _, k := range []string{"2026/03/ghost.pdf", "2026/03/ghost-150.webp", gone.Key} {
		if _, err := st.Stat(ctx, k); err == nil {
			t.Errorf("%s survived", k)
		}
	}
	if _, err := st.Stat(ctx, kept.Key); err != nil {
		t.Errorf("kept object: %v", err)
	}
	if _, total := l2.List(media.Query{}); total != 1 {
		t.Errorf("%d items", total)
	}
	if ents, _ := os.ReadDir(filepath.Join(e.root, ".tmp")); len(ents) != 0 {
		t.Errorf("intents left: %v", ents)
	}
}

func TestOpen_Cache(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	l := e.open(t)
	a := mustCreate(t, l, "a.pdf", pdfBytes, "")
	b := mustCreate(t, l, "b.pdf", pdfBytes, "")
	l.Close() // writes the cache
	if !fileExists(t, filepath.Join(e.root, ".index.cache")) {
		t.Fatal("no cache after Close")
	}
	// A write the cache does not know (another process, or a crash before
	// Close): the sidecar is newer than its cache entry.
	l2 := e.open(t)
	if _, err := l2.Patch(ctx, a.ID, media.Patch{Alt: ptr("changed after the cache")}); err != nil {
		t.Fatal(err)
	}
	if err := l2.Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	// Hand edit in place (same inode) that changes the size.
	sc := sidecarOf(e.root, a.Key)
	data, _ := os.ReadFile(sc)
	f, err := os.OpenFile(sc, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(bytes.Replace(data, []byte("title: \"\""), []byte("title: by hand"), 1))
	f.Close()

	l3, err := media.Open(ctx, e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, ok := l3.Get(a.ID)
	if !ok || g.Alt != "changed after the cache" || g.Title != "by hand" {
		t.Errorf("stale cache served: %+v", g)
	}
	if _, ok := l3.Get(b.ID); ok {
		t.Error("deleted item back from the cache")
	}
	l3.Close()
	// A damaged cache is ignored.
	writeFile(t, filepath.Join(e.root, ".index.cache"), []byte("garbage"))
	if g, ok := e.open(t).Get(a.ID); !ok || g.Title != "by hand" {
		t.Errorf("with a damaged cache: %+v", g)
	}
}
