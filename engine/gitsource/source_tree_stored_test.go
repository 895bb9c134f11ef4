package gitsource

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func zlibAt(t *testing.T, data []byte, level int) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := zlib.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	// written in pieces, as git writes a loose object's header and body
	for len(data) > 0 {
		n := min(len(data), 1+rand.IntN(100000))
		w.Write(data[:n])
		data = data[n:]
	}
	w.Close()
	return b.Bytes()
}

// TestInflateStored: a stream of stored blocks gives its bytes; one with
// a compressed block, a wrong header or checksum, or cut anywhere, is
// refused (a compressed one left as it was, for the inflater).
func TestInflateStored(t *testing.T) {
	for _, n := range []int{0, 1, 65535, 65536, 300001} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rand.IntN(256))
		}
		z := zlibAt(t, data, zlib.NoCompression)
		got, ok := inflateStored(bytes.Clone(z))
		if !ok || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: ok %v, equal %v", n, ok, bytes.Equal(got, data))
		}
		// trailing bytes after the checksum are ignored
		if got, ok := inflateStored(append(bytes.Clone(z), 1, 2, 3)); !ok || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes with a tail: not read", n)
		}
		if n > 0 {
			bad := bytes.Clone(z)
			bad[len(bad)-5] ^= 1 // the last byte of the data
			if _, ok := inflateStored(bad); ok {
				t.Fatalf("%d bytes: a wrong checksum passed", n)
			}
		}
		bad := bytes.Clone(z)
		bad[1] ^= 1 // the header's check
		if _, ok := inflateStored(bad); ok {
			t.Fatalf("%d bytes: a bad header passed", n)
		}
		for _, cut := range []int{0, 1, 2, 3, 6, len(z) / 2, len(z) - 4, len(z) - 1} {
			if cut < len(z) {
				if _, ok := inflateStored(bytes.Clone(z[:cut])); ok {
					t.Fatalf("%d bytes cut at %d: read", n, cut)
				}
			}
		}
		text := bytes.Repeat([]byte("100644 a.md\x00aaaaaaaaaaaaaaaaaaaa"), n/32+1)
		comp := zlibAt(t, text, zlib.BestSpeed)
		keep := bytes.Clone(comp)
		if _, ok := inflateStored(comp); ok || !bytes.Equal(comp, keep) {
			t.Fatalf("a compressed stream: ok %v, changed %v", ok, !bytes.Equal(comp, keep))
		}
	}
}

// TestLooseTrees_StoredInPlace: a large tree git wrote uncompressed
// (core.looseCompression 0) is read into the buffer its file was read
// into: beside its entries, the read allocates about the file's size,
// not the file and a second copy of the tree, and gives the inflater's
// bytes and entries.
func TestLooseTrees_StoredInPlace(t *testing.T) {
	var raw []byte
	for i := range 20000 {
		raw = append(raw, rawEntry("100644", fmt.Sprintf("post-%06d.md", i), byte(i))...)
	}
	dir := t.TempDir()
	stored, comp := filepath.Join(dir, "stored.git"), filepath.Join(dir, "comp.git")
	srcGit(t, dir, "init", "-q", "--bare", stored)
	srcGit(t, dir, "init", "-q", "--bare", comp)
	h := hashTreeLevel(t, stored, raw, 0)
	if hashTreeLevel(t, comp, raw, 1) != h {
		t.Fatal("two hashes")
	}
	hex := h.String()
	fi, err := os.Stat(filepath.Join(stored, "objects", hex[:2], hex[2:]))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < int64(len(raw)) {
		t.Fatalf("the loose object is compressed: %d bytes for %d", fi.Size(), len(raw))
	}
	want, ok := (&looseTrees{objects: filepath.Join(comp, "objects")}).readRaw(h)
	if !ok {
		t.Fatal("the compressed tree was not read")
	}
	lt := &looseTrees{objects: filepath.Join(stored, "objects")}
	lt.readRaw(h) // the reader's own state, once
	allocs := func(f func()) uint64 {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		f()
		runtime.ReadMemStats(&b)
		return b.TotalAlloc - a.TotalAlloc
	}
	var got rawTree
	read := allocs(func() { got, ok = lt.readRaw(h) })
	parse := allocs(func() { parseTree(want.raw) })
	if !ok || got.raw != want.raw || len(got.entries) != 20000 || fmt.Sprint(got.entries) != fmt.Sprint(want.entries) || fmt.Sprint(got.ends) != fmt.Sprint(want.ends) {
		t.Fatalf("the stored tree reads otherwise than the compressed one (ok %v)", ok)
	}
	if extra := int64(read) - int64(parse); extra > fi.Size()+fi.Size()/4 {
		t.Fatalf("reading a %d-byte stored tree allocated %d bytes beside its entries; want about the file's size", fi.Size(), extra)
	}
}
