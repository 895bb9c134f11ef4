package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/folio-cms/folio/content"
)

// crossCheck checks what no one document tells: that a unique field's value
// is not another document's of the type (the first by path keeps it),
// and that a reference written as a bare slug names an item of a type it
// may name ("<type>/<slug>" references are checked for every document by
// content.RefChecker). Violations are reported; they do not hold a
// document back.
func crossCheck(site *content.Site, checks []docCheck) []content.Problem {
	var out []content.Problem
	// value -> path of the first document that has it, by locale, type
	// and field, each map sized for the documents of its type that have
	// unique values (counted first: no map grows as it fills)
	type group struct{ loc, typ, field string }
	var sizes map[group]int // by locale and type
	for _, c := range checks {
		if len(c.res.unique()) > 0 {
			if sizes == nil {
				sizes = map[group]int{}
			}
			sizes[group{loc: c.loc, typ: c.typ}]++
		}
	}
	seen := map[group]map[string]string{}
	var lastG group
	var lastVals map[string]string
	for _, c := range checks {
		in := site // a locale's documents are unique, and referred to, within it
		if ls := site.Locales[c.loc]; ls != nil {
			in = ls
		}
		for _, u := range c.res.unique() {
			g := group{c.loc, c.typ, u.field}
			vals := lastVals
			if vals == nil || g != lastG {
				vals = seen[g]
				if vals == nil {
					vals = make(map[string]string, sizes[group{loc: c.loc, typ: c.typ}])
					seen[g] = vals
				}
				lastG, lastVals = g, vals
			}
			if first, dup := vals[u.value]; dup {
				out = append(out, content.Problem{Path: c.path, Line: c.doc.LineOf(u.field),
					Message: fmt.Sprintf("%s: %q is the value of %s already (unique)", u.field, u.value, first)})
				continue
			}
			vals[u.value] = c.path
		}
		for _, r := range c.res.bare() {
			if !slugExists(in, r.to, r.slug) {
				out = append(out, content.Problem{Path: c.path, Line: c.doc.LineOf(r.field),
					Message: fmt.Sprintf("%s: no %s has the slug %q", r.field, strings.Join(r.to, " or "), r.slug)})
			}
		}
	}
	return out
}

func slugExists(site *content.Site, types []string, slug string) bool {
	for _, typ := range types {
		if typ == "pages" {
			_, found := slices.BinarySearchFunc(site.Pages, slug, func(p *content.Page, s string) int { return strings.Compare(p.Slug, s) })
			if found {
				return true
			}
			continue
		}
		if _, found := slices.BinarySearchFunc(site.Items[typ], slug, func(it *content.Item, s string) int { return strings.Compare(it.Slug, s) }); found {
			return true
		}
	}
	return false
}

// scalarKinds are the kinds a list sorts by.
var scalarKinds = map[string]bool{"string": true, "text": true, "slug": true, "enum": true, "number": true, "integer": true,
	"boolean": true, "date": true, "datetime": true, "url": true, "email": true, "reference": true, "media": true}
