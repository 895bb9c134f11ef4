package content

import (
	"fmt"
	"testing"
)

// TestReferenceProblemsAllocs: a restart's reference pass reads every
// string of every document without a closure per document and key nor a
// path slice per list entry (15 allocations per item before, 3 now), and
// still finds the references in nested lists and maps, at their lines.
func TestReferenceProblemsAllocs(t *testing.T) {
	const n = 1000
	var files []File
	for i := range n {
		p := fmt.Sprintf("content/posts/p%04d.md", i)
		src := fmt.Sprintf("---\ntitle: P%d\nauthor: Jo Berg\ntags: [western, diary, x%d]\nexcerpt: A line of text\nimage: https://cdn.example.com/%d.jpg\n---\nBody\n", i, i, i)
		if i == 7 {
			src = "---\ntitle: Seven\nrelated:\n  - one\n  - {more: [posts/gone]}\n---\n"
		}
		doc, err := Parse(p, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Path: p, Doc: doc})
	}
	site, probs := Assemble(files)
	if len(probs) != 0 {
		t.Fatal(probs)
	}
	// A media URL base: the posts' image URLs make them read (RefHint).
	checker := func() *RefChecker { return &RefChecker{MediaBases: []string{"https://media.test/"}} }
	got := checker().Problems(site, files, nil)
	if len(got) != 1 || got[0].Path != "content/posts/p0007.md" || got[0].Line != 5 {
		t.Fatalf("problems %+v, want the missing posts/gone at line 5 of p0007.md", got)
	}
	rc := checker()
	rc.Problems(site, files, nil)
	if len(rc.docs) != n {
		t.Fatalf("the strings of %d documents read, want all %d", len(rc.docs), n)
	}
	per := testing.AllocsPerRun(5, func() { checker().Problems(site, files, nil) }) / n
	if per > 4 {
		t.Fatalf("%.1f allocations per item, want at most 4", per)
	}
}
