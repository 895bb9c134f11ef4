package gitsource

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// hashTree writes raw bytes as a loose tree object, as they are (git
// would refuse some of them), and returns its hash.
func hashTree(t *testing.T, gitDir string, raw []byte) plumbing.Hash {
	t.Helper()
	return hashTreeLevel(t, gitDir, raw, -1)
}

// hashTreeLevel is hashTree with git's core.looseCompression set to level
// (-1: git's default; 0: stored, as docs/deploy.md recommends).
func hashTreeLevel(t testing.TB, gitDir string, raw []byte, level int) plumbing.Hash {
	t.Helper()
	cmd := exec.Command("git", "-c", fmt.Sprintf("core.looseCompression=%d", level), "hash-object", "-w", "-t", "tree", "--literally", "--stdin")
	cmd.Dir = gitDir
	cmd.Env = srcGitEnv(time.Time{})
	cmd.Stdin = bytes.NewReader(raw)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hash-object: %v", err)
	}
	return plumbing.NewHash(strings.TrimSpace(string(out)))
}

func rawEntry(mode, name string, h byte) []byte {
	b := []byte(mode + " " + name + "\x00")
	return append(b, bytes.Repeat([]byte{h}, 20)...)
}

// The loose-tree reader gives exactly go-git's entries (canonical modes,
// names with spaces and non-ASCII bytes, submodules, the empty tree), and
// leaves malformed or packed trees to go-git.
func TestLooseTrees_MatchGoGit(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{"pages/a.md": "---\ntitle: A\n---\n", "content/posts/b c.md": "x", "content/posts/é.md": "y"})
	r.Push(false)
	gitDir := r.Site()
	st := openGoGitStorage(gitDir, cache.NewObjectLRU(cache.MiByte))
	defer st.Close()
	lt := &looseTrees{objects: filepath.Join(gitDir, "objects")}

	good := [][]byte{
		{}, // the empty tree
		bytes.Join([][]byte{
			rawEntry("100644", "a.md", 1), rawEntry("100664", "b.md", 2), rawEntry("100755", "c.sh", 3),
			rawEntry("120000", "link", 4), rawEntry("160000", "sub", 5), rawEntry("40000", "dir", 6),
			rawEntry("040000", "dir2", 7), rawEntry("644", "odd", 8), rawEntry("100644", "with space é", 9),
		}, nil),
	}
	var hashes []plumbing.Hash
	for _, raw := range good {
		hashes = append(hashes, hashTree(t, gitDir, raw))
	}
	// and written uncompressed, as core.looseCompression 0 has git write
	// them (inflateStored)
	stored := filepath.Join(t.TempDir(), "stored.git")
	srcGit(t, filepath.Dir(stored), "init", "-q", "--bare", stored)
	storedLT := &looseTrees{objects: filepath.Join(stored, "objects")}
	for _, raw := range good {
		h := hashTreeLevel(t, stored, raw, 0)
		got, ok := storedLT.read(h)
		want, wok := lt.read(h)
		if !ok || !wok || !reflect.DeepEqual(got, want) {
			t.Fatalf("stored tree %s: got %v, %v; want %v", h, got, ok, want)
		}
	}
	for _, rev := range []string{"HEAD^{tree}", "HEAD:content", "HEAD:content/posts", "HEAD:pages"} {
		hashes = append(hashes, plumbing.NewHash(srcGit(t, r.Dir, "rev-parse", rev)))
	}
	for _, h := range hashes {
		got, ok := lt.read(h)
		if !ok {
			t.Fatalf("tree %s: not read", h)
		}
		want, err := object.GetTree(st, h)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want.Entries) || (len(got) > 0 && !reflect.DeepEqual(got, want.Entries)) {
			t.Fatalf("tree %s:\n got %v\nwant %v", h, got, want.Entries)
		}
	}

	bad := [][]byte{
		rawEntry("10a644", "a", 1),
		rawEntry("100644", "", 1),
		rawEntry("100644", "a", 1)[:10],
		append(rawEntry("100644", "a", 1), "100644 b"...),
		rawEntry("777777777777", "a", 1),
	}
	for _, raw := range bad {
		if _, ok := lt.read(hashTree(t, gitDir, raw)); ok {
			t.Errorf("malformed tree %q read", raw)
		}
		if _, ok := storedLT.read(hashTreeLevel(t, stored, raw, 0)); ok {
			t.Errorf("malformed stored tree %q read", raw)
		}
	}

	// Packed: left to the object store.
	head := plumbing.NewHash(srcGit(t, r.Dir, "rev-parse", "HEAD^{tree}"))
	srcGit(t, gitDir, "repack", "-a", "-d", "-q")
	srcGit(t, gitDir, "prune-packed")
	if _, ok := lt.read(head); ok {
		t.Error("a packed tree was read as loose")
	}
}

