package local_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// An upload spooled in the root's temporary folder is synced where it
// is (made 0644 by PrepareSpooled) and linked to its key, keeping its spooled name; a file
// already at the key (no item's) is replaced; a file outside the
// temporary folder is not taken; a folder removed since it was opened is
// made again.
func TestStorage_LinkSpooled(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := mustNew(t, root)
	if err := os.MkdirAll(filepath.Join(root, ".tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	spool := func(name, body string) *os.File {
		f, err := os.OpenFile(filepath.Join(root, ".tmp", name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		if _, err := f.WriteString(body); err != nil {
			t.Fatal(err)
		}
		return f
	}
	read := func(key string) string {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(key)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	f := spool("upload-a", "first")
	if !s.Spooled(f) {
		t.Fatal("a file of .tmp not taken")
	}
	if err := s.PrepareSpooled(f); err != nil {
		t.Fatal(err)
	}
	if err := s.SyncSpooled(f); err != nil {
		t.Fatal(err)
	}
	if fi, err := f.Stat(); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("spooled file's mode: %v, %v", fi.Mode(), err)
	}
	if err := s.LinkSpooled(ctx, "2026/11/a.pdf", f); err != nil {
		t.Fatal(err)
	}
	if got := read("2026/11/a.pdf"); got != "first" {
		t.Errorf("key holds %q", got)
	}
	if _, err := os.Stat(f.Name()); err != nil {
		t.Errorf("spooled name gone: %v", err)
	}
	if err := s.SyncFolders(ctx, []string{"2026/11/a.pdf"}); err != nil {
		t.Fatal(err)
	}
	// A file at the key already is replaced, and no temporary name is left.
	g := spool("upload-b", "second")
	if err := s.LinkSpooled(ctx, "2026/11/a.pdf", g); err != nil {
		t.Fatal(err)
	}
	if got := read("2026/11/a.pdf"); got != "second" {
		t.Errorf("key holds %q after a second link", got)
	}
	assertNoTemp(t, root)
	// The folder removed since: made again.
	if err := s.DeletePrefix(ctx, "2026/11/"); err != nil {
		t.Fatal(err)
	}
	if err := s.LinkSpooled(ctx, "2026/11/c.pdf", g); err != nil || read("2026/11/c.pdf") != "second" {
		t.Errorf("after the folder was removed: %v", err)
	}
	// Not a file of .tmp: refused.
	out := filepath.Join(t.TempDir(), "upload-c")
	h, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if s.Spooled(h) || s.PrepareSpooled(h) == nil || s.SyncSpooled(h) == nil || s.LinkSpooled(ctx, "2026/11/d.pdf", h) == nil {
		t.Error("a file outside .tmp taken")
	}
}
