package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/internal/gittest"
)

// TestEngine_HostileReloadMatchesCold pushes what the reload's patch
// paths (chunked lists, layered maps, the parse cache's reuse) handle
// least often: a folder of 5000 files renamed, case-only renames, a
// file replaced by a folder of the same name, a type's folder turned
// into a file and back, every file deleted and the site back. After
// each push the reloaded engine serves, byte for byte, what an engine
// opened cold on that commit (no cache) serves.
func TestEngine_HostileReloadMatchesCold(t *testing.T) {
	if testing.Short() {
		t.Skip("5000-file pushes")
	}
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	cacheDir := t.TempDir()
	cfg := func(dir string) Config {
		return Config{Site: r.Site(), CacheDir: dir, Now: func() time.Time { return now }}
	}
	post := gittest.Post
	initial := map[string]string{
		"globals.yaml":                "siteName: A\n",
		"pages/index.md":              "---\ntitle: Index\n---\nWelcome\n",
		"content/posts/a.md":          post("A"),
		"content/posts/b.md":          post("B"),
		"content/docs/guide/intro.md": post("Intro"),
		"content/events/e.yaml":       "title: E\n",
	}
	const bulk = 5000
	for i := range bulk {
		initial[fmt.Sprintf("content/notes/bulk/n%04d.md", i)] = post(fmt.Sprintf("N%d", i))
	}
	day := 0
	r.Commit(srcDay(day), initial)
	r.Push(false)
	git := func(args ...string) { gittest.Git(t, r.Dir, args...) }
	write := func(p, body string) {
		full := filepath.Join(r.Dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name string
		do   func()
	}{
		{"a folder of 5000 files renamed", func() { git("mv", "content/notes/bulk", "content/notes/moved") }},
		{"a case-only rename of a file", func() { git("mv", "content/posts/a.md", "content/posts/A.md") }},
		{"a case-only rename of a folder of 5000 files", func() { git("mv", "content/notes/moved", "content/notes/Moved") }},
		{"a file replaced by a folder of the same name", func() {
			git("rm", "-q", "content/posts/b.md")
			write("content/posts/b.md/inner.md", post("Inner"))
		}},
		{"a type's folder turned into a file", func() {
			git("rm", "-q", "-r", "content/events")
			write("content/events", "not a folder\n")
		}},
		{"the file turned back into a type's folder", func() {
			git("rm", "-q", "content/events")
			write("content/events/f.yaml", "title: F\n")
		}},
		{"the type folder of 5000 files turned into a file", func() {
			git("rm", "-q", "-r", "content/notes")
			write("content/notes", "notes\n")
		}},
		{"every file deleted", func() { git("rm", "-q", "-r", ".") }},
		{"the site back", func() {
			for p, body := range initial {
				write(p, body)
			}
		}},
	}
	e, err := Open(context.Background(), cfg(cacheDir))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, st := range steps {
		st.do()
		day++
		r.Commit(srcDay(day), nil)
		r.Push(false)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		cold, err := Open(context.Background(), cfg(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Published().Commit != cold.Published().Commit {
			t.Fatalf("%s: reloaded to %s, cold engine at %s", st.name, e.Published().Commit, cold.Published().Commit)
		}
		for _, draft := range []bool{false, true} {
			if got, want := viewDump(t, e, draft), viewDump(t, cold, draft); got != want {
				t.Fatalf("%s draft=%v: reloaded engine serves\n%.3000s\ncold engine serves\n%.3000s", st.name, draft, got, want)
			}
		}
		cold.Close()
	}
	// A restart on the cache the reloads wrote serves the same.
	e.Close()
	warm, err := Open(context.Background(), cfg(cacheDir))
	if err != nil {
		t.Fatal(err)
	}
	defer warm.Close()
	cold, err := Open(context.Background(), cfg(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer cold.Close()
	if got, want := viewDump(t, warm, false), viewDump(t, cold, false); got != want {
		t.Fatalf("restart on the reloads' cache serves\n%.3000s\ncold engine serves\n%.3000s", got, want)
	}
}
