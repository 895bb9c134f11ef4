package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-cms/folio/fixtures/testkit"
)

func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var o, e bytes.Buffer
	err = run(context.Background(), args, &o, &e)
	return o.String(), e.String(), err
}

func TestKeys(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	out, _, err := runCLI(t, "keys", "create", "--keys", keys, "--name", "site", "--scopes", "content:read,media:read")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	secret := lines[len(lines)-1]
	if !strings.HasPrefix(secret, "folio_") || len(secret) < 30 {
		t.Fatalf("last line %q is not a key", secret)
	}
	data, _ := os.ReadFile(keys)
	if bytes.Contains(data, []byte(secret)) {
		t.Fatal("the keys file holds the secret in clear")
	}
	if fi, _ := os.Stat(keys); fi.Mode().Perm() != 0o600 {
		t.Errorf("keys file mode %v, want 0600", fi.Mode().Perm())
	}
	if _, _, err := runCLI(t, "keys", "create", "--keys", keys, "--name", "site", "--scopes", "content:read"); err == nil {
		t.Fatal("duplicate name accepted")
	}
	if _, _, err := runCLI(t, "keys", "create", "--keys", keys, "--name", "x", "--scopes", "content:erase"); err == nil {
		t.Fatal("unknown scope accepted")
	}
	out, _, err = runCLI(t, "keys", "list", "--keys", keys)
	if err != nil || !strings.Contains(out, "site") || !strings.Contains(out, "content:read,media:read") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	t.Setenv("FOLIO_KEYS", keys)
	if _, _, err := runCLI(t, "keys", "revoke", "--name", "site"); err != nil {
		t.Fatalf("revoke with FOLIO_KEYS: %v", err)
	}
	out, _, _ = runCLI(t, "keys", "list")
	if strings.Contains(out, "site") {
		t.Fatalf("revoked key still listed:\n%s", out)
	}
	if _, _, err := runCLI(t, "keys", "revoke", "--name", "site"); err == nil {
		t.Fatal("revoking a missing key succeeded")
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("content/posts/ok.md", "---\ntitle: OK\n---\nfine\n")
	testkit.Git(t, dir, "init", "-q")
	testkit.Git(t, dir, "add", "-A")
	testkit.Git(t, dir, "commit", "-qm", "ok")
	cache := t.TempDir()
	if _, said, err := runCLI(t, "check", "--site", dir, "--cache-dir", cache); err != nil || !strings.HasSuffix(said, ": 0 pages, 1 item of 1 type (posts)\n") {
		t.Fatalf("clean site: %v %q", err, said)
	}
	// A site folio finds nothing in says where folio looks.
	empty := t.TempDir()
	os.MkdirAll(filepath.Join(empty, "site/content/posts"), 0o755)
	os.WriteFile(filepath.Join(empty, "site/content/posts/a.md"), []byte("---\ntitle: A\n---\n"), 0o644)
	// and names the folder that holds a site, and the setting to use
	out, said, err := runCLI(t, "check", "--worktree", empty)
	if err == nil || !strings.Contains(said, "the site is empty: folio reads pages/, content/<type>/") ||
		!strings.Contains(out, "misread: site/: a site (site/content/, 1 content file) that folio does not read: it reads the site at the repository's root, which has none; serve it with --root site") {
		t.Fatalf("empty site: %v %q %q", err, out, said)
	}
	write("content/posts/bad.md", "---\ntitle: [broken\n---\n")
	testkit.Git(t, dir, "add", "-A")
	testkit.Git(t, dir, "commit", "-qm", "bad")
	out, _, err = runCLI(t, "check", "--site", dir, "--cache-dir", cache)
	var exit exitError
	if !errors.As(err, &exit) || exit != 1 {
		t.Fatalf("err = %v, want exit status 1", err)
	}
	if !strings.HasPrefix(out, "content/posts/bad.md:") {
		t.Fatalf("output %q, want path:line: message", out)
	}

	// References to a missing item and to a draft; a good one is no problem.
	os.Remove(filepath.Join(dir, "content/posts/bad.md"))
	write("content/authors/ann.md", "---\ntitle: Ann\n---\n")
	write("content/authors/dan.md", "---\ntitle: Dan\ndraft: true\n---\n")
	write("content/posts/ok.md", "---\ntitle: OK\nauthor: authors/ann\nreviewers: [authors/dan]\nghost: authors/zed\n---\nfine\n")
	testkit.Git(t, dir, "add", "-A")
	testkit.Git(t, dir, "commit", "-qm", "refs")
	out, _, err = runCLI(t, "check", "--site", dir, "--cache-dir", cache)
	if !errors.As(err, &exit) || exit != 1 {
		t.Fatalf("err = %v, want exit status 1", err)
	}
	want := "content/posts/ok.md:4: reference to a draft item authors/dan (null when expanded)\n" +
		"content/posts/ok.md:5: reference to a missing item authors/zed (null when expanded)\n"
	if out != want {
		t.Fatalf("output %q, want %q", out, want)
	}
}

// TestCheckModel: check reports documents that break the content model,
// and --worktree checks the files on disk, committed or not.
func TestCheckModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("folio.yaml", "types:\n  posts:\n    fields:\n      title: {kind: string, required: true}\n      price: number\n")
	write("content/posts/ok.md", "---\ntitle: OK\nprice: 3\n---\nfine\n")
	testkit.Git(t, dir, "init", "-q")
	testkit.Git(t, dir, "add", "-A")
	testkit.Git(t, dir, "commit", "-qm", "ok")
	cache := t.TempDir()
	for _, args := range [][]string{{"--site", dir, "--cache-dir", cache}, {"--worktree", dir}} {
		if _, _, err := runCLI(t, append([]string{"check"}, args...)...); err != nil {
			t.Fatalf("clean site %v: %v", args, err)
		}
	}
	// Not committed: --site does not see it, --worktree does.
	write("content/posts/bad.md", "---\ntitle: Bad\nprice: twelve\n---\n")
	if _, _, err := runCLI(t, "check", "--site", dir, "--cache-dir", cache); err != nil {
		t.Fatalf("--site: %v", err)
	}
	out, _, err := runCLI(t, "check", "--worktree", dir)
	var exit exitError
	if !errors.As(err, &exit) || exit != 1 || out != "content/posts/bad.md:3: price: got string, want number\n" {
		t.Fatalf("--worktree: %q, %v", out, err)
	}
	testkit.Git(t, dir, "add", "-A")
	testkit.Git(t, dir, "commit", "-qm", "bad")
	out, _, err = runCLI(t, "check", "--site", dir, "--cache-dir", cache)
	if !errors.As(err, &exit) || exit != 1 || out != "content/posts/bad.md:3: price: got string, want number\n" {
		t.Fatalf("--site: %q, %v", out, err)
	}
	// A broken model is a problem too.
	write("folio.yaml", "types:\n  posts:\n    fields:\n      price: numbr\n")
	out, _, err = runCLI(t, "check", "--worktree", dir)
	if !errors.As(err, &exit) || !strings.HasPrefix(out, "folio.yaml:4: content model: fields.price.kind: unknown kind numbr") {
		t.Fatalf("--worktree: %q, %v", out, err)
	}
	if _, _, err := runCLI(t, "check", "--worktree", dir, "--site", dir); err == nil {
		t.Fatal("--worktree with --site accepted")
	}
}

