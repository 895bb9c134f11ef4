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
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	before := testkit.Tree(t, e.cfg.Root)

	cfg := e.cfg
	cfg.ReadOnly = true
	ro, err := media.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
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
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if d := testkit.DiffTrees(before, testkit.Tree(t, e.cfg.Root)); d != nil {
		t.Errorf("read-only library changed the media root: %v", d)
	}
}
