package engine

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/folio-cms/folio/content"
)

// Surrogate keys name what a response holds, so that a CDN can purge by
// key: "page:<id>" for a page, "pages" for the page list,
// "item:<type>/<id>" for an item, "type:<type>" for a type's list (and on
// each of its items), "globals" for the site settings. Ids are
// percent-encoded where they hold anything but letters, digits and
// "-._~/:@", so a key never holds a space or a comma (the separators of
// the Surrogate-Key and Cache-Tag headers).
const (
	KeyPages   = "pages"
	KeyGlobals = "globals"
	// KeyPresets is on every media JSON response that lists items: each
	// raster item lists its preset URLs, which folio.yaml's imagePresets
	// decide. Content names it when they change.
	KeyPresets = "presets"
)

// PageKey is the surrogate key of one page.
func PageKey(id string) string { return "page:" + KeyPart(id) }

// ItemKey is the surrogate key of one content item.
func ItemKey(typ, id string) string { return "item:" + KeyPart(typ) + "/" + KeyPart(id) }

// TypeKey is the surrogate key of a content type's list.
func TypeKey(typ string) string { return "type:" + KeyPart(typ) }

// KeyPart escapes s for use in a surrogate key; it returns s itself when
// nothing needs escaping.
func KeyPart(s string) string {
	i := 0
	for i < len(s) && keySafe(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if keySafe(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func keySafe(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~/:@", c) >= 0
}

// keyHeaders are the values of the Surrogate-Key (space-separated) and
// Cache-Tag (comma-separated) headers of one response, as one-element
// slices that handlers put in a header map as they are, without
// allocating. They are shared: never modify them.
type keyHeaders struct {
	surrogate, tag []string
}

func newKeyHeaders(keys ...string) keyHeaders {
	if len(keys) == 0 {
		return keyHeaders{}
	}
	sk := []string{strings.Join(keys, " ")}
	if len(keys) == 1 {
		return keyHeaders{surrogate: sk, tag: sk}
	}
	return keyHeaders{surrogate: sk, tag: []string{strings.Join(keys, ",")}}
}

// resourceKeys are the surrogate keys of a single resource: a page, an
// item or the globals; none for a page summary (it is only served inside
// the page list).
func resourceKeys(v any) keyHeaders {
	switch v := docValue(v).(type) {
	case *content.Page:
		return newKeyHeaders(localeKey(PageKey(v.ID), v.Locale))
	case *content.Item:
		return newKeyHeaders(localeKey(ItemKey(v.Type, v.ID), v.Locale), localeKey(TypeKey(v.Type), v.Locale))
	case *content.Globals:
		return newKeyHeaders(localeKey(KeyGlobals, v.Locale))
	}
	return keyHeaders{}
}

// localeKey is the surrogate key k of locale loc: k@loc in a site with
// locales ("item:posts/x@fr", "type:posts@fr", "pages@fr", "globals@fr"),
// k itself in a site without (loc "").
func localeKey(k, loc string) string {
	if loc == "" {
		return k
	}
	return k + "@" + loc
}

// ChangedKeys lists the surrogate keys whose responses differ between the
// snapshots old and new of a branch: every page and item added, removed or
// changed (its JSON, hence its ETag, differs), with its list key ("pages",
// "type:<type>"); "type:<type>" also for a type whose folio.yaml options
// changed; "globals" when the site settings changed. Sorted, no
// duplicates. It errs on the side of naming a key: a draft that changed is
// named too, though the published view does not show it.
//
// A page or item that a reload did not touch is the same pointer in both
// snapshots (content.Assembler), so the cost is two map lookups a document
// plus an encoding of the changed ones only: about 3 ms for 100k documents
// on one core (BenchmarkChangedKeys). Callers run it off the reload path.
func ChangedKeys(old, new *Snapshot) []string {
	if old == nil || new == nil {
		return nil
	}
	keys := map[string]bool{}
	loc := new.Site.Locale

	// Pages: the pointers of one snapshot that the other lacks.
	var gonePages, newPages []*content.Page
	for _, p := range old.Site.Pages {
		if _, ok := new.pageRes[p]; !ok {
			gonePages = append(gonePages, p)
		}
	}
	for _, p := range new.Site.Pages {
		if _, ok := old.pageRes[p]; !ok {
			newPages = append(newPages, p)
		}
	}
	if len(gonePages)+len(newPages) > 0 {
		oldByID := make(map[string]*content.Page, len(gonePages))
		for _, p := range gonePages {
			oldByID[p.ID] = p
		}
		for _, p := range newPages {
			if q, ok := oldByID[p.ID]; ok {
				delete(oldByID, p.ID)
				if sameBody(old.pageRes[q].full, new.pageRes[p].full) &&
					sameBody(old.pageRes[q].summary, new.pageRes[p].summary) {
					continue // a copy with the same JSON (homepage rule)
				}
			}
			keys[localeKey(PageKey(p.ID), loc)] = true
			keys[localeKey(KeyPages, loc)] = true
		}
		for id := range oldByID {
			keys[localeKey(PageKey(id), loc)] = true
			keys[localeKey(KeyPages, loc)] = true
		}
	}

	// Items, type by type.
	for typ, items := range new.Site.Items {
		diffItems(keys, typ, old.Site.Items[typ], items, old, new, loc)
	}
	for typ, items := range old.Site.Items {
		if _, ok := new.Site.Items[typ]; !ok {
			diffItems(keys, typ, items, nil, old, new, loc)
		}
	}
	for typ := range content.UnionKeys(old.Site.Config.Types, new.Site.Config.Types) {
		a, aok := old.Site.Config.Types[typ]
		b, bok := new.Site.Config.Types[typ]
		if aok != bok || !reflect.DeepEqual(a, b) {
			keys[localeKey(TypeKey(typ), loc)] = true
		}
	}

	// Globals are small: compare their JSON.
	og, ng := old.Site.Globals, new.Site.Globals
	if og != ng && (og == nil || ng == nil || !sameBody(newResource(og), newResource(ng))) {
		keys[localeKey(KeyGlobals, loc)] = true
	}
	if !reflect.DeepEqual(old.Site.Config.ImagePresets, new.Site.Config.ImagePresets) {
		keys[KeyPresets] = true
	}
	localeChangedKeys(keys, old, new)
	return slices.Sorted(maps.Keys(keys))
}

func diffItems(keys map[string]bool, typ string, oldItems, newItems []*content.Item, old, new *Snapshot, loc string) {
	var gone map[string]*content.Item
	for _, it := range oldItems {
		if _, ok := new.itemRes[typ].get(it); !ok {
			if gone == nil {
				gone = map[string]*content.Item{}
			}
			gone[it.ID] = it
		}
	}
	for _, it := range newItems {
		if _, ok := old.itemRes[typ].get(it); ok {
			continue
		}
		if q, ok := gone[it.ID]; ok {
			delete(gone, it.ID)
			if sameBody(old.itemResource(typ, q), new.itemResource(typ, it)) {
				continue
			}
		}
		keys[localeKey(ItemKey(typ, it.ID), loc)] = true
		keys[localeKey(TypeKey(typ), loc)] = true
	}
	for id := range gone {
		keys[localeKey(ItemKey(typ, id), loc)] = true
		keys[localeKey(TypeKey(typ), loc)] = true
	}
}

// sameBody reports whether two resources encode to the same JSON. Content
// that is only published later (or is a draft) still counts by its JSON.
func sameBody(a, b *Resource) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	_, ea, erra := a.Body()
	_, eb, errb := b.Body()
	return erra == nil && errb == nil && ea == eb
}
