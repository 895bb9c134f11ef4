package content

import (
	"maps"
	"reflect"
	"sync"
	"testing"
	"unsafe"
)

// frontMatterCases are documents an item is read from: a body, a front
// matter "body" the Markdown body replaces in Data, none, a data file,
// keys of any case, no key taken.
var frontMatterCases = []struct{ path, src string }{
	{"content/posts/a.md", "---\ntitle: Classic Stove\nDate: 2019-02-08T19:18:00Z\nauthor: Jo Berg\ntags: [western, diary]\ncategory: news\n---\nBody\n"},
	{"content/posts/b.md", "---\ntitle: B\nbody: the front matter's\nn: 3\n---\nThe Markdown body\n"},
	{"content/posts/c.md", "---\ntitle: C\ndraft: true\nnested: {a: [1, 2]}\n---\n"},
	{"content/products/d.yaml", "title: D\nprice: 12.5\nbody: a text\nslug: dee\nid: d-1\n"},
	{"content/products/e.json", `{"price": 1, "colour": "red"}`},
}

// TestItemSharesFrontMatter: once an item is read from a Doc, the Doc
// holds the item's Data and the keys the item took, not a second map of
// the same values, and still reads as the front matter it was parsed
// with (Meta, Value, Len, Fields), whether Parse or the parse cache
// (NewDocFields) made it.
func TestItemSharesFrontMatter(t *testing.T) {
	for _, tc := range frontMatterCases {
		for _, form := range []string{"parsed", "fields"} {
			doc, err := Parse(tc.path, []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			want := maps.Clone(doc.Meta())
			if form == "fields" {
				var fs []MetaField
				for k, v := range doc.Fields() {
					fs = append(fs, MetaField{k, v})
				}
				nd := NewDocFields(fs)
				nd.Body, nd.HasBody, nd.Line, nd.Lines = doc.Body, doc.HasBody, doc.Line, doc.Lines
				doc = nd
				checkReads(t, tc.path+" before", doc, want)
			}
			typ, rel := splitItemPath(tc.path)
			it, err := readItem(File{Path: tc.path, Doc: doc}, typ, rel, readEnv{})
			if err != nil {
				t.Fatal(err)
			}
			f := doc.fm.Load()
			if !f.shared || reflect.ValueOf(f.m).UnsafePointer() != reflect.ValueOf(it.Data).UnsafePointer() {
				t.Errorf("%s (%s): the Doc keeps a map of its own beside the item's Data", tc.path, form)
			}
			checkReads(t, tc.path+" "+form, doc, want)
			// A second item read from it (a reload's) reads the same.
			again, err := readItem(File{Path: tc.path, Doc: doc}, typ, rel, readEnv{})
			if err != nil || !reflect.DeepEqual(mapNoBody(again.Data), mapNoBody(it.Data)) {
				t.Errorf("%s (%s): read again: %v, %v; want %v", tc.path, form, again.Data, err, it.Data)
			}
			checkReads(t, tc.path+" "+form+" again", doc, want)
		}
	}
}

// TestFrontMatterShareConcurrent: items read from one Doc at once while
// its front matter is read (go test -race).
func TestFrontMatterShareConcurrent(t *testing.T) {
	tc := frontMatterCases[1]
	doc, err := Parse(tc.path, []byte(tc.src))
	if err != nil {
		t.Fatal(err)
	}
	want := maps.Clone(doc.Meta())
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := readItem(File{Path: tc.path, Doc: doc}, "posts", "b.md", readEnv{}); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() { checkReads(t, "concurrent", doc, want) })
	}
	wg.Wait()
	checkReads(t, "after", doc, want)
}

func checkReads(t *testing.T, name string, doc *Doc, want map[string]any) {
	t.Helper()
	if got := doc.Meta(); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: Meta = %v, want %v", name, got, want)
	}
	if doc.Len() != len(want) || !doc.HasMeta() {
		t.Errorf("%s: Len = %d (HasMeta %v), want %d", name, doc.Len(), doc.HasMeta(), len(want))
	}
	got := map[string]any{}
	for k, v := range doc.Fields() {
		if _, twice := got[k]; twice {
			t.Errorf("%s: Fields gives %q twice", name, k)
		}
		got[k] = v
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: Fields = %v, want %v", name, got, want)
	}
	for _, k := range []string{"title", "body", "Date", "price", "nope", "id", "slug"} {
		v, ok := doc.Value(k)
		wv, wok := want[k]
		if ok != wok || !reflect.DeepEqual(v, wv) {
			t.Errorf("%s: Value(%q) = %v %v, want %v %v", name, k, v, ok, wv, wok)
		}
	}
}

func splitItemPath(p string) (typ, rel string) {
	rest := p[len("content/"):]
	for i := range len(rest) {
		if rest[i] == '/' {
			return rest[:i], rest[i+1:]
		}
	}
	return "", rest
}

// mapNoBody is m without its "body" (a Markdown value, compared by its
// holder's pointer).
func mapNoBody(m map[string]any) map[string]any {
	out := maps.Clone(m)
	delete(out, "body")
	return out
}

// TestPerItemSizes: what every item read from a Doc keeps beside its
// Data (a restart reads 100k of them at 100k files): the Doc, its front
// matter holder, and its body's settings fit their size classes.
func TestPerItemSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		size, max uintptr
	}{
		{"Doc", unsafe.Sizeof(Doc{}), 64},
		{"frontMatter", unsafe.Sizeof(frontMatter{}), 24},
		{"bodyEnv", unsafe.Sizeof(bodyEnv{}), 48},
		{"bodyInSite", unsafe.Sizeof(bodyInSite{}), 64},
	} {
		if c.size > c.max {
			t.Errorf("%s is %d bytes, want at most %d", c.name, c.size, c.max)
		}
	}
}

// TestDocValueAllocs: a key of a Doc an item was read from is read
// without a map made (the translations' grouping reads one of every
// document at every load of a site with locales).
func TestDocValueAllocs(t *testing.T) {
	tc := frontMatterCases[0]
	doc, err := Parse(tc.path, []byte(tc.src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readItem(File{Path: tc.path, Doc: doc}, "posts", "a.md", readEnv{}); err != nil {
		t.Fatal(err)
	}
	n := testing.AllocsPerRun(100, func() {
		if v, ok := doc.Value("author"); !ok || v != "Jo Berg" || doc.Get("title") != "Classic Stove" || doc.Get("nope") != nil || doc.Len() != 5 {
			t.Fatal("the front matter reads otherwise")
		}
		for range doc.Fields() {
		}
	})
	if n > 0 {
		t.Fatalf("reading a key made %.0f allocations, want none", n)
	}
}
