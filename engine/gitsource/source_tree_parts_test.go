package gitsource

import (
	"bytes"
	"fmt"
	"hash/adler32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// partsSite writes, at core.looseCompression 0, a site whose
// content/posts holds n files, those numbered in edits with the blob
// given there, and returns its root tree and the posts tree's.
func partsSite(t *testing.T, gitDir string, n int, edits map[int]byte) (root, posts plumbing.Hash) {
	t.Helper()
	var b bytes.Buffer
	for i := range n {
		h := byte(i)
		if e, ok := edits[i]; ok {
			h = e
		}
		b.Write(rawEntry("100644", fmt.Sprintf("f%05d.md", i), h))
	}
	posts = hashTreeLevel(t, gitDir, b.Bytes(), 0)
	ch := hashTreeLevel(t, gitDir, append([]byte("40000 posts\x00"), posts[:]...), 0)
	return hashTreeLevel(t, gitDir, append([]byte("40000 content\x00"), ch[:]...), 0), posts
}

// TestWalkDir_PushSharesParts checks that a push of one file into a
// folder of 20,000 files makes the folder's record from the last one's
// parts: all but the part the file is in are the last record's (the same
// pointers), and the walk allocates about that part, not the folder
// (its entries, slots, file records and bytes: 2.5 MB when they are
// copied), its file read into the buffer of the last read.
func TestWalkDir_PushSharesParts(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{"pages/a.md": "x"})
	r.Push(false)
	gitDir := r.Site()
	st := openObjectStorage(gitDir, cache.NewObjectLRU(cache.MiByte))
	defer st.Close()
	lt := &looseTrees{objects: filepath.Join(gitDir, "objects")}
	walk := func(h plumbing.Hash, old *dirRec) (*dirRec, *treeEntries) {
		tc := &treeEntries{st: st, loose: lt, m: map[plumbing.Hash][]object.TreeEntry{},
			read: map[plumbing.Hash][]object.TreeEntry{}, walked: map[plumbing.Hash]*dirRec{}}
		d, err := walkDir(tc, h, "", old, srcRelevant)
		if err != nil {
			t.Fatal(err)
		}
		return d, tc
	}
	const n = 20000
	edits := map[int]byte{}
	h0, _ := partsSite(t, gitDir, n, edits)
	last, _ := walk(h0, nil)
	posts := func(d *dirRec) *dirRec { return d.kid("content").kid("posts") }
	if got := len(posts(last).parts); got != n/partSize+1 && got != n/partSize {
		t.Fatalf("a fresh walk cut the folder into %d parts", got)
	}
	for step, edit := range []int{10500, 10501, 0, n - 1, 7000} {
		edits[edit] = byte(200 + step)
		h, ph := partsSite(t, gitDir, n, edits)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got, tc := walk(h, last)
		runtime.ReadMemStats(&after)
		fresh, _ := walk(h, nil)
		if d := recDiff(got, fresh, ""); d != "" {
			t.Fatalf("edit %d: the walk from the last one differs from a fresh one: %s", edit, d)
		}
		ch, ok := changesSince(last, got, tc.spans)
		if !ok || len(ch.added) != 1 || len(ch.gone) != 1 || ch.added[0].path != fmt.Sprintf("content/posts/f%05d.md", edit) {
			t.Fatalf("edit %d: changes %v %+v", edit, ok, ch)
		}
		oldParts := map[*dirPart]bool{}
		for _, p := range posts(last).parts {
			oldParts[p] = true
		}
		shared := 0
		for _, p := range posts(got).parts {
			if oldParts[p] {
				shared++
			}
		}
		if m := len(posts(got).parts); shared < m-1 {
			t.Fatalf("edit %d: %d of %d parts shared with the last walk (%s)", edit, shared, m, partsString(posts(got).parts))
		}
		if step > 0 { // the first read grew the buffers
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 512<<10 {
				t.Fatalf("edit %d: the walk allocated %d bytes", edit, alloc)
			}
		}
		// The history index reads the new tree by parts made one.
		if m := tc.walked; m[ph] == nil || len(m[ph].flatEntries()) != n {
			t.Fatalf("edit %d: the walk does not hand the folder read to LooseTree", edit)
		}
		last = got
	}
}

// TestWalkDir_PartsChecksum checks that a loose tree read against the
// last record, whose bytes differ from what its stream's Adler-32 says
// in the part that changed, is not taken (the object store reads it and
// says what is wrong), and that the same tree with its right sum is.
func TestWalkDir_PartsChecksum(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{"pages/a.md": "x"})
	r.Push(false)
	gitDir := r.Site()
	st := openObjectStorage(gitDir, cache.NewObjectLRU(cache.MiByte))
	defer st.Close()
	lt := &looseTrees{objects: filepath.Join(gitDir, "objects")}
	tc := func() *treeEntries {
		return &treeEntries{st: st, loose: lt, m: map[plumbing.Hash][]object.TreeEntry{}, read: map[plumbing.Hash][]object.TreeEntry{}}
	}
	const n = 5000
	_, p0 := partsSite(t, gitDir, n, nil)
	old, ok, err := walkLoose(tc(), p0, "content/posts/", nil, srcRelevant)
	if err != nil || !ok {
		t.Fatalf("the first read: %v %v", ok, err)
	}
	_, p1 := partsSite(t, gitDir, n, map[int]byte{2500: 99})
	file := filepath.Join(gitDir, "objects", p1.String()[:2], p1.String()[2:])
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// a byte of the edited entry's hash, in the middle part
	i := bytes.Index(good, []byte("f02500.md\x00")) + len("f02500.md\x00") + 3
	bad := bytes.Clone(good)
	bad[i] ^= 0x55
	for _, c := range []struct {
		data []byte
		ok   bool
	}{{bad, false}, {good, true}} {
		os.Chmod(file, 0o644)
		if err := os.WriteFile(file, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		d, ok, err := walkLoose(tc(), p1, "content/posts/", old, srcRelevant)
		if err != nil || ok != c.ok {
			t.Fatalf("a tree whose sum is right: %v: read %v, %v", c.ok, ok, err)
		}
		if ok && len(d.flatEntries()) != n {
			t.Fatalf("%d entries", len(d.flatEntries()))
		}
	}
}

// TestAdler32Combine checks the sum of two runs put together against the
// sum of their bytes.
func TestAdler32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		a := make([]byte, rng.IntN(200000))
		b := make([]byte, rng.IntN(200000))
		for i := range a {
			a[i] = byte(rng.IntN(256))
		}
		for i := range b {
			b[i] = 0xff - byte(rng.IntN(8))
		}
		want := adler32.Checksum(append(bytes.Clone(a), b...))
		if got := adler32Combine(adler32.Checksum(a), adler32.Checksum(b), len(b)); got != want {
			t.Fatalf("%d+%d bytes: %08x, want %08x", len(a), len(b), got, want)
		}
	}
}

// partsString describes parts for a test's message.
func partsString(ps []*dirPart) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(strconv.Itoa(len(p.entries)))
		b.WriteByte(' ')
	}
	return b.String()
}
