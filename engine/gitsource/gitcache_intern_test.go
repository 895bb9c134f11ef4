package gitsource

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio-cms/folio/content"
)

// TestSource_CacheInterns: a restart decodes the front-matter keys and
// the short string values that repeat across documents once, and the
// documents share them (a string, and its box, per key and value of
// every document cost about a quarter of the parse cache's documents at
// ready); long values and the documents themselves stay as they were.
func TestSource_CacheInterns(t *testing.T) {
	const key, site = "key", "/site.git"
	long := "an excerpt long enough to be taken for unique, not looked up"
	docs := map[docKey]parsedDoc{}
	for i := range 3 {
		doc, err := content.Parse("content/posts/a.md", []byte("---\ntitle: T"+string(rune('a'+i))+
			"\nauthor: Jo Berg\ntags: [western, diary]\nexcerpt: "+long+"\n---\nBody"))
		if err != nil {
			t.Fatal(err)
		}
		docs[docKey{blob: plumbing.Hash{byte(i + 1)}, ext: ".md"}] = parsedDoc{doc: doc, bodyOff: -1}
	}
	data, skipped := encodeCache(key, site, docs, nil)
	if skipped != 0 {
		t.Fatalf("%d documents not encoded", skipped)
	}
	name := filepath.Join(t.TempDir(), "parsed.cache")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Source{cfg: SourceConfig{CacheKey: key}, log: slog.New(slog.DiscardHandler), gitDir: site, cache: name, docs: newDocCache()}
	if err := s.loadCache(); err != nil {
		t.Fatal(err)
	}
	if s.docs.docs.len() != 3 {
		t.Fatalf("%d documents loaded, want 3", s.docs.docs.len())
	}
	box := func(v any) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1] }
	keyOf := func(m map[string]any, k string) *byte {
		for mk := range m {
			if mk == k {
				return unsafe.StringData(mk)
			}
		}
		t.Fatalf("no key %q in %v", k, m)
		return nil
	}
	var first *content.Doc
	var firstExt string
	for k, e := range s.docs.docs.all() {
		m := e.doc.Meta()
		if first == nil {
			first, firstExt = e.doc, k.ext
			continue
		}
		f := first.Meta()
		if unsafe.StringData(k.ext) != unsafe.StringData(firstExt) {
			t.Error("the extension is a string per document")
		}
		for _, name := range []string{"title", "author", "tags", "excerpt"} {
			if keyOf(m, name) != keyOf(f, name) {
				t.Errorf("key %q is a string per document", name)
			}
		}
		if box(m["author"]) != box(f["author"]) {
			t.Error("the value of author is a string (and a box) per document")
		}
		if tags := m["tags"].([]any); box(tags[0]) != box(f["tags"].([]any)[0]) {
			t.Error("a tag is a string per document")
		}
		if m["title"] == f["title"] {
			t.Fatalf("two documents' titles read the same: %v", m["title"])
		}
		if m["excerpt"] != long || unsafe.StringData(m["excerpt"].(string)) == unsafe.StringData(f["excerpt"].(string)) {
			t.Errorf("a long value: %q, shared (not looked up) %v", m["excerpt"], unsafe.StringData(m["excerpt"].(string)) == unsafe.StringData(f["excerpt"].(string)))
		}
	}
}

// TestSource_CacheLoadAllocs: a restart makes the document map for the
// number of documents the cache file holds, and their entries at once,
// not one by one through the map's growth.
func TestSource_CacheLoadAllocs(t *testing.T) {
	const key, site, n = "key", "/site.git", 2000
	doc, err := content.Parse("content/posts/a.md", []byte("---\ntitle: T\n---\nBody"))
	if err != nil {
		t.Fatal(err)
	}
	docs := map[docKey]parsedDoc{}
	for i := range n {
		docs[docKey{blob: plumbing.Hash{byte(i), byte(i >> 8), 1}, ext: ".md"}] = parsedDoc{doc: doc, bodyOff: 20}
	}
	data, _ := encodeCache(key, site, docs, nil)
	name := filepath.Join(t.TempDir(), "parsed.cache")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var s *Source
	per := testing.AllocsPerRun(3, func() {
		s = &Source{cfg: SourceConfig{CacheKey: key}, log: slog.New(slog.DiscardHandler), gitDir: site, cache: name, docs: newDocCache()}
		if err := s.loadCache(); err != nil {
			t.Fatal(err)
		}
	}) / n
	if s.docs.docs.len() != n {
		t.Fatalf("%d documents loaded, want %d", s.docs.docs.len(), n)
	}
	if per > 7.5 { // 8 with an entry made per document and the map grown
		t.Fatalf("%.2f allocations per document, want at most 7.5", per)
	}
}

// TestSource_CacheStringsInBlocks: the strings a restart decodes and
// does not find in its interner (a title, an excerpt, a path of the
// recent times) are cut from shared blocks, not an allocation each, and
// read as they were written.
func TestSource_CacheStringsInBlocks(t *testing.T) {
	const key, site, n = "key", "/site.git", 2000
	docs := map[docKey]parsedDoc{}
	at := map[string]time.Time{}
	when := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	for i := range n {
		p := fmt.Sprintf("content/posts/a-post-with-a-long-enough-name-%04d.md", i)
		doc, err := content.Parse(p, fmt.Appendf(nil, "---\ntitle: T%d\nexcerpt: an excerpt long enough to be taken for unique, %d\n---\nBody", i, i))
		if err != nil {
			t.Fatal(err)
		}
		docs[docKey{blob: plumbing.Hash{byte(i), byte(i >> 8), 1}, ext: ".md"}] = parsedDoc{doc: doc, bodyOff: -1}
		at[p] = when.Add(time.Duration(i) * time.Second)
	}
	times := []pathTimes{{commit: plumbing.Hash{9}, times: newTimeMap(at)}}
	data, skipped := encodeCache(key, site, docs, times)
	if skipped != 0 {
		t.Fatalf("%d documents not encoded", skipped)
	}
	name := filepath.Join(t.TempDir(), "parsed.cache")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var s *Source
	per := testing.AllocsPerRun(3, func() {
		s = &Source{cfg: SourceConfig{CacheKey: key}, log: slog.New(slog.DiscardHandler), gitDir: site, cache: name, docs: newDocCache()}
		if err := s.loadCache(); err != nil {
			t.Fatal(err)
		}
	}) / n
	if s.docs.docs.len() != n {
		t.Fatalf("%d documents loaded, want %d", s.docs.docs.len(), n)
	}
	for k, e := range s.docs.docs.all() {
		want := docs[k].doc.Meta()
		if got := e.doc.Meta(); !reflect.DeepEqual(got, want) {
			t.Fatalf("document %v reads %v, want %v", k, got, want)
		}
	}
	if len(s.docs.times) != 1 || s.docs.times[0].times.len() != n {
		t.Fatalf("recent times: %d", len(s.docs.times))
	}
	for p, want := range at {
		if got := timeOf(s.docs.times[0].times, p); !got.Equal(want) {
			t.Fatalf("time of %s: %v, want %v", p, got, want)
		}
	}
	if per > 10 { // 12 with a string each for the title, the excerpt and the path
		t.Fatalf("%.2f allocations per document, want at most 10", per)
	}
}
