package local_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
	"github.com/folio-cms/folio/media/storagetest"
)

func mustNew(tb testing.TB, root string) *local.Storage {
	tb.Helper()
	s, err := local.New(root)
	if err != nil {
		tb.Fatalf("local.New(%q): %v", root, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func TestStorage_Conformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) media.Storage {
		s := mustNew(t, t.TempDir())
		// Whatever happened, no temporary file may be left behind.
		t.Cleanup(func() { assertNoTemp(t, s.Root()) })
		return s
	})
}

func assertNoTemp(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func TestNew(t *testing.T) {
	t.Run("CreatesRoot", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "a", "b")
		s := mustNew(t, root)
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			t.Fatalf("root not created: %v", err)
		}
		if got := s.Root(); got != root {
			t.Errorf("Root() = %q, want %q", got, root)
		}
	})
	t.Run("RelativeRootMadeAbsolute", func(t *testing.T) {
		t.Chdir(t.TempDir())
		s := mustNew(t, "media")
		if !filepath.IsAbs(s.Root()) {
			t.Errorf("Root() = %q, want absolute", s.Root())
		}
	})
	t.Run("ErrEmptyRoot", func(t *testing.T) {
		if _, err := local.New(""); err == nil {
			t.Error("New(\"\") = nil error")
		}
	})
	t.Run("ErrRootIsFile", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "file")
		os.WriteFile(f, []byte("x"), 0o644)
		if _, err := local.New(f); err == nil {
			t.Error("New(file) = nil error")
		}
	})
}

func TestStorage_Put(t *testing.T) {
	ctx := context.Background()
	t.Run("FileAtKey", func(t *testing.T) {
		s := mustNew(t, t.TempDir())
		storagetest.MustPut(t, s, "2026/11/a.jpg", []byte("abc"))
		b, err := os.ReadFile(filepath.Join(s.Root(), "2026", "11", "a.jpg"))
		if err != nil || string(b) != "abc" {
			t.Fatalf("file = %q, %v; want %q", b, err, "abc")
		}
		fi, _ := os.Stat(filepath.Join(s.Root(), "2026", "11", "a.jpg"))
		if got := fi.Mode().Perm(); got&0o044 != 0o044 {
			t.Errorf("mode = %v, want readable by the web server", got)
		}
	})
	t.Run("BadKeyCreatesNothing", func(t *testing.T) {
		root := t.TempDir()
		s := mustNew(t, root)
		for _, tc := range storagetest.BadKeys {
			s.Put(ctx, tc.Key, strings.NewReader("x"), 1, "text/plain")
		}
		entries, _ := os.ReadDir(root)
		if len(entries) != 0 {
			t.Errorf("bad keys created %d entries in the root, first %q", len(entries), entries[0].Name())
		}
		// Nor outside it.
		if _, err := os.Stat(filepath.Join(filepath.Dir(root), "a.jpg")); err == nil {
			t.Error("a bad key wrote outside the root")
		}
	})
	t.Run("ErrSymlinkOutOfRoot", func(t *testing.T) {
		outside := t.TempDir()
		root := t.TempDir()
		if err := os.Symlink(outside, filepath.Join(root, "2026")); err != nil {
			t.Fatal(err)
		}
		s := mustNew(t, root)
		if err := s.Put(ctx, "2026/x.jpg", strings.NewReader("x"), 1, "image/jpeg"); err == nil {
			t.Error("Put through a symlink out of the root = nil error")
		}
		if _, err := os.Stat(filepath.Join(outside, "x.jpg")); err == nil {
			t.Error("Put wrote through a symlink out of the root")
		}
		os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
		if _, err := s.Open(ctx, "2026/secret"); err == nil {
			t.Error("Open through a symlink out of the root = nil error")
		}
	})
	t.Run("ErrParentIsFile", func(t *testing.T) {
		s := mustNew(t, t.TempDir())
		storagetest.MustPut(t, s, "a", []byte("x"))
		err := s.Put(ctx, "a/b", strings.NewReader("x"), 1, "text/plain")
		if err == nil || errors.Is(err, media.ErrNotExist) {
			t.Errorf("Put under a file = %v, want a plain error", err)
		}
	})
}

