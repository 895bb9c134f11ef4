package gitsource

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"

	"github.com/folio-cms/folio/content/fault"
)

// Packs no git writes (index-pack refuses them), built here byte by
// byte: what a damaged disk or a hand-made pack could hold.

// craftedEntry is one object of a crafted pack: its name in the index
// and its entry's bytes (header, base, zlib stream).
type craftedEntry struct {
	name  plumbing.Hash
	entry func(off int64, offs map[plumbing.Hash]int64) []byte
}

// writeCraftedPack writes entries as the pack of the objects folder of
// gitDir, with a version 2 index naming each, and returns their offsets.
func writeCraftedPack(t testing.TB, gitDir string, entries []craftedEntry) map[plumbing.Hash]int64 {
	t.Helper()
	pack := []byte{'P', 'A', 'C', 'K', 0, 0, 0, 2}
	pack = binary.BigEndian.AppendUint32(pack, uint32(len(entries)))
	offs := map[plumbing.Hash]int64{}
	for _, e := range entries {
		off := int64(len(pack))
		offs[e.name] = off
		pack = append(pack, e.entry(off, offs)...)
	}
	sum := sha1.Sum(pack)
	pack = append(pack, sum[:]...)

	names := make([]plumbing.Hash, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.name)
	}
	sort.Slice(names, func(i, j int) bool { return bytes.Compare(names[i][:], names[j][:]) < 0 })
	idx := append([]byte{}, idxMagic...)
	idx = binary.BigEndian.AppendUint32(idx, 2)
	for b := range 256 {
		n := 0
		for _, h := range names {
			if int(h[0]) <= b {
				n++
			}
		}
		idx = binary.BigEndian.AppendUint32(idx, uint32(n))
	}
	for _, h := range names {
		idx = append(idx, h[:]...)
	}
	for range names {
		idx = binary.BigEndian.AppendUint32(idx, 0) // CRCs, not read
	}
	for _, h := range names {
		idx = binary.BigEndian.AppendUint32(idx, uint32(offs[h]))
	}
	idx = append(idx, sum[:]...)
	isum := sha1.Sum(idx)
	idx = append(idx, isum[:]...)

	dir := filepath.Join(gitDir, "objects", "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "pack-crafted")
	if err := os.WriteFile(name+".pack", pack, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name+".idx", idx, 0o644); err != nil {
		t.Fatal(err)
	}
	return offs
}

