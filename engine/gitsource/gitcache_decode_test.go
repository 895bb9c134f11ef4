package gitsource

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio-cms/folio/content"
)

// blockedCache is the cache file of n documents with keys of their own
// (so that the decoders of the blocks add keys to the shared table of
// lines at the same time), and those documents.
func blockedCache(t *testing.T, n int) ([]byte, map[docKey]parsedDoc) {
	t.Helper()
	docs := map[docKey]parsedDoc{}
	for i := range n {
		src := fmt.Sprintf("---\ntitle: Post %d\ntags: [a, t%d]\nk%d: x\nnested:\n  n%d: [1, 2]\n---\nBody %d\n", i, i%7, i%500, i%300, i)
		doc, err := content.Parse("content/posts/a.md", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		docs[docKey{blob: plumbing.Hash{byte(i), byte(i >> 8), byte(i >> 16), 7}, ext: ".md"}] = parsedDoc{doc: doc, bodyOff: -1}
	}
	data, skipped := encodeCache("key", "/site.git", docs, nil)
	if skipped != 0 {
		t.Fatalf("%d documents not encoded", skipped)
	}
	return data, docs
}

// cacheBlocks are the blocks of documents of a cache file (its body after
// the key, the site and the count).
func cacheBlocks(t *testing.T, data []byte) (starts []int) {
	t.Helper()
	d := newCacheDecoder(data[len(cacheMagic) : len(data)-4])
	d.Str()
	d.Str()
	d.Uvarint()
	for d.Err == nil && d.Byte1() == 2 {
		n := d.Uvarint()
		d.Uvarint() // its number of documents
		starts = append(starts, len(data)-4-len(d.B))
		d.Bytes(n)
	}
	if d.Err != nil {
		t.Fatal(d.Err)
	}
	return starts
}

// TestSource_CacheReadInBlocks: the parse cache holds its documents in
// blocks, decoded on every core at a restart into the documents that
// were written, their lines of keys in one table (which the decoders of
// the blocks fill at once) answering as the parsed ones did.
func TestSource_CacheReadInBlocks(t *testing.T) {
	data, docs := blockedCache(t, 6000)
	if n := len(cacheBlocks(t, data)); n < 3 {
		t.Fatalf("%d blocks of documents in a %d-byte cache: want one per %d bytes", n, len(data), cacheBlock)
	}
	name := filepath.Join(t.TempDir(), "parsed.cache")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Source{cfg: SourceConfig{CacheKey: "key"}, log: slog.New(slog.DiscardHandler), gitDir: "/site.git", cache: name, docs: newDocCache()}
	if err := s.loadCache(); err != nil {
		t.Fatal(err)
	}
	if s.docs.docs.len() != len(docs) {
		t.Fatalf("%d documents read, want %d", s.docs.docs.len(), len(docs))
	}
	for k, want := range docs {
		e := s.docs.docs.get(k)
		if e == nil {
			t.Fatalf("document %x not read", k.blob[:4])
		}
		if !reflect.DeepEqual(e.doc.Meta(), want.doc.Meta()) || !reflect.DeepEqual(e.doc.KeyLines(), want.doc.KeyLines()) {
			t.Fatalf("document %x read as %v %v, want %v %v", k.blob[:4], e.doc.Meta(), e.doc.KeyLines(), want.doc.Meta(), want.doc.KeyLines())
		}
	}
}

// TestSource_CacheCorruptBlockIgnored: a block that does not decode (its
// checksum right: written so) makes the whole file ignored, not a part
// of it read.
func TestSource_CacheCorruptBlockIgnored(t *testing.T) {
	data, _ := blockedCache(t, 6000)
	starts := cacheBlocks(t, data)
	// the last block's first document: an unknown kind of body
	// after its key and an empty front matter
	at := starts[len(starts)-1] + 20 + 1 + len(".md")
	data[at], data[at+1] = 0, 9
	binary.LittleEndian.PutUint32(data[len(data)-4:], crc32.ChecksumIEEE(data[:len(data)-4]))
	name := filepath.Join(t.TempDir(), "parsed.cache")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Source{cfg: SourceConfig{CacheKey: "key"}, log: slog.New(slog.DiscardHandler), gitDir: "/site.git", cache: name, docs: newDocCache()}
	if err := s.loadCache(); err != errCacheCorrupt || s.docs.docs.len() != 0 {
		t.Fatalf("a corrupt block: %v, %d documents read; want %v and none", err, s.docs.docs.len(), errCacheCorrupt)
	}
}

// TestSource_OpenReadsCacheInBackground: OpenSource returns before the
// parse cache is read (the first Load walks the trees meanwhile), and
// what uses the documents waits for it: here a cache file that is a
// pipe no one writes yet.
func TestSource_OpenReadsCacheInBackground(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{"content/posts/a.md": "---\ntitle: A\n---\nbody\n"})
	r.Push(false)
	cacheDir := t.TempDir()
	probe, err := OpenSource(t.Context(), SourceConfig{Site: r.Site(), CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	name := probe.cache
	probe.Close()
	os.Remove(name)
	if err := syscall.Mkfifo(name, 0o600); err != nil {
		t.Skip("no named pipe:", err)
	}
	opened := make(chan *Source, 1)
	go func() {
		s, err := OpenSource(t.Context(), SourceConfig{Site: r.Site(), CacheDir: cacheDir})
		if err != nil {
			t.Error(err)
		}
		opened <- s
	}()
	var s *Source
	select {
	case s = <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("OpenSource waits for the cache file to be read")
	}
	stats := make(chan SourceStats, 1)
	go func() { stats <- s.Stats() }()
	select {
	case <-stats:
		t.Fatal("the document cache answered before its file was read")
	case <-time.After(200 * time.Millisecond):
	}
	w, err := os.OpenFile(name, os.O_WRONLY, 0) // the reader opens, sees no data
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	<-stats
	head, err := s.Resolve("main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(t.Context(), head); err != nil {
		t.Fatal(err)
	}
	os.Remove(name) // Close writes a cache file again
	s.Close()
}

// TestSource_CacheChecksumCheckedAfterBlocks: the blocks are decoded as
// they are read, before the checksum at the end of the file can be
// checked; a file whose bytes do not match it (here one letter of a
// title, which decodes) is still ignored whole.
func TestSource_CacheChecksumCheckedAfterBlocks(t *testing.T) {
	data, _ := blockedCache(t, 6000)
	at := bytes.Index(data, []byte("Post 4321"))
	if at < 0 {
		t.Fatal("no title to change")
	}
	data[at] = 'X'
	name := filepath.Join(t.TempDir(), "parsed.cache")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Source{cfg: SourceConfig{CacheKey: "key"}, log: slog.New(slog.DiscardHandler), gitDir: "/site.git", cache: name, docs: newDocCache()}
	if err := s.loadCache(); err != errCacheCorrupt || s.docs.docs.len() != 0 {
		t.Fatalf("a changed byte: %v, %d documents read; want %v and none", err, s.docs.docs.len(), errCacheCorrupt)
	}
}

// TestSource_CacheBlockReusesBytes: a block is read into the bytes of
// the one decoded before when they can hold it, and the blocks read so
// decode to the same documents (TestSource_CacheReadInBlocks reads 3+
// blocks on fewer workers).
func TestSource_CacheBlockReusesBytes(t *testing.T) {
	data, _ := blockedCache(t, 6000)
	name := filepath.Join(t.TempDir(), "parsed.cache")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := newCacheReader(f)
	if err != nil {
		t.Fatal(err)
	}
	r.str()
	r.str()
	r.uvarint()
	first, ok, err := r.block(nil)
	if err != nil || !ok {
		t.Fatalf("first block: %v, %v", ok, err)
	}
	if cap(first.data) <= len(first.data) {
		t.Fatalf("a new block's bytes: %d of %d, want room for a larger next block", len(first.data), cap(first.data))
	}
	kept := slices.Clone(first.data)
	second, ok, err := r.block(first.data)
	if err != nil || !ok {
		t.Fatalf("second block: %v, %v", ok, err)
	}
	if len(second.data) > cap(first.data) {
		t.Skipf("a second block of %d bytes, over the first's %d", len(second.data), cap(first.data))
	}
	if &second.data[0] != &first.data[0] {
		t.Fatal("the second block was not read into the first one's bytes")
	}
	if bytes.Equal(second.data, kept) {
		t.Fatal("the second block reads as the first")
	}
	third, _, err := r.block(make([]byte, 0, 10)) // too small: new bytes
	if err != nil || len(third.data) > 0 && cap(third.data) == 10 {
		t.Fatalf("third block into 10 bytes: %d of %d, %v", len(third.data), cap(third.data), err)
	}
}
