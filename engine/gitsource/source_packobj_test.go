package gitsource

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// gitObject is an object as git cat-file --batch gives it.
type gitObject struct {
	typ  plumbing.ObjectType
	data []byte
}

// catFileAll is every object of the repository (and its alternates), as
// git cat-file reads it: the truth the readers are compared with.
func catFileAll(t testing.TB, gitDir string) map[plumbing.Hash]gitObject {
	t.Helper()
	cmd := exec.Command("git", "--git-dir="+gitDir, "cat-file", "--batch-all-objects", "--batch", "--unordered")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cat-file: %v", err)
	}
	objs := map[plumbing.Hash]gitObject{}
	br := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			break
		}
		f := strings.Fields(line)
		if err != nil || len(f) != 3 {
			t.Fatalf("cat-file line %q: %v", line, err)
		}
		typ, err := plumbing.ParseObjectType(f[1])
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(f[2])
		data := make([]byte, n+1)
		if _, err := io.ReadFull(br, data); err != nil {
			t.Fatal(err)
		}
		objs[plumbing.NewHash(f[0])] = gitObject{typ: typ, data: data[:n]}
	}
	return objs
}

// deltaCount is how many of the packs' entries are deltas (git
// verify-pack), so that a test knows it read some.
func deltaCount(t testing.TB, gitDir string) int {
	t.Helper()
	idxs, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.idx"))
	n := 0
	for _, idx := range idxs {
		out := srcGit(t, gitDir, "verify-pack", "-v", idx)
		for _, line := range strings.Split(out, "\n") {
			// "<sha> <type> <size> <packed> <offset> <depth> <base>"
			if f := strings.Fields(line); len(f) == 7 && len(f[0]) == 40 {
				n++
			}
		}
	}
	return n
}

// checkObjects reads every object of the repository with gitObjects and
// compares it with git's, and every tree's entries with go-git's.
func checkObjects(t *testing.T, state, gitDir string) {
	t.Helper()
	want := catFileAll(t, gitDir)
	if len(want) == 0 {
		t.Fatalf("%s: no objects", state)
	}
	st := openObjectStorage(gitDir, cache.NewObjectLRU(cache.MiByte))
	defer st.Close()
	gg := openGoGitStorage(gitDir, cache.NewObjectLRU(cache.MiByte))
	defer gg.Close()
	trees := 0
	for h, w := range want {
		typ, size, data, err := st.objs.read(h, maxObjectSize)
		if err != nil || typ != w.typ || size != int64(len(w.data)) || !bytes.Equal(data, w.data) {
			t.Fatalf("%s: object %s = %v, %d bytes, %v; git: %v, %d bytes", state, h, typ, len(data), err, w.typ, len(w.data))
		}
		// and its size alone, and through the store
		if typ, size, data, err := st.objs.read(h, -1); err != nil || typ != w.typ || size != int64(len(w.data)) || data != nil && size > 0 {
			t.Fatalf("%s: object %s's size: %v, %d, %v", state, h, typ, size, err)
		}
		if w.typ != plumbing.TreeObject {
			continue
		}
		trees++
		got, err := st.tree(h)
		if err != nil {
			t.Fatalf("%s: tree %s: %v", state, h, err)
		}
		// go-git's entries of git's bytes (go-git's store does not
		// read through alternates)
		mo := &plumbing.MemoryObject{}
		mo.SetType(plumbing.TreeObject)
		mo.Write(w.data)
		wt, err := object.DecodeTree(gg, mo)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(wt.Entries) || len(got) > 0 && !reflect.DeepEqual(got, wt.Entries) {
			t.Fatalf("%s: tree %s:\n got %v\nwant %v", state, h, got, wt.Entries)
		}
	}
	if trees == 0 {
		t.Fatalf("%s: no trees", state)
	}
	// An object that is not there is go-git's ErrObjectNotFound.
	if _, err := st.EncodedObject(plumbing.AnyObject, plumbing.NewHash(strings.Repeat("ab", 20))); err != plumbing.ErrObjectNotFound {
		t.Fatalf("%s: a missing object: %v", state, err)
	}
}

