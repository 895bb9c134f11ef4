package media_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/derive"
)

// TestVariants: a variant is stored under its item's variants folder; a
// focal-point change or a regenerate moves it to a new key (the stale one
// is never served again) and removes the stale files, a title change keeps
// them, and a delete removes the folder.
func TestVariants(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	l := e.open(t)
	it := mustCreate(t, l, "photo.png", pngBytes(t, 500, 300), "")
	spec := derive.Spec{W: 100, H: 100, Fit: "cover", Format: derive.FormatWebP, Quality: 80}
	key := media.VariantKey(it, spec)
	if !strings.HasPrefix(key, it.Key+"-variants/") || !strings.HasSuffix(key, ".webp") {
		t.Fatalf("variant key %q", key)
	}
	if _, err := l.StoredVariant(ctx, key); !errors.Is(err, media.ErrNotExist) {
		t.Fatalf("stored before made: %v", err)
	}
	data, err := l.MakeVariant(ctx, it, spec, key)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := l.StoredVariant(ctx, key)
	if err != nil || string(stored) != string(data) {
		t.Fatalf("stored variant: %v", err)
	}
	if other := media.VariantKey(it, derive.Spec{W: 100, H: 100, Fit: "contain", Format: derive.FormatWebP, Quality: 80}); other == key {
		t.Error("two specs, one key")
	}

	v0 := media.VariantVersion(it, spec)
	if other := (derive.Spec{W: 100, H: 50, Fit: "cover", Format: derive.FormatWebP, Quality: 80}); media.VariantVersion(it, other) == v0 {
		t.Error("two specs, one version: a preset given another size would keep its URL")
	}
	other := derive.Spec{W: 100, H: 50, Fit: "cover", Format: derive.FormatWebP, Quality: 80}
	if vs := media.VariantVersions(it, []derive.Spec{spec, other}); len(vs) != 2 || vs[0] != v0 || vs[1] != media.VariantVersion(it, other) {
		t.Errorf("VariantVersions %v, VariantVersion %s and %s", vs, v0, media.VariantVersion(it, other))
	}
	moved, err := l.Patch(ctx, it.ID, media.Patch{FocalX: ptr(10.0)})
	if err != nil {
		t.Fatal(err)
	}
	if media.VariantVersion(moved, spec) == v0 || media.VariantKey(moved, spec) == key {
		t.Error("a new focal point keeps the variant version or key")
	}
	if _, err := l.StoredVariant(ctx, key); !errors.Is(err, media.ErrNotExist) {
		t.Errorf("stale variant after a focal-point change: %v", err)
	}
	movedKey := media.VariantKey(moved, spec)
	if _, err := l.MakeVariant(ctx, moved, spec, movedKey); err != nil {
		t.Fatal(err)
	}
	// Title changes do not touch the pixels.
	titled, err := l.Patch(ctx, it.ID, media.Patch{Title: ptr("t")})
	if err != nil {
		t.Fatal(err)
	}
	if media.VariantVersion(titled, spec) != media.VariantVersion(moved, spec) {
		t.Error("a title change moved the variants")
	}
	if _, err := l.StoredVariant(ctx, movedKey); err != nil {
		t.Errorf("variant removed by a title change: %v", err)
	}
	regen, err := l.Regenerate(ctx, it.ID)
	if err != nil {
		t.Fatal(err)
	}
	if media.VariantVersion(regen, spec) == media.VariantVersion(moved, spec) {
		t.Error("a regenerate keeps the variant version")
	}
	if _, err := l.StoredVariant(ctx, movedKey); !errors.Is(err, media.ErrNotExist) {
		t.Errorf("stale variant after a regenerate: %v", err)
	}
	key = media.VariantKey(regen, spec)

	if _, err := l.MakeVariant(ctx, regen, spec, key); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(e.root, filepath.FromSlash(it.Key+"-variants"))
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	// A restart's sweep leaves the variants alone.
	e.close(t, l)
	l = e.open(t)
	if _, err := l.StoredVariant(ctx, key); err != nil {
		t.Fatalf("variant swept at open: %v", err)
	}
	if err := l.Delete(ctx, it.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("variants folder after delete: %v", err)
	}
}

func TestVariants_NotRaster(t *testing.T) {
	e := newEnv(t)
	l := e.open(t)
	svg := mustCreate(t, l, "logo.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`), "")
	spec := derive.Spec{W: 10, H: 10, Fit: "cover", Format: derive.FormatWebP, Quality: 80}
	if _, err := l.MakeVariant(context.Background(), svg, spec, media.VariantKey(svg, spec)); !errors.Is(err, media.ErrBadInput) {
		t.Errorf("svg: %v", err)
	}
}
