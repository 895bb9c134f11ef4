package gitsource

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine/internal/atomicfile"
)

// chunkWriter records the size of each write.
type chunkWriter struct {
	bytes.Buffer
	writes []int
	failAt int // fail the write of this index; -1: none
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	if len(w.writes) == w.failAt {
		return 0, errors.New("disk full")
	}
	w.writes = append(w.writes, len(p))
	return w.Buffer.Write(p)
}

// TestSource_CacheWrittenInChunks: the parse cache is written as it is
// encoded, a chunk at a time, not held whole (367 MB at a million files
// while a first start reaches ready), and the file is the same bytes and
// reads back; a write that fails leaves the old file.
func TestSource_CacheWrittenInChunks(t *testing.T) {
	const key, site = "key", "/site.git"
	var docs []keyedDoc
	for i := range 300 {
		doc, err := content.Parse("content/posts/a.md", fmt.Appendf(nil, "---\ntitle: Post %d\ntags: [a, b]\n---\nBody %d\n", i, i))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, keyedDoc{docKey{blob: plumbing.Hash{byte(i), byte(i >> 8), 1}, ext: ".md"}, parsedDoc{doc: doc, bodyOff: -1}})
	}
	var whole bytes.Buffer
	if _, err := writeCache(&whole, 1<<30, key, site, docs, nil, nil); err != nil {
		t.Fatal(err)
	}
	w := &chunkWriter{failAt: -1}
	if _, err := writeCache(w, 1024, key, site, docs, nil, nil); err != nil {
		t.Fatal(err)
	}
	if w.Len() != whole.Len() { // the same bytes but for the order of each map's keys
		t.Fatalf("the file written in chunks is %d bytes, written whole %d", w.Len(), whole.Len())
	}
	if len(w.writes) < 10 {
		t.Fatalf("%d writes of %d bytes: want it written as it is encoded", len(w.writes), whole.Len())
	}
	for _, n := range w.writes {
		if n > 1024+256 {
			t.Fatalf("a write of %d bytes: want about a chunk (1024) at a time", n)
		}
	}
	name := filepath.Join(t.TempDir(), "parsed.cache")
	if err := os.WriteFile(name, w.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	kept := w.Bytes()
	s := &Source{cfg: SourceConfig{CacheKey: key}, log: slog.New(slog.DiscardHandler), gitDir: site, cache: name, docs: newDocCache()}
	if err := s.loadCache(); err != nil || s.docs.docs.len() != len(docs) {
		t.Fatalf("read back: %d documents, %v; want %d", s.docs.docs.len(), err, len(docs))
	}
	// A failed write keeps the file that was there.
	err := atomicfile.WriteFunc(name, func(wr io.Writer) error {
		_, err := writeCache(&chunkWriter{failAt: 3}, 1024, key, site, docs, nil, nil)
		return err
	})
	if err == nil {
		t.Fatal("a failed write succeeded")
	}
	if got, _ := os.ReadFile(name); !bytes.Equal(got, kept) {
		t.Fatal("a failed write changed the file")
	}
}
