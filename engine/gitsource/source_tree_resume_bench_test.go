package gitsource

import (
	"bytes"
	stdzlib "compress/zlib"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLooseTreeInflate reads the loose tree of a folder of 500k
// posts (28.5 MB, as the 1M site's content/posts), written by git at its
// default loose compression, as a push rewrites it: inflated whole by
// the inflater readInto used before (klauspost's zlib), by Go's
// compress/zlib, by readDeflated whole (klauspost's flate with its block
// ends kept), and by readDeflated resumed from the last tree's stream
// after one entry's hash changed at 1/3, 2/3 (where the bench's post is
// in the 1M site: 328,386th of 490,000) and the end of the folder.
//
//	go test -run X -bench LooseTreeInflate -benchtime 20x ./engine/gitsource/
func BenchmarkLooseTreeInflate(b *testing.B) {
	const n = 500000
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"pole", "lowland", "compact", "stove", "tundra", "river", "summit", "northern", "notes", "advanced"}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%s-%06d.md", words[i*7/n], words[rng.IntN(len(words))], i)
	}
	base := resumeTree(rng, names)
	gitDir, tc := resumeRepo(b)
	lt := tc().loose
	read := func(raw []byte) []byte {
		h := writeLooseTree(b, gitDir, raw, -1)
		z, err := os.ReadFile(filepath.Join(gitDir, "objects", h.String()[:2], h.String()[2:]))
		if err != nil {
			b.Fatal(err)
		}
		return z
	}
	z0 := read(base)
	b.Logf("tree %d bytes, stream %d bytes", len(base), len(z0))
	want := len(base)
	b.Run("klauspost-zlib", func(b *testing.B) {
		b.SetBytes(int64(want))
		for range b.N {
			if !lt.inflate(z0) {
				b.Fatal("inflate")
			}
			_, size, ok := lt.treeHead()
			out := lt.outBuf(size)
			if _, err := io.ReadFull(lt.zr, out); !ok || err != nil || size != want {
				b.Fatal(err)
			}
		}
	})
	b.Run("std-zlib", func(b *testing.B) {
		b.SetBytes(int64(want))
		for range b.N {
			zr, err := stdzlib.NewReader(bytes.NewReader(z0))
			if err != nil {
				b.Fatal(err)
			}
			out := lt.outBuf(want + 32)
			if m, _ := io.ReadFull(zr, out); m < want {
				b.Fatal(m)
			}
		}
	})
	b.Run("flate-whole", func(b *testing.B) {
		b.SetBytes(int64(want))
		for range b.N {
			if _, t, _, _, ok := lt.readDeflated(bytes.Clone(z0), nil, nil); !ok || len(t) != want {
				b.Fatal("readDeflated")
			}
		}
	})
	_, _, _, zs0, ok := lt.readDeflated(z0, nil, nil)
	if !ok {
		b.Fatal("readDeflated")
	}
	_, ends, _ := parseTree(string(base))
	for _, at := range []struct {
		name string
		i    int
	}{{"resumed-1/3", n / 3}, {"resumed-2/3", n * 2 / 3}, {"resumed-end", n - 1}} {
		next := bytes.Clone(base)
		next[ends[at.i]-3] ^= 0x42
		z1 := read(next)
		from, _ := resumePoint(z1, zs0)
		b.Logf("%s: resumes at byte %d of %d", at.name, from.out, len(next))
		b.Run(at.name, func(b *testing.B) {
			b.SetBytes(int64(want))
			for range b.N {
				_, t, _, _, ok := lt.readDeflated(z1, zs0, func(dst []byte, from int) { copy(dst, base[from:]) })
				if !ok || len(t) != want {
					b.Fatal("readDeflated")
				}
			}
		})
	}
}
