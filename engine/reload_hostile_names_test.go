package engine

import (
	"bytes"
	"context"
	"encoding/hex"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/internal/gittest"
)

// gitIn runs git in the bare repository site with stdin, and returns
// its output, trimmed.
func gitIn(t *testing.T, site string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env, cmd.Stdin = site, gittest.Env(gittest.T0), bytes.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// rawTree is a tree object's bytes: entries as given, in that order,
// whatever their names (git mktree refuses most of these).
func rawTree(t *testing.T, entries ...[3]string) []byte {
	t.Helper()
	var b []byte
	for _, e := range entries {
		h, err := hex.DecodeString(e[2])
		if err != nil || len(h) != 20 {
			t.Fatalf("hash %q", e[2])
		}
		b = append(b, e[0]+" "+e[1]+"\x00"...)
		b = append(b, h...)
	}
	return b
}

// TestEngine_HostileTreeNames pushes trees no git porcelain writes and
// git receive-pack takes (receive.fsckObjects is off by default): names
// with "/", "..", ".", a newline, bytes that are not UTF-8, a name
// twice, entries out of order, a submodule whose commit is not in the
// repository, a symlink out of the site. The engine serves without a
// panic, and a reload onto that commit and back serves what a cold
// engine does.
func TestEngine_HostileTreeNames(t *testing.T) {
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	cfg := func() Config {
		return Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now }}
	}
	r.Commit(srcDay(0), map[string]string{
		"globals.yaml":       "siteName: A\n",
		"content/posts/a.md": gittest.Post("A"),
		"content/posts/b.md": gittest.Post("B"),
		"content/posts/c.md": gittest.Post("C"),
	})
	r.Push(false)
	good := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	site := r.Bare
	blob := func(s string) string { return gitIn(t, site, []byte(s), "hash-object", "-w", "--stdin") }
	writeTree := func(b []byte) string {
		return gitIn(t, site, b, "hash-object", "-t", "tree", "-w", "--literally", "--stdin")
	}
	a, b2, x := blob(gittest.Post("A")), blob(gittest.Post("B2")), blob(gittest.Post("X"))
	evil := writeTree(rawTree(t, [3]string{"100644", "evil.md", x}))
	posts := writeTree(rawTree(t,
		[3]string{"100644", "z.md", x}, // out of order
		[3]string{"100644", "a.md", a},
		[3]string{"100644", "a.md", b2}, // twice
		[3]string{"100644", "..", x},
		[3]string{"40000", "..", evil},
		[3]string{"100644", ".", x},
		[3]string{"100644", "sub/dir.md", x},
		[3]string{"100644", "n\nl.md", x},
		[3]string{"100644", "\xff\xfe.md", x},
		[3]string{"160000", "module", "1234567890123456789012345678901234567890"},
		[3]string{"120000", "link.md", blob("../../../../etc/passwd")},
		[3]string{"100644", "b.md", b2},
		[3]string{"100644", strings.Repeat("l", 1000) + ".md", x},
	))
	contentTree := writeTree(rawTree(t, [3]string{"40000", "posts", posts}))
	globals := gitIn(t, site, nil, "rev-parse", good+":globals.yaml")
	root := writeTree(rawTree(t, [3]string{"40000", "content", contentTree}, [3]string{"100644", "globals.yaml", globals}))
	hostile := gitIn(t, site, nil, "commit-tree", root, "-p", good, "-m", "hostile")

	e, err := Open(context.Background(), cfg())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, step := range []struct{ name, commit string }{{"the hostile tree", hostile}, {"back to the good tree", good}, {"the hostile tree again", hostile}} {
		gitIn(t, site, nil, "update-ref", "refs/heads/main", step.commit)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		cold, err := Open(context.Background(), cfg())
		if err != nil {
			t.Fatalf("%s: cold open: %v", step.name, err)
		}
		if le := e.Status().LastError; le != nil {
			t.Fatalf("%s: last error %s", step.name, le.Message)
		}
		if e.Published().Commit != cold.Published().Commit {
			t.Fatalf("%s: reloaded to %s, cold engine at %s", step.name, e.Published().Commit, cold.Published().Commit)
		}
		for _, draft := range []bool{false, true} {
			if got, want := viewDump(t, e, draft), viewDump(t, cold, draft); got != want {
				t.Fatalf("%s draft=%v: reloaded engine serves\n%.4000s\ncold engine serves\n%.4000s", step.name, draft, got, want)
			}
		}
		// nothing from outside content/posts: no "../evil.md", no
		// symlink's target
		if dump := viewDump(t, cold, false); strings.Contains(dump, "evil") || strings.Contains(dump, "passwd") {
			t.Fatalf("%s: served\n%s", step.name, dump)
		}
		cold.Close()
	}
}
