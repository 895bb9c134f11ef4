package content

import (
	"testing"
	"unsafe"
)

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
	n := testing.AllocsPerRun(100, func() {
		keep = NewCachedDoc(CachedDoc{Ext: ".md", Body: src, HasBody: true, Lines: lines, Decode: decodeTestLines})
	})
	if s := unsafe.Sizeof(cachedDoc{}); n != 1 || s > 144 {
		t.Fatalf("NewCachedDoc: %v objects of %d bytes a document, want one of at most 144", n, s)
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

// TestSharedFrontMatter_Bytes: the keys an item took that its Doc keeps
// beside the item's Data (shareWith), one object kept for every item a
// restart reads: 96 bytes for the usual two (title, date), 112 when
// the frontMatter held its keys as a slice.
func TestSharedFrontMatter_Bytes(t *testing.T) {
	var keep *frontMatter
	n := testing.AllocsPerRun(100, func() { keep, _ = newSharedFrontMatter(2) })
	if s := unsafe.Sizeof(frontMatter{}) + 2*unsafe.Sizeof(MetaField{}); n != 1 || s > 96 {
		t.Fatalf("%v objects of %d bytes for two keys, want one of at most 96", n, s)
	}
	_ = keep
	d := NewDocFields([]MetaField{{"title", "A"}, {"date", "2020-01-02"}, {"author", "Jo"}})
	d.shareWith(map[string]any{"author": "Jo"}, false)
	if v, ok := d.Value("date"); !ok || v != "2020-01-02" || d.Len() != 3 || len(d.Meta()) != 3 {
		t.Fatalf("shared: %v %v, %d keys, meta %v", v, ok, d.Len(), d.Meta())
	}
	if !d.fm.Load().shared {
		t.Fatal("not shared")
	}
}
