package content

import "testing"

// TestHugoMountAdmits: a mount's files filter, as Hugo's walk applies
// it: each folder on the way and the file, inclusions first.
func TestHugoMountAdmits(t *testing.T) {
	for _, c := range []struct {
		files []any
		rel   string
		want  bool
	}{
		{[]any{"! docs/v?"}, "docs/v2/2.9/a.md", false},
		{[]any{"! docs/v?"}, "docs/v10/a.md", true},
		{[]any{"! docs/v?"}, "docs/a.md", true},
		{[]any{"! _*"}, "_dev/faq.md", false},
		{[]any{"! _*"}, "_index.md", false},
		{[]any{"! _*"}, "2.9/_index.md", true}, // * stays in its segment
		{[]any{"**.md"}, "a/b/c.md", true},
		{[]any{"**.md"}, "a/b/c.png", false},
		{[]any{"*.{md,mdx}"}, "a.mdx", true},
		{[]any{"*.{md,mdx}"}, "a/b.md", false},
		{[]any{"! [ab]*.md"}, "b.md", false},
		{[]any{"! [!ab]*.md"}, "b.md", true},
		{[]any{"! é*/**"}, "été/x.md", false},
		{[]any{"**.md", "! drafts/**"}, "drafts/x.md", true}, // an inclusion wins, as in Hugo
		{nil, "x/y.md", true},
	} {
		m := hugoMount{src: "content", dst: "content/docs"}
		m.incl, m.excl = mountFilter(map[string]any{"files": c.files})
		if got := m.admits(c.rel); got != c.want {
			t.Errorf("files %v, %s: %v, want %v", c.files, c.rel, got, c.want)
		}
	}
}
