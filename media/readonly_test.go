package media_test

import (
	"context"
	"errors"
	"testing"

	"github.com/folio-cms/folio/fixtures/testkit"
	"github.com/folio-cms/folio/media"
)

// A read-only library serves what a writer left, refuses every write with
// ErrReadOnly, and leaves the media root exactly as it found it.
func TestReadOnly_ServesAndRefusesWrites(t *testing.T) {
	e := newEnv(t)
	l := e.open(t)
	if err := l.CreateFolder("/x"); err != nil {
		t.Fatal(err)
	}
	a := mustCreate(t, l, "a.png", pngBytes(t, 300, 200), "/x")
	e.close(t, l)
	before := testkit.Tree(t, e.cfg.Root)

	e.cfg.ReadOnly = true
	ro := e.open(t)
	if got, ok := ro.Get(a.ID); !ok || got.Filename != "a.png" || len(got.Sizes) == 0 {
		t.Fatalf("Get on read-only library = %+v, %v", got, ok)
	}
	ctx := context.Background()
	writes := map[string]error{
		"Create":       func() error { _, err := ro.Create(ctx, media.UploadInput{Filename: "b.png", Body: nil}); return err }(),
		"Patch":        func() error { _, err := ro.Patch(ctx, a.ID, media.Patch{Alt: ptr("x")}); return err }(),
		"Delete":       ro.Delete(ctx, a.ID),
		"CreateFolder": ro.CreateFolder("/y"),
		"DeleteFolder": ro.DeleteFolder("/x"),
		"PresignKey":   func() error { _, err := ro.PresignKey(context.Background(), "b.png", "image/png", 10, 0); return err }(),
		"Adopt":        func() error { _, err := ro.Adopt(ctx, media.AdoptInput{}); return err }(),
	}
	for name, err := range writes {
		if !errors.Is(err, media.ErrReadOnly) {
			t.Errorf("%s on a read-only library: %v, want ErrReadOnly", name, err)
		}
	}
	e.close(t, ro)
	if d := testkit.DiffTrees(before, testkit.Tree(t, e.cfg.Root)); d != nil {
		t.Errorf("read-only library changed the media root: %v", d)
	}
}

// A read-only box on a media root that no writer has started on yet (no
// state) serves an empty library, and the library once a writer makes
// it: it follows the state as it follows the writer's log.
func TestReadOnly_BeforeTheWriter(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	ro := *e
	ro.cfg.ReadOnly = true
	r := ro.open(t)
	if r.Len() != 0 {
		t.Fatalf("%d items before any writer", r.Len())
	}
	if err := r.Sync(ctx); err != nil {
		t.Fatalf("sync before any writer: %v", err)
	}
	w := e.open(t)
	if err := w.CreateFolder("/x"); err != nil {
		t.Fatal(err)
	}
	a := mustCreate(t, w, "a.pdf", pdfBytes, "/x")
	if err := r.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got, ok := r.Get(a.ID); !ok || got.Folder != "/x" {
		t.Errorf("read-only box after the writer's first write: %+v, %v", got, ok)
	}
	if _, err := r.Create(ctx, media.UploadInput{Filename: "b.pdf"}); !errors.Is(err, media.ErrReadOnly) {
		t.Errorf("create on the read-only box: %v", err)
	}
}
