package engine

import (
	"sync"

	"github.com/folio-cms/folio/content"
)

// lazyPaths is a view's documents by their path on the site, made on the
// first Resolve: a view nobody resolves a path in costs nothing.
type lazyPaths struct {
	once sync.Once
	m    map[string]Resolved
}

// Resolved is the document a path on the site names: a page (Type "")
// or an item of Type, and its slug.
type Resolved struct {
	Type, Slug string
	Res        *Resource
}

// Resolve finds the page or item whose path on the site is path
// ("/2019/01/01/report/", content.Addressed.Path). Pages come first,
// then each type's items by type name and slug; of two documents with
// one path, the first is found. false when the view has none.
func (v *View) Resolve(path string) (Resolved, bool) {
	v.byPath.once.Do(func() {
		m := make(map[string]Resolved, len(v.pages))
		add := func(typ string, r *Resource) {
			var a content.Addressed
			var slug string
			switch d := docValue(r.value).(type) {
			case *content.Page:
				a, slug = d.Addressed, d.Slug
			case *content.Item:
				a, slug = d.Addressed, d.Slug
			default:
				return
			}
			if _, taken := m[a.Path]; !taken && a.Path != "" {
				m[a.Path] = Resolved{Type: typ, Slug: slug, Res: r}
			}
		}
		for _, e := range v.pages {
			add("", e.full)
		}
		for _, name := range v.TypeNames() {
			for _, e := range v.types[name].items {
				add(name, e.res)
			}
		}
		v.byPath.m = m
	})
	r, ok := v.byPath.m[path]
	return r, ok
}
