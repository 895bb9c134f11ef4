package content

import (
	"fmt"
	"runtime"
	"testing"
)

// TestClaimsSizedForTheSite: the claims of a site of items and no page
// are sized for its items, not for a quarter of its files again as pages
// (the page maps of a 100k-item site were sized for 25k slugs and ids,
// kept as long as the site): the bytes assembleUnits allocates per item.
func TestClaimsSizedForTheSite(t *testing.T) {
	const n = 8000
	files := make([]File, n)
	for i := range files {
		p := fmt.Sprintf("content/posts/p%05d.md", i)
		doc, err := Parse(p, []byte(fmt.Sprintf("---\ntitle: P%d\n---\n", i)))
		if err != nil {
			t.Fatal(err)
		}
		files[i] = File{Path: p, Doc: doc}
	}
	as := &Assembler{plain: true}
	units, accepted, _, _ := as.readUnits(files)
	if pages, items := unitCounts(units); pages != 0 || items != n {
		t.Fatalf("units: %d pages, %d items", pages, items)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a := assembleUnits(files, units, accepted)
	runtime.ReadMemStats(&after)
	if len(a.site.Items["posts"]) != n || len(a.claims.keys[itemSlug]) != n || len(a.claims.keys[pageSlug]) != 0 {
		t.Fatalf("assembled %d items, %d item claims, %d page claims", len(a.site.Items["posts"]), len(a.claims.keys[itemSlug]), len(a.claims.keys[pageSlug]))
	}
	per := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("assembleUnits: %.0f bytes per item", per)
	if per > 290 {
		t.Fatalf("assembleUnits allocated %.0f bytes per item, want at most 290 (315 with the page maps sized for a quarter of the files)", per)
	}
}
