package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/internal/gittest"
)

// A shallow site (git clone --depth 1: its commit's parent is not in
// the repository) opens and serves its files, their Updated times the
// commit's; a push onto it reloads as a cold start serves it. (Held.)
func TestEngine_ShallowSite(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{"globals.yaml": "siteName: A\n", "content/posts/a.md": gittest.Post("A")})
	r.Commit(srcDay(1), map[string]string{"content/posts/b.md": gittest.Post("B")})
	r.Push(false)
	shallow := filepath.Join(t.TempDir(), "shallow.git")
	gittest.Git(t, t.TempDir(), "clone", "-q", "--bare", "--depth", "1", "file://"+r.Bare, shallow)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	cfg := func() Config {
		return Config{Site: shallow, CacheDir: t.TempDir(), Now: func() time.Time { return now }}
	}
	e, err := Open(context.Background(), cfg())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if le, dump := e.Status().LastError, viewDump(t, e, false); le != nil || !strings.Contains(dump, `"title":"A"`) || !strings.Contains(dump, `"title":"B"`) {
		t.Fatalf("shallow site: last error %+v, serves\n%s", le, dump)
	}
	// a push onto the shallow site
	r.Commit(srcDay(2), map[string]string{"content/posts/c.md": gittest.Post("C")})
	r.Push(false)
	gittest.Git(t, t.TempDir(), "--git-dir", r.Dir+"/.git", "push", "-q", shallow, "HEAD:refs/heads/main")
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	cold, err := Open(context.Background(), cfg())
	if err != nil {
		t.Fatal(err)
	}
	defer cold.Close()
	if le := e.Status().LastError; le != nil {
		t.Fatalf("reload: %s", le.Message)
	}
	if got, want := viewDump(t, e, false), viewDump(t, cold, false); got != want {
		t.Fatalf("reloaded shallow site serves\n%s\ncold\n%s", got, want)
	}
}
