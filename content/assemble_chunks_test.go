package content

import (
	"fmt"
	"testing"

	"github.com/folio-cms/folio/content/chunks"
)

// TestAssembleChanged_SharesUnits checks that a one-file change's
// assembly makes its units and accepted flags from the last call's by
// sharing every chunk the change does not fall in (a copy was 9 bytes a
// file per push), and serves the change.
func TestAssembleChanged_SharesUnits(t *testing.T) {
	var files []File
	for i := range 5000 {
		p := fmt.Sprintf("content/posts/p%04d.md", i)
		d, err := Parse(p, fmt.Appendf(nil, "---\ntitle: P%d\n---\n", i))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Path: p, Doc: d})
	}
	var as Assembler
	if _, probs := as.Assemble(files); len(probs) != 0 {
		t.Fatal(probs)
	}
	lastUnits, lastAccepted := as.last.units, as.last.accepted
	next := chunks.Of(files).Patch([]chunks.Step{{From: 0, To: 2500}, {From: -1}, {From: 2501, To: 5000}})
	d, _ := Parse("content/posts/p2500.md", []byte("---\ntitle: Edited\n---\n"))
	*next.Mut(2500) = File{Path: "content/posts/p2500.md", Doc: d}
	next.Seal()
	site, probs := as.AssembleChanged(next, []string{"content/posts/p2500.md"})
	if len(probs) != 0 || as.fromChanges != 1 {
		t.Fatalf("problems %v, patched %d", probs, as.fromChanges)
	}
	if it := site.Items["posts"][2500]; it.Title != "Edited" {
		t.Fatalf("p2500's title %q", it.Title)
	}
	for name, shared := range map[string][2]int{
		"units":    {as.last.units.Shared(lastUnits), lastUnits.Chunks()},
		"accepted": {as.last.accepted.Shared(lastAccepted), lastAccepted.Chunks()},
	} {
		if shared[0] < shared[1]-2 {
			t.Errorf("%s: %d of %d chunks shared", name, shared[0], shared[1])
		}
	}
}
