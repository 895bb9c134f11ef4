package content

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	isType := func(s string) bool { return s == "authors" || s == "posts" }
	for _, c := range []struct {
		in   string
		want Ref
		ok   bool
	}{
		{"media:abc234", Ref{Kind: RefMedia, MediaID: "abc234"}, true},
		{"/uploads/2026/01/lake.png", Ref{Kind: RefMedia, MediaKey: "2026/01/lake.png"}, true},
		{"authors/ann", Ref{Kind: RefItem, Type: "authors", Slug: "ann"}, true},
		{"posts/guides/install", Ref{Kind: RefItem, Type: "posts", Slug: "guides/install"}, true},
		{"tags/go", Ref{}, false},       // not a content type
		{"authors/", Ref{}, false},      // no slug
		{"media:", Ref{}, false},        // no id
		{"media:A B", Ref{}, false},     // not an id
		{"/uploads/../x", Ref{}, false}, // not a key
		{"plain text", Ref{}, false},
		{"https://example.com/a", Ref{}, false},
	} {
		got, ok := ParseRef(c.in, isType)
		if ok != c.ok || got != c.want {
			t.Errorf("ParseRef(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// A RefReader with media bases reads the library's absolute URLs as
// /uploads/ paths: escaped keys unescaped, other URLs left alone.
func TestRefReader_MediaBases(t *testing.T) {
	rr := RefReader{IsType: func(s string) bool { return s == "posts" },
		MediaBases: []string{"https://cms.example.com/uploads/", "https://s3.example.com/bucket/site/"}}
	for _, c := range []struct {
		in   string
		want Ref
		ok   bool
	}{
		{"https://cms.example.com/uploads/2026/01/lake.png", Ref{Kind: RefMedia, MediaKey: "2026/01/lake.png"}, true},
		{"https://s3.example.com/bucket/site/2026/01/caf%C3%A9.png", Ref{Kind: RefMedia, MediaKey: "2026/01/café.png"}, true},
		{"https://s3.example.com/bucket/site/2026/01/lake.png?w=3", Ref{}, false},
		{"https://s3.example.com/bucket/site/2026/%zz", Ref{}, false},
		{"https://s3.example.com/bucket/site/../x", Ref{}, false},
		{"https://s3.example.com/bucket/site/", Ref{}, false},
		{"https://s3.example.com/bucket/other/2026/01/lake.png", Ref{}, false},
		{"https://cms.example.com/uploads", Ref{}, false},
		{"http://cms.example.com/uploads/2026/01/lake.png", Ref{}, false}, // another scheme: another URL
		{"/uploads/2026/01/lake.png", Ref{Kind: RefMedia, MediaKey: "2026/01/lake.png"}, true},
		{"posts/a", Ref{Kind: RefItem, Type: "posts", Slug: "a"}, true},
	} {
		got, ok := rr.Parse(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
		if plain, ok := ParseRef(c.in, rr.IsType); ok && plain.Kind == RefMedia && !strings.HasPrefix(c.in, "/uploads/") {
			t.Errorf("ParseRef(%q) without bases = %+v", c.in, plain)
		}
	}
}

// A RefChecker gives what ReferenceProblems gives for each of a series of
// sites that share unchanged documents: references kept from an earlier
// site are checked against the new one (an item that became a draft or
// went away), new documents are read, and a change of the content types
// reads everything again.
func TestRefChecker_Incremental(t *testing.T) {
	item := func(typ, slug string, draft bool, data map[string]any) *Item {
		return &Item{Type: typ, Slug: slug, ID: slug, Data: data,
			Meta: Meta{Path: "content/" + typ + "/" + slug + ".md", Draft: draft}}
	}
	ann := item("authors", "ann", false, map[string]any{})
	post := item("posts", "hello", false, map[string]any{"author": "authors/ann", "tags": []any{"tags/go", "media:abc"}})
	page := &Page{Slug: "home", Sections: []Section{{Data: map[string]any{"who": "authors/bob"}}}, Meta: Meta{Path: "pages/home.md"}}
	files := []File{{Path: post.Meta.Path, Doc: &Doc{Lines: map[string]int{"author": 3}}}, {Path: page.Meta.Path, Doc: &Doc{}}}
	sites := []*Site{
		{Pages: []*Page{page}, Items: map[string][]*Item{"authors": {ann}, "posts": {post}}},
		// ann became a draft: the unchanged post's reference is now a problem.
		{Pages: []*Page{page}, Items: map[string][]*Item{"authors": {item("authors", "ann", true, nil)}, "posts": {post}}},
		// bob exists now; ann is gone.
		{Pages: []*Page{page}, Items: map[string][]*Item{"authors": {item("authors", "bob", false, nil)}, "posts": {post}}},
		// A type "tags" appears: "tags/go" is a reference now.
		{Pages: []*Page{page}, Items: map[string][]*Item{"authors": {ann}, "posts": {post}}, Config: Config{Types: map[string]TypeConfig{"tags": {}}}},
	}
	media := func(r Ref) bool { return r.MediaID != "abc" }
	var rc RefChecker
	for i, site := range sites {
		got := rc.Problems(site, files, media)
		want := ReferenceProblems(site, files, media)
		if len(got) == 0 || !slices.Equal(got, want) {
			t.Fatalf("site %d: %v, want %v", i, got, want)
		}
	}
	if got := ReferenceProblems(sites[1], files, nil); len(got) != 2 || got[0].Line != 3 {
		t.Fatalf("draft author: %v", got)
	}
}

// Without media checks a RefChecker rechecks only the documents that
// changed and those referring to an item that changed; the result is
// always what ReferenceProblems gives.
func TestRefChecker_IncrementalFewChanges(t *testing.T) {
	item := func(typ, slug string, draft bool, data map[string]any) *Item {
		return &Item{Type: typ, Slug: slug, ID: slug, Data: data,
			Meta: Meta{Path: "content/" + typ + "/" + slug + ".md", Draft: draft}}
	}
	ann := item("authors", "ann", false, map[string]any{})
	bob := item("authors", "bob", false, map[string]any{})
	annDraft := item("authors", "ann", true, map[string]any{})
	p1 := item("posts", "p1", false, map[string]any{"author": "authors/ann"})
	p2 := item("posts", "p2", false, map[string]any{"author": "authors/bob", "see": []any{"posts/p1", "posts/zz"}})
	p2b := item("posts", "p2", false, map[string]any{"author": "authors/ann"})
	p3 := item("posts", "p3", true, map[string]any{"author": "authors/nobody"})
	p3pub := item("posts", "p3", false, map[string]any{"author": "authors/nobody"})
	zz := item("posts", "zz", false, map[string]any{})
	page := &Page{Slug: "home", Sections: []Section{{Data: map[string]any{"who": "authors/bob"}}}, Meta: Meta{Path: "pages/home.md"}}
	pages := []*Page{page}
	files := []File{{Path: p1.Meta.Path, Doc: &Doc{Lines: map[string]int{"author": 3}}}, {Path: page.Meta.Path, Doc: &Doc{}}}
	authors := []*Item{ann, bob}
	sites := []*Site{
		{Pages: pages, Items: map[string][]*Item{"authors": authors, "posts": {p1, p2, p3}}},
		{Pages: pages, Items: map[string][]*Item{"authors": {annDraft, bob}, "posts": {p1, p2, p3}}},               // ann a draft
		{Pages: pages, Items: map[string][]*Item{"authors": {bob}, "posts": {p1, p2, p3}}},                         // ann gone
		{Pages: pages, Items: map[string][]*Item{"authors": authors, "posts": {p1, p2b, p3}}},                      // ann back, p2 edited
		{Pages: pages, Items: map[string][]*Item{"authors": {ann}, "posts": {p1, p2b, p3pub}}},                     // bob gone, p3 published
		{Pages: nil, Items: map[string][]*Item{"authors": {ann}, "posts": {p1, p2, p3pub, zz}}},                    // page gone, zz new
		{Pages: pages, Items: map[string][]*Item{"authors": {ann, bob}, "posts": {p1, p2, p3, zz}}},                // page and bob back
		{Pages: pages, Items: map[string][]*Item{"authors": {ann, bob}, "posts": {p2, p3, zz}}},                    // p1 gone
		{Pages: pages, Items: map[string][]*Item{"authors": {ann, bob}, "tags": {item("tags", "go", false, nil)}}}, // types change
	}
	var rc RefChecker
	for i, site := range sites {
		got := rc.Problems(site, files, nil)
		want := ReferenceProblems(site, files, nil)
		if !slices.Equal(got, want) {
			t.Fatalf("site %d: %v, want %v", i, got, want)
		}
	}
}

// TestDiffSorted_ReadsOnlyTheChange checks that the reference checker's
// diff of two lists of a type's items (sorted by slug) gives what changed
// without reading the slug of every item the two share at either end (a
// one-file push into a type of 500k items), and the same as a merge of
// the two lists by slug.
func TestDiffSorted_ReadsOnlyTheChange(t *testing.T) {
	var a []*Item
	for i := range 10000 {
		a = append(a, &Item{Slug: fmt.Sprintf("s%05d", i*2)})
	}
	edits := map[string]func([]*Item) []*Item{
		"changed": func(b []*Item) []*Item { b[5000] = &Item{Slug: b[5000].Slug}; return b },
		"added":   func(b []*Item) []*Item { return slices.Insert(b, 3001, &Item{Slug: "s06003"}) },
		"deleted": func(b []*Item) []*Item { return slices.Delete(b, 7000, 7001) },
		"first":   func(b []*Item) []*Item { b[0] = &Item{Slug: b[0].Slug}; return b },
		"last":    func(b []*Item) []*Item { return append(b, &Item{Slug: "s99999"}) },
	}
	for name, edit := range edits {
		b := edit(slices.Clone(a))
		reads := 0
		key := func(it *Item) string { reads++; return it.Slug }
		var gone, added []*Item
		if !diffSorted(a, b, key, &gone, &added) {
			t.Fatalf("%s: not diffed", name)
		}
		var wantGone, wantAdded []*Item
		for _, it := range a {
			if !slices.Contains(b, it) {
				wantGone = append(wantGone, it)
			}
		}
		for _, it := range b {
			if !slices.Contains(a, it) {
				wantAdded = append(wantAdded, it)
			}
		}
		if !slices.Equal(gone, wantGone) || !slices.Equal(added, wantAdded) {
			t.Fatalf("%s: gone %v added %v, want %v %v", name, gone, added, wantGone, wantAdded)
		}
		if reads > 8 {
			t.Errorf("%s: %d slugs read for one change", name, reads)
		}
	}
}
