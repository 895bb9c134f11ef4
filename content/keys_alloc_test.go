package content

import "testing"

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
