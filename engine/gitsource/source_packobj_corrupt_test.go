package gitsource

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
)

// packedRepo is a small repository packed with chains of deltas (trees
// and blobs): its pack's and index's bytes, and every object as git
// reads it.
type packedRepo struct {
	pack, idx []byte
	name      string // pack-<sum>
	objects   map[plumbing.Hash]gitObject
}

func newPackedRepo(t testing.TB) packedRepo {
	t.Helper()
	r := historyRepo(t, 12)
	gitDir := filepath.Join(r.Dir, ".git")
	srcGit(t, r.Dir, "repack", "-adf", "-q", "--depth=50", "--window=50")
	if deltaCount(t, gitDir) == 0 {
		t.Fatal("no deltas")
	}
	packs, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("%d packs", len(packs))
	}
	p := packedRepo{name: strings.TrimSuffix(filepath.Base(packs[0]), ".pack"), objects: catFileAll(t, gitDir)}
	var err error
	if p.pack, err = os.ReadFile(packs[0]); err != nil {
		t.Fatal(err)
	}
	if p.idx, err = os.ReadFile(strings.TrimSuffix(packs[0], ".pack") + ".idx"); err != nil {
		t.Fatal(err)
	}
	return p
}

// readAll writes pack and idx as a repository's only pack and reads
// every object of p with a fresh reader: each read is an error or git's
// bytes (and never a panic); it returns how many were errors.
func (p packedRepo) readAll(t testing.TB, dir string, pack, idx []byte) int {
	t.Helper()
	pd := filepath.Join(dir, "objects", "pack")
	if err := os.MkdirAll(pd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pd, p.name+".pack"), pack, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pd, p.name+".idx"), idx, 0o644); err != nil {
		t.Fatal(err)
	}
	g := newGitObjects(dir, cache.NewObjectLRU(cache.MiByte))
	defer g.Close()
	failed := 0
	for h, w := range p.objects {
		typ, size, data, err := g.read(h, maxObjectSize)
		if err != nil || data == nil && size > maxObjectSize {
			failed++ // an error, or a size too large to read
			continue
		}
		if typ != w.typ || size != int64(len(w.data)) || !bytes.Equal(data, w.data) {
			t.Fatalf("object %s read without an error as a %v of %d bytes; git: a %v of %d bytes", h, typ, len(data), w.typ, len(w.data))
		}
	}
	return failed
}

// A damaged pack or index (any byte changed, an entry cut short) makes
// the reads of the objects it touches errors, never a panic nor other
// bytes; and the undamaged pack reads whole.
func TestGitObjects_CorruptPack(t *testing.T) {
	p := newPackedRepo(t)
	dir := t.TempDir()
	if n := p.readAll(t, dir, p.pack, p.idx); n != 0 {
		t.Fatalf("%d objects of the intact pack not read", n)
	}
	trailer := p.pack[len(p.pack)-20:]
	step := max(1, len(p.pack)/300)
	cut, flipped := 0, 0
	for pos := 12; pos < len(p.pack)-20; pos += step {
		// the pack cut at pos, its trailer kept (so that it is still
		// the index's): every entry from there on is truncated
		short := append(append([]byte{}, p.pack[:pos]...), trailer...)
		if p.readAll(t, dir, short, p.idx) > 0 {
			cut++
		}
		for _, x := range []byte{0x01, 0x80, 0xff} {
			bad := bytes.Clone(p.pack)
			bad[pos] ^= x
			if p.readAll(t, dir, bad, p.idx) > 0 {
				flipped++
			}
		}
	}
	if cut == 0 || flipped == 0 {
		t.Fatalf("no read failed: %d cuts, %d flips", cut, flipped)
	}
	// the index: its fan-out, names, CRCs, offsets and trailer
	istep := max(1, len(p.idx)/300)
	for pos := 0; pos < len(p.idx); pos += istep {
		for _, x := range []byte{0x01, 0x80} {
			bad := bytes.Clone(p.idx)
			bad[pos] ^= x
			p.readAll(t, dir, p.pack, bad)
		}
	}
	for _, n := range []int{0, 8, 1000, len(p.idx) - 41, len(p.idx) - 1} {
		if p.readAll(t, dir, p.pack, p.idx[:n]) != len(p.objects) {
			t.Fatalf("an index cut at %d read", n)
		}
	}
	// a pack that is not the index's (a checksum of its own)
	other := bytes.Clone(p.pack)
	other[len(other)-1] ^= 1
	if p.readAll(t, dir, other, p.idx) != len(p.objects) {
		t.Fatal("a pack that is not its index's read")
	}
}