// historyRepo makes a work tree repository of n commits that each edit
// a few files a little (and add and remove some), so that packs hold
// chains of deltas of trees and blobs.
func historyRepo(t testing.TB, n int) *srcTestRepo {
	t.Helper()
	r := newSrcWorkTreeSite(t)
	body := func(i, v int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: Post %d\n---\n", i)
		for k := range 40 + v {
			fmt.Fprintf(&b, "line %d of post %d, version %d\n", k, i, v/(k+1))
		}
		return b.String()
	}
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("content/posts/p%03d.md", i)] = body(i, 0)
		files[fmt.Sprintf("content/docs/d%02d/page.md", i%12)] = body(i, 0)
	}
	r.Commit(srcDay(0), files)
	for c := 1; c < n; c++ {
		edit := map[string]string{}
		for k := range 3 {
			i := (c*7 + k*13) % 60
			edit[fmt.Sprintf("content/posts/p%03d.md", i)] = body(i, c)
		}
		edit[fmt.Sprintf("content/new/n%03d.md", c)] = body(c, c)
		var rm []string
		if c%5 == 0 {
			rm = append(rm, fmt.Sprintf("content/new/n%03d.md", c-3))
		}
		r.Commit(srcDay(c), edit, rm...)
	}
	return r
}

// The reader gives git's bytes for every object, and go-git's entries
// for every tree, however the repository is stored: loose, in several
// packs and loose, packed with deep OFS_DELTA and REF_DELTA chains, with
// an index of 64-bit offsets, shallow, and through alternates.
func TestGitObjects_MatchGitCLI(t *testing.T) {
	r := historyRepo(t, 40)
	gitDir := filepath.Join(r.Dir, ".git")
	checkObjects(t, "loose", gitDir)

	srcGit(t, r.Dir, "repack", "-d", "-q")
	r2 := 40
	for c := range 10 {
		r.Commit(srcDay(r2+c), map[string]string{"content/posts/p001.md": fmt.Sprintf("edit %d\n", c)})
	}
	srcGit(t, r.Dir, "repack", "-d", "-q")
	for c := range 5 {
		r.Commit(srcDay(r2+10+c), map[string]string{"content/posts/p002.md": fmt.Sprintf("loose %d\n", c)})
	}
	if packs, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.pack")); len(packs) != 2 {
		t.Fatalf("%d packs, want 2", len(packs))
	}
	checkObjects(t, "two packs and loose", gitDir)

	srcGit(t, r.Dir, "gc", "-q", "--aggressive", "--prune=now")
	if deltaCount(t, gitDir) == 0 {
		t.Fatal("gc --aggressive made no deltas")
	}
	checkObjects(t, "gc --aggressive", gitDir)

	srcGit(t, r.Dir, "repack", "-adf", "-q", "--depth=50", "--window=50")
	checkObjects(t, "repack -adf --depth=50", gitDir)

	srcGit(t, r.Dir, "-c", "repack.useDeltaBaseOffset=false", "repack", "-adf", "-q", "--depth=50")
	checkObjects(t, "REF_DELTA", gitDir)

	// every object past byte 64 of the pack through the 64-bit table
	packs, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("%d packs after repack -a", len(packs))
	}
	idx := strings.TrimSuffix(packs[0], ".pack") + ".idx"
	os.Chmod(idx, 0o644)
	srcGit(t, r.Dir, "index-pack", "--index-version=2,64", "-o", idx+".new", packs[0])
	if err := os.Rename(idx+".new", idx); err != nil {
		t.Fatal(err)
	}
	if ix, err := readPackIndex(idx); err != nil || len(ix.large) == 0 {
		t.Fatalf("no large offsets: %v", err)
	}
	checkObjects(t, "64-bit offsets", gitDir)

	shallow := filepath.Join(t.TempDir(), "shallow.git")
	srcGit(t, r.Dir, "clone", "-q", "--bare", "--depth=5", "file://"+r.Dir, shallow)
	checkObjects(t, "shallow clone", shallow)
	// the history ends: the first commit's parent is not there
	st := openObjectStorage(shallow, cache.NewObjectLRU(cache.MiByte))
	defer st.Close()
	c, err := object.GetCommit(st, plumbing.NewHash(srcGit(t, r.Dir, "rev-parse", "HEAD~4")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := object.GetCommit(st, c.ParentHashes[0]); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Fatalf("the shallow clone's missing parent: %v", err)
	}

	shared := filepath.Join(t.TempDir(), "shared.git")
	srcGit(t, r.Dir, "clone", "-q", "--bare", "--shared", r.Dir, shared)
	if _, err := os.Stat(filepath.Join(shared, "objects", "info", "alternates")); err != nil {
		t.Fatal(err)
	}
	checkObjects(t, "alternates", shared)
}

