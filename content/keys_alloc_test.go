package content

import (
	"runtime"
	"testing"
)

// TestReadItemAllocs: reading an item makes no map per document beyond
// its Data (a restart reads every item of the site: the known-key maps
// newFields made for each were 40% of readItem's time at 10k), and still
// matches known keys case-insensitively, whatever the case.
func TestReadItemAllocs(t *testing.T) {
	doc, err := Parse("content/posts/a.md", []byte("---\ntitle: Classic Stove\nDate: 2019-02-08T19:18:00Z\nauthor: Jo Berg\ntags: [western, diary]\nfeaturedImage: https://cdn.example.com/a.jpg\ncategory: news\n---\nBody\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := File{Path: "content/posts/a.md", Doc: doc}
	it, err := readItem(f, "posts", "a.md", readEnv{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := it.Data["Date"]; ok || it.PublishedAt.Year() != 2019 || it.Title != "Classic Stove" {
		t.Fatalf("Date not read as the date key: data %v, published %v", it.Data, it.PublishedAt)
	}
	if len(it.Data) != 5 || it.Data["featuredImage"] == nil {
		t.Fatalf("data = %v, want author, tags, featuredImage, category and body", it.Data)
	}
	n := testing.AllocsPerRun(100, func() {
		if _, err := readItem(f, "posts", "a.md", readEnv{}); err != nil {
			t.Fatal(err)
		}
	})
	if n > 12 {
		t.Fatalf("readItem made %.0f allocations, want at most 12", n)
	}
}

// TestReadItem_FieldsOnTheStack: the only object of the Data map's size
// class (288 bytes) readItem makes is that map. The fields reader of each
// document (280 bytes) was made on the heap too: garbage of the same
// class as the items' maps, it left their spans half free after a start
// (3 MB of a 10k restart's heap).
func TestReadItem_FieldsOnTheStack(t *testing.T) {
	doc, err := Parse("content/posts/a.md", []byte("---\ntitle: Classic Stove\ndate: 2019-02-08T19:18:00Z\nauthor: Jo Berg\ntags: [western, diary]\nfeaturedImage: https://cdn.example.com/a.jpg\ncategory: news\n---\nBody\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := File{Path: "content/posts/a.md", Doc: doc}
	const runs = 200
	got := mallocsOfSize(288, func() {
		for range runs {
			if _, err := readItem(f, "posts", "a.md", readEnv{}); err != nil {
				t.Fatal(err)
			}
		}
	})
	if got > runs+runs/10 {
		t.Fatalf("%d readItem made %d objects of 288 bytes, want one each (its Data map)", runs, got)
	}
}

// mallocsOfSize counts the objects of size class size that fn allocates.
func mallocsOfSize(size uint32, fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	for i, c := range after.BySize {
		if c.Size == size {
			return c.Mallocs - before.BySize[i].Mallocs
		}
	}
	panic("no size class of that size")
}
