package content

import (
	"fmt"
	"testing"
)

// TestRefHint: Parse tells which documents have no string that can be
// a reference (of any type; absolute URLs apart), and the checker reads
// the strings of none of their items (and keeps nothing for them), while
// it still reads the others, media URLs under a base included, and
// documents whose hint is not known (made without Parse).
func TestRefHint(t *testing.T) {
	parse := func(p, fm string) *Doc {
		t.Helper()
		d, err := Parse(p, []byte("---\n"+fm+"---\nBody with [a link](/posts/b) and posts/b\n"))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	plain := parse("content/posts/a.md", "title: A\nauthor: Jo\ntags: [x, {y: [z]}]\n")
	ref := parse("content/posts/b.md", "title: B\nrelated: [notes/gone]\n")
	url := parse("content/posts/c.md", "title: C\nimage: https://cdn.example.com/uploads/c.jpg\n")
	media := parse("content/posts/d.md", "title: D\ncover: media:abc123\n")
	for _, c := range []struct {
		doc  *Doc
		want RefHint
	}{
		{plain, RefHintKnown | RefHintNoRef | RefHintNoURL},
		{ref, RefHintKnown | RefHintNoURL},
		{url, RefHintKnown | RefHintNoRef},
		{media, RefHintKnown | RefHintNoURL},
	} {
		if got := c.doc.RefHint(); got != c.want {
			t.Errorf("hint of %v = %b, want %b", c.doc.Meta(), got, c.want)
		}
	}
	made := NewDoc(map[string]any{"title": "E", "see": "posts/gone"}) // not parsed: not known
	files := []File{
		{Path: "content/posts/a.md", Doc: plain},
		{Path: "content/posts/b.md", Doc: ref},
		{Path: "content/posts/c.md", Doc: url},
		{Path: "content/posts/d.md", Doc: media},
		{Path: "content/posts/e.md", Doc: made},
		{Path: "content/notes/n.md", Doc: parse("content/notes/n.md", "title: N\n")},
	}
	site, probs := Assemble(files)
	if len(probs) != 0 {
		t.Fatal(probs)
	}
	noMedia := func(Ref) bool { return false }
	for _, bases := range [][]string{nil, {"https://cdn.example.com/uploads/"}} {
		c := &RefChecker{MediaBases: bases}
		got := c.Problems(site, files, noMedia)
		var paths []string
		for _, p := range got {
			paths = append(paths, p.Path)
		}
		want, read := "[content/posts/b.md content/posts/d.md content/posts/e.md]", 3
		if bases != nil {
			want, read = "[content/posts/b.md content/posts/c.md content/posts/d.md content/posts/e.md]", 4
		}
		if fmt.Sprint(paths) != want {
			t.Errorf("bases %v: problems in %v, want %s: %v", bases, paths, want, got)
		}
		// The items whose strings were read: every one but the ref-free
		// (a and n; and c without a media URL base).
		if len(c.docs) != read {
			var paths []string
			for d := range c.docs {
				paths = append(paths, d.(*Item).Meta.Path)
			}
			t.Errorf("bases %v: the strings of %v were read, want those of %d documents", bases, paths, read)
		}
	}
}
