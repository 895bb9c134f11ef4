package content

import "testing"

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