// Public repositories (read-only mirrors, named by FOLIO_PACK_MIRRORS,
// colon-separated git dirs): the tree of every commit of the first 300
// along first parents, read with the Load's reader, is go-git's.
func TestGitObjects_Mirrors(t *testing.T) {
	dirs := os.Getenv("FOLIO_PACK_MIRRORS")
	if dirs == "" {
		t.Skip("FOLIO_PACK_MIRRORS names no repository")
	}
	for _, dir := range strings.Split(dirs, ":") {
		st := openObjectStorage(dir, cache.NewObjectLRU(cache.MiByte))
		gg := openGoGitStorage(dir, cache.NewObjectLRU(32*cache.MiByte))
		head := srcGit(t, dir, "rev-parse", "HEAD")
		trees, commits := 0, 0
		seen := map[plumbing.Hash]bool{}
		var walk func(h plumbing.Hash)
		walk = func(h plumbing.Hash) {
			if seen[h] {
				return
			}
			seen[h] = true
			got, err := st.tree(h)
			if err != nil {
				t.Fatalf("%s: tree %s: %v", dir, h, err)
			}
			want, err := object.GetTree(gg, h)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want.Entries) || len(got) > 0 && !reflect.DeepEqual(got, want.Entries) {
				t.Fatalf("%s: tree %s differs", dir, h)
			}
			trees++
			for _, e := range got {
				if e.Mode != filemode.Dir {
					continue
				}
				walk(e.Hash)
			}
		}
		for h := plumbing.NewHash(head); commits < 300; commits++ {
			c, err := object.GetCommit(st, h)
			if err != nil {
				t.Fatalf("%s: commit %s: %v", dir, h, err)
			}
			wc, err := object.GetCommit(gg, h)
			if err != nil {
				t.Fatal(err)
			}
			if c.TreeHash != wc.TreeHash || !reflect.DeepEqual(c.ParentHashes, wc.ParentHashes) || !c.Committer.When.Equal(wc.Committer.When) || c.Message != wc.Message {
				t.Fatalf("%s: commit %s differs", dir, h)
			}
			walk(c.TreeHash)
			if len(c.ParentHashes) == 0 {
				break
			}
			h = c.ParentHashes[0]
		}
		st.Close()
		gg.Close()
		t.Logf("%s: %d commits, %d trees (%d deltas in its packs)", dir, commits, trees, deltaCount(t, dir))
	}
}

// A Load of a repository packed with chains of deltas (git gc
// --aggressive), and of one that borrows its objects from another (git
// clone --shared: objects/info/alternates), gives every relevant file
// of each commit as git ls-tree does, each Updated as git log's last
// commit of its path.
func TestLoad_PackedAndAlternates(t *testing.T) {
	r := historyRepo(t, 30)
	srcGit(t, r.Dir, "gc", "-q", "--aggressive", "--prune=now")
	shared := filepath.Join(t.TempDir(), "shared.git")
	srcGit(t, r.Dir, "clone", "-q", "--bare", "--shared", r.Dir, shared)
	for _, site := range []string{r.Dir, shared} {
		src := openSrc(t, site, t.TempDir(), &srcTestParser{})
		for k := 29; k >= 0; k -= 7 {
			commit := srcGit(t, r.Dir, "rev-parse", fmt.Sprintf("HEAD~%d", k))
			tree, err := src.Load(context.Background(), commit)
			if err != nil {
				t.Fatalf("%s: Load(HEAD~%d): %v", site, k, err)
			}
			var want []string
			for _, line := range strings.Split(srcGit(t, r.Dir, "ls-tree", "-r", commit), "\n") {
				meta, p, _ := strings.Cut(line, "\t")
				if srcRelevant(p) {
					want = append(want, p+" "+strings.Fields(meta)[2])
				}
			}
			var got []string
			for _, f := range tree.Files.All() {
				got = append(got, f.Path+" "+f.Blob)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: HEAD~%d: files\n%v\nwant\n%v", site, k, got, want)
			}
			for _, f := range tree.Files.Slice()[:5] {
				when := srcGit(t, r.Dir, "log", "-1", "--format=%cI", commit, "--", f.Path)
				if w, _ := time.Parse(time.RFC3339, when); !f.Updated.Equal(w) {
					t.Fatalf("%s: HEAD~%d: %s updated %v, git log: %s", site, k, f.Path, f.Updated, when)
				}
			}
		}
		src.Close()
	}
}
