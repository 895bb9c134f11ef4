package write

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/content/fault"
)

// TestLocalWorkTreeFollows: on a local site that is a work tree with the
// branch checked out (make run's data/site), a write brings the files and
// the index along, so `git status` stays clean and a later `git commit -a`
// does not undo it; a write to a file with uncommitted changes is 409 and
// changes nothing; uncommitted changes to other files are kept.
func TestLocalWorkTreeFollows(t *testing.T) {
	s := newSite(t)
	w := New(Config{GitDir: filepath.Join(s.work, ".git"), Branch: "main"})
	ctx := context.Background()
	status := func() string { return git(t, s.work, "status", "--porcelain") }

	res, err := w.Create(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "new", Fields: map[string]any{"title": "New"}, Body: str("Body.")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := git(t, s.work, "rev-parse", "HEAD"); got != res.Commit {
		t.Fatalf("HEAD %s, commit %s", got, res.Commit)
	}
	if st := status(); st != "" {
		t.Fatalf("work tree not clean after a write:\n%s", st)
	}
	if b, err := os.ReadFile(filepath.Join(s.work, "content/posts/new.md")); err != nil || !strings.Contains(string(b), "title: New") {
		t.Fatalf("file in the work tree: %q, %v", b, err)
	}

	// An uncommitted edit elsewhere stays; the write goes through.
	about := filepath.Join(s.work, "pages/about.md")
	if err := os.WriteFile(about, []byte("---\ntitle: Mine\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "hello", Fields: map[string]any{"rating": 5}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st := status(); st != "M pages/about.md" {
		t.Fatalf("status %q, want only the user's edit", st)
	}
	if b, _ := os.ReadFile(filepath.Join(s.work, "content/posts/hello.md")); !strings.Contains(string(b), "rating: 5") {
		t.Fatalf("hello.md in the work tree: %s", b)
	}

	// An uncommitted edit of the file written: 409, nothing moves.
	head := git(t, s.work, "rev-parse", "HEAD")
	_, err = w.Patch(ctx, Doc{Kind: KindPage, Slug: "about", Fields: map[string]any{"title": "Theirs"}}, Options{})
	if codeOf(err) != fault.Conflict || !strings.Contains(err.Error(), "uncommitted changes") {
		t.Fatalf("write over an uncommitted edit: %v", err)
	}
	if got := git(t, s.work, "rev-parse", "HEAD"); got != head {
		t.Fatalf("HEAD moved to %s", got)
	}
	if b, _ := os.ReadFile(about); string(b) != "---\ntitle: Mine\n---\n" {
		t.Fatalf("the user's edit was touched: %q", b)
	}

	// An untracked file where a new document would go: 409 too.
	if err := os.WriteFile(filepath.Join(s.work, "content/posts/mine.md"), []byte("draft\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = w.Create(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "mine", Fields: map[string]any{"title": "Theirs"}}, Options{})
	if codeOf(err) != fault.Conflict {
		t.Fatalf("create over an untracked file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(s.work, "content/posts/mine.md")); string(b) != "draft\n" {
		t.Fatalf("untracked file touched: %q", b)
	}
}

// TestPushHoldsRefLock: a push and the clone's ref that follows it take
// Config.RefLock (the engine's fetch holds it too), so a fetch that read
// the remote's refs before the push cannot prune or set back the ref
// after it: while another holder has the lock, nothing is pushed.
func TestPushHoldsRefLock(t *testing.T) {
	s := newSite(t)
	var refs sync.Mutex
	w := New(Config{GitDir: s.clone, Remote: true, Branch: "main", JournalDir: t.TempDir(), RefLock: &refs})
	before := s.remoteHead()
	refs.Lock() // a fetch under way
	done := make(chan error, 1)
	go func() {
		_, err := w.Create(context.Background(), Doc{Kind: KindItem, Type: "posts", Slug: "held", Fields: map[string]any{"title": "Held"}}, Options{})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the write ended while a fetch held the ref lock: %v", err)
	case <-time.After(500 * time.Millisecond):
	}
	if s.remoteHead() != before {
		t.Fatal("pushed while a fetch held the ref lock")
	}
	refs.Unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s.remoteFile("content/posts/held.md") == "" || git(t, s.clone, "rev-parse", "main") != s.remoteHead() {
		t.Fatal("the write did not land, or the clone did not follow")
	}
}
