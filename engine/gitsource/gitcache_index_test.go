package gitsource

import (
	"runtime"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestDocIndex: the parse cache's index finds each document by blob and
// extension (one blob under two extensions is two documents), iterates
// and deletes them, and keeps 32 bytes a slot, not a docKey's 48 with its
// extension as a string: the bytes an index of 8000 documents keeps per
// document (its map's slack included).
func TestDocIndex(t *testing.T) {
	const n = 8000
	entries := make([]docEntry, 2*n)
	key := func(i int) docKey {
		return docKey{blob: plumbing.Hash{byte(i), byte(i >> 8), 7}, ext: []string{".md", ".yaml"}[i/n]}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	x := newDocIndex(n)
	for i := range n {
		x.set(key(i), &entries[i])
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
	t.Logf("%.0f bytes per document", kept)
	if kept > 85 {
		t.Fatalf("the index keeps %.0f bytes per document, want at most 85 (110 with a docKey each)", kept)
	}
	for i := n; i < 2*n; i++ { // the same blobs, another extension
		x.set(key(i), &entries[i])
	}
	if x.len() != 2*n {
		t.Fatalf("%d documents, want %d", x.len(), 2*n)
	}
	for i := range 2 * n {
		if e := x.get(key(i)); e != &entries[i] {
			t.Fatalf("document %d: %p, want %p", i, e, &entries[i])
		}
	}
	if e := x.get(docKey{blob: key(0).blob, ext: ".json"}); e != nil {
		t.Fatal("a document under an extension the index has none of")
	}
	seen := 0
	for k, e := range x.all() {
		if x.get(k) != e {
			t.Fatalf("all: %v is not its entry", k)
		}
		seen++
	}
	for i := range entries {
		entries[i].used = uint64(i % 2)
	}
	if !x.deleteIf(func(e *docEntry) bool { return e.used == 1 }) || seen != 2*n || x.len() != n {
		t.Fatalf("%d seen, %d left", seen, x.len())
	}
	for i := range 2 * n {
		if e := x.get(key(i)); (e != nil) != (i%2 == 0) {
			t.Fatalf("document %d after the sweep: %v", i, e)
		}
	}
	var none *docIndex
	if none.len() != 0 || none.get(key(0)) != nil {
		t.Fatal("a nil index holds something")
	}
	runtime.KeepAlive(x)
}
