package media_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/media"
)

// oldLibrary is a library as an earlier release kept it on its media
// root: one sidecar per item at <yyyy>/<mm>/.meta/<name>.yaml, the
// explicit folders in .folders.yaml, and the files in storage.
type oldLibrary struct {
	items   []media.Item
	folders []string
}

// sampleOldLibrary is an image with two derivatives, patched once, in
// /kept; a PDF at the root; an empty folder /kept/empty.
func sampleOldLibrary() oldLibrary {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	return oldLibrary{
		items: []media.Item{{
			ID: "aaaaaaaaaaaaaaaa", Filename: "a.png", MimeType: "image/png", Size: 5, Width: 900, Height: 600,
			Alt: "kept alt", Folder: "/kept", FocalX: 50, FocalY: 10, CreatedAt: at, Key: "2026/03/a.png",
			Sizes: []media.Size{
				{Width: 150, Height: 100, Key: "2026/03/a-150.webp"},
				{Width: 400, Height: 267, Key: "2026/03/a-400.webp"},
			},
			Placeholder: "LEHV6nWB2yk8pyo0adR*.7kCMdnj", DominantColor: "#aabbcc", Version: 2,
		}, {
			ID: "bbbbbbbbbbbbbbbb", Filename: "b.pdf", MimeType: "application/pdf", Size: 5,
			Folder: "/", FocalX: 50, FocalY: 50, CreatedAt: at.Add(time.Minute), Key: "2026/03/b.pdf", Version: 1,
		}},
		folders: []string{"/kept/empty"},
	}
}

// write puts the library on root in the old format, and its files in st.
func (o oldLibrary) write(tb testing.TB, root string, st media.Storage) {
	tb.Helper()
	ctx := context.Background()
	for _, it := range o.items {
		data, err := yaml.Marshal(&it)
		if err != nil {
			tb.Fatal(err)
		}
		dir, name := filepath.Split(filepath.FromSlash(it.Key))
		writeFile(tb, filepath.Join(root, dir, ".meta", name+".yaml"), data)
		for _, k := range append([]string{it.Key}, sizeKeys(&it)...) {
			if err := st.Put(ctx, k, bytes.NewReader([]byte("bytes")), 5, "application/octet-stream"); err != nil {
				tb.Fatal(err)
			}
		}
	}
	writeFile(tb, filepath.Join(root, ".folders.yaml"), []byte("folders: ["+strings.Join(o.folders, ", ")+"]\n"))
}

// check fails unless l holds exactly the old library's items and folders.
func (o oldLibrary) check(tb testing.TB, l *media.Library) {
	tb.Helper()
	if l.Len() != len(o.items) {
		tb.Errorf("%d items, want %d", l.Len(), len(o.items))
	}
	for _, want := range o.items {
		got, ok := l.Get(want.ID)
		if !ok {
			tb.Errorf("item %s (%s) missing", want.ID, want.Key)
			continue
		}
		got.URL, got.CreatedAt = "", got.CreatedAt.UTC()
		for i := range got.Sizes {
			got.Sizes[i].URL = ""
		}
		if fmt.Sprintf("%+v", *got) != fmt.Sprintf("%+v", want) {
			tb.Errorf("item after migration:\n%+v\nwant\n%+v", *got, want)
		}
	}
	if got := fmt.Sprint(l.Folders()); got != "[/ /kept /kept/empty]" {
		tb.Errorf("folders %s", got)
	}
}

// TestOpen_MigratesAnOldLocalLibrary: a media root an earlier release
// wrote (sidecars beside the files, no state) keeps loading: its first
// start moves it into <root>/.state, its files stay where they are and
// belong to their items (claimed: a new upload of the same name gets
// another; nothing is swept), and later starts, from the state, serve
// the same library.
func TestOpen_MigratesAnOldLocalLibrary(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	old := sampleOldLibrary()
	old.write(t, e.root, e.store)

	l := e.open(t)
	old.check(t, l)
	rep, err := l.MigrateLocal(ctx)
	if err != nil || rep.Items != 2 || rep.Created != 2 || rep.Present != 4 || len(rep.Skipped) != 0 {
		t.Fatalf("migration report %+v, %v", rep, err)
	}
	if !fileExists(t, filepath.Join(e.root, ".migrated-to-bucket")) {
		t.Error("no migration marker")
	}
	for _, it := range old.items {
		for _, k := range append([]string{it.Key}, sizeKeys(&it)...) {
			if !fileExists(t, keyPath(e.root, k)) {
				t.Errorf("file %s gone", k)
			}
		}
	}
	again := mustCreate(t, l, "a.png", pngBytes(t, 20, 20), "")
	if again.Key != "2026/03/a-1.png" {
		t.Errorf("a new upload of a migrated item's name got %s, want 2026/03/a-1.png", again.Key)
	}
	e.close(t, l)

	// The next start reads the state (the old sidecars are left as they
	// were, and ignored).
	l2 := e.open(t)
	if l2.Len() != 3 {
		t.Errorf("%d items after a restart, want 3", l2.Len())
	}
	if _, err := l2.Patch(ctx, "aaaaaaaaaaaaaaaa", media.Patch{Title: ptr("after")}); err != nil {
		t.Fatal(err)
	}
	e.close(t, l2)
	l3 := e.open(t)
	if g, _ := l3.Get("aaaaaaaaaaaaaaaa"); g == nil || g.Title != "after" || g.Version != 3 {
		t.Errorf("patched migrated item after a restart: %+v", g)
	}
	if err := l3.Delete(ctx, "bbbbbbbbbbbbbbbb"); err != nil {
		t.Fatal(err)
	}
	if fileExists(t, keyPath(e.root, "2026/03/b.pdf")) {
		t.Error("the deleted migrated item's file stays")
	}
}

// An old library whose sidecars do not parse, or whose files are gone,
// migrates what it can: the rest is reported, and no marker is written,
// so the next start tries again.
func TestOpen_MigrationSkipsAndRetries(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	old := sampleOldLibrary()
	old.write(t, e.root, e.store)
	if err := os.Remove(keyPath(e.root, "2026/03/b.pdf")); err != nil {
		t.Fatal(err)
	}
	l := e.open(t)
	rep, err := l.MigrateLocal(ctx)
	if err != nil || rep.Created != 1 || len(rep.Skipped) != 1 || rep.Skipped[0].ID != "bbbbbbbbbbbbbbbb" {
		t.Fatalf("migration report %+v, %v", rep, err)
	}
	if fileExists(t, filepath.Join(e.root, ".migrated-to-bucket")) {
		t.Error("marker written though an item was skipped")
	}
	e.close(t, l)
	if err := e.store.Put(ctx, "2026/03/b.pdf", bytes.NewReader([]byte("bytes")), 5, "application/pdf"); err != nil {
		t.Fatal(err)
	}
	l2 := e.open(t)
	old.check(t, l2)
	if !fileExists(t, filepath.Join(e.root, ".migrated-to-bucket")) {
		t.Error("no marker after the retry")
	}
}
