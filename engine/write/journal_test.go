package write

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecoverSaysWhenTheRefLags: a recovered push that the clone's ref
// cannot follow (its lock is taken) is pushed and said in the log, not
// dropped in silence.
func TestRecoverSaysWhenTheRefLags(t *testing.T) {
	s := newSite(t)
	var logs bytes.Buffer
	w := New(Config{GitDir: s.clone, Remote: true, Branch: "main", JournalDir: t.TempDir(),
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx := context.Background()
	head := s.remoteHead()
	blob, err := w.repo.writeBlob(ctx, []byte("---\ntitle: Crash\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	commit, err := w.repo.commitFile(ctx, head, "content/posts/crash.md", blob, "Create posts/crash", Person{"k", "k@x"}, Person{"folio", "f@x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.journal(pending{Branch: "main", Commit: commit, Parent: head, Path: "content/posts/crash.md"}); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(s.clone, "refs", "heads", "main.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := w.Recover(ctx)
	if err != nil || rec == nil || rec.State != "pushed" || s.remoteHead() != commit {
		t.Fatalf("recover: %+v %v", rec, err)
	}
	if !strings.Contains(logs.String(), "the clone's ref will follow") {
		t.Fatalf("the ref left behind is not in the log:\n%s", logs.String())
	}
}
