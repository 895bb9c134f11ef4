package engine

import (
	"slices"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/schema"
)

// urlRefs is, per content type of m, the URL keys (content.URLKey) m
// declares a reference or a list of references: the model wins over the
// rule that a URL key never refers (content.RefChecker.URLRefs). nil
// when m declares none, as is usual.
func urlRefs(m *schema.Model) map[string][]string {
	var out map[string][]string
	for _, t := range m.All() {
		for k := range t.References() {
			if !content.URLKey(k) {
				continue
			}
			if out == nil {
				out = map[string][]string{}
			}
			out[t.Name] = append(out[t.Name], k)
		}
	}
	for _, ks := range out {
		slices.Sort(ks)
	}
	return out
}

// notRefKey tells whether k, a top-level key of the data of a document
// of type typ, holds no references: a URL key (content.URLKey) that the
// model m does not declare a reference. Cheap for every other key.
func notRefKey(m *schema.Model, typ, k string) bool {
	if !content.URLKey(k) {
		return false
	}
	_, declared := m.Of(typ).References()[k]
	return !declared
}
