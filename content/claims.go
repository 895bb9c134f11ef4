package content

import "maps"

// claims are the slugs and ids the site's pages and items hold, each with
// the path of the file holding it, and every key a left-out page or item
// asked for. Claims made by an assembly are changed only while it runs:
// a patch (and a fork) makes new ones, over the old ones' maps (patched).
type claims struct {
	keys      [4]map[string]string // by claimKind: key -> path
	contested map[claimKey]bool
	// base, when set, holds the keys, and keys are only the changes
	// over it: a key held by another path, or "" for a key base holds
	// that is given up.
	base *claims
}

// maxClaimsLayer is the number of changed keys over a base from which
// patched claims are merged into new maps.
const maxClaimsLayer = 4096

// held tells whether a page or item holds k.
func (cl *claims) held(k claimKey) bool {
	if p, ok := cl.keys[k.kind][k.key]; ok {
		return p != ""
	}
	if cl.base != nil {
		_, ok := cl.base.keys[k.kind][k.key]
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
	out := &claims{base: base, contested: cl.contested}
	n := 0
	for i := range out.keys {
		if cl.base != nil {
			out.keys[i] = maps.Clone(cl.keys[i])
		}
		if out.keys[i] == nil {
			out.keys[i] = map[string]string{}
		}
		n += len(out.keys[i])
	}
	for _, k := range free {
		if _, inBase := base.keys[k.kind][k.key]; inBase {
			out.keys[k.kind][k.key] = ""
		} else {
			delete(out.keys[k.kind], k.key)
		}
	}
	for k, p := range take {
		out.keys[k.kind][k.key] = p
	}
	if n+len(free)+len(take) <= maxClaimsLayer {
		return out
	}
	// merged: maps of their own
	flat := &claims{contested: cl.contested}
	for i := range flat.keys {
		flat.keys[i] = maps.Clone(base.keys[i])
		for key, p := range out.keys[i] {
			if p == "" {
				delete(flat.keys[i], key)
			} else {
				flat.keys[i][key] = p
			}
		}
	}
	return flat
}

type claimKind uint8

const (
	pageSlug claimKind = iota
	pageID
	itemSlug // type "\x00" slug
	itemID   // type "\x00" id
)

type claimKey struct {
	kind claimKind
	key  string
}

// newClaims makes the claims of a site of pages pages and items items
// (the maps sized for them: a site of 100k items and no page used to
// have page maps sized for 25k).
func newClaims(pages, items int) *claims {
	return &claims{
		keys:      [4]map[string]string{make(map[string]string, pages), make(map[string]string, pages), make(map[string]string, items), make(map[string]string, items)},
		contested: map[claimKey]bool{},
	}
}

// unitCounts are the pages and items among units.
func unitCounts(units []*unit) (pages, items int) {
	for _, u := range units {
		switch {
		case u == nil || u.err != nil:
		case u.item != nil:
			items++
		default:
			pages++
		}
	}
	return pages, items
}

// keys are the slug and id a unit claims.
func (u *unit) keys() [2]claimKey {
	if u.item != nil {
		return [2]claimKey{{itemSlug, u.slugKey}, {itemID, u.idKey}}
	}
	return [2]claimKey{{pageSlug, u.page.Slug}, {pageID, u.page.ID}}
}
