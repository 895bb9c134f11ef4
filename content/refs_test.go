package content

import (
	"slices"
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
