package write

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content/fault"
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