func TestStorage_Delete(t *testing.T) {
	t.Run("KeepsSidecarDir", func(t *testing.T) {
		s := mustNew(t, t.TempDir())
		storagetest.MustPut(t, s, "2026/11/a.jpg", []byte("abc"))
		meta := filepath.Join(s.Root(), "2026", "11", ".meta")
		os.MkdirAll(meta, 0o755)
		if err := s.Delete(context.Background(), "2026/11/a.jpg"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(meta); err != nil {
			t.Errorf("sidecar dir gone: %v", err)
		}
	})
	t.Run("EmptyDirIsNotObject", func(t *testing.T) {
		s := mustNew(t, t.TempDir())
		os.MkdirAll(filepath.Join(s.Root(), "empty", "dir"), 0o755)
		if err := s.Delete(context.Background(), "empty/dir"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(s.Root(), "empty", "dir")); err != nil {
			t.Errorf("Delete removed a directory: %v", err)
		}
	})
}

func TestStorage_URL(t *testing.T) {
	s := mustNew(t, t.TempDir())
	if got, want := s.URL("2026/11/a b.jpg"), "/uploads/2026/11/a%20b.jpg"; got != want {
		t.Errorf("URL = %q, want %q", got, want)
	}
}

func BenchmarkPut_Streamed(b *testing.B) {
	s := mustNew(b, b.TempDir())
	const size = 64 << 20
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		r := io.LimitReader(zeros{}, size)
		if err := s.Put(context.Background(), "bench/big.bin", r, -1, "application/octet-stream"); err != nil {
			b.Fatal(err)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestOpen_PublicURL(t *testing.T) {
	t.Run("Conformance", func(t *testing.T) {
		storagetest.Run(t, func(t *testing.T) media.Storage {
			s, err := local.Open(local.Config{Root: t.TempDir(), PublicURL: "https://media.example.com/folio/"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
	t.Run("URL", func(t *testing.T) {
		for base, want := range map[string]string{
			"":                         "/uploads/2026/11/my%20photo.jpg",
			"http://127.0.0.1:8080":    "http://127.0.0.1:8080/uploads/2026/11/my%20photo.jpg",
			"https://cdn.example.com/": "https://cdn.example.com/uploads/2026/11/my%20photo.jpg",
			"https://example.com/cms":  "https://example.com/cms/uploads/2026/11/my%20photo.jpg",
		} {
			s, err := local.Open(local.Config{Root: t.TempDir(), PublicURL: base})
			if err != nil {
				t.Fatalf("Open(%q): %v", base, err)
			}
			if got := s.URL("2026/11/my photo.jpg"); got != want {
				t.Errorf("base %q: URL = %q, want %q", base, got, want)
			}
			s.Close()
		}
	})
	t.Run("Invalid", func(t *testing.T) {
		for _, base := range []string{"example.com", "/uploads", "ftp://example.com", "https://", "https://example.com/?a=1", "https://example.com/#x", "https://u:p@example.com"} {
			if s, err := local.Open(local.Config{Root: t.TempDir(), PublicURL: base}); err == nil {
				s.Close()
				t.Errorf("Open with public URL %q: no error", base)
			}
		}
	})
}

// CleanTemp removes the temporary files of interrupted Puts in every
// folder, and nothing else: objects, dot folders and what they hold stay.
func TestStorage_CleanTemp(t *testing.T) {
	root := t.TempDir()
	s := mustNew(t, root)
	files := map[string]bool{
		"2026/03/.tmp-ABC":        false,
		".tmp-top":                false,
		"2026/03/a.jpg":           true,
		"2026/03/.meta/.tmp-side": true, // not the storage's
		".state/.tmp-x":           true,
		"notes/keep.txt":          true,
	}
	for f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.CleanTemp(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("CleanTemp = %d, %v; want 2 removed", n, err)
	}
	for f, stays := range files {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(f)))
		if stays != (err == nil) {
			t.Errorf("%s: stays %v, stat %v", f, stays, err)
		}
	}
}

// KeysFolded finds the objects a claim's name (a key in lower case)
// stands for, in every case, and nothing else.
func TestStorage_KeysFolded(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, k := range []string{"2026/03/Ghost.png", "2026/03/GHOST.png", "2026/03/ghost.png.webp", "top.PDF"} {
		if err := st.Put(ctx, k, strings.NewReader("x"), 1, "application/octet-stream"); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "2026", "03", ".tmp-ghost.png"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for lower, want := range map[string]string{
		"2026/03/ghost.png": "[2026/03/GHOST.png 2026/03/Ghost.png]",
		"top.pdf":           "[top.PDF]",
		"2026/04/ghost.png": "[]",
		"2026/03/none.png":  "[]",
	} {
		keys, err := st.KeysFolded(ctx, lower)
		slices.Sort(keys)
		if err != nil || fmt.Sprint(keys) != want {
			t.Errorf("KeysFolded(%s) = %v, %v; want %s", lower, keys, err, want)
		}
	}
}

// MoveIn takes a spooled file by renaming it: the object holds its bytes,
// readable by the web server, and the spooled name is gone; a file it
// cannot take (another size) is left as it was.
func TestStorage_MoveIn(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := mustNew(t, root)
	spool := func(body string) *os.File {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, ".tmp"), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.CreateTemp(filepath.Join(root, ".tmp"), "upload-*")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		if _, err := f.WriteString(body); err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := spool("abc")
	moved, err := s.MoveIn(ctx, "2026/11/a.pdf", f, 3)
	if err != nil || !moved {
		t.Fatalf("MoveIn = %v, %v", moved, err)
	}
	if _, err := os.Stat(f.Name()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("spooled file still there: %v", err)
	}
	p := filepath.Join(root, "2026", "11", "a.pdf")
	if b, err := os.ReadFile(p); err != nil || string(b) != "abc" {
		t.Fatalf("object = %q, %v", b, err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, %v; want 0644 as Put's", fi.Mode().Perm(), err)
	}
	g := spool("abcd")
	if moved, err := s.MoveIn(ctx, "2026/11/b.pdf", g, 3); moved || err != nil {
		t.Errorf("MoveIn of a file of another size = %v, %v; want false, nil", moved, err)
	}
	if _, err := os.Stat(g.Name()); err != nil {
		t.Errorf("spooled file not taken is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "2026", "11", "b.pdf")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("object made from a file not taken: %v", err)
	}
	for _, tc := range storagetest.BadKeys {
		if moved, err := s.MoveIn(ctx, tc.Key, g, 4); moved || err == nil {
			t.Errorf("MoveIn(%q) = %v, %v; want a refusal", tc.Key, moved, err)
		}
	}
}

// Put keeps the folders it writes in open: a folder removed behind its
// back (by hand, DeletePrefix, another process) is made again, and a file
// never lands in the folder that is gone.
func TestStorage_PutAfterFolderRemoved(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := mustNew(t, root)
	storagetest.MustPut(t, s, "2026/11/a.jpg", []byte("a"))
	if err := os.RemoveAll(filepath.Join(root, "2026")); err != nil {
		t.Fatal(err)
	}
	storagetest.MustPut(t, s, "2026/11/b.jpg", []byte("b"))
	if err := os.RemoveAll(filepath.Join(root, "2026")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "2026", "11"), 0o755); err != nil {
		t.Fatal(err)
	}
	storagetest.MustPut(t, s, "2026/11/c.jpg", []byte("c"))
	storagetest.MustPut(t, s, "2026/11/a.jpg-variants/x.webp", []byte("x"))
	if err := s.DeletePrefix(ctx, "2026/11/a.jpg-variants/"); err != nil {
		t.Fatal(err)
	}
	storagetest.MustPut(t, s, "2026/11/a.jpg-variants/y.webp", []byte("y"))
	for key, want := range map[string]string{"2026/11/b.jpg": "", "2026/11/c.jpg": "c", "2026/11/a.jpg-variants/y.webp": "y"} {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(key)))
		if want == "" {
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: %q, %v; want removed with its folder", key, b, err)
			}
			continue
		}
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", key, b, err, want)
		}
	}
	assertNoTemp(t, root)
}

// PutNoSync and MoveInNoSync put whole objects as Put and MoveIn do;
// SyncFolders syncs each folder of the keys once and refuses bad keys.
func TestStorage_PutNoSync(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := mustNew(t, root)
	if err := s.PutNoSync(ctx, "2026/11/a.png", strings.NewReader("png"), 3, "image/png"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutNoSync(ctx, "2026/11/a-150.webp", strings.NewReader("webp"), 4, "image/webp"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutNoSync(ctx, "2026/11/b.png", strings.NewReader("long"), 3, "image/png"); err == nil {
		t.Error("PutNoSync of a body longer than announced = nil error")
	}
	if err := os.MkdirAll(filepath.Join(root, ".tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(filepath.Join(root, ".tmp"), "upload-*")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("pdf")
	if moved, err := s.MoveInNoSync(ctx, "2026/12/c.pdf", f, 3); !moved || err != nil {
		t.Fatalf("MoveInNoSync = %v, %v", moved, err)
	}
	if err := s.SyncFolders(ctx, []string{"2026/11/a.png", "2026/11/a-150.webp", "2026/12/c.pdf"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SyncFolders(ctx, []string{"../x"}); err == nil {
		t.Error("SyncFolders of a bad key = nil error")
	}
	for key, want := range map[string]string{"2026/11/a.png": "png", "2026/11/a-150.webp": "webp", "2026/12/c.pdf": "pdf"} {
		if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(key))); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", key, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "2026", "11", "b.png")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("b.png: %v; want nothing stored", err)
	}
	assertNoTemp(t, root)
}
