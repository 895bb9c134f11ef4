package gitsource

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"fmt"
	"hash/adler32"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// resumeTree is a tree of n entries with random hashes (about 25 bytes
// each deflated, so that 16,000 make a stream past resumeMin).
func resumeTree(rng *rand.Rand, names []string) []byte {
	var b bytes.Buffer
	for _, name := range names {
		b.WriteString("100644 " + name + "\x00")
		for range 20 {
			b.WriteByte(byte(rng.IntN(256)))
		}
	}
	return b.Bytes()
}

// writeLooseTree writes tree raw as a loose object of gitDir: by git at
// level (core.looseCompression), or, level < -1, by Go's compress/zlib
// at -level-10 (another zlib: -11 is Go's level 1).
func writeLooseTree(t testing.TB, gitDir string, raw []byte, level int) plumbing.Hash {
	t.Helper()
	if level >= -1 {
		return hashTreeLevel(t, gitDir, raw, level)
	}
	obj := append([]byte(fmt.Sprintf("tree %d\x00", len(raw))), raw...)
	h := plumbing.Hash(sha1.Sum(obj))
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, -level-10)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(obj)
	zw.Close()
	dir := filepath.Join(gitDir, "objects", h.String()[:2])
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, h.String()[2:]), z.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
	return h
}

// resumeRepo makes an empty bare repository and a maker of walks over
// its objects that share one loose reader (as a Load's walks do).
func resumeRepo(t testing.TB) (string, func() *treeEntries) {
	t.Helper()
	gitDir := t.TempDir()
	if out, err := exec.Command("git", "init", "--bare", "-q", gitDir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	st := openObjectStorage(gitDir, cache.NewObjectLRU(cache.MiByte))
	t.Cleanup(func() { st.Close() })
	lt := &looseTrees{objects: filepath.Join(gitDir, "objects")}
	return gitDir, func() *treeEntries {
		return &treeEntries{st: st, loose: lt, m: map[plumbing.Hash][]object.TreeEntry{}, read: map[plumbing.Hash][]object.TreeEntry{}}
	}
}

// recRaw is the tree bytes of d's parts, put together.
func recRaw(d *dirRec) string {
	var b strings.Builder
	for _, p := range d.parts {
		b.WriteString(p.raw)
	}
	return b.String()
}

// TestWalkLoose_ResumedInflate checks that a big deflated tree read
// against the last record (whose stream is kept) gives exactly the
// tree's bytes and entries, for edits (an entry's hash changed, an entry
// added, one removed) at the start, in the middle and at the end, at
// git's levels 1, 6 and 9 and by another zlib (Go's), the last tree and
// the new one each written by either; and that the read resumed, past
// the start, where the two streams allow it (git's default level, an
// entry's hash changed after the start).
func TestWalkLoose_ResumedInflate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 16000
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("f%06d.md", i*2)
	}
	base := resumeTree(rng, names)
	if resumeTreeSize := len(base); resumeTreeSize < 2*resumeMin {
		t.Fatalf("the tree is %d bytes: too small to be deflated past resumeMin", resumeTreeSize)
	}
	entryAt := func(i int) (start, end int) {
		_, ends, _ := parseTree(string(base))
		if i > 0 {
			start = int(ends[i-1])
		}
		return start, int(ends[i])
	}
	type edit struct {
		name string
		make func() []byte
	}
	var edits []edit
	for _, at := range []struct {
		where string
		i     int
	}{{"start", 0}, {"middle", n / 2}, {"end", n - 1}} {
		i := at.i
		edits = append(edits,
			edit{"modify at the " + at.where, func() []byte {
				b := bytes.Clone(base)
				_, end := entryAt(i)
				b[end-7] ^= 0x5a
				return b
			}},
			edit{"insert at the " + at.where, func() []byte {
				_, end := entryAt(i) // after entry i, in name order
				e := append([]byte(fmt.Sprintf("100644 f%06d.md\x00", i*2+1)), bytes.Repeat([]byte{0xab}, 20)...)
				return append(append(bytes.Clone(base[:end]), e...), base[end:]...)
			}},
			edit{"delete at the " + at.where, func() []byte {
				start, end := entryAt(i)
				return append(bytes.Clone(base[:start]), base[end:]...)
			}})
	}
	// git's levels, then Go's zlib at level 1 and 6 (-11, -16)
	levels := [][2]int{{1, 1}, {-1, -1}, {6, 6}, {9, 9}, {-11, -11}, {-16, -16}, {1, -11}, {-11, 1}, {1, 6}}
	for _, lv := range levels {
		for _, e := range edits {
			// a repository each, where git writes every object anew
			gitDir, tc := resumeRepo(t)
			old0 := writeLooseTree(t, gitDir, base, lv[0])
			next := e.make()
			old, ok, err := walkLoose(tc(), old0, "content/posts/", nil, srcRelevant)
			if err != nil || !ok || old.zs == nil {
				t.Fatalf("levels %v: the first read: %v %v, stream kept %v", lv, ok, err, old != nil && old.zs != nil)
			}
			h := writeLooseTree(t, gitDir, next, lv[1])
			d, ok, err := walkLoose(tc(), h, "content/posts/", old, srcRelevant)
			if err != nil || !ok {
				t.Fatalf("levels %v, %s: read %v, %v", lv, e.name, ok, err)
			}
			if got := recRaw(d); got != string(next) {
				t.Fatalf("levels %v, %s: the tree read differs from the tree written", lv, e.name)
			}
			want, _, _ := parseTree(string(next))
			if got := d.flatEntries(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("levels %v, %s: the entries differ", lv, e.name)
			}
			z, err := os.ReadFile(filepath.Join(gitDir, "objects", h.String()[:2], h.String()[2:]))
			if err != nil {
				t.Fatal(err)
			}
			from, _ := resumePoint(z, old.zs)
			if lv == [2]int{1, 1} && strings.HasPrefix(e.name, "modify") && !strings.HasSuffix(e.name, "start") {
				if from.out < int64(len(next))/3 {
					t.Fatalf("levels %v, %s: resumed at byte %d of %d", lv, e.name, from.out, len(next))
				}
			}
			t.Logf("levels %v, %s: resumed at byte %d of %d", lv, e.name, from.out, len(next))
		}
	}
}

