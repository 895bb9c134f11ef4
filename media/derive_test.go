package media_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"testing"

	"github.com/folio-cms/folio/media"
)

func TestLibrary_CreateDerivatives(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	l := e.open(t)
	it := mustCreate(t, l, "photo.png", pngBytes(t, 1000, 600), "")
	var got []string
	for _, s := range it.Sizes {
		got = append(got, fmt.Sprintf("%dx%d %s %s", s.Width, s.Height, s.Key, s.URL))
		b := readAll(t, e.store, s.Key)
		if !bytes.HasPrefix(b, []byte("RIFF")) || !bytes.Contains(b[:16], []byte("WEBP")) {
			t.Errorf("%s is not WebP", s.Key)
		}
	}
	want := []string{
		"150x90 2026/03/photo-150.webp /uploads/2026/03/photo-150.webp",
		"400x240 2026/03/photo-400.webp /uploads/2026/03/photo-400.webp",
		"800x480 2026/03/photo-800.webp /uploads/2026/03/photo-800.webp",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sizes (no 1200: no upscaling)\n%v\nwant\n%v", got, want)
	}
	if !regexp.MustCompile(`^#[0-9a-f]{6}$`).MatchString(it.DominantColor) || it.Placeholder == "" {
		t.Errorf("placeholder %q, color %q", it.Placeholder, it.DominantColor)
	}
	// An upload named like a derivative does not overwrite it.
	clash := mustCreate(t, l, "photo-400.webp", mustWebP(t, l), "")
	if clash.Key == "2026/03/photo-400.webp" {
		t.Fatal("upload took a derivative's key")
	}
	// A second photo.png names its derivatives after its own name.
	two := mustCreate(t, l, "photo.png", pngBytes(t, 500, 500), "")
	if two.Filename != "photo-1.png" || len(two.Sizes) != 2 || two.Sizes[1].Key != "2026/03/photo-1-400.webp" {
		t.Errorf("second: %s %+v", two.Filename, two.Sizes)
	}
	// Restart keeps the derivatives (the sweep must not take them for orphans).
	e.close(t, l)
	l2 := e.open(t)
	if g, ok := l2.Get(it.ID); !ok || len(g.Sizes) != 3 || g.Sizes[0].URL == "" {
		t.Errorf("after restart: %+v", g)
	}
	for _, s := range it.Sizes {
		if !fileExists(t, keyPath(e.root, s.Key)) {
			t.Errorf("derivative %s swept", s.Key)
		}
	}
	if err := l2.Delete(ctx, it.ID); err != nil {
		t.Fatal(err)
	}
	for _, s := range it.Sizes {
		if fileExists(t, keyPath(e.root, s.Key)) {
			t.Errorf("derivative %s left after delete", s.Key)
		}
	}
	if !fileExists(t, keyPath(e.root, clash.Key)) {
		t.Error("delete took another item's file")
	}
}

// mustWebP returns a WebP file: a derivative the library made.
func mustWebP(t *testing.T, l *media.Library) []byte {
	t.Helper()
	it := mustCreate(t, l, "src.png", pngBytes(t, 300, 300), "")
	return readAll(t, l.Storage(), it.Sizes[0].Key)
}

func TestLibrary_CreateDamagedImage(t *testing.T) {
	e := newEnv(t)
	l := e.open(t)
	full := pngBytes(t, 300, 300)
	for name, body := range map[string][]byte{
		"truncated.png": full[:len(full)/2],
		"garbage.jpg":   append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, bytes.Repeat([]byte{0x42}, 500)...),
	} {
		_, err := l.Create(context.Background(), media.UploadInput{Filename: name, Body: bytes.NewReader(body)})
		if !errors.Is(err, media.ErrBadInput) {
			t.Errorf("%s: %v, want ErrBadInput", name, err)
		}
	}
	if _, total := l.List(media.Query{}); total != 0 {
		t.Errorf("%d items", total)
	}
}
