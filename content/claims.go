package content

// claims are the slugs and ids the site's pages and items hold, each with
// the path of the file holding it, and every key a left-out page or item
// asked for.
type claims struct {
	keys      [4]map[string]string // by claimKind: key -> path
	contested map[claimKey]bool
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
