package media_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
)

func TestLibrary_Create(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		body := pngBytes(t, 40, 30)
		it, err := l.Create(context.Background(), media.UploadInput{Filename: "My Photo.PNG", Body: bytes.NewReader(body), Alt: "a test"})
		if err != nil {
			t.Fatal(err)
		}
		if !media.ValidID(it.ID) {
			t.Errorf("id %q not valid", it.ID)
		}
		want := media.Item{Filename: "My-Photo.png", MimeType: "image/png", Size: int64(len(body)), Width: 40, Height: 30,
			Alt: "a test", Folder: "/", FocalX: 50, FocalY: 50, Key: "2026/03/My-Photo.png", URL: "/uploads/2026/03/My-Photo.png", Version: 1}
		got := *it
		got.ID, got.CreatedAt, got.Sizes, got.Placeholder, got.DominantColor = "", got.CreatedAt.Add(0), nil, "", ""
		want.CreatedAt = got.CreatedAt
		if got.Filename != want.Filename || got.MimeType != want.MimeType || got.Size != want.Size || got.Width != want.Width ||
			got.Height != want.Height || got.Alt != want.Alt || got.Folder != want.Folder || got.FocalX != 50 || got.FocalY != 50 ||
			got.Key != want.Key || got.URL != want.URL || got.Version != 1 {
			t.Errorf("got %+v\nwant %+v", got, want)
		}
		if it.CreatedAt.Location() != time.UTC || it.CreatedAt.IsZero() {
			t.Errorf("createdAt %v not UTC", it.CreatedAt)
		}
		if b := readAll(t, e.store, it.Key); !bytes.Equal(b, body) {
			t.Error("stored original differs from upload")
		}
		// The spooled upload is renamed into place (local.Storage.MoveIn),
		// made readable by the web server as a copy would be.
		if fi, err := os.Stat(filepath.Join(e.root, filepath.FromSlash(it.Key))); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("original's mode = %v, %v; want 0644", fi.Mode().Perm(), err)
		}
		if !fileExists(t, stateItem(e.root, it.ID)) {
			t.Error("no sidecar")
		}
		g, ok := l.Get(it.ID)
		if !ok || g.URL != it.URL || g.Alt != "a test" {
			t.Errorf("Get = %+v, %v", g, ok)
		}
		// Get returns a copy: changing it changes nothing.
		g.Alt = "changed"
		if g2, _ := l.Get(it.ID); g2.Alt != "a test" {
			t.Error("Get returned the library's own item")
		}
		if ents, _ := os.ReadDir(filepath.Join(e.root, ".tmp")); len(ents) != 0 {
			t.Errorf(".tmp not empty after create: %v", ents)
		}
	})

	t.Run("Types", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		for _, tc := range []struct {
			name, mime string
			body       []byte
			w, h       int
		}{
			{"a.jpg", "image/jpeg", jpegBytes(t, 20, 10), 20, 10},
			{"b.gif", "image/gif", gifBytes(t, 7, 9), 7, 9},
			{"c.pdf", "application/pdf", pdfBytes, 0, 0},
			{"d.mp4", "video/mp4", mp4Bytes, 0, 0},
			{"e.svg", "image/svg+xml", []byte(evilSVG), 10, 20},
		} {
			it := mustCreate(t, l, tc.name, tc.body, "")
			if it.MimeType != tc.mime || it.Width != tc.w || it.Height != tc.h || it.Filename != tc.name {
				t.Errorf("%s: got %s %dx%d %q", tc.name, it.MimeType, it.Width, it.Height, it.Filename)
			}
		}
	})

	t.Run("SVGSanitized", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		it := mustCreate(t, l, "logo.svg", []byte(evilSVG), "")
		b := readAll(t, e.store, it.Key)
		if bytes.Contains(b, []byte("script")) || bytes.Contains(b, []byte("onload")) {
			t.Errorf("stored SVG not sanitized: %s", b)
		}
		if it.Size != int64(len(b)) {
			t.Errorf("size %d, stored %d bytes", it.Size, len(b))
		}
	})

	t.Run("TypeFromBytesNotName", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		it := mustCreate(t, l, "innocent.pdf", pngBytes(t, 2, 2), "")
		if it.MimeType != "image/png" || it.Filename != "innocent.png" {
			t.Errorf("got %s %s", it.MimeType, it.Filename)
		}
	})

	t.Run("UniqueNames", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		a := mustCreate(t, l, "photo.png", pngBytes(t, 2, 2), "")
		b := mustCreate(t, l, "photo.png", pngBytes(t, 3, 3), "")
		c := mustCreate(t, l, "PHOTO.png", pngBytes(t, 4, 4), "")
		if a.Filename != "photo.png" || b.Filename != "photo-1.png" || c.Filename != "PHOTO-2.png" {
			t.Errorf("names %s %s %s", a.Filename, b.Filename, c.Filename)
		}
		if bytes.Equal(readAll(t, e.store, a.Key), readAll(t, e.store, b.Key)) {
			t.Error("second upload overwrote the first")
		}
	})

	t.Run("PathTraversal", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		it := mustCreate(t, l, "../../../../outside.pdf", pdfBytes, "")
		if it.Key != "2026/03/outside.pdf" {
			t.Errorf("key %q", it.Key)
		}
		if fileExists(t, filepath.Join(filepath.Dir(e.root), "outside.pdf")) {
			t.Error("file written outside the media root")
		}
		for _, f := range []string{"../x", "/a/../../b", "\\..\\x"} {
			_, err := l.Create(context.Background(), media.UploadInput{Filename: "a.pdf", Body: bytes.NewReader(pdfBytes), Folder: f})
			if !errors.Is(err, media.ErrBadInput) {
				t.Errorf("folder %q: %v, want ErrBadInput", f, err)
			}
		}
	})

	t.Run("Errors", func(t *testing.T) {
		e := newEnv(t)
		e.cfg.MaxUploadBytes = 1000
		l := e.open(t)
		for _, tc := range []struct {
			name   string
			body   []byte
			folder string
			alt    string
			want   error
		}{
			{"big.pdf", append(bytes.Clone(pdfBytes), make([]byte, 1000)...), "", "", media.ErrTooLarge},
			{"empty.png", nil, "", "", media.ErrBadInput},
			{"notes.txt", []byte("hello, world"), "", "", media.ErrUnsupportedType},
			{"page.html", []byte("<html><script>x</script></html>"), "", "", media.ErrUnsupportedType},
			{"bomb.png", pngBomb(t, 100000, 100000), "", "", media.ErrTooLarge},
			{"broken.png", pngBytes(t, 2, 2)[:20], "", "", media.ErrBadInput},
			{"xxe.svg", []byte(`<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>`), "", "", media.ErrBadInput},
			{"a.pdf", pdfBytes, "/nope", "", media.ErrFolderNotFound},
			{"a.pdf", pdfBytes, "nope", "", media.ErrBadInput},
			{"a.pdf", pdfBytes, "", strings.Repeat("x", media.MaxAltBytes+1), media.ErrBadInput},
			{"a.pdf", pdfBytes, "", "\xff", media.ErrBadInput},
		} {
			_, err := l.Create(context.Background(), media.UploadInput{Filename: tc.name, Body: bytes.NewReader(tc.body), Folder: tc.folder, Alt: tc.alt})
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: err %v, want %v", tc.name, err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), e.root) {
				t.Errorf("%s: error shows a path: %v", tc.name, err)
			}
		}
		if items, total := l.List(media.Query{}); total != 0 {
			t.Errorf("failed uploads left items: %v", listNames(items))
		}
		if ents, _ := os.ReadDir(filepath.Join(e.root, ".tmp")); len(ents) != 0 {
			t.Errorf(".tmp not empty: %v", ents)
		}
		if ents, _ := os.ReadDir(filepath.Join(e.root, "2026", "03")); len(ents) != 0 {
			t.Errorf("failed uploads left files: %v", ents)
		}
	})

	t.Run("StreamsTooLarge", func(t *testing.T) {
		// A body far larger than the limit is refused after limit+1 bytes,
		// not read to its end.
		e := newEnv(t)
		e.cfg.MaxUploadBytes = 1 << 10
		l := e.open(t)
		r := &countingReader{r: io.MultiReader(bytes.NewReader(pdfBytes), zeros{})}
		_, err := l.Create(context.Background(), media.UploadInput{Filename: "a.pdf", Body: r})
		if !errors.Is(err, media.ErrTooLarge) {
			t.Fatalf("err %v", err)
		}
		if r.n > 1<<20 {
			t.Errorf("read %d bytes of an endless body", r.n)
		}
	})

	t.Run("Canceled", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := l.Create(ctx, media.UploadInput{Filename: "a.pdf", Body: bytes.NewReader(pdfBytes)}); !errors.Is(err, context.Canceled) {
			t.Errorf("err %v", err)
		}
	})
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestLibrary_Create1000(t *testing.T) {
	e := newEnv(t)
	l := e.open(t)
	// Eight uploaders at once, all of the same name: every one must get
	// its own name and none may be lost.
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 125 {
				body := append(bytes.Clone(pdfBytes), byte(w), byte(i))
				if _, err := l.Create(context.Background(), media.UploadInput{Filename: "doc.pdf", Body: bytes.NewReader(body)}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	items, total := l.List(media.Query{Limit: 5, Sort: media.SortFilename})
	if total != 1000 {
		t.Fatalf("total %d", total)
	}
	if got := listNames(items); got != "doc-1.pdf,doc-10.pdf,doc-100.pdf,doc-101.pdf,doc-102.pdf" {
		t.Errorf("first by name: %s", got)
	}
	l2 := e.open(t)
	if _, total := l2.List(media.Query{}); total != 1000 {
		t.Errorf("after reopen: %d", total)
	}
}
