package content

import "maps"

// claims are the slugs and ids the site's pages and items hold, each with
// the path of the file holding it, and every key a left-out page or item
// asked for. Claims made by an assembly are changed only while it runs:
// a patch (and a fork) makes new ones, over the old ones' maps (patched).
//
// An item's keys are its slug and id in a table of its type: the item's
// own strings as the maps' keys, not a "type\x00slug" string made per
// item (two at 10k items: 1 MB kept as long as the site).
type claims struct {
	tables    map[claimTable]map[string]string // key -> path
	contested map[claimKey]bool
	// base, when set, holds the keys, and tables are only the changes
	// over it: a key held by another path, or "" for a key base holds
	// that is given up.
	base *claims
}

// claimTable names one table of keys: a kind, and for an item's the type.
type claimTable struct {
	kind claimKind
	typ  string
}

// maxClaimsLayer is the number of changed keys over a base from which
// patched claims are merged into new maps.
const maxClaimsLayer = 4096

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

// held tells whether a page or item holds k.
func (cl *claims) held(k claimKey) bool {
	if p, ok := cl.table(k)[k.key]; ok {
		return p != ""
	}
	if cl.base != nil {
		_, ok := cl.base.table(k)[k.key]
		return ok
	}
	return false
}

// patched are new claims: cl's with the keys of free given up and those
// of take held by their path (a key in both is held). cl does not change.
func (cl *claims) patched(free []claimKey, take map[claimKey]string) *claims {
	base := cl
	if cl.base != nil {
		base = cl.base
	}
	out := &claims{tables: map[claimTable]map[string]string{}, base: base, contested: cl.contested}
	n := 0
	if cl.base != nil {
		for t, m := range cl.tables {
			out.tables[t] = maps.Clone(m)
			n += len(m)
		}
	}
	for _, k := range free {
		if _, inBase := base.table(k)[k.key]; inBase {
			out.tableFor(k.kind, k.typ, 0)[k.key] = ""
		} else {
			delete(out.table(k), k.key)
		}
	}
	for k, p := range take {
		out.tableFor(k.kind, k.typ, 0)[k.key] = p
	}
	if n+len(free)+len(take) <= maxClaimsLayer {
		return out
	}
	// merged: maps of their own
	flat := &claims{tables: make(map[claimTable]map[string]string, len(base.tables)), contested: cl.contested}
	for t, m := range base.tables {
		flat.tables[t] = maps.Clone(m)
	}
	for t, m := range out.tables {
		ft := flat.tables[t]
		if ft == nil {
			ft = map[string]string{}
			flat.tables[t] = ft
		}
		for key, p := range m {
			if p == "" {
				delete(ft, key)
			} else {
				ft[key] = p
			}
		}
	}
	return flat
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
		switch {
		case u == nil || u.err != nil:
		case u.item != nil:
			items[u.typ]++
		default:
			pages++
		}
	}
	return pages, items
}

// keys are the slug and id a unit claims.
func (u *unit) keys() [2]claimKey {
	if u.item != nil {
		return [2]claimKey{{itemSlug, u.typ, u.item.Slug}, {itemID, u.typ, u.item.ID}}
	}
	return [2]claimKey{{pageSlug, "", u.page.Slug}, {pageID, "", u.page.ID}}
}
