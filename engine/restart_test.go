package engine

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/internal/gittest"
)

// restartSite is a bare repository of n small posts and the
// files whose documents a restart treats apart: two paths of one blob,
// a file that does not parse, a symlink, a page, the globals, history
// (a later commit edits a few posts, so Updated times differ).
func restartSite(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "site.git")
	srcGit(t, filepath.Dir(dir), "init", "-q", "--bare", dir)
	var in bytes.Buffer
	file := func(p, body string) {
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(body), body)
	}
	post := func(i, rev int) string {
		return fmt.Sprintf("---\ntitle: Post %d rev %d\ndate: 2024-01-%02dT10:00:00Z\ntags: [go, t%d]\nweight: %d\nsee: /posts/post-%05d\n---\nBody of %d, [a link](/posts/post-%05d).\n",
			i, rev, 1+i%28, i%40, i, (i+1)%n, i, (i+7)%n)
	}
	fmt.Fprintf(&in, "commit refs/heads/main\ncommitter T <t@folio.invalid> %d +0000\ndata 2\nc0\n", gittest.T0.Unix())
	for i := range n {
		file(fmt.Sprintf("content/posts/post-%05d.md", i), post(i, 0))
	}
	same := "---\ntitle: Twice\n---\nThe same blob at two paths.\n"
	file("content/posts/same-a.md", same)
	file("content/posts/same-b.md", same)
	file("content/posts/broken.md", "---\ntitle: [unclosed\n---\nbody\n")
	file("pages/about.md", "---\ntitle: About\n---\nAbout us.\n")
	file("globals.yaml", "siteName: Restart\n")
	fmt.Fprintf(&in, "M 120000 inline content/posts/link.md\ndata 11\n/etc/passwd\n\n")
	fmt.Fprintf(&in, "commit refs/heads/main\ncommitter T <t@folio.invalid> %d +0000\ndata 2\nc1\n", gittest.T0.Add(time.Hour).Unix())
	for i := 0; i < n; i += n / 10 {
		file(fmt.Sprintf("content/posts/post-%05d.md", i), post(i, 1))
	}
	in.WriteString("\n")
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, gittest.Env(time.Time{}), &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	srcGit(t, dir, "repack", "-a", "-d", "-q")
	return dir
}

// TestEngine_RestartMatchesCold: a first start that looks its documents
// up on every core, and holds what it parses in the parse cache's form
// until it decodes it (gitsource's EncodeFirstMin), serves what one that
// looks them up one at a time and keeps the parsed documents does, and
// a restart on the parse cache a first start wrote (read in blocks on every core while the trees are walked,
// its documents looked up on every core) serves byte for byte what the
// first start served, and parses nothing.
func TestEngine_RestartMatchesCold(t *testing.T) {
	site := restartSite(t, 3000) // two blocks of the parse cache
	cache := t.TempDir()
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	// What a start serves that looks its documents up one at a time
	// (no cache: every file parsed), and keeps the documents it parsed
	// as they were parsed.
	serial, err := Open(context.Background(), Config{Site: site, Now: func() time.Time { return now }, lookupFirstMin: -1, encodeFirstMin: -1})
	if err != nil {
		t.Fatal(err)
	}
	want := [2]string{viewDump(t, serial, false), viewDump(t, serial, true)}
	serial.Close()
	// The first start below holds what it parses in the parse cache's
	// form, and serves the documents decoded from it.
	cfg := Config{Site: site, CacheDir: cache, Now: func() time.Time { return now }, lookupFirstMin: 1000, encodeFirstMin: 1000}
	cold, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	first := cold.src.Stats()
	if first.LoadedFromDisk != 0 || first.Parsed < 3000 {
		t.Fatalf("first start: %+v, want every file parsed", first)
	}
	for i, draft := range []bool{false, true} {
		if got := viewDump(t, cold, draft); got != want[i] {
			t.Fatalf("first start, draft=%v: the parallel lookup serves\n%.2000s\nthe serial one\n%.2000s", draft, got, want[i])
		}
	}
	if err := cold.Close(); err != nil {
		t.Fatal(err)
	}
	for round := range 2 { // the second restart reads the cache the first wrote
		warm, err := Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		// every document from the cache (the one that does not parse
		// is read again, and fails again)
		if st := warm.src.Stats(); st.LoadedFromDisk != first.Parsed || st.Parsed != 0 || st.CacheHits != first.Parsed+1 {
			t.Fatalf("restart %d: %+v, want the %d documents of the first start from the cache", round, st, first.Parsed)
		}
		for i, draft := range []bool{false, true} {
			if got := viewDump(t, warm, draft); got != want[i] {
				t.Fatalf("restart %d, draft=%v: the restart serves\n%.2000s\na start with no cache serves\n%.2000s", round, draft, got, want[i])
			}
		}
		if err := warm.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
