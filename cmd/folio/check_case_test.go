package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-cms/folio/fixtures/testkit"
)

// folio check reports files whose paths differ only in case (one file on
// macOS and Windows: a checkout of the repository breaks), from the
// repository and from a worktree.
func TestCheckCaseOnlyDuplicates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"content/posts/Hello-World.md": "---\ntitle: One\nslug: one\n---\n",
		"content/posts/hello-world.md": "---\ntitle: Two\n---\n",
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Git(t, dir, "init", "-q")
	testkit.Git(t, dir, "add", "-A")
	testkit.Git(t, dir, "commit", "-qm", "both")
	want := "content/posts/hello-world.md: differs only in case from content/posts/Hello-World.md"
	for _, args := range [][]string{{"check", "--site", dir, "--cache-dir", t.TempDir()}, {"check", "--worktree", dir}} {
		out, _, err := runCLI(t, args...)
		var exit exitError
		if !errors.As(err, &exit) || exit != 1 || !strings.Contains(out, want) {
			t.Fatalf("%v: err = %v, output %q", args, err, out)
		}
	}
}
