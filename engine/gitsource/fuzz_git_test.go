package gitsource

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio-cms/folio/content"
)

func zlibBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// packEntry is a pack entry header for an object of type typ and size,
// followed by zlib data.
func packEntry(typ byte, size int, z []byte) []byte {
	b := []byte{typ<<4 | byte(size&15)}
	size >>= 4
	for size > 0 {
		b[len(b)-1] |= 0x80
		b = append(b, byte(size&0x7f))
		size >>= 7
	}
	return append(b, z...)
}

// FuzzPackEntry feeds the reader of whole blobs in a pack any bytes at an
// entry's offset (a corrupt or truncated pack): it declines or returns a
// blob of the size the header claims, never more than content.MaxFileSize.
func FuzzPackEntry(f *testing.F) {
	body := []byte("---\ntitle: x\n---\nbody\n")
	f.Add(packEntry(packBlobType, len(body), zlibBytes(body)))
	f.Add(packEntry(packBlobType, len(body)+1, zlibBytes(body)))
	f.Add(packEntry(packBlobType, 0, zlibBytes(nil)))
	f.Add(packEntry(packBlobType, 1<<40, zlibBytes(body)))
	f.Add(packEntry(6, 10, zlibBytes(body))) // an ofs-delta
	f.Add(append(packEntry(packBlobType, len(body), zlibBytes(body)), "trailing"...))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{})
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, entry []byte) {
		n++
		name := filepath.Join(dir, fmt.Sprintf("pack-%d", n))
		if err := os.WriteFile(name, entry, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(name)
		file, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		r := &packReader{}
		defer r.Close()
		data, size, ok := r.readAt(file, 0)
		if !ok {
			return
		}
		if data == nil && size <= content.MaxFileSize || data != nil && int64(len(data)) != size {
			t.Fatalf("readAt = %d bytes, size %d", len(data), size)
		}
		// A second read with the reused zlib reader and buffer agrees.
		data2, size2, ok2 := r.readAt(file, 0)
		if !ok2 || size2 != size || !bytes.Equal(data, data2) {
			t.Fatalf("second read differs: %d/%d %v", size, size2, ok2)
		}
	})
}

// FuzzLooseObject puts any bytes (or the zlib of any bytes) in a loose
// object file and reads it as a document's blob: an error or the bytes,
// never a panic or more than content.MaxFileSize.
func FuzzLooseObject(f *testing.F) {
	for _, s := range []string{"blob 4\x00abcd", "blob 5\x00abcd", "blob 0\x00", "blob -1\x00", "blob 99999999999999\x00x",
		"tree 4\x00abcd", "blob\x00", "blob 4abcd", "blob 18446744073709551617\x00", ""} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	h := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	f.Fuzz(func(t *testing.T, raw []byte, compress bool) {
		gitDir := t.TempDir()
		obj := filepath.Join(gitDir, "objects", h.String()[:2], h.String()[2:])
		if err := os.MkdirAll(filepath.Dir(obj), 0o755); err != nil {
			t.Fatal(err)
		}
		data := raw
		if compress {
			data = zlibBytes(raw)
		}
		if err := os.WriteFile(obj, data, 0o444); err != nil {
			t.Fatal(err)
		}
		r := newBlobReader(gitDir)
		defer r.close()
		got, err := r.read(h)
		if err == nil && len(got) > content.MaxFileSize {
			t.Fatalf("read %d bytes", len(got))
		}
	})
}

// FuzzParseCache decodes any bytes as the parse cache's contents (with a
// valid magic and checksum, so that the decoder sees them): it fails with
// errCacheCorrupt or loads documents, and never panics or allocates by
// what a corrupt length claims.
func FuzzParseCache(f *testing.F) {
	const key, site = "key", "/site.git"
	var blob plumbing.Hash
	blob[0] = 1
	doc, err := content.Parse("content/posts/a.md", []byte("---\ntitle: A\ntags: [x, y]\nn: 1.5\nm: {a: true}\n---\nBody"))
	if err != nil {
		f.Fatal(err)
	}
	good, _ := encodeCache(key, site, map[docKey]parsedDoc{
		{blob: blob, ext: ".md"}:               {doc: doc, bodyOff: 20},
		{blob: plumbing.Hash{2}, ext: ".yaml"}: {doc: doc, bodyOff: -1},
	}, []pathTimes{{commit: blob, times: newTimeMap(map[string]time.Time{"content/posts/a.md": time.Unix(1e9, 0).UTC()})}})
	good = good[len(cacheMagic) : len(good)-4]
	f.Add(good)
	for _, n := range []int{0, 1, 5, len(good) / 2, len(good) - 1} {
		f.Add(good[:n])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		b := append([]byte(cacheMagic), body...)
		b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
		name := filepath.Join(t.TempDir(), "parsed.cache")
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s := &Source{cfg: SourceConfig{CacheKey: key}, log: slog.New(slog.DiscardHandler), gitDir: site, cache: name, docs: newDocCache()}
		if err := s.loadCache(); err != nil && err != errCacheCorrupt {
			t.Fatalf("loadCache: %v", err)
		}
		for _, e := range s.docs.docs.all() {
			if e.doc == nil || e.bodyOff > content.MaxFileSize {
				t.Fatalf("loaded a document %+v", e)
			}
		}
	})
}

// TestNegativeSizeLooseObject: a loose object whose header claims a
// negative size ("blob -1", found by FuzzLooseObject) made Load and body
// reads panic in make; now its file is a problem (left out) and the read
// is an error.
func TestNegativeSizeLooseObject(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	commit := r.Commit(time.Unix(1e9, 0), map[string]string{"content/posts/a.md": "---\ntitle: A\n---\nBody\n"})
	blob := plumbing.NewHash(srcGit(t, r.Dir, "rev-parse", commit+":content/posts/a.md"))
	obj := filepath.Join(r.Dir, ".git", "objects", blob.String()[:2], blob.String()[2:])
	os.Chmod(obj, 0o644)
	if err := os.WriteFile(obj, zlibBytes([]byte("blob -1\x00")), 0o444); err != nil {
		t.Fatal(err)
	}
	src := openSrc(t, r.Site(), t.TempDir(), &srcTestParser{})
	// The file is a problem, left out; the commit loads (issue 23,
	// finding 6: a fresh box starts).
	tree, err := src.Load(context.Background(), commit)
	if err != nil {
		t.Fatalf("Load of a commit with a corrupt object: %v", err)
	}
	if f := srcFile(t, tree, "content/posts/a.md"); f.Err == nil || !strings.Contains(f.Err.Error(), "corrupt object") {
		t.Fatalf("the corrupt file's error: %v", f.Err)
	}
	if _, err := newBlobReader(filepath.Join(r.Dir, ".git")).read(blob); err == nil {
		t.Fatal("reading the corrupt blob: no error")
	}
}
