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
	if pages, items := unitCounts(units); pages != 0 || items["posts"] != n || len(items) != 1 {
		t.Fatalf("units: %d pages, items %v", pages, items)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a := assembleUnits(files, units, accepted)
	runtime.ReadMemStats(&after)
	slugs, pageSlugs := a.claims.table(claimKey{kind: itemSlug, typ: "posts"}), a.claims.table(claimKey{kind: pageSlug})
	if len(a.site.Items["posts"]) != n || len(slugs) != n || len(pageSlugs) != 0 {
		t.Fatalf("assembled %d items, %d item claims, %d page claims", len(a.site.Items["posts"]), len(slugs), len(pageSlugs))
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
	keyOf := func(i int) claimKey {
		k := claimKey{kind: claimKind(i % 4), key: fmt.Sprint("k", i%12000)}
		if k.kind == itemSlug || k.kind == itemID {
			k.typ = fmt.Sprint("t", i%3) // tables of three types
		}
		return k
	}
	cl := newClaims(0, nil)
	want := map[claimKey]string{}
	for i := range 200 {
		k := keyOf(i)
		cl.tableFor(k.kind, k.typ, 0)[k.key] = "p"
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

// TestReadItemUnit_NoKeyStrings: a unit is one allocation over its item's:
// its claims are its item's slug and id in its type's tables, not two
// "type\x00slug" strings made for each item (1 MB at 10k).
func TestReadItemUnit_NoKeyStrings(t *testing.T) {
	doc, err := Parse("content/posts/a.md", []byte("---\ntitle: Classic Stove\nauthor: Jo Berg\n---\nBody\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := File{Path: "content/posts/a.md", Doc: doc}
	item := testing.AllocsPerRun(100, func() { readItem(f, "posts", "a.md", readEnv{}) })
	unit := testing.AllocsPerRun(100, func() { readItemUnit(f, "posts", "a.md", readEnv{}) })
	if unit-item != 1 {
		t.Fatalf("readItemUnit made %.0f allocations over readItem's %.0f, want 1 (the unit)", unit-item, item)
	}
	u := readItemUnit(f, "posts", "a.md", readEnv{})
	if ks := u.keys(); ks[0] != (claimKey{itemSlug, "posts", "a"}) || ks[1].typ != "posts" || ks[1].key != u.item.ID {
		t.Fatalf("keys %v", ks)
	}
}