// FuzzPackObjects changes one byte of a packed repository's pack or
// index, or cuts its pack short: every object reads as git's bytes or
// fails.
func FuzzPackObjects(f *testing.F) {
	f.Add(uint32(100), byte(1), false, uint32(0))
	f.Add(uint32(12), byte(0x80), false, uint32(0))
	f.Add(uint32(2000), byte(0xff), true, uint32(0))
	f.Add(uint32(0), byte(0), false, uint32(500))
	var p *packedRepo
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, pos uint32, x byte, inIdx bool, cut uint32) {
		if p == nil {
			r := newPackedRepo(t)
			p = &r
		}
		pack, idx := bytes.Clone(p.pack), bytes.Clone(p.idx)
		if inIdx {
			idx[int(pos)%len(idx)] ^= x
		} else {
			pack[int(pos)%len(pack)] ^= x
		}
		if cut > 0 {
			n := 12 + int(cut)%(len(pack)-32)
			pack = append(pack[:n:n], pack[len(pack)-20:]...)
		}
		p.readAll(t, dir, pack, idx)
	})
}

// applyDelta refuses every malformed delta.
func TestApplyDelta_Malformed(t *testing.T) {
	base := []byte("0123456789")
	for _, c := range []struct {
		name  string
		delta []byte
		want  string // "" : no error
	}{
		{"copy all", []byte{10, 10, 0x90, 10}, ""},
		{"insert", []byte{10, 3, 3, 'a', 'b', 'c'}, ""},
		{"copy and insert", []byte{10, 5, 0x91, 2, 3, 2, 'x', 'y'}, ""},
		{"empty", []byte{}, "truncated"},
		{"no target size", []byte{10}, "truncated"},
		{"size overflows", []byte{10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "truncated"},
		{"wrong base size", []byte{9, 10, 0x90, 10}, "base"},
		{"copy past the base", []byte{10, 10, 0x91, 5, 10}, "out of bounds"},
		{"copy past the target", []byte{10, 5, 0x90, 10}, "out of bounds"},
		{"copy truncated", []byte{10, 10, 0x91, 5}, "truncated"},
		{"copy of 0x10000 from a small base", []byte{10, 10, 0x80}, "out of bounds"},
		{"insert past the delta", []byte{10, 3, 5, 'a'}, "out of bounds"},
		{"insert past the target", []byte{10, 1, 2, 'a', 'b'}, "out of bounds"},
		{"reserved instruction", []byte{10, 1, 0, 'a'}, "reserved"},
		{"short result", []byte{10, 11, 0x90, 10}, "not 11"},
		{"huge target", []byte{10, 0xff, 0xff, 0xff, 0xff, 0x7f}, "claims"},
	} {
		out, err := applyDelta(base, c.delta)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %q, %v; want an error with %q", c.name, out, err, c.want)
		}
	}
}

// FuzzApplyDelta: any delta on any base is an error or exactly the
// size the delta says.
func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("0123456789"), []byte{10, 10, 0x90, 10})
	f.Add([]byte("0123456789"), []byte{10, 5, 0x91, 2, 3, 2, 'x', 'y'})
	f.Add([]byte(""), []byte{0, 0})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := applyDelta(base, delta)
		if err != nil {
			return
		}
		if _, target, _, _ := deltaSizes(delta); int64(len(out)) != target {
			t.Fatalf("%d bytes, the delta says %d", len(out), target)
		}
	})
}
