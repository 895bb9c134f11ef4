package content

import (
	"fmt"
	"testing"
)

func TestCaseProblems(t *testing.T) {
	files := []File{
		{Path: "content/posts/Hello-World.md"},
		{Path: "content/posts/hello-world.md"},
		{Path: "content/posts/HELLO-world.md"},
		{Path: "content/posts/Other.md"},
		{Path: "pages/about.md"},
		{Path: "content/posts/b.md", Source: "content_fr/posts/B.md"},
		{Path: "content/posts/c.md", Source: "content_fr/posts/b.md"},
	}
	got := CaseProblems(files)
	want := []string{
		"content/posts/Hello-World.md: differs only in case from content/posts/HELLO-world.md",
		"content/posts/hello-world.md: differs only in case from content/posts/HELLO-world.md",
		"content_fr/posts/b.md: differs only in case from content_fr/posts/B.md",
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i, p := range got {
		if s := p.String(); len(s) < len(want[i]) || s[:len(want[i])] != want[i] {
			t.Fatalf("problem %d = %q, want %q…", i, s, want[i])
		}
	}
	if CaseProblems(files[3:5]) != nil {
		t.Fatal("problems without a clash")
	}
}

// BenchmarkCaseProblems is the check on every load of a 10k-file site
// whose paths are lower-case (the common case: no map is built).
func BenchmarkCaseProblems(b *testing.B) {
	files := make([]File, 10_000)
	for i := range files {
		files[i].Path = fmt.Sprintf("content/posts/post-%05d.md", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		if CaseProblems(files) != nil {
			b.Fatal("a clash")
		}
	}
}