func TestVersionAndUsage(t *testing.T) {
	t.Parallel()
	if out, _, err := runCLI(t, "version"); err != nil || !strings.HasPrefix(out, "folio ") {
		t.Fatalf("version: %q %v", out, err)
	}
	if _, _, err := runCLI(t, "frobnicate"); err == nil {
		t.Fatal("unknown command accepted")
	}
	if _, _, err := runCLI(t, "serve"); err == nil || !strings.Contains(err.Error(), "--site") {
		t.Fatalf("serve without --site: %v", err)
	}
}

// TestCheckMedia: with --media, check also reports media references to
// items the library does not hold; without it, it does not look at them.
func TestCheckMedia(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "media")
	if _, stderr, err := runCLI(t, "media", "import", "--media", root, pngFile(t, "lake.png", 60, 40)); err != nil {
		t.Fatalf("media import: %v\n%s", err, stderr)
	}
	found, _ := filepath.Glob(filepath.Join(root, "*", "*", "lake.png"))
	if len(found) != 1 {
		t.Fatalf("imported original: %v", found)
	}
	rel, _ := filepath.Rel(root, found[0])
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "content/posts"), 0o755)
	post := "---\ntitle: OK\ncover: /uploads/" + filepath.ToSlash(rel) + "\nthumb: media:aaaaaaaaaaaaaaaa\n---\n"
	if err := os.WriteFile(filepath.Join(dir, "content/posts/ok.md"), []byte(post), 0o644); err != nil {
		t.Fatal(err)
	}
	testkit.CommitSite(t, dir, nil)
	if _, _, err := runCLI(t, "check", "--site", dir, "--cache-dir", t.TempDir()); err != nil {
		t.Fatalf("without --media: %v", err)
	}
	out, _, err := runCLI(t, "check", "--site", dir, "--cache-dir", t.TempDir(), "--media", root)
	var exit exitError
	if !errors.As(err, &exit) || exit != 1 {
		t.Fatalf("err = %v, want exit status 1", err)
	}
	if want := "content/posts/ok.md:4: reference to a missing media item media:aaaaaaaaaaaaaaaa (null when expanded)\n"; out != want {
		t.Fatalf("output %q, want %q", out, want)
	}
}

// TestCheckLinesWarmCache: problems carry the same path:line on a second
// run, which reads the documents from the parse cache, and a reference
// problem points at the line of the broken reference, not of the
// top-level key holding it. Before, the second run lost every line, and a
// reference in a section pointed at "sections:".
func TestCheckLinesWarmCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("content/posts/bad.md", "---\ntitle: Bad\npublishedAt: notadate\n---\nbody\n")
	write("content/posts/ok.md", "---\ntitle: OK\n---\nbody\n")
	write("pages/home.md", "---\ntitle: Home\nisHomepage: true\nsections:\n  - type: hero\n    title: x\n    link: posts/ok\n    more: posts/gone\n  - type: cta\n    data:\n      target: posts/missing\n---\nHi\n")
	testkit.CommitSite(t, dir, nil)
	cache := t.TempDir()
	want := []string{
		"content/posts/bad.md:3: publishedAt: bad date",
		"pages/home.md:8: reference to a missing item posts/gone",
		"pages/home.md:11: reference to a missing item posts/missing",
	}
	for run := 1; run <= 2; run++ {
		out, _, _ := runCLI(t, "check", "--site", dir, "--cache-dir", cache)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("run %d: output lacks %q:\n%s", run, w, out)
			}
		}
	}
}

// TestFixtureSiteChecks: the fixture site make run serves, its content
// model included, has no problem.
func TestFixtureSiteChecks(t *testing.T) {
	t.Parallel()
	out, _, err := runCLI(t, "check", "--worktree", filepath.Join("..", "..", "fixtures", "site"))
	if err != nil || out != "" {
		t.Fatalf("check --worktree fixtures/site: %v\n%s", err, out)
	}
}
