package write

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine/gitsource"
)

// TestWriteBaseRevisions checks Options.Base as git read it when the
// writer asked git ls-tree (and as it reads it now in process): a short
// hash names the commit it starts, a short hash that several objects
// start and a hash the repository lacks fail the write as the git
// command's failure did (an internal error, no fault code), nothing
// pushed.
func TestWriteBaseRevisions(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	base := s.remoteHead()
	s.push("content/posts/hello.md", "---\n# the title comment\ntitle: Hello\ntags: [a, b] # inline\nrating: 1\n---\nHello *world*.\n")
	git(t, s.clone, "fetch", "-q", "origin", "+main:main") // the box has fetched it
	patch := func(fields map[string]any, base string) error {
		_, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "hello", Fields: fields}, Options{Base: base})
		return err
	}
	// From the old base by its short hash: another field merges…
	if err := patch(map[string]any{"title": "T"}, base[:7]); err != nil {
		t.Fatalf("merge from a short base: %v", err)
	}
	if got := s.remoteFile("content/posts/hello.md"); !strings.Contains(got, "title: T\n") || !strings.Contains(got, "rating: 1\n") {
		t.Fatalf("merged:\n%s", got)
	}
	// …the field changed since is a conflict: the short hash is the old
	// commit, not the head.
	if err := patch(map[string]any{"rating": 7}, base[:9]); codeOf(err) != fault.Conflict {
		t.Fatalf("conflicting field from a short base: %v", err)
	}

	// Enough objects that two start with the same four hex digits.
	blobs := t.TempDir()
	var paths []string
	for i := range 1200 {
		p := filepath.Join(blobs, fmt.Sprint(i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("blob %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	cmd := exec.Command("git", "--git-dir="+s.clone, "hash-object", "-w", "--stdin-paths")
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\n") + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hash-object: %v %s", err, out)
	}
	seen, amb := map[string]bool{}, ""
	for _, h := range strings.Fields(git(t, s.clone, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")) {
		if seen[h[:4]] {
			amb = h[:4]
			break
		}
		seen[h[:4]] = true
	}
	if amb == "" {
		t.Fatal("no ambiguous prefix")
	}
	if out, err := exec.Command("git", "--git-dir="+s.clone, "ls-tree", amb).CombinedOutput(); err == nil || !strings.Contains(string(out), "ambiguous") {
		t.Fatalf("git ls-tree %s: %v %s", amb, err, out)
	}
	head := s.remoteHead()
	for _, bad := range []string{amb, strings.Repeat("1", 40), "zzzz"} {
		err := patch(map[string]any{"title": "U"}, bad)
		if err == nil || codeOf(err) != fault.Internal {
			t.Errorf("Base %q: %v (code %s); want an internal error", bad, err, codeOf(err))
		}
	}
	if s.remoteHead() != head {
		t.Fatal("a write from a bad base was pushed")
	}
}

// TestMergeBaseTieAsksGit checks the one merge base the writer leaves to
// git: of two commits with two best common ancestors made at the same
// second, the one git merge-base prints; and none is errNoMergeBase.
func TestMergeBaseTieAsksGit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	git(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	// Every commit at the same second.
	run := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_AUTHOR_DATE=2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("commit", "-q", "--allow-empty", "-m", "base")
	run("checkout", "-q", "-b", "x")
	run("commit", "-q", "--allow-empty", "-m", "x")
	run("checkout", "-q", "-b", "y", "main")
	run("commit", "-q", "--allow-empty", "-m", "y")
	run("merge", "-q", "--no-ff", "--no-edit", "x")
	run("checkout", "-q", "x")
	run("merge", "-q", "--no-ff", "--no-edit", "y~1")
	gitDir := filepath.Join(dir, ".git")
	r := &repo{gitDir: gitDir, files: gitsource.OpenFiles(gitDir)}
	if _, err := r.files.MergeBase("x", "y"); !errors.Is(err, gitsource.ErrMergeBaseTie) {
		t.Fatalf("no tie to leave to git: %v", err)
	}
	for _, p := range [][2]string{{"x", "y"}, {"y", "x"}} {
		got, err := r.mergeBase(context.Background(), p[0], p[1])
		if want := run("merge-base", p[0], p[1]); err != nil || got != want {
			t.Errorf("mergeBase(%s, %s) = %q, %v; git merge-base: %q", p[0], p[1], got, err, want)
		}
	}
	run("checkout", "-q", "--orphan", "alone")
	run("commit", "-q", "--allow-empty", "-m", "alone")
	if mb, err := r.mergeBase(context.Background(), "alone", "x"); !errors.Is(err, errNoMergeBase) {
		t.Errorf("mergeBase of unrelated commits = %q, %v", mb, err)
	}
}
