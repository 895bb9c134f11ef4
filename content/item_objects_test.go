package content

import (
	"encoding/json"
	"testing"
	"unsafe"
)

// TestReadItemUnitObjects: a restart reads every document of the parse
// cache into an item and keeps it, and the collector marks each object
// of it in every collection of the start: reading a decoded document
// into its unit makes few objects (the unit and its Item one, the body
// in Data and its settings one, the front matter kept beside Data one
// with its keys) and serves the same item.
func TestReadItemUnitObjects(t *testing.T) {
	doc, err := Parse("content/posts/a.md", []byte("---\ntitle: Classic Stove\ndate: 2019-02-08T19:18:00Z\ndraft: true\nauthor: Jo Berg\ntags: [western, diary]\nfeaturedImage: https://cdn.example.com/a.jpg\ncategory: news\n---\nBody\n"))
	if err != nil {
		t.Fatal(err)
	}
	var fields []MetaField
	for k, v := range doc.Fields() {
		fields = append(fields, MetaField{k, v})
	}
	decoded := func() File { // a Doc as the parse cache decodes it
		d := NewDocFields(fields)
		d.Body, d.HasBody = doc.Body, true
		return File{Path: "content/posts/a.md", Doc: d}
	}
	u := readItemUnit(decoded(), "posts", "a.md", readEnv{})
	if u.err != nil {
		t.Fatal(u.err)
	}
	want, err := readItem(File{Path: "content/posts/a.md", Doc: doc}, "posts", "a.md", readEnv{})
	if err != nil {
		t.Fatal(err)
	}
	got, err1 := json.Marshal(u.item)
	wantJSON, err2 := json.Marshal(want)
	if err1 != nil || err2 != nil || string(got) != string(wantJSON) {
		t.Fatalf("item %s (%v), want %s (%v)", got, err1, wantJSON, err2)
	}
	if k := u.keys(); k[0].key != "a" || k[1].key != u.item.ID || u.item.ID == "" {
		t.Fatalf("keys %v", k)
	}
	if v, ok := u.item.Data["body"].(Markdown); !ok || v.Source() != "Body\n" {
		t.Fatalf("body %#v", u.item.Data["body"])
	}
	for k, v := range u.item.Data {
		if dv, ok := u.item.Data[k]; !ok || dv == nil || v == nil {
			t.Fatalf("data %v", u.item.Data)
		}
	}
	if n := u.item.Data; len(n) != 5 {
		t.Fatalf("data %v: want author, tags, featuredImage, category and body", n)
	}
	// The Doc keeps the item's Data and the keys it took.
	if l := len(decoded().Doc.Meta()); l != 7 {
		t.Fatalf("%d keys", l)
	}
	f := decoded()
	readItemUnit(f, "posts", "a.md", readEnv{})
	if f.Doc.Len() != 7 || f.Doc.Get("title") != "Classic Stove" || f.Doc.Get("author") != "Jo Berg" {
		t.Fatalf("the Doc after its item: %v", f.Doc.Meta())
	}
	n := testing.AllocsPerRun(100, func() {
		if u := readItemUnit(decoded(), "posts", "a.md", readEnv{}); u.err != nil {
			t.Fatal(u.err)
		}
	})
	// 2 of them the decoded Doc's (NewDocFields); 12 before the unit
	// and its Item, the body and its settings, the front matter and its
	// keys were made together.
	if n > 9 {
		t.Fatalf("reading a decoded document into its unit made %.0f objects, want at most 9", n)
	}
	t.Logf("%.0f objects", n)
}

// TestItemUnitSize: a restart keeps an itemUnit (a unit and its Item)
// for every item of the site: 288 bytes, its size class (it was 312 in
// the class of 320 when the unit held its type beside the Item's and the
// Meta's two booleans took a word each).
func TestItemUnitSize(t *testing.T) {
	if s := unsafe.Sizeof(itemUnit{}); s > 288 {
		t.Fatalf("itemUnit is %d bytes, want at most 288", s)
	}
	u := readItemUnit(File{Path: "content/posts/a.md", Doc: NewDocFields([]MetaField{{"title", "A"}})}, "posts", "a.md", readEnv{})
	if u.typ() != "posts" || u.item.Type != "posts" {
		t.Fatalf("type %q", u.typ())
	}
	if p := readPageUnit(File{Path: "pages/a.md", Doc: NewDocFields([]MetaField{{"title", "A"}})}, "a.md", readEnv{}); p.typ() != "" {
		t.Fatalf("page's type %q", p.typ())
	}
}
