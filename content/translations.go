package content

// Translations linked: which documents of the locales are one another's.

import (
	"cmp"
	"path"
	"slices"
	"strings"
)

// link fills in every document's Localized: its locale and its
// translations, the documents of the other locales at the same path in
// their locale (or with the same translationKey). A locale's site gets
// copies of its sub-assembler's documents (raw); a copy is made again
// only when its document or its group of translations changed, so that
// a reload costs the documents that changed, and an unchanged copy (same
// pointer) keeps its encoded JSON. The first call, and a call where a
// translationKey conflict may resolve differently, link everything
// afresh, documents in path order (the first by path wins a conflict).
func (st *localeState) link(cfg *I18n, files []File, raw, sites map[string]*Site) []Problem {
	fresh := st.links == nil || st.last == nil
	n := 0 // documents, to size a fresh call's maps
	if fresh {
		for _, site := range raw {
			n += len(site.Pages)
			for _, items := range site.Items {
				n += len(items)
			}
		}
		st.links, st.groups, st.last = make(map[any]*docLink, n), make(map[string]*transGroup, n/len(cfg.Locales)+1), map[string]*Site{}
	}
	type change struct {
		doc  any
		loc  string
		path string
	}
	var gone []change
	added := make([]change, 0, n)
	for _, l := range cfg.Locales {
		cur, prev := raw[l.Code], st.last[l.Code]
		if prev == nil {
			prev = &Site{}
		}
		diffBySlug(prev.Pages, cur.Pages, func(p *Page) string { return p.Slug },
			func(p *Page) { gone = append(gone, change{p, l.Code, p.Meta.Path}) },
			func(p *Page) { added = append(added, change{p, l.Code, p.Meta.Path}) })
		for typ := range UnionKeys(prev.Items, cur.Items) {
			diffBySlug(prev.Items[typ], cur.Items[typ], func(it *Item) string { return it.Slug },
				func(it *Item) { gone = append(gone, change{it, l.Code, it.Meta.Path}) },
				func(it *Item) { added = append(added, change{it, l.Code, it.Meta.Path}) })
		}
	}
	touched := make(map[string]bool, n/len(cfg.Locales)+1)
	for _, c := range gone {
		dl := st.links[c.doc]
		if dl == nil {
			continue
		}
		delete(st.links, c.doc)
		g := st.groups[dl.group]
		if g == nil {
			continue
		}
		if dl.problem != nil {
			g.losers--
			continue
		}
		if g.losers > 0 {
			return st.relink(cfg, files, raw, sites) // a loser may win now
		}
		delete(g.docs, dl.loc)
		touched[dl.group] = true
	}
	byPath := func(a, b change) int {
		return cmp.Or(strings.Compare(a.path, b.path), strings.Compare(a.loc, b.loc))
	}
	if !fresh {
		slices.SortFunc(added, byPath)
	}
	// A fresh call takes the documents in locale and slug order, and in
	// path order only once a translationKey conflict shows (the first by
	// path wins it): sorting 30k paths is a tenth of the call.
	inPathOrder := !fresh
	for i := 0; i < len(added); i++ {
		c := added[i]
		key, tkey, line := st.groupKey(cfg, files, c.doc, c.path)
		g := st.groups[key]
		if g == nil {
			g = &transGroup{docs: make(map[string]any, len(cfg.Locales))}
			st.groups[key] = g
		}
		dl := &docLink{group: key, loc: c.loc}
		st.links[c.doc] = dl
		if holder, taken := g.docs[c.loc]; taken && holder != c.doc {
			if !fresh {
				return st.relink(cfg, files, raw, sites)
			}
			if !inPathOrder {
				slices.SortFunc(added, byPath)
				inPathOrder = true
				clear(st.links)
				clear(st.groups)
				clear(touched)
				i = -1
				continue
			}
			g.losers++
			dl.problem = &Problem{Path: c.path, Line: line, Message: "translationKey " + quote(tkey) + " is used by the " + c.loc + " document " + docSlug(holder) + " already; this one is not linked as a translation"}
			dl.copy = localized(c.doc, c.loc, map[string]Translation{c.loc: translationOf(c.doc, c.loc)})
			continue
		}
		g.docs[c.loc] = c.doc
		touched[key] = true
	}
	dirty := map[string]bool{} // locale "\x00" type ("" for pages) whose copies changed
	for key := range touched {
		g := st.groups[key]
		if len(g.docs) == 0 {
			if g.losers == 0 {
				delete(st.groups, key)
			}
			continue
		}
		g.tr = make(map[string]Translation, len(g.docs))
		for loc, d := range g.docs {
			g.tr[loc] = translationOf(d, loc)
		}
		for loc, d := range g.docs {
			st.links[d].copy = localized(d, loc, g.tr)
			dirty[loc+"\x00"+docType(d)] = true
		}
	}
	for _, c := range added {
		if dl := st.links[c.doc]; dl.problem != nil {
			dirty[c.loc+"\x00"+docType(c.doc)] = true
		}
	}

	var problems []Problem
	for _, l := range cfg.Locales {
		cur, s := raw[l.Code], sites[l.Code]
		last := st.out[l.Code]
		prevRaw := st.last[l.Code]
		if prevRaw == nil {
			prevRaw = &Site{}
		}
		out := localeOut{items: make(map[string][]*Item, len(cur.Items)), globals: last.globals}
		if !dirty[l.Code+"\x00"] && sameSlice(prevRaw.Pages, cur.Pages) && len(last.pages) == len(cur.Pages) {
			out.pages = last.pages
		} else if len(cur.Pages) > 0 {
			out.pages = make([]*Page, len(cur.Pages))
			for i, p := range cur.Pages {
				out.pages[i] = st.links[p].copy.(*Page)
			}
		}
		for typ, list := range cur.Items {
			if lastList, ok := last.items[typ]; ok && !dirty[l.Code+"\x00"+typ] && sameSlice(prevRaw.Items[typ], list) && len(lastList) == len(list) {
				out.items[typ] = lastList
				continue
			}
			cl := make([]*Item, len(list))
			for i, it := range list {
				cl[i] = st.links[it].copy.(*Item)
			}
			out.items[typ] = cl
		}
		s.Pages, s.Items = out.pages, out.items
		if g := s.Globals; g != nil {
			if last.globals[0] != g {
				cp := *g
				cp.Locale = l.Code
				out.globals = [2]*Globals{g, &cp}
			}
			s.Globals = out.globals[1]
		}
		st.out[l.Code] = out
		st.last[l.Code] = cur
	}
	for _, dl := range st.links {
		if dl.problem != nil {
			problems = append(problems, *dl.problem)
		}
	}
	return problems
}