// TestWalkLoose_ResumedInflateChecked checks that a resumed read whose
// result is wrong is not taken (walkLoose's ok false: the object store
// reads the tree whole): the last record's bytes differ from its kept
// stream's before the point resumed from, or the new stream is damaged
// after it.
func TestWalkLoose_ResumedInflateChecked(t *testing.T) {
	gitDir, tc := resumeRepo(t)
	rng := rand.New(rand.NewPCG(9, 10))
	names := make([]string, 16000)
	for i := range names {
		names[i] = fmt.Sprintf("f%06d.md", i)
	}
	base := resumeTree(rng, names)
	next := bytes.Clone(base)
	next[len(next)-5] ^= 0x33 // the last entry's hash
	h0 := writeLooseTree(t, gitDir, base, 1)
	h1 := writeLooseTree(t, gitDir, next, 1)
	file := filepath.Join(gitDir, "objects", h1.String()[:2], h1.String()[2:])
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	first := func() *dirRec {
		old, ok, err := walkLoose(tc(), h0, "content/posts/", nil, srcRelevant)
		if err != nil || !ok {
			t.Fatalf("the first read: %v %v", ok, err)
		}
		return old
	}
	from, _ := resumePoint(good, first().zs)
	if from.out < int64(len(base))/2 {
		t.Fatalf("resumed at %d of %d", from.out, len(base))
	}

	// The last record's first part (its sum made from its bytes, as
	// every part's is) has other bytes than its stream.
	old := first()
	p := *old.parts[0]
	raw := []byte(p.raw)
	raw[100] ^= 1
	p.raw, p.sum = string(raw), adler32.Checksum(raw)
	old.parts[0] = &p
	if _, ok, err := walkLoose(tc(), h1, "content/posts/", old, srcRelevant); ok || err != nil {
		t.Fatalf("a record whose bytes are not its stream's: read %v, %v", ok, err)
	}

	// The new stream damaged after the point resumed from.
	bad := bytes.Clone(good)
	bad[len(bad)-40] ^= 0x10
	os.Chmod(file, 0o644)
	if err := os.WriteFile(file, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := walkLoose(tc(), h1, "content/posts/", first(), srcRelevant); ok || err != nil {
		t.Fatalf("a damaged stream: read %v, %v", ok, err)
	}
	if err := os.WriteFile(file, good, 0o644); err != nil {
		t.Fatal(err)
	}
	d, ok, err := walkLoose(tc(), h1, "content/posts/", first(), srcRelevant)
	if err != nil || !ok || recRaw(d) != string(next) {
		t.Fatalf("the stream as written: read %v, %v", ok, err)
	}
}

// TestWalkDir_ResumedMatchesFresh checks that walks of a big folder at
// git's default loose compression, each against the last (so each
// resumes where it can), give the record a fresh walk gives and the
// changes made, for a run of one-file pushes: edits of a post in the
// middle and at the end, a post added, one removed, and an edit again.
func TestWalkDir_ResumedMatchesFresh(t *testing.T) {
	gitDir, mk := resumeRepo(t)
	rng := rand.New(rand.NewPCG(11, 12))
	names := make([]string, 16000)
	for i := range names {
		names[i] = fmt.Sprintf("f%06d.md", i*2)
	}
	tree := resumeTree(rng, names)
	site := func(raw []byte) plumbing.Hash {
		posts := writeLooseTree(t, gitDir, raw, -1)
		c := writeLooseTree(t, gitDir, append([]byte("40000 posts\x00"), posts[:]...), -1)
		return writeLooseTree(t, gitDir, append([]byte("40000 content\x00"), c[:]...), -1)
	}
	walk := func(h plumbing.Hash, old *dirRec) (*dirRec, *treeEntries) {
		tc := mk()
		tc.walked = map[plumbing.Hash]*dirRec{}
		d, err := walkDir(tc, h, "", old, srcRelevant)
		if err != nil {
			t.Fatal(err)
		}
		return d, tc
	}
	last, _ := walk(site(tree), nil)
	posts := func(d *dirRec) *dirRec { return d.kid("content").kid("posts") }
	if posts(last).zs == nil {
		t.Fatal("the posts folder's stream was not kept")
	}
	entry := func(i int) (start, end int) {
		_, ends, _ := parseTree(string(tree))
		if i > 0 {
			start = int(ends[i-1])
		}
		return start, int(ends[i])
	}
	steps := []struct {
		name string
		path string
		edit func() []byte
	}{
		{"edit in the middle", "f016000.md", func() []byte {
			b := bytes.Clone(tree)
			_, end := entry(8000)
			b[end-1] ^= 1
			return b
		}},
		{"edit at the end", "f031998.md", func() []byte {
			b := bytes.Clone(tree)
			b[len(b)-1] ^= 1
			return b
		}},
		{"a post added", "f020001.md", func() []byte {
			_, end := entry(10000)
			e := append([]byte("100644 f020001.md\x00"), bytes.Repeat([]byte{7}, 20)...)
			return append(append(bytes.Clone(tree[:end]), e...), tree[end:]...)
		}},
		{"a post removed", "f000200.md", func() []byte {
			start, end := entry(100)
			return append(bytes.Clone(tree[:start]), tree[end:]...)
		}},
		{"edit in the middle again", "f016004.md", func() []byte {
			b := bytes.Clone(tree)
			_, end := entry(8001) // f016004.md, after the removal
			b[end-1] ^= 1
			return b
		}},
	}
	for _, st := range steps {
		tree = st.edit()
		h := site(tree)
		got, tc := walk(h, last)
		fresh, _ := walk(h, nil)
		if d := recDiff(got, fresh, ""); d != "" {
			t.Fatalf("%s: the walk from the last one differs from a fresh one: %s", st.name, d)
		}
		if recRaw(posts(got)) != string(tree) {
			t.Fatalf("%s: the folder's bytes differ from its tree's", st.name)
		}
		ch, ok := changesSince(last, got, tc.spans)
		n := len(ch.added) + len(ch.gone)
		if !ok || n == 0 || n > 2 || (len(ch.added) > 0 && ch.added[0].path != "content/posts/"+st.path) || (len(ch.gone) > 0 && ch.gone[0] != "content/posts/"+st.path) {
			t.Fatalf("%s: changes %v %+v", st.name, ok, ch)
		}
		last = got
	}
}
