package gitsource

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// cliList is git ls-tree -r's files (type blob) of commit below dir.
func cliList(t *testing.T, gitDir, commit, dir string) []FileEntry {
	t.Helper()
	args := []string{"--git-dir=" + gitDir, "ls-tree", "-r", "-z", "--full-tree", commit}
	if dir != "" {
		args = append(args, "--", dir+"/")
	}
	var out []FileEntry
	for _, rec := range strings.Split(srcGit(t, gitDir, args...), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if ok && len(f) == 3 && f[1] == "blob" {
			out = append(out, FileEntry{Path: p, Blob: f[2]})
		}
	}
	return out
}

// TestFiles_MatchGitCLI checks that Files reads what the git CLI reads:
// the files of a commit (folders, symbolic links and executables; a
// submodule left out; Git's order), a file's blob, blobs' bytes, and
// branch heads, including the objects and branches a git process writes
// after the first read (a new pack, a loose commit).
func TestFiles_MatchGitCLI(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	c1 := r.Commit(srcDay(0), map[string]string{
		"content/posts/a.md":    "a\n",
		"content/posts/a-b.md":  "ab\n",
		"content/posts/a/b.md":  "a/b\n",
		"content/posts/a0.md":   "a0\n",
		"content/docs/x.md":     "x\n",
		"globals.yaml":          "siteName: S\n",
		"site/content/inner.md": "inner\n",
	})
	if err := os.Symlink("a.md", filepath.Join(r.Dir, "content/posts/link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	srcGit(t, r.Dir, "add", "-A")
	srcGit(t, r.Dir, "update-index", "--add", "--cacheinfo", "160000,"+c1+",content/posts/sub")
	srcGit(t, r.Dir, "commit", "-q", "-m", "link, script, submodule")
	c2 := srcGit(t, r.Dir, "rev-parse", "HEAD")
	gitDir := filepath.Join(r.Dir, ".git")

	f := OpenFiles(gitDir)
	defer f.Close()
	for _, c := range []string{c1, c2} {
		for _, dir := range []string{"", "content", "content/posts", "content/posts/a", "site", "nope", "content/posts/a.md"} {
			got, err := f.List(c, dir)
			if err != nil {
				t.Fatalf("List(%s, %q): %v", c, dir, err)
			}
			if want := cliList(t, gitDir, c, dir); !reflect.DeepEqual(got, want) {
				t.Errorf("List(%s, %q) = %v\ngit ls-tree: %v", c, dir, got, want)
			}
		}
	}
	all, _ := f.List(c2, "")
	var ids []string
	for _, e := range all {
		ids = append(ids, e.Blob)
		blob, err := f.BlobAt(c2, e.Path)
		if err != nil || blob != e.Blob {
			t.Errorf("BlobAt(%s) = %q, %v; want %s", e.Path, blob, err, e.Blob)
		}
	}
	for _, p := range []string{"content", "content/posts/sub", "content/posts/none.md", "none/a.md", ""} {
		if blob, err := f.BlobAt(c2, p); err != nil || blob != "" {
			t.Errorf("BlobAt(%q) = %q, %v; want no file", p, blob, err)
		}
	}
	datas, err := f.Blobs(ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if want := srcGit(t, gitDir, "cat-file", "blob", id); strings.TrimSpace(string(datas[i])) != want {
			t.Errorf("blob %s = %q, git cat-file: %q", id, datas[i], want)
		}
	}
	if _, err := f.Blobs([]string{c2}); err == nil {
		t.Error("Blobs of a commit: no error")
	}

	// Heads: a branch, a missing one, a malformed name, a symbolic ref.
	srcGit(t, r.Dir, "branch", "cms/posts/a", c1)
	srcGit(t, r.Dir, "symbolic-ref", "refs/heads/alias", "refs/heads/cms/posts/a")
	srcGit(t, r.Dir, "tag", "-a", "-m", "t", "t1", c1)
	// Branches at a tag and at a blob (git writes neither: their files).
	for name, rev := range map[string]string{"attag": "t1", "atblob": "HEAD:globals.yaml"} {
		ref := filepath.Join(r.Dir, ".git", "refs", "heads", name)
		if err := os.WriteFile(ref, []byte(srcGit(t, r.Dir, "rev-parse", rev)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for branch, want := range map[string]string{"main": c2, "cms/posts/a": c1, "alias": c1, "attag": c1, "atblob": "", "cms/none": "", "a..b": "", "../config": "", "": ""} {
		if got, err := f.Head(branch); err != nil || got != want {
			t.Errorf("Head(%q) = %q, %v; want %q", branch, got, err, want)
		}
	}

	// What git writes after the first reads: a packed history (gc) and a
	// new loose commit on top, a branch packed into packed-refs.
	srcGit(t, r.Dir, "gc", "-q")
	c3 := r.Commit(srcDay(2), map[string]string{"content/posts/new.md": "new\n"})
	if got, err := f.Head("main"); err != nil || got != c3 {
		t.Fatalf("Head(main) after a commit = %q, %v; want %s", got, err, c3)
	}
	if got, err := f.Head("cms/posts/a"); err != nil || got != c1 {
		t.Fatalf("Head of a packed branch = %q, %v; want %s", got, err, c1)
	}
	got, err := f.List(c3, "content/posts")
	if err != nil {
		t.Fatal(err)
	}
	if want := cliList(t, gitDir, c3, "content/posts"); !reflect.DeepEqual(got, want) {
		t.Errorf("List after gc and a commit = %v\ngit ls-tree: %v", got, want)
	}
}

// TestFiles_ReadsNewPacks checks that a Files that listed the packs once
// reads the objects of a pack written after (a push or a fetch keeps its
// pack).
func TestFiles_ReadsNewPacks(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	r.Commit(srcDay(0), map[string]string{"content/posts/a.md": "a\n"})
	srcGit(t, r.Dir, "gc", "-q")
	gitDir := filepath.Join(r.Dir, ".git")
	f := OpenFiles(gitDir)
	defer f.Close()
	if _, err := f.List(srcGit(t, r.Dir, "rev-parse", "HEAD"), ""); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other")
	srcGit(t, filepath.Dir(other), "clone", "-q", r.Dir, other)
	o := &srcTestRepo{TB: t, Dir: other}
	c := o.Commit(srcDay(1), map[string]string{"content/posts/b.md": "b\n"})
	srcGit(t, other, "-c", "transfer.unpackLimit=1", "push", "-q", "--receive-pack=git -c receive.unpackLimit=1 receive-pack", "origin", "HEAD:refs/heads/other")
	if got, err := f.Head("other"); err != nil || got != c {
		t.Fatalf("Head(other) = %q, %v; want %s", got, err, c)
	}
	got, err := f.List(c, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := cliList(t, gitDir, c, ""); !reflect.DeepEqual(got, want) {
		t.Errorf("List of the pushed commit = %v\ngit ls-tree: %v", got, want)
	}
}