// relink links every document afresh (see link).
func (st *localeState) relink(cfg *I18n, files []File, raw, sites map[string]*Site) []Problem {
	st.links, st.groups, st.last = nil, nil, nil
	return st.link(cfg, files, raw, sites)
}

// groupKey is the group of translations of a document: its translationKey,
// else its path in its locale without the extension; with the key and
// its line, for problems.
func (st *localeState) groupKey(cfg *I18n, files []File, doc any, realPath string) (key, tkey string, line int) {
	kind := "page"
	if it, ok := doc.(*Item); ok {
		kind = "item\x00" + it.Type
	}
	virt := realPath
	// the file's class and document, from this call's classification
	if i, found := slices.BinarySearch(st.lastPaths, realPath); found {
		if c := st.lastClass[i]; c.ok {
			virt = c.virt
		}
		if d := st.lastDocs[i]; d != nil {
			for _, k := range []string{"translationKey", "translationkey"} {
				if v, ok := d.Value(k); ok {
					tkey, _ = scalarText(v)
					line = d.KeyLines()[k]
					break
				}
			}
		}
	}
	if tkey != "" {
		return kind + "\x00k\x00" + tkey, tkey, line
	}
	return kind + "\x00p\x00" + virt[:len(virt)-len(path.Ext(virt))], "", 0
}

func translationOf(doc any, loc string) Translation {
	switch d := doc.(type) {
	case *Page:
		return Translation{Slug: d.Slug, ID: d.ID, URL: "/api/v1/pages/" + EscapeSlug(d.Slug) + "?locale=" + loc}
	case *Item:
		return Translation{Slug: d.Slug, ID: d.ID, URL: "/api/v1/content/" + d.Type + "/" + EscapeSlug(d.Slug) + "?locale=" + loc}
	}
	return Translation{}
}

// localized is a copy of doc saying its locale and translations.
func localized(doc any, loc string, tr map[string]Translation) any {
	switch d := doc.(type) {
	case *Page:
		cp := *d
		cp.Localized = Localized{Locale: loc, Translations: tr}
		return &cp
	case *Item:
		cp := *d
		cp.Localized = Localized{Locale: loc, Translations: tr}
		return &cp
	}
	return doc
}

func docSlug(doc any) string {
	switch d := doc.(type) {
	case *Page:
		return d.Slug
	case *Item:
		return d.Slug
	}
	return ""
}

// docType is the type of an item, "" for a page.
func docType(doc any) string {
	if it, ok := doc.(*Item); ok {
		return it.Type
	}
	return ""
}
