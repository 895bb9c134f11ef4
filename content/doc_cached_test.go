package content

import (
	"runtime"
	"testing"
)

// bytesPerCall is the bytes f allocates per call, over n calls.
func bytesPerCall(n int, f func()) uint64 {
	f() // anything made once
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(n)
}

// TestNewCachedDoc_Bytes: a restart keeps a decoded Doc for every
// document of the site (a million at a million files) and renders few
// of their bodies: the Doc, its lazy body and its lines are one object
// of 144 bytes, the body's lock and renders made on its first render
// (176 bytes when every body kept them), and a body reads and renders
// as before. (The front matter's holder, 48 bytes, is left out: an
// item read from the Doc replaces it, shareWith.)
func TestNewCachedDoc_Bytes(t *testing.T) {
	lines := []byte{1, 2, 3}
	src := BodyFunc(func() (string, error) { return "Some *text*\n", nil })
	var keep *Doc
	got := bytesPerCall(1000, func() {
		keep = NewCachedDoc(CachedDoc{Ext: ".md", Body: src, HasBody: true, Lines: lines, Decode: decodeTestLines})
	})
	if got > 144 {
		t.Fatalf("NewCachedDoc: %d bytes a document, want at most 144", got)
	}
	if keep.Body.Rendered() {
		t.Fatal("rendered before its first use")
	}
	if h := keep.Body.HTML(); h != "<p>Some <em>text</em></p>\n" {
		t.Fatalf("HTML %q", h)
	}
	if !keep.Body.Rendered() || keep.Body.b.out() == nil {
		t.Fatal("render not kept")
	}
	if l := keep.LazyLines(); string(l) != string(lines) {
		t.Fatalf("lines %v", l)
	}
	if l := keep.KeyLines(); l["n"] != 3 {
		t.Fatalf("key lines %v", l)
	}
}

func decodeTestLines(b []byte) map[string]int { return map[string]int{"n": len(b)} }
