package content

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestAssembly_KeepsNoClaimTables: an assembly keeps its site, not the
// tables of the slugs and ids it read the site with (four maps sized for
// every page and item, 1.3 MB at 10k items, kept as long as the site):
// the bytes assembleUnits' result holds per item, and what it allocates.
func TestAssembly_KeepsNoClaimTables(t *testing.T) {
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
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(a.site.Items["posts"]) != n || len(a.contested) != 0 {
		t.Fatalf("assembled %d items, %d contested", len(a.site.Items["posts"]), len(a.contested))
	}
	kept := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
	per := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("assembleUnits: %.0f bytes per item allocated, %.0f kept", per, kept)
	if kept > 40 {
		t.Fatalf("the assembly keeps %.0f bytes per item, want at most 40 (its list of items; 170 with the claims' tables)", kept)
	}
	if per > 290 {
		t.Fatalf("assembleUnits allocated %.0f bytes per item, want at most 290 (315 with the page maps sized for a quarter of the files)", per)
	}
}

// siteHolds answers for a site what the claims that assembled it held:
// every slug and id of its pages and items (an item served under its
// path for a taken slug by its new slug and id), and no other.
func TestSiteHolds(t *testing.T) {
	src := map[string]string{
		"pages/about.md": "---\ntitle: About\nid: p-about\n---\n", "pages/b.md": "---\ntitle: B\n---\n",
		"content/posts/a.md": "---\ntitle: A\n---\n", "content/posts/b.md": "---\ntitle: B\nid: x1\n---\n",
		"content/posts/c.md": "---\ntitle: C\nslug: a\nurl: /2020/a/\n---\n", // taken: served as 2020/a
		"content/notes/a.md": "---\ntitle: NA\n---\n",
	}
	var files []File
	for p, s := range src {
		doc, err := Parse(p, []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Path: p, Doc: doc})
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	as := &Assembler{plain: true}
	units, accepted, _, _ := as.readUnits(files)
	a := &assembler{
		site:   &Site{Items: map[string][]*Item{}, Config: Config{Types: map[string]TypeConfig{}}},
		claims: newClaims(unitCounts(units)),
		paths:  map[string]string{},
	}
	for i, f := range files {
		if units[i] != nil {
			accepted[i] = a.unit(f, units[i])
		}
	}
	site := a.site
	if len(a.problems) != 1 || a.problems[0].Level != LevelWarn {
		t.Fatalf("problems %v, want the warning that posts/c.md is served under its path", a.problems)
	}
	slices.SortFunc(site.Pages, func(x, y *Page) int { return strings.Compare(x.Slug, y.Slug) })
	for _, items := range site.Items {
		slices.SortFunc(items, func(x, y *Item) int { return strings.Compare(x.Slug, y.Slug) })
	}
	n := 0
	for tk, table := range a.claims.tables {
		for key := range table {
			n++
			if k := (claimKey{tk.kind, tk.typ, key}); !siteHolds(site, k) {
				t.Errorf("the claims hold %v, the site does not", k)
			}
		}
	}
	if n != 2*(len(site.Pages)+len(site.Items["posts"])+len(site.Items["notes"])) || len(site.Items["posts"]) != 3 {
		t.Fatalf("%d keys held; site: %d pages, %d posts, %d notes", n, len(site.Pages), len(site.Items["posts"]), len(site.Items["notes"]))
	}
	for _, k := range []claimKey{{pageSlug, "", "c"}, {pageID, "", "x1"}, {itemSlug, "posts", "about"}, {itemSlug, "pages", "b"}, {itemID, "posts", "p-about"}, {itemSlug, "notes", "2020/a"}, {itemSlug, "posts", "c"}, {itemID, "notes", "x1"}} {
		if siteHolds(site, k) {
			t.Errorf("the site holds %v", k)
		}
	}
}

// TestReadItemUnit_NoKeyStrings: a unit is at most one allocation over its item's:
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
	if unit-item > 1 { // 0: the unit and its Item are one object (item_objects.go)
		t.Fatalf("readItemUnit made %.0f allocations over readItem's %.0f, want at most 1 (the unit)", unit-item, item)
	}
	u := readItemUnit(f, "posts", "a.md", readEnv{})
	if ks := u.keys(); ks[0] != (claimKey{itemSlug, "posts", "a"}) || ks[1].typ != "posts" || ks[1].key != u.item.ID {
		t.Fatalf("keys %v", ks)
	}
}