// deltaVarintBytes is the size encoding of a delta's header.
func deltaVarintBytes(v int64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// paddedDelta is a delta from a base of size base to a target of size
// target that copies the base whole, then n bytes of padding (which a
// delta's application would refuse, but its chain is read before).
func paddedDelta(base, target int64, n int) []byte {
	d := append(deltaVarintBytes(base), deltaVarintBytes(target)...)
	d = append(d, 0x80|0x10|0x20|0x40, byte(base), byte(base>>8), byte(base>>16))
	return append(d, make([]byte, n)...)
}

// refDelta is the entry of a REF_DELTA of base.
func refDelta(base plumbing.Hash, delta []byte) []byte {
	e := packEntry(objRefDelta, len(delta), nil)
	e = append(e, base[:]...)
	return append(e, zlibBytes(delta)...)
}

// ofsDelta is the entry at off of an OFS_DELTA of the entry at baseOff.
func ofsDelta(off, baseOff int64, delta []byte) []byte {
	e := packEntry(objOfsDelta, len(delta), nil)
	rel := off - baseOff
	enc := []byte{byte(rel & 0x7f)}
	for rel >>= 7; rel > 0; rel >>= 7 {
		rel--
		enc = append([]byte{0x80 | byte(rel&0x7f)}, enc...)
	}
	e = append(e, enc...)
	return append(e, zlibBytes(delta)...)
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// Two REF_DELTAs in one pack, each the other's base: the chain has no
// end. Found by this pass: the reader followed it round 10000 times,
// holding every turn's delta (64 KB each here: 640 MB; the 1 GB a
// header may claim each, at most). Now the loop is an error at its
// first turn.
func TestGitObjects_RefDeltaCycle(t *testing.T) {
	gitDir := t.TempDir()
	a := plumbing.NewHash("aa00000000000000000000000000000000000001")
	b := plumbing.NewHash("bb00000000000000000000000000000000000002")
	const size = 64 << 10
	writeCraftedPack(t, gitDir, []craftedEntry{
		{a, func(int64, map[plumbing.Hash]int64) []byte { return refDelta(b, paddedDelta(size, size, size)) }},
		{b, func(int64, map[plumbing.Hash]int64) []byte { return refDelta(a, paddedDelta(size, size, size)) }},
	})
	g := newGitObjects(gitDir, cache.NewObjectLRU(cache.MiByte))
	defer g.Close()
	var err error
	n := allocated(func() { _, _, _, err = g.read(a, maxObjectSize) })
	if err == nil || !strings.Contains(err.Error(), "loop") {
		t.Fatalf("read of a delta whose chain loops: %v; want an error that says so", err)
	}
	if n > 16<<20 {
		t.Fatalf("read of a looping chain of %d-byte deltas allocated %d MB", size, n>>20)
	}
	// the type of an object over the limit is found by the same chain
	if _, _, _, err := g.read(a, 10); err == nil {
		t.Fatal("the size of a delta whose chain loops read without an error")
	}
}

// A chain of OFS_DELTAs whose deltas add up to more than a read may
// hold (maxDeltaBytes; lowered here) is an error, not that much memory.
func TestGitObjects_DeltaChainBytesBounded(t *testing.T) {
	gitDir := t.TempDir()
	const size, links = 1 << 20, 12
	body := bytes.Repeat([]byte("x"), size)
	var entries []craftedEntry
	var prev plumbing.Hash
	for i := range links + 1 {
		var h plumbing.Hash
		h[0], h[19] = byte(i+1), byte(i)
		base := prev
		if i == 0 {
			entries = append(entries, craftedEntry{h, func(int64, map[plumbing.Hash]int64) []byte {
				return packEntry(objBlob, size, zlibBytes(body))
			}})
		} else {
			entries = append(entries, craftedEntry{h, func(off int64, offs map[plumbing.Hash]int64) []byte {
				return ofsDelta(off, offs[base], paddedDelta(size, size, size))
			}})
		}
		prev = h
	}
	writeCraftedPack(t, gitDir, entries)
	g := newGitObjects(gitDir, nil)
	g.maxDeltaBytes = 4 << 20
	defer g.Close()
	var err error
	n := allocated(func() { _, _, _, err = g.read(prev, maxObjectSize) })
	if err == nil || !strings.Contains(err.Error(), "deltas") {
		t.Fatalf("read of a chain of %d deltas of %d bytes: %v; want an error", links, size, err)
	}
	if n > 10<<20 {
		t.Fatalf("read of a chain of %d deltas of %d bytes, %d allowed, allocated %d MB", links, size, g.maxDeltaBytes, n>>20)
	}
}

// A delta of a few bytes that claims a result of 512 MB, and whose
// instructions are wrong, is refused without allocating the result.
// Found by this pass: applyDelta made room for the size the delta
// claimed before reading an instruction.
func TestApplyDelta_ClaimedSizeNotAllocated(t *testing.T) {
	base := []byte("0123456789")
	d := append(deltaVarintBytes(10), deltaVarintBytes(512<<20)...)
	d = append(d, 0x90, 10, 0) // copy 10 bytes, then the reserved instruction
	var err error
	n := allocated(func() { _, err = applyDelta(base, d) })
	if err == nil {
		t.Fatal("a malformed delta applied")
	}
	if n > 1<<20 {
		t.Fatalf("a %d-byte delta claiming 512 MB allocated %d MB", len(d), n>>20)
	}
}

// A big file that a push wrote loose (git streams a blob over
// core.bigFileThreshold to a loose object; a small push unpacks its
// objects loose): its size is read from its header, without reading its
// file. Found by this pass: the reader read the whole file (48 MB here,
// a GB for a GB file) to learn that the object is over the limit, in
// each Load that met it and each request for its size.
func TestGitObjects_LooseBigObjectNotRead(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	big := make([]byte, 48<<20)
	rand.NewChaCha8([32]byte{1}).Read(big) // does not compress

	name := filepath.Join(r.Dir, "big.bin")
	if err := os.WriteFile(name, big, 0o644); err != nil {
		t.Fatal(err)
	}
	h := plumbing.NewHash(srcGit(t, r.Dir, "hash-object", "-w", "big.bin"))
	gitDir := filepath.Join(r.Dir, ".git")
	if fi, err := os.Stat(filepath.Join(gitDir, "objects", h.String()[:2], h.String()[2:])); err != nil || fi.Size() < 40<<20 {
		t.Fatalf("the big file's loose object: %v", err)
	}
	g := newGitObjects(gitDir, nil)
	defer g.Close()
	for _, limit := range []int64{-1, largeObject} {
		var typ plumbing.ObjectType
		var size int64
		var data []byte
		var err error
		n := allocated(func() { typ, size, data, err = g.read(h, limit) })
		if err != nil || typ != plumbing.BlobObject || size != int64(len(big)) || data != nil {
			t.Fatalf("read(limit %d) = %v %d, %d bytes, %v", limit, typ, size, len(data), err)
		}
		if n > 1<<20 {
			t.Fatalf("read(limit %d) of a %d MB loose blob allocated %d MB", limit, len(big)>>20, n>>20)
		}
	}
	// read whole, it is the file
	if _, size, data, err := g.read(h, maxObjectSize); err != nil || size != int64(len(big)) || !bytes.Equal(data, big) {
		t.Fatalf("read whole: %d bytes, %v", len(data), err)
	}
}

// An index whose offset of one blob is another's (a damaged disk: the
// index's own checksum no longer matches it): the cold start's reader
// of whole blobs (packReader), which checks no object's name, parsed
// the other blob's bytes as the first's file, and served them. Found by
// this pass. Now an index whose checksum is wrong is not read (the
// object store reads nothing from it either: every object of its pack
// is an error, the Load's files are problems), so no file is served
// with another's bytes.
func TestSource_CorruptIndexOffsetNotServed(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	r.Commit(srcT0, map[string]string{
		"content/posts/a.md": "---\ntitle: A\n---\nThe body of A, long enough to be its own.\n",
		"content/posts/b.md": "---\ntitle: B\n---\nThe body of B, another one, as long.\n",
	})
	gitDir := filepath.Join(r.Dir, ".git")
	srcGit(t, r.Dir, "repack", "-adf", "-q")
	idxs, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("%d packs", len(idxs))
	}
	ha := plumbing.NewHash(srcGit(t, r.Dir, "rev-parse", "HEAD:content/posts/a.md"))
	hb := plumbing.NewHash(srcGit(t, r.Dir, "rev-parse", "HEAD:content/posts/b.md"))
	ix, err := readPackIndex(idxs[0])
	if err != nil {
		t.Fatal(err)
	}
	pos := func(h plumbing.Hash) int {
		for i := range ix.count {
			if bytes.Equal(ix.names[i*20:i*20+20], h[:]) {
				return i
			}
		}
		t.Fatalf("%s not in the index", h)
		return 0
	}
	raw, err := os.ReadFile(idxs[0])
	if err != nil {
		t.Fatal(err)
	}
	offs := idxHeader + ix.count*24 // names, CRCs, then offsets
	ia, ib := pos(ha), pos(hb)
	copy(raw[offs+4*ia:offs+4*ia+4], raw[offs+4*ib:offs+4*ib+4])
	os.Chmod(idxs[0], 0o644)
	if err := os.WriteFile(idxs[0], raw, 0o644); err != nil {
		t.Fatal(err)
	}
	p := &srcTestParser{}
	src, err := OpenSource(context.Background(), SourceConfig{Site: r.Dir, CacheDir: t.TempDir(), Parse: p.parse, Relevant: srcRelevant, CacheKey: "test", PackBlobsMin: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	commit, err := src.Resolve(strings.TrimSpace(srcGit(t, r.Dir, "branch", "--show-current")))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := src.Load(context.Background(), commit)
	if err != nil {
		t.Fatal(err)
	}
	if f := srcFile(t, tree, "content/posts/a.md"); f.Err == nil || !strings.Contains(f.Err.Error(), "cannot be read") {
		body := ""
		if f.Doc != nil {
			body = f.Doc.Body.Source()
		}
		t.Fatalf("content/posts/a.md: %v, body %q; want a problem: its object cannot be read", f.Err, body)
	}
	if f := srcFile(t, tree, "content/posts/b.md"); f.Err != nil || !strings.Contains(f.Doc.Body.Source(), "The body of B") {
		t.Fatalf("content/posts/b.md: %v", f.Err)
	}
}

// BenchmarkReadPackIndex reads the index of the 100k bench site's pack,
// with and without the check of its checksum.
func BenchmarkReadPackIndex(b *testing.B) {
	idxs, _ := filepath.Glob("/tmp/benchdata/site-n100000-s1/site.git/objects/pack/*.idx")
	if len(idxs) == 0 {
		b.Skip("no 100k bench site")
	}
	for _, verify := range []bool{false, true} {
		b.Run(fmt.Sprintf("verify=%v", verify), func(b *testing.B) {
			for b.Loop() {
				if _, err := readPackIndexSum(idxs[0], verify); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Alternates that lead back to the objects folder (itself, through
// "..", through symlinks), that loop between two repositories, or that
// name no folder: the reader looks in each folder once. Found by this
// pass: six symlinks back made 9331 folders (every path at five levels),
// each looked in for every loose object. (A relative alternate is
// relative to the objects folder, and one outside the repository is
// read, as git reads it: the file is the server's, no push writes it.)
func TestGitObjects_AlternatesLoopsBounded(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	r.Commit(srcT0, map[string]string{"content/posts/a.md": "---\ntitle: A\n---\nA\n"})
	other := newSrcWorkTreeSite(t)
	other.Commit(srcT0, map[string]string{"content/posts/b.md": "---\ntitle: B\n---\nB\n"})
	hb := plumbing.NewHash(srcGit(t, other.Dir, "rev-parse", "HEAD:content/posts/b.md"))
	objects := filepath.Join(r.Dir, ".git", "objects")
	otherObjects := filepath.Join(other.Dir, ".git", "objects")
	var lines []string
	for i := range 6 {
		link := filepath.Join(objects, fmt.Sprintf("back%d", i))
		if err := os.Symlink(".", link); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, filepath.Base(link))
	}
	lines = append(lines, ".", "../objects", objects, "/nonexistent/objects", "# a comment", "", otherObjects)
	if err := os.WriteFile(filepath.Join(objects, "info", "alternates"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(otherObjects, "info", "alternates"), []byte(objects+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := newGitObjects(filepath.Join(r.Dir, ".git"), nil)
	defer g.Close()
	if len(g.dirs) != 2 {
		t.Fatalf("%d objects folders: %.10q…; want the repository's and the other's", len(g.dirs), g.dirs)
	}
	if _, _, data, err := g.read(hb, maxObjectSize); err != nil || !strings.Contains(string(data), "title: B") {
		t.Fatalf("a blob of the alternate: %q, %v", data, err)
	}
}

// FuzzPackDeltas builds a pack of entries the bytes describe (whole
// objects, OFS_DELTAs of earlier entries, REF_DELTAs of any entry,
// itself included, with any sizes and deltas) and reads every object
// whole and under a small limit: an error or the object its name hashes
// to, never a panic.
func FuzzPackDeltas(f *testing.F) {
	f.Add([]byte{0, 10, 'h', 'e', 'l', 'l', 'o', 1, 0, 4, 5, 5, 0x90, 5})
	f.Add([]byte{2, 1, 4, 1, 1, 2, 0, 4})          // two REF_DELTAs of each other
	f.Add([]byte{2, 0, 6, 0xff, 0xff, 0x03, 0x00}) // a REF_DELTA of itself
	f.Add([]byte{0, 3, 'a', 'b', 'c', 1, 0, 6, 3, 0xff, 0xff, 0x7f, 0x91, 0})
	f.Fuzz(func(t *testing.T, spec []byte) {
		type ent struct {
			kind byte // 0 blob, 1 ofs, 2 ref
			base int
			data []byte
		}
		var ents []ent
		for len(spec) >= 3 && len(ents) < 8 {
			kind, base, n := spec[0]%3, int(spec[1]), int(spec[2])
			spec = spec[3:]
			n = min(n, len(spec))
			e := ent{kind: kind, base: base, data: spec[:n]}
			spec = spec[n:]
			if kind == 1 && len(ents) == 0 {
				e.kind = 0
			}
			ents = append(ents, e)
		}
		if len(ents) == 0 {
			return
		}
		names := make([]plumbing.Hash, len(ents))
		for i := range ents {
			names[i][0], names[i][1] = byte(i*37+1), byte(i)
		}
		var crafted []craftedEntry
		for i, e := range ents {
			crafted = append(crafted, craftedEntry{names[i], func(off int64, offs map[plumbing.Hash]int64) []byte {
				switch e.kind {
				case 0:
					return packEntry(objBlob, len(e.data), zlibBytes(e.data))
				case 1:
					return ofsDelta(off, offs[names[e.base%i]], e.data)
				default:
					return refDelta(names[e.base%len(ents)], e.data)
				}
			}})
		}
		gitDir := t.TempDir()
		writeCraftedPack(t, gitDir, crafted)
		g := newGitObjects(gitDir, cache.NewObjectLRU(cache.MiByte))
		defer g.Close()
		for _, h := range names {
			for _, limit := range []int64{maxObjectSize, 16} {
				typ, size, data, err := g.read(h, limit)
				if err != nil || data == nil {
					continue
				}
				if int64(len(data)) != size || !sameHash(h, typ, data) {
					t.Fatalf("object %s read as %d bytes (size %d) that are not it", h, len(data), size)
				}
			}
		}
	})
}

// A big file (48 MB here) read as a content file through Files.Blobs
// (Decap's entries of a folder, a write's base): a 413-class error
// before any of it is read. Found by this pass: it was read whole, then
// copied (100 MB a request, 2 GB for a GB file).
func TestFiles_BigBlobNotRead(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	big := make([]byte, 48<<20)
	rand.NewChaCha8([32]byte{2}).Read(big)
	r.Write(map[string]string{"content/posts/big.md": string(big), "content/posts/a.md": "---\ntitle: A\n---\nA\n"})
	srcGit(t, r.Dir, "add", "-A")
	srcGit(t, r.Dir, "commit", "-q", "-m", "big")
	srcGit(t, r.Dir, "repack", "-adq")
	hb := srcGit(t, r.Dir, "rev-parse", "HEAD:content/posts/big.md")
	ha := srcGit(t, r.Dir, "rev-parse", "HEAD:content/posts/a.md")
	f := OpenFiles(filepath.Join(r.Dir, ".git"))
	defer f.Close()
	var err error
	n := allocated(func() { _, err = f.Blobs([]string{ha, hb}) })
	if fault.CodeOf(err) != fault.TooLarge {
		t.Fatalf("Blobs of a 48 MB blob: %v; want a TooLarge error", err)
	}
	if n > 4<<20 {
		t.Fatalf("Blobs of a 48 MB blob allocated %d MB", n>>20)
	}
	if got, err := f.Blobs([]string{ha}); err != nil || !strings.Contains(string(got[0]), "title: A") {
		t.Fatalf("Blobs of a small blob: %v", err)
	}
}
