package content

import (
	"fmt"
	"maps"
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

// Claims patched again and again (keys given up, taken, given up and
// taken back, past the merge into maps of their own) hold what one map
// changed the same way holds, and the claims they were made from do not
// change (a forked Assembler shares them).
func TestClaims_PatchedMatchesMap(t *testing.T) {
	keyOf := func(i int) claimKey { return claimKey{claimKind(i % 4), fmt.Sprint("k", i%12000)} }
	cl := newClaims(0, 0)
	want := map[claimKey]string{}
	for i := range 200 {
		k := keyOf(i)
		cl.keys[k.kind][k.key] = "p"
		want[k] = "p"
	}
	var olds []*claims
	var oldWants []map[claimKey]string
	merged := false
	for step := range 3000 {
		free := []claimKey{keyOf(step * 7), keyOf(step * 11)}
		take := map[claimKey]string{keyOf(step * 13): fmt.Sprint("p", step), keyOf(step*17 + 1): "q", keyOf(step*19 + 2): "r"}
		if step%3 == 0 {
			take[keyOf(step*7)] = "back"
		}
		if step%500 == 0 {
			olds, oldWants = append(olds, cl), append(oldWants, maps.Clone(want))
		}
		cl = cl.patched(free, take)
		merged = merged || (step > 0 && cl.base == nil)
		for _, k := range free {
			delete(want, k)
		}
		for k, p := range take {
			want[k] = p
		}
		if step%100 != 0 {
			continue
		}
		for i := range 12000 {
			k := keyOf(i)
			if _, ok := want[k]; cl.held(k) != ok {
				t.Fatalf("step %d: %v held %v, want %v", step, k, cl.held(k), ok)
			}
		}
	}
	for i, old := range olds {
		for k := range oldWants[i] {
			if !old.held(k) {
				t.Fatalf("the claims of step %d changed", i*500)
			}
		}
	}
	if !merged {
		t.Fatal("never merged")
	}
}
