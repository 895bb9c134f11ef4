package gitsource

import (
	"testing"

	"github.com/folio-cms/folio/content"
)

// TestSource_CacheCodecRefHint: the parse cache keeps what Parse found
// of a document's strings for the reference checker (a restart does not
// read them again), and a hint no Parse gives fails the decode.
func TestSource_CacheCodecRefHint(t *testing.T) {
	for _, fm := range []string{"title: A\n", "title: A\nsee: posts/b\n", "title: A\nimage: https://x.test/a.jpg\n"} {
		doc, err := content.Parse("content/posts/a.md", []byte("---\n"+fm+"---\nBody\n"))
		if err != nil {
			t.Fatal(err)
		}
		if doc.RefHint() == 0 {
			t.Fatalf("%q: Parse gave no hint", fm)
		}
		e := &cacheEncoder{}
		if err := e.doc(doc, -1); err != nil {
			t.Fatal(err)
		}
		d := newCacheDecoder(e.B)
		got, _ := d.doc(".md", nil)
		if d.Err != nil || got.RefHint() != doc.RefHint() {
			t.Fatalf("%q: decoded hint %b (err %v), want %b", fm, got.RefHint(), d.Err, doc.RefHint())
		}
	}
	bad := content.NewDoc(map[string]any{"title": "A"})
	bad.SetRefHint(content.RefHint(200))
	e := &cacheEncoder{}
	if err := e.doc(bad, -1); err != nil {
		t.Fatal(err)
	}
	d := newCacheDecoder(e.B)
	if d.doc(".md", nil); d.Err == nil {
		t.Fatal("a hint of 200 decoded")
	}
}
