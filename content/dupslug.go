package content

import "strings"

// Two documents of one type (or two pages) with the same slug but
// different paths on the site (a Hugo blog whose permalinks put the date
// in the path reuses slugs: /2019/01/01/report/ and /2020/01/01/report/)
// are both served: the one with the smaller file path under the slug, the
// other under its path as a slug (2020/01/01/report), with a problem that
// says so. Its id, when derived from the slug, is derived from that one.
// Only when that slug is taken too (the two have one path) is the file
// left out.

// altSlug is the slug a document whose slug is taken is served with: its
// path without the slashes around it; ok is false when that is no valid
// slug or is taken.
func (a *assembler) altSlug(docPath, slug string, taken map[string]string) (string, bool) {
	if _, same := a.paths[docPath]; same {
		return "", false
	}
	alt := strings.Trim(docPath, "/")
	if alt == "" || alt == slug || !ValidSlug(alt) {
		return "", false
	}
	if _, held := taken[alt]; held {
		return "", false
	}
	return alt, true
}

// altItem is a copy of u's item under its alternative slug; ok is false
// when it has none or its id is taken.
func (a *assembler) altItem(u *unit) (*Item, bool) {
	it := u.item
	slugs, ids := a.itemTables(u.typ())
	slug, ok := a.altSlug(it.Path, it.Slug, slugs)
	if !ok {
		return nil, false
	}
	cp := *it
	cp.Slug = slug
	if cp.ID == stableID("item\x00"+u.typ(), it.Slug) {
		cp.ID = stableID("item\x00"+u.typ(), slug)
	}
	if _, held := ids[cp.ID]; held {
		return nil, false
	}
	return &cp, true
}

// altPage is altItem for a page.
func (a *assembler) altPage(p *Page) (*Page, bool) {
	slug, ok := a.altSlug(p.Path, p.Slug, a.claims.table(claimKey{kind: pageSlug}))
	if !ok {
		return nil, false
	}
	cp := *p
	cp.Slug = slug
	if cp.ID == stableID("page", p.Slug) {
		cp.ID = stableID("page", slug)
	}
	if _, held := a.claims.table(claimKey{kind: pageID})[cp.ID]; held {
		return nil, false
	}
	return &cp, true
}