// TestLooseTree_AfterPush: the trees a push's Load decoded are handed
// out again by LooseTree (the history index asks for them next) without
// reading their objects again, and are go-git's entries.
func TestLooseTree_AfterPush(t *testing.T) {
	for _, level := range []string{"-1", "0"} {
		t.Run("looseCompression="+level, func(t *testing.T) { looseTreeAfterPush(t, level) })
	}
}

// looseTreeAfterPush is TestLooseTree_AfterPush with the served
// repository's core.looseCompression at level (0: the push's trees are
// written uncompressed and read by inflateStored).
func looseTreeAfterPush(t *testing.T, level string) {
	r := newSrcBareSite(t)
	srcGit(t, r.Site(), "config", "core.looseCompression", level)
	r.Commit(srcDay(0), map[string]string{"content/posts/a.md": "---\ntitle: A\n---\n", "content/posts/b.md": "---\ntitle: B\n---\n"})
	r.Push(false)
	src := openSrc(t, r.Site(), t.TempDir(), &srcTestParser{})
	srcLoad(t, src, "main")
	r.Commit(srcDay(1), map[string]string{"content/posts/a.md": "---\ntitle: A2\n---\n"})
	r.Push(false)
	srcLoad(t, src, "main")
	h := plumbing.NewHash(srcGit(t, r.Dir, "rev-parse", "HEAD:content/posts"))
	st := openGoGitStorage(r.Site(), cache.NewObjectLRU(cache.MiByte))
	defer st.Close()
	want, err := object.GetTree(st, h)
	if err != nil {
		t.Fatal(err)
	}
	// The object gone: only the Load's copy can answer.
	hex := h.String()
	if level == "0" {
		raw, err := os.ReadFile(filepath.Join(r.Site(), "objects", hex[:2], hex[2:]))
		if _, stored := inflateStored(raw); err != nil || !stored {
			t.Fatalf("the push's tree is not written uncompressed (%v)", err)
		}
	}
	if err := os.Remove(filepath.Join(r.Site(), "objects", hex[:2], hex[2:])); err != nil {
		t.Fatalf("the push's tree is not a loose object: %v", err)
	}
	got, ok := src.LooseTree(h)
	if !ok || !reflect.DeepEqual(got, want.Entries) {
		t.Fatalf("LooseTree(%s) = %v, %v; want %v", h, got, ok, want.Entries)
	}
}

// TestKeepReadTrees_NotTheLoad: what a Load keeps of the trees it
// decoded for LooseTree is their map, not the Load's tree reader with it
// (its storage, its object cache holding the packed trees' bytes, the
// pack's index: 1.7 MB at ready of a 10k restart, kept until the next
// Load); the trees are still handed out.
func TestKeepReadTrees_NotTheLoad(t *testing.T) {
	h := plumbing.Hash{1}
	entries := []object.TreeEntry{{Name: "a.md", Mode: filemode.Regular, Hash: plumbing.Hash{2}}}
	src := &Source{gitDir: t.TempDir()}
	tc := &treeEntries{m: map[plumbing.Hash][]object.TreeEntry{}, read: map[plumbing.Hash][]object.TreeEntry{h: entries}}
	kept := weak.Make(tc)
	src.keepReadTrees(tc)
	tc = nil
	runtime.GC()
	runtime.GC()
	if kept.Value() != nil {
		t.Error("the Load's tree reader is kept after the Load")
	}
	if got, ok := src.LooseTree(h); !ok || !reflect.DeepEqual(got, entries) {
		t.Errorf("LooseTree = %v, %v; want %v", got, ok, entries)
	}
}
