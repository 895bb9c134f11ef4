package gitsource

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content/fault"
)

// fastImport makes a bare repository whose main is a commit of files,
// written by git fast-import (which, unlike git add, takes any path),
// and then a commit that deletes the paths of rm, if any.
func fastImport(t testing.TB, files map[string]string, rm ...string) string {
	t.Helper()
	site := filepath.Join(t.TempDir(), "site.git")
	srcGit(t, filepath.Dir(site), "init", "--bare", "-q", site)
	var b strings.Builder
	b.WriteString("commit refs/heads/main\ncommitter A <a@example.com> 1700000000 +0000\ndata 2\nm\n")
	for p, body := range files {
		fmt.Fprintf(&b, "M 100644 inline %s\ndata %d\n%s\n", p, len(body), body)
	}
	if len(rm) > 0 {
		b.WriteString("commit refs/heads/main\ncommitter A <a@example.com> 1700086400 +0000\ndata 2\nm\n")
		for _, p := range rm {
			fmt.Fprintf(&b, "D %s\n", p)
		}
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Env, cmd.Stdin = site, srcGitEnv(srcT0), strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v: %s", err, out)
	}
	return site
}

// A push of a path 20000 folders deep (a few hundred KB of trees): the
// Load walked it whole, each folder's path held while its subfolders
// were walked, 400 MB of paths at once (quadratic in the depth: 10 GB
// at 100000). Found by this pass. Now a path over maxPathLen bytes is
// an error of the Load, which names it, and the memory it takes is
// bounded by that length.
func TestSource_DeepTreeBounded(t *testing.T) {
	post := "---\ntitle: X\n---\nBody\n"
	deep := "content/" + strings.Repeat("a/", 20000) + "x.md"
	site := fastImport(t, map[string]string{"content/posts/ok.md": post, deep: post})
	src := openSrc(t, site, t.TempDir(), &srcTestParser{})
	commit, err := src.Resolve("main")
	if err != nil {
		t.Fatal(err)
	}
	n := allocated(func() { _, err = src.Load(context.Background(), commit) })
	if err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("Load of a tree 20000 folders deep (%d MB allocated): %v; want an error that says the path is too long", n>>20, err)
	}
	if n > 64<<20 {
		t.Fatalf("Load of a tree 20000 folders deep allocated %d MB", n>>20)
	}
}

// The same tree in the history only, deleted by the commit loaded: the
// Load and its walk of the history for the files' Updated times do not
// go into it (held: no error, bounded memory).
func TestSource_DeepTreeInHistoryBounded(t *testing.T) {
	post := "---\ntitle: X\n---\nBody\n"
	deep := "content/" + strings.Repeat("a/", 20000) + "x.md"
	site := fastImport(t, map[string]string{"content/posts/ok.md": post, deep: post}, "content/a")
	src := openSrc(t, site, t.TempDir(), &srcTestParser{})
	commit, err := src.Resolve("main")
	if err != nil {
		t.Fatal(err)
	}
	var tree *Tree
	n := allocated(func() { tree, err = src.Load(context.Background(), commit) })
	if err != nil || tree.Files.Len() != 1 {
		t.Fatalf("Load of a commit whose parent has a tree 20000 folders deep: %v", err)
	}
	if n > 64<<20 {
		t.Fatalf("Load of a commit whose parent has a tree 20000 folders deep allocated %d MB", n>>20)
	}
}

// A listing of the files (Decap's folder) that meets such a path is an
// Unprocessable error (a 422), not an internal one.
func TestFiles_DeepTreeUnprocessable(t *testing.T) {
	post := "---\ntitle: X\n---\nBody\n"
	deep := "content/" + strings.Repeat("a/", 2100) + "x.md"
	site := fastImport(t, map[string]string{"content/posts/ok.md": post, deep: post})
	f := OpenFiles(site)
	defer f.Close()
	head, err := f.Head("main")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.List(head, "content")
	if fault.CodeOf(err) != fault.Unprocessable || !strings.Contains(err.Error(), "longer than 4096 bytes") {
		t.Fatalf("List of a folder holding a path over 4096 bytes: %v (code %v); want Unprocessable", err, fault.CodeOf(err))
	}
}
