package gitsource

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio-cms/folio/content"
)

// genBlock is a block of the parse cache of n documents shaped as a
// generated site's posts and products (a title, a date, an author and a
// category that repeat, tags, an excerpt, a URL, a price, a rating), each
// with its body in its blob.
func genBlock(t testing.TB, n int) ([]byte, []*content.Doc) {
	t.Helper()
	e := &cacheEncoder{}
	var docs []*content.Doc
	for i := range n {
		var src string
		if i%2 == 0 {
			src = fmt.Sprintf("---\ntitle: \"Compact Alpine Advanced Manual Notes %d\"\ndate: 2023-06-29T00:15:%02dZ\ndraft: true\n"+
				"author: \"Jonas Berg\"\ntags: [journal, boot%d]\nfeaturedImage: https://cdn.example.com/gen/posts/%d.jpg\n"+
				"excerpt: \"Compass Diary Stove Handbook Tent Lantern Stove Review %d\"\ncategory: events\n---\nBody %d\n", i, i%60, i%5, i, i, i)
		} else {
			src = fmt.Sprintf("---\ntitle: \"Stove Trail Modular Journal %d\"\ndate: 2023-04-29T07:16:00Z\nprice: %d\nrating: 4.%d\n"+
				"sku: GEN-%06d\nweightGrams: %d\ncolors: [orange, blue]\n---\nBody %d\n", i, 300+i, i%10, i, 500+i, i)
		}
		doc, err := content.Parse("content/posts/a.md", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
		h := plumbing.Hash{byte(i), byte(i >> 8), 9}
		e.B = append(e.B, h[:]...)
		e.Str(".md")
		if err := e.doc(doc, len(src)-len(fmt.Sprint("Body ", i, "\n"))); err != nil {
			t.Fatal(err)
		}
	}
	return e.B, docs
}

// TestSource_CacheDecodeObjects: a restart keeps every document it
// decodes, and the collector marks each of their objects in every
// collection of the start; a decoded document is made of few objects
// (its Doc, body and lines one object, its front matter's list, its
// values' boxes cut from chunks), and reads as the parsed one.
func TestSource_CacheDecodeObjects(t *testing.T) {
	const n = 256
	block, parsed := genBlock(t, n)
	s := &Source{}
	decode := func() ([]docKey, []docEntry) {
		d := &cacheDecoder{in: newInterner(), lines: newLineKeys(), lineMemo: map[string]int{}}
		d.B = block
		keys, entries := s.decodeBlock(d, n)
		if d.Err != nil || len(keys) != n {
			t.Fatalf("decode: %v, %d documents", d.Err, len(keys))
		}
		return keys, entries
	}
	_, entries := decode()
	for i, e := range entries {
		got, err1 := json.Marshal(e.doc.Meta())
		want, err2 := json.Marshal(parsed[i].Meta())
		if err1 != nil || err2 != nil || string(got) != string(want) {
			t.Fatalf("document %d: %s (%v), want %s (%v)", i, got, err1, want, err2)
		}
		if !reflect.DeepEqual(e.doc.KeyLines(), parsed[i].KeyLines()) || e.doc.HasBody != parsed[i].HasBody ||
			e.doc.Line != parsed[i].Line || !e.doc.Body.Lazy() || e.bodyOff < 0 {
			t.Fatalf("document %d: lines %v, want %v; body lazy %v at %d", i, e.doc.KeyLines(), parsed[i].KeyLines(), e.doc.Body.Lazy(), e.bodyOff)
		}
	}
	// The lists decoded are new to an append (their capacity their
	// length), and empty ones are lists, not nil.
	tags := entries[0].doc.Get("tags").([]any)
	if len(tags) != cap(tags) {
		t.Fatalf("tags %v: capacity %d, want %d", tags, cap(tags), len(tags))
	}
	allocs := testing.AllocsPerRun(5, func() { decode() })
	perDoc := allocs / n
	t.Logf("%.0f objects for %d documents: %.2f a document", allocs, n, perDoc)
	// 13 a document before the boxes were cut from chunks and the Doc,
	// its body and its lines made as one object.
	if perDoc > 3.5 {
		t.Fatalf("%.2f objects a decoded document, want at most 3.5", perDoc)
	}
}

// TestBodyInBlobSize: a restart keeps a body's reader for every decoded
// document with its body in the blob (a million at a million files), in
// one slice a block: 32 bytes each (40 when the offset was an int).
// TestSource_CacheDecodeObjects and TestEngine_RestartMatchesCold read
// the bodies through it.
func TestBodyInBlobSize(t *testing.T) {
	if s := unsafe.Sizeof(bodyInBlob{}); s > 32 {
		t.Fatalf("bodyInBlob is %d bytes, want at most 32", s)
	}
}
