package gitsource

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio-cms/folio/content"
)

// TestSource_CacheLinesCompact: a restart keeps the lines of keys of the
// documents it read from the cache file as indexes in one table of their
// keys (not each document's keys written out), they answer as the parsed
// ones did, and the cache is written back byte for byte as it was read.
func TestSource_CacheLinesCompact(t *testing.T) {
	const key, site = "key", "/site.git"
	// One top-level key (a map's order is not kept; a list's is), and
	// the lines of its entries.
	src := "---\nfeaturedImage:\n  - a\n  - b\n  - c\n---\nbody\n"
	parsed, err := content.Parse("content/posts/a.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	docs := map[docKey]parsedDoc{{blob: plumbing.Hash{1}, ext: ".md"}: {doc: parsed, bodyOff: -1}}
	data, _ := encodeCache(key, site, docs, nil)
	name := filepath.Join(t.TempDir(), "parsed.cache")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Source{cfg: SourceConfig{CacheKey: key}, log: slog.New(slog.DiscardHandler), gitDir: site, cache: name, docs: newDocCache()}
	if err := s.loadCache(); err != nil {
		t.Fatal(err)
	}
	var got *content.Doc
	for _, e := range s.docs.docs.all() {
		got = e.doc
	}
	enc := got.LazyLines()
	if enc == nil || len(enc) > 2*len(parsed.KeyLines())+1 || bytes.Contains(enc, []byte("featuredImage")) {
		t.Fatalf("the lines are kept as %q (%d bytes): want an index and a line per key", enc, len(enc))
	}
	if !reflect.DeepEqual(got.KeyLines(), parsed.KeyLines()) {
		t.Fatalf("KeyLines = %v, want %v", got.KeyLines(), parsed.KeyLines())
	}
	again, skipped := encodeCacheLines(key, site, map[docKey]parsedDoc{{blob: plumbing.Hash{1}, ext: ".md"}: {doc: got, bodyOff: -1}}, nil, s.lineKeys)
	if skipped != 0 || !bytes.Equal(again, data) {
		t.Fatalf("written back (%d skipped):\n%q\nwant as read\n%q", skipped, again, data)
	}
}
