package gitsource

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// The reads a writer makes of a repository (package engine/write), each
// compared with the git command it replaced, on the same repository:
// with loose objects, once packed by git gc (which also writes the
// commit-graph git's walks use), with symbolic links and submodules.

// cliTry runs git on gitDir; its trimmed output, or an error when git
// fails.
func cliTry(gitDir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"--git-dir=" + gitDir}, args...)...)
	cmd.Env = srcGitEnv(time.Time{})
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// gitStates runs check on the repository as it is (loose objects), then
// after git gc (packs, packed refs, a commit-graph).
func gitStates(t *testing.T, dir string, check func(state string)) {
	t.Helper()
	check("loose")
	srcGit(t, dir, "-c", "gc.writeCommitGraph=true", "gc", "-q")
	check("after gc")
}

// ambiguousPrefix is a four-digit prefix two objects of the repository
// share.
func ambiguousPrefix(t *testing.T, gitDir string) string {
	t.Helper()
	out, err := cliTry(gitDir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, h := range strings.Fields(out) {
		if seen[h[:4]] {
			return h[:4]
		}
		seen[h[:4]] = true
	}
	t.Fatal("no two objects share four digits")
	return ""
}

// TestFiles_ResolveMatchesGitCLI checks that Resolve names the object
// git rev-parse --verify names (full and short hashes, branches, tags,
// HEAD) and fails where it fails (an unknown name, a short hash of no
// object or of several: ErrAmbiguousRevision), and that BlobAt and Has
// read the tree of each revision as git ls-tree reads it.
func TestFiles_ResolveMatchesGitCLI(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	// Enough objects that two share their first four hex digits.
	files := map[string]string{"content/posts/a.md": "a\n", "globals.yaml": "x: 1\n"}
	for i := range 700 {
		files[fmt.Sprintf("content/many/%03d.md", i)] = fmt.Sprintf("file %d\n", i)
	}
	c1 := r.Commit(srcDay(0), files)
	if err := os.Symlink("a.md", filepath.Join(r.Dir, "content/posts/link.md")); err != nil {
		t.Fatal(err)
	}
	srcGit(t, r.Dir, "add", "-A")
	srcGit(t, r.Dir, "update-index", "--add", "--cacheinfo", "160000,"+c1+",content/sub")
	srcGitAt(t, r.Dir, srcDay(1), "commit", "-q", "-m", "link and submodule")
	srcGit(t, r.Dir, "tag", "-a", "-m", "v1", "v1", c1)
	srcGit(t, r.Dir, "tag", "light")
	srcGit(t, r.Dir, "branch", "cms/posts/a", c1)
	gitDir := filepath.Join(r.Dir, ".git")
	c2 := srcGit(t, r.Dir, "rev-parse", "HEAD")
	tree := srcGit(t, r.Dir, "rev-parse", "HEAD^{tree}")
	blob := srcGit(t, r.Dir, "rev-parse", "HEAD:content/posts/a.md")
	amb := ambiguousPrefix(t, gitDir)
	// A branch named as a short hash: git takes the branch.
	srcGit(t, r.Dir, "branch", c2[:7]+"0", c1)

	f := OpenFiles(gitDir)
	defer f.Close()
	revs := []string{
		c1, c2, strings.ToUpper(c2), tree, blob, strings.Repeat("0", 40), "0123456789abcdef0123456789abcdef01234567",
		c1[:7], c2[:4], c1[:5], tree[:12], blob[:8], amb, amb + "x", c2[:3], "deadbee", c2[:7] + "0",
		"main", "cms/posts/a", "heads/main", "refs/heads/main", "HEAD", "v1", "light", "tags/v1", "refs/tags/v1",
		"nope", "cms/none", "a..b", "../config", "", "main^{tree}", "main:globals.yaml", "@{0}",
	}
	unsupported := map[string]bool{"main^{tree}": true, "main:globals.yaml": true, "@{0}": true}
	paths := []string{"content/posts/a.md", "content/posts/link.md", "content/sub", "content/posts", "content/many/005.md", "none.md", "content/posts/a.md/x"}
	gitStates(t, r.Dir, func(state string) {
		for _, rev := range revs {
			want, cliErr := cliTry(gitDir, "rev-parse", "--verify", "--quiet", rev)
			got, err := f.Resolve(rev)
			switch {
			case unsupported[rev]:
				if !errors.Is(err, ErrUnknownRevision) {
					t.Errorf("%s: Resolve(%q) = %q, %v; want ErrUnknownRevision (a form it does not read)", state, rev, got, err)
				}
				continue
			case cliErr != nil && err == nil:
				t.Errorf("%s: Resolve(%q) = %q; git rev-parse fails", state, rev, got)
			case cliErr == nil && (err != nil || got != want):
				t.Errorf("%s: Resolve(%q) = %q, %v; git rev-parse: %s", state, rev, got, err, want)
			}
			if _, err := cliTry(gitDir, "rev-parse", "--verify", rev); rev == amb && err == nil {
				t.Fatalf("%s: git takes the ambiguous prefix %s", state, amb)
			}
			if rev == amb && !errors.Is(err, ErrAmbiguousRevision) {
				t.Errorf("%s: Resolve(%s) = %v; want ErrAmbiguousRevision", state, amb, err)
			}
			for _, p := range paths {
				if rev == "" {
					continue // git ls-tree "" is no revision at all
				}
				out, cliErr := cliTry(gitDir, "ls-tree", "-z", "--full-tree", rev, "--", p)
				got, err := f.BlobAt(rev, p)
				if (cliErr != nil) != (err != nil) {
					t.Errorf("%s: BlobAt(%q, %s) = %q, %v; git ls-tree: %q, %v", state, rev, p, got, err, out, cliErr)
					continue
				}
				if cliErr != nil {
					continue
				}
				want := ""
				meta, _, _ := strings.Cut(strings.TrimRight(out, "\x00"), "\t")
				if fs := strings.Fields(meta); len(fs) == 3 && fs[1] == "blob" {
					want = fs[2]
				}
				if got != want {
					t.Errorf("%s: BlobAt(%q, %s) = %q; git ls-tree: %q", state, rev, p, got, want)
				}
				has, err := f.Has(rev, p)
				if err != nil || has != (out != "") {
					t.Errorf("%s: Has(%q, %s) = %v, %v; git ls-tree --name-only: %q", state, rev, p, has, err, out)
				}
			}
		}
		// Commit: rev-parse --verify rev^{commit}.
		for _, rev := range []string{c1, c2[:9], "v1", "light", "main", tree, blob, amb, "nope"} {
			want, cliErr := cliTry(gitDir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
			got, err := f.Commit(rev)
			if (cliErr != nil) != (err != nil) || got != want && err == nil {
				t.Errorf("%s: Commit(%q) = %q, %v; git rev-parse: %q, %v", state, rev, got, err, want, cliErr)
			}
		}
		// Blobs reads a tag of a blob as git cat-file blob does.
		srcGit(t, r.Dir, "tag", "-a", "-f", "-m", "b", "blobtag", blob)
		tagHash := srcGit(t, r.Dir, "rev-parse", "blobtag")
		want, _ := cliTry(gitDir, "cat-file", "blob", tagHash)
		if got, err := f.Blobs([]string{tagHash}); err != nil || strings.TrimSpace(string(got[0])) != want {
			t.Errorf("%s: Blobs(a tag of a blob) = %v; git cat-file blob: %q", state, err, want)
		}
	})
}

// TestFiles_HistoryMatchesGitCLI checks IsAncestor, MergeBase and
// CommitTime against git merge-base --is-ancestor, git merge-base and
// git log --format=%cI on every pair of commits of a history with side
// branches, merges both ways (a criss-cross with two merge bases) and
// a root of its own, before and after gc, and in a shallow clone.
func TestFiles_HistoryMatchesGitCLI(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	day := 0
	commit := func(files map[string]string) string {
		day++
		return r.Commit(srcDay(day), files)
	}
	merge := func(other string) string {
		day++
		srcGitAt(t, r.Dir, srcDay(day), "merge", "-q", "--no-edit", "--no-ff", other)
		return srcGit(t, r.Dir, "rev-parse", "HEAD")
	}
	base := commit(map[string]string{"a.md": "a\n"})
	commit(map[string]string{"b.md": "b\n"})
	srcGit(t, r.Dir, "checkout", "-q", "-b", "side", base)
	commit(map[string]string{"s.md": "s\n"})
	srcGit(t, r.Dir, "checkout", "-q", "main")
	merge("side")
	commit(map[string]string{"c.md": "c\n"})
	// A criss-cross: x and y each merge the other's tip.
	srcGit(t, r.Dir, "checkout", "-q", "-b", "x")
	x1 := commit(map[string]string{"x.md": "x\n"})
	srcGit(t, r.Dir, "checkout", "-q", "-b", "y", "main")
	y1 := commit(map[string]string{"y.md": "y\n"})
	merge(x1)
	commit(map[string]string{"y2.md": "y2\n"})
	srcGit(t, r.Dir, "checkout", "-q", "x")
	merge(y1)
	commit(map[string]string{"x2.md": "x2\n"})
	// A root of its own.
	srcGit(t, r.Dir, "checkout", "-q", "--orphan", "alone")
	srcGit(t, r.Dir, "rm", "-q", "-r", "-f", ".")
	commit(map[string]string{"z.md": "z\n"})
	srcGit(t, r.Dir, "checkout", "-q", "main")
	gitDir := filepath.Join(r.Dir, ".git")
	commits := strings.Fields(srcGit(t, r.Dir, "rev-list", "--all"))
	revs := append(commits, "main", "x", "y", "side", "alone", commits[0][:8])
	tips := []string{"main", "x", "y", "side", "alone", commits[len(commits)/2]}

	check := func(t *testing.T, gitDir string, revs, tips []string, state string) {
		f := OpenFiles(gitDir)
		defer f.Close()
		for _, a := range revs {
			for _, b := range tips {
				_, cliErr := cliTry(gitDir, "merge-base", "--is-ancestor", a, b)
				got, err := f.IsAncestor(a, b)
				if err != nil {
					t.Fatalf("%s: IsAncestor(%s, %s): %v", state, a, b, err)
				}
				if want := cliErr == nil; got != want {
					t.Errorf("%s: IsAncestor(%s, %s) = %v; git merge-base --is-ancestor: %v", state, a, b, got, want)
				}
				want, _ := cliTry(gitDir, "merge-base", a, b)
				mb, err := f.MergeBase(a, b)
				if errors.Is(err, ErrMergeBaseTie) {
					all, _ := cliTry(gitDir, "merge-base", "--all", a, b)
					if len(strings.Fields(all)) < 2 {
						t.Errorf("%s: MergeBase(%s, %s) a tie; git merge-base --all: %q", state, a, b, all)
					}
					continue
				}
				if err != nil || mb != want {
					t.Errorf("%s: MergeBase(%s, %s) = %q, %v; git merge-base: %q", state, a, b, mb, err, want)
				}
			}
			out, _ := cliTry(gitDir, "log", "-1", "--format=%cI", a, "--")
			want, perr := time.Parse(time.RFC3339, out) // what the writer made of it
			got, err := f.CommitTime(a)
			if err != nil || perr != nil || got.Format(time.RFC3339) != want.Format(time.RFC3339) {
				t.Errorf("%s: CommitTime(%s) = %v, %v; git log: %s", state, a, got, err, want)
			}
		}
		for _, bad := range [][2]string{{"nope", "main"}, {"main", strings.Repeat("1", 40)}} {
			_, cliErr := cliTry(gitDir, "merge-base", "--is-ancestor", bad[0], bad[1])
			if _, err := f.IsAncestor(bad[0], bad[1]); err == nil || cliErr == nil {
				t.Errorf("%s: IsAncestor(%s, %s): %v; git: %v", state, bad[0], bad[1], err, cliErr)
			}
		}
	}
	gitStates(t, r.Dir, func(state string) { check(t, gitDir, revs, tips, state) })

	// The criss-cross has two merge bases of different dates: MergeBase
	// takes the newer as git does (the loop above compared it); two made
	// at the same second are a tie.
	if all, _ := cliTry(gitDir, "merge-base", "--all", "x", "y"); len(strings.Fields(all)) != 2 {
		t.Fatalf("the history is no criss-cross: %q", all)
	}

	// A shallow clone: its history ends where it was cut.
	shallow := filepath.Join(t.TempDir(), "shallow")
	srcGit(t, filepath.Dir(shallow), "clone", "-q", "--no-local", "--depth", "3", "--no-single-branch", r.Dir, shallow)
	sgit := filepath.Join(shallow, ".git")
	srevs := strings.Fields(srcGit(t, shallow, "rev-list", "--all"))
	check(t, sgit, srevs, srevs, "shallow")
}

// TestFiles_MergeBaseTie checks that two best common ancestors made at
// the same second are ErrMergeBaseTie (the writer then asks git).
func TestFiles_MergeBaseTie(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	at := srcDay(0)
	base := r.Commit(at, map[string]string{"a.md": "a\n"})
	srcGit(t, r.Dir, "checkout", "-q", "-b", "x")
	x1 := r.Commit(at, map[string]string{"x.md": "x\n"})
	srcGit(t, r.Dir, "checkout", "-q", "-b", "y", base)
	y1 := r.Commit(at, map[string]string{"y.md": "y\n"})
	srcGitAt(t, r.Dir, at, "merge", "-q", "--no-edit", x1)
	srcGit(t, r.Dir, "checkout", "-q", "x")
	srcGitAt(t, r.Dir, at, "merge", "-q", "--no-edit", y1)
	f := OpenFiles(filepath.Join(r.Dir, ".git"))
	defer f.Close()
	if mb, err := f.MergeBase("x", "y"); !errors.Is(err, ErrMergeBaseTie) {
		t.Fatalf("MergeBase of a tie = %q, %v", mb, err)
	}
}

// TestFiles_DiffMatchesGitCLI checks Diff against git diff-tree -r
// --name-status --no-renames (and git diff, which the writer's list of
// a branch's changes used): added, deleted and modified files, a mode
// change, a file become a symbolic link, a file become a folder and
// back, submodules added, moved on and removed, names that sort
// differently as a file and as a folder, in Git's order.
func TestFiles_DiffMatchesGitCLI(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	c1 := r.Commit(srcDay(0), map[string]string{
		"a.md": "a\n", "a.b": "ab\n", "b/x.md": "x\n", "b/y/z.md": "z\n", "keep/k.md": "k\n",
		"mode.sh": "#!/bin/sh\n", "link.md": "target\n", "dir2file/f.md": "f\n", "file2dir": "d\n", "gone.md": "g\n",
	})
	srcGit(t, r.Dir, "update-index", "--add", "--cacheinfo", "160000,"+c1+",sub")
	srcGit(t, r.Dir, "update-index", "--add", "--cacheinfo", "160000,"+c1+",sub2")
	srcGitAt(t, r.Dir, srcDay(1), "commit", "-q", "-m", "submodules")
	c2 := srcGit(t, r.Dir, "rev-parse", "HEAD")
	// The changes.
	os.Remove(filepath.Join(r.Dir, "link.md"))
	if err := os.Symlink("a.md", filepath.Join(r.Dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(r.Dir, "mode.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(r.Dir, "dir2file"))
	os.Remove(filepath.Join(r.Dir, "file2dir"))
	r.Write(map[string]string{"dir2file": "now a file\n", "file2dir/in.md": "in\n", "a.md": "a2\n", "b/y/new.md": "n\n", "a/new.md": "a/\n"})
	os.Remove(filepath.Join(r.Dir, "gone.md"))
	srcGit(t, r.Dir, "add", "-A")
	srcGit(t, r.Dir, "update-index", "--add", "--cacheinfo", "160000,"+c2+",sub")
	srcGit(t, r.Dir, "update-index", "--force-remove", "sub2")
	srcGitAt(t, r.Dir, srcDay(2), "commit", "-q", "-m", "changes")
	c3 := srcGit(t, r.Dir, "rev-parse", "HEAD")
	gitDir := filepath.Join(r.Dir, ".git")
	f := OpenFiles(gitDir)
	defer f.Close()
	pairs := [][2]string{{c1, c2}, {c2, c3}, {c3, c2}, {c1, c3}, {c3, c3}, {c1 + "^{tree}", c3}}
	gitStates(t, r.Dir, func(state string) {
		for _, p := range pairs {
			from := p[0]
			if strings.HasSuffix(from, "^{tree}") {
				from = srcGit(t, r.Dir, "rev-parse", from)
			}
			for _, cmd := range [][]string{
				{"diff-tree", "-r", "-z", "--no-renames", "--name-status", from, p[1]},
				{"diff", "-z", "--no-renames", "--name-status", from, p[1]},
			} {
				out, err := cliTry(gitDir, cmd...)
				if err != nil {
					t.Fatal(err)
				}
				var want []Change
				fs := strings.Split(strings.TrimRight(out, "\x00"), "\x00")
				for i := 0; i+1 < len(fs); i += 2 {
					want = append(want, Change{Path: fs[i+1], Status: fs[i][0]})
				}
				got, err := f.Diff(from, p[1])
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: Diff(%s, %s) = %q\ngit %s: %q", state, from[:7], p[1][:7], got, cmd[0], want)
				}
			}
		}
		if ch, _ := f.Diff(c2, c3); len(ch) < 10 {
			t.Fatalf("%s: the diff is too small to tell: %q", state, ch)
		}
	})
	if _, err := f.Diff("nope", c1); err == nil {
		t.Error("Diff from an unknown revision: no error")
	}
}

// TestFiles_BranchesMatchGitCLI checks Branches against git
// for-each-ref refs/heads/<prefix>: a folder prefix, a name that is also
// a folder, a prefix that is only part of a name, loose and packed refs,
// a symbolic ref, a ref of a missing object (listed, as git lists it),
// a symbolic ref to no ref and a ref file of no hash (left out, as git
// leaves them).
func TestFiles_BranchesMatchGitCLI(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	c := r.Commit(srcDay(0), map[string]string{"a.md": "a\n"})
	for _, b := range []string{"cms/posts/a", "cms/posts/b", "cms/docs/x", "cmsx", "cms-y", "other"} {
		srcGit(t, r.Dir, "branch", b, c)
	}
	srcGit(t, r.Dir, "symbolic-ref", "refs/heads/cms/alias", "refs/heads/cms/posts/a")
	gitDir := filepath.Join(r.Dir, ".git")
	f := OpenFiles(gitDir)
	defer f.Close()
	gitStates(t, r.Dir, func(state string) {
		if state != "loose" {
			srcGit(t, r.Dir, "branch", "cms/posts/new", c) // loose beside packed
		}
		// Broken refs (removed before gc, which would fail on them).
		for name, body := range map[string]string{"broken": strings.Repeat("1", 40), "dangling": "ref: refs/heads/nothere", "garbage": "notahash"} {
			p := filepath.Join(gitDir, "refs/heads/cms", name)
			if err := os.WriteFile(p, []byte(body+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(p)
		}
		for _, prefix := range []string{"cms/", "cms", "cms/posts", "cms/posts/", "cm", "", "nope/"} {
			out, _ := cliTry(gitDir, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/heads/"+prefix)
			var want []string
			for _, l := range strings.Split(out, "\n") {
				if l != "" {
					want = append(want, l)
				}
			}
			sort.Strings(want)
			got, err := f.Branches(prefix)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Branches(%q) = %q, %v; git for-each-ref: %q", state, prefix, got, err, want)
			}
		}
	})
}
