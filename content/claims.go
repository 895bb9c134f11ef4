package content

import "slices"

// claims are the slugs and ids the site's pages and items hold while an
// assembly reads them (assembleUnits), each with the path of the file
// holding it, and every key a left-out page or item asked for. An item's
// keys are its slug and id in a table of its type: the item's own strings
// as the maps' keys.
//
// Only contested outlives the assembly: the tables are what the site it
// made holds (each slug and id of its pages and items), so a later patch
// asks the site (siteHolds) instead of keeping them with it (about 1.3 MB
// at 10k items: four maps sized for every document).
type claims struct {
	tables    map[claimTable]map[string]string // key -> path
	contested map[claimKey]bool
}

// claimTable names one table of keys: a kind, and for an item's the type.
type claimTable struct {
	kind claimKind
	typ  string
}

// table is the table of k's kind and type; nil when there is none.
func (cl *claims) table(k claimKey) map[string]string {
	return cl.tables[claimTable{k.kind, k.typ}]
}

// tableFor is the table of kind and typ, made (with room for n keys)
// when there is none.
func (cl *claims) tableFor(kind claimKind, typ string, n int) map[string]string {
	t := cl.tables[claimTable{kind, typ}]
	if t == nil {
		t = make(map[string]string, n)
		cl.tables[claimTable{kind, typ}] = t
	}
	return t
}

// siteHolds tells whether a page or item of site holds k: the claims an
// assembly made hold the keys of the pages and items it put in its site,
// and a patch keeps that so. Slugs are looked up in the sorted lists;
// ids, which a patch asks only of a file added or given a new id, in
// the list of the type.
func siteHolds(site *Site, k claimKey) bool {
	switch k.kind {
	case pageSlug:
		_, found := slices.BinarySearchFunc(site.Pages, k.key, pageSlugOrder)
		return found
	case pageID:
		return slices.ContainsFunc(site.Pages, func(p *Page) bool { return p.ID == k.key })
	case itemSlug:
		_, found := slices.BinarySearchFunc(site.Items[k.typ], k.key, itemSlugOrder)
		return found
	default:
		return slices.ContainsFunc(site.Items[k.typ], func(it *Item) bool { return it.ID == k.key })
	}
}

type claimKind uint8

const (
	pageSlug claimKind = iota
	pageID
	itemSlug // in the table of the item's type
	itemID   // in the table of the item's type
)

// claimKey is a slug or id: a page's (typ ""), or an item's of type typ.
type claimKey struct {
	kind claimKind
	typ  string
	key  string
}

// newClaims makes the claims of a site of pages pages and items items
// of each type (the tables sized for them: a site of 100k items and no
// page used to have page maps sized for 25k).
func newClaims(pages int, items map[string]int) *claims {
	cl := &claims{tables: make(map[claimTable]map[string]string, 2+2*len(items)), contested: map[claimKey]bool{}}
	cl.tableFor(pageSlug, "", pages)
	cl.tableFor(pageID, "", pages)
	for typ, n := range items {
		cl.tableFor(itemSlug, typ, n)
		cl.tableFor(itemID, typ, n)
	}
	return cl
}

// unitCounts are the pages among units, and the items of each type.
func unitCounts(units []*unit) (pages int, items map[string]int) {
	items = map[string]int{}
	for _, u := range units {
		pages += u.count(items)
	}
	return pages, items
}

// count adds an item unit to items, its type's count; it is 1 for a
// page and 0 for anything else (no unit, or a file that failed).
func (u *unit) count(items map[string]int) (page int) {
	switch {
	case u == nil || u.err != nil:
		return 0
	case u.item != nil:
		items[u.typ()]++
		return 0
	}
	return 1
}

// keys are the slug and id a unit claims.
func (u *unit) keys() [2]claimKey {
	if u.item != nil {
		return [2]claimKey{{itemSlug, u.typ(), u.item.Slug}, {itemID, u.typ(), u.item.ID}}
	}
	return [2]claimKey{{pageSlug, "", u.page.Slug}, {pageID, "", u.page.ID}}
}
