package media_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
)

func TestLibrary_Adopt(t *testing.T) {
	ctx := context.Background()
	put := func(t *testing.T, e *env, key string, body []byte) {
		t.Helper()
		if err := e.store.Put(ctx, key, bytes.NewReader(body), int64(len(body)), ""); err != nil {
			t.Fatal(err)
		}
	}
	gone := func(t *testing.T, e *env, key string) bool {
		t.Helper()
		_, err := e.store.Stat(ctx, key)
		return errors.Is(err, media.ErrNotExist)
	}

	t.Run("OK", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		body := pngBytes(t, 500, 250)
		key, err := l.PresignKey(context.Background(), "../My Pic.png", "image/png", int64(len(body)), time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if key != "2026/03/My-Pic.png" {
			t.Errorf("key %q", key)
		}
		// The key is reserved: a second grant for the same name differs.
		if k2, _ := l.PresignKey(context.Background(), "My Pic.png", "image/png", 5, time.Hour); k2 == key {
			t.Error("two grants for one key")
		}
		put(t, e, key, body)
		it, err := l.Adopt(ctx, media.AdoptInput{Key: key, Filename: "My Pic.png", MimeType: "image/png", Size: int64(len(body)), Folder: "/"})
		if err != nil {
			t.Fatal(err)
		}
		if it.Key != key || it.Width != 500 || it.Height != 250 || it.URL != "/uploads/"+key || it.Filename != "My-Pic.png" {
			t.Errorf("got %+v", it)
		}
		if len(it.Sizes) != 2 || it.Sizes[1].Key != "2026/03/My-Pic-400.webp" || gone(t, e, it.Sizes[1].Key) {
			t.Errorf("derivatives %+v", it.Sizes)
		}
		if _, err := l.Adopt(ctx, media.AdoptInput{Key: key, MimeType: "image/png", Size: int64(len(body))}); !errors.Is(err, media.ErrConflict) {
			t.Errorf("second confirm: %v", err)
		}
		if gone(t, e, key) {
			t.Error("a second confirm deleted the item's file")
		}
		if _, ok := e.open(t).Get(it.ID); !ok {
			t.Error("adopted item lost on restart")
		}
	})

	t.Run("SVG", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		put(t, e, "2026/03/x.svg", []byte(evilSVG))
		it, err := l.Adopt(ctx, media.AdoptInput{Key: "2026/03/x.svg", MimeType: "image/svg+xml", Size: int64(len(evilSVG))})
		if err != nil {
			t.Fatal(err)
		}
		if b := readAll(t, e.store, it.Key); bytes.Contains(b, []byte("script")) || int64(len(b)) != it.Size {
			t.Errorf("adopted SVG not sanitized: %s", b)
		}
	})

	t.Run("Refused", func(t *testing.T) {
		e := newEnv(t)
		e.cfg.MaxUploadBytes = 500
		l := e.open(t)
		png := pngBytes(t, 2, 2)
		for _, tc := range []struct {
			name    string
			key     string
			body    []byte
			in      media.AdoptInput
			want    error
			deleted bool
		}{
			{"size mismatch", "2026/03/a.png", png, media.AdoptInput{MimeType: "image/png", Size: 3}, media.ErrBadInput, true},
			{"type mismatch", "2026/03/b.png", png, media.AdoptInput{MimeType: "image/jpeg", Size: int64(len(png))}, media.ErrBadInput, true},
			{"extension mismatch", "2026/03/c.pdf", png, media.AdoptInput{MimeType: "image/png", Size: int64(len(png))}, media.ErrBadInput, true},
			{"unsupported", "2026/03/d.png", []byte("plain text"), media.AdoptInput{MimeType: "image/png", Size: 10}, media.ErrUnsupportedType, true},
			{"too large", "2026/03/e.pdf", append(bytes.Clone(pdfBytes), make([]byte, 600)...), media.AdoptInput{MimeType: "application/pdf", Size: int64(len(pdfBytes) + 600)}, media.ErrTooLarge, true},
			{"pixel bomb", "2026/03/f.png", pngBomb(t, 50000, 50000), media.AdoptInput{MimeType: "image/png", Size: int64(len(png))}, media.ErrTooLarge, true},
			{"unknown folder", "2026/03/g.png", png, media.AdoptInput{MimeType: "image/png", Size: int64(len(png)), Folder: "/nope"}, media.ErrFolderNotFound, false},
			{"missing object", "", nil, media.AdoptInput{Key: "2026/03/none.png", MimeType: "image/png", Size: 1}, media.ErrNotUploaded, false},
			{"traversal key", "", nil, media.AdoptInput{Key: "2026/03/../../../etc/passwd", MimeType: "image/png", Size: 1}, media.ErrBadInput, false},
			{"not a month key", "", nil, media.AdoptInput{Key: "other/place.png", MimeType: "image/png", Size: 1}, media.ErrBadInput, false},
			{"sidecar key", "", nil, media.AdoptInput{Key: "2026/03/.meta/x.png.yaml", MimeType: "image/png", Size: 1}, media.ErrBadInput, false},
		} {
			in := tc.in
			if tc.key != "" {
				put(t, e, tc.key, tc.body)
				in.Key = tc.key
			}
			if tc.name == "pixel bomb" {
				in.Size = int64(len(tc.body))
			}
			_, err := l.Adopt(ctx, in)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
			}
			if tc.key != "" && gone(t, e, tc.key) != tc.deleted {
				t.Errorf("%s: object deleted = %v, want %v", tc.name, !tc.deleted, tc.deleted)
			}
		}
		if _, total := l.List(media.Query{}); total != 0 {
			t.Errorf("%d items", total)
		}
	})

	t.Run("ReserveAfterRestart", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		if err := l.Reserve("2026/03/a.pdf", e.clock.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if it := mustCreate(t, l, "a.pdf", pdfBytes, ""); it.Key == "2026/03/a.pdf" {
			t.Error("Create took a reserved key")
		}
		if k, _ := l.PresignKey(context.Background(), "a.pdf", "application/pdf", 10, time.Hour); k == "2026/03/a.pdf" {
			t.Error("PresignKey gave a reserved key")
		}
		for _, bad := range []string{"../a.pdf", "a.pdf", "2026/03/.meta/a.pdf.yaml"} {
			if err := l.Reserve(bad, e.clock.Now().Add(time.Hour)); !errors.Is(err, media.ErrBadInput) {
				t.Errorf("Reserve(%q) = %v", bad, err)
			}
		}
		if err := l.Reserve("2026/03/a-1.pdf", e.clock.Now().Add(time.Hour)); !errors.Is(err, media.ErrConflict) {
			t.Errorf("Reserve of an item's key = %v", err)
		}
	})

	t.Run("PresignErrors", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		for _, tc := range []struct {
			mime string
			size int64
			want error
		}{
			{"text/html", 10, media.ErrUnsupportedType},
			{"image/png", 0, media.ErrBadInput},
			{"image/png", -5, media.ErrBadInput},
			{"image/png", media.DefaultMaxUploadLocal + 1, media.ErrTooLarge},
		} {
			if _, err := l.PresignKey(context.Background(), "a.png", tc.mime, tc.size, time.Hour); !errors.Is(err, tc.want) {
				t.Errorf("%s %d: %v, want %v", tc.mime, tc.size, err, tc.want)
			}
		}
	})
}
