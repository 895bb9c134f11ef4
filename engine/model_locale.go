package engine

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/schema"
)

// The content model in a site with locales: every locale's documents are
// validated (applyModel), and each locale's site gets what the default
// locale's does: its invalid documents of a type with onInvalid: reject
// held back (its last valid version in that locale served, from the
// previous snapshot's site of the locale, or the document left out, when
// the locale's fallback chain serves another locale's version), and
// defaults and dates filled in.

// rejectIn records path, an invalid document of locale loc to hold back.
func rejectIn(m *map[string]map[string]bool, loc, path string) {
	if *m == nil {
		*m = map[string]map[string]bool{}
	}
	if (*m)[loc] == nil {
		(*m)[loc] = map[string]bool{}
	}
	(*m)[loc][path] = true
}

// prevIn is what hold needs of prev for locale loc of site: the site of
// that locale prev served, and the documents it held back in it. For a
// site without locales, prev itself.
func prevIn(prev *Snapshot, site *content.Site, loc string) *Snapshot {
	if prev == nil || site.I18n == nil {
		return prev
	}
	out := &Snapshot{Site: prev.Site}
	if loc != site.Locale {
		out.Site = nil
		if prev.loc != nil {
			if sub := prev.loc.subs[loc]; sub != nil {
				out.Site = sub.Site
			}
		}
		if out.Site == nil {
			return nil
		}
	}
	for _, h := range prev.Held {
		if h.Locale == loc || (h.Locale == "" && loc == site.Locale) {
			out.Held = append(out.Held, h)
		}
	}
	return out
}

// applyLocales applies the model to the sites of the locales other than
// the default one (site, which applyModel made already): held back
// documents (reject: the invalid ones by locale) and defaults. The site
// returned has these sites in its Locales, and itself as the default
// locale's; held is the default locale's held documents, to which the
// others' are added, each saying its locale.
func (ms *modelState) applyLocales(site *content.Site, m *schema.Model, prev *Snapshot, reject map[string]map[string]bool, commit string, held []HeldDoc) (*content.Site, []HeldDoc) {
	if site.I18n == nil || site.Locales == nil {
		return site, held
	}
	for i := range held {
		held[i].Locale = site.Locale
	}
	out := *site
	locales := make(map[string]*content.Site, len(site.Locales))
	for _, l := range site.I18n.Locales {
		sub := site.Locales[l.Code]
		if sub == nil {
			continue
		}
		if l.Code == site.Locale {
			locales[l.Code] = &out
			continue
		}
		ls, h := ms.hold(sub, prevIn(prev, site, l.Code), reject[l.Code], commit)
		for i := range h {
			h[i].Locale = l.Code
		}
		held = append(held, h...)
		lms := ms.locales[l.Code]
		if lms == nil {
			lms = &modelState{typeSlices: map[string][2][]*content.Item{}}
			if ms.locales == nil {
				ms.locales = map[string]*modelState{}
			}
			ms.locales[l.Code] = lms
		}
		locales[l.Code] = lms.fillIn(ls, m)
	}
	for code := range ms.locales {
		if _, ok := locales[code]; !ok {
			delete(ms.locales, code)
		}
	}
	ms.untranslate(site.Locales, locales, held)
	slices.SortFunc(held, func(a, b HeldDoc) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Locale, b.Locale))
	})
	if r := locales[site.Locale]; r != &out {
		out = *r // untranslate made a copy
	}
	out.Locales = locales
	locales[site.Locale] = &out
	return &out, held
}

// projections are the locales each file of a site with the fields layout
// is checked in (every file holds every locale's values), the default
// locale first; nil for other sites.
func projections(site *content.Site) []string {
	if site.I18n.Layout != content.LayoutFields || site.Localize == nil {
		return nil
	}
	out := make([]string, 0, len(site.I18n.Locales))
	out = append(out, site.I18n.Default)
	for _, l := range site.I18n.Locales {
		if l.Code != site.I18n.Default {
			out = append(out, l.Code)
		}
	}
	return out
}

// projProblem tells whether the problem of a file of the fields layout
// read in locale loc is one its reading in the default locale (checked
// first) has already, at the same line: then it is not reported again.
// Another locale's own problem says its locale.
func projProblem(seen *map[content.Problem]bool, p *content.Problem, loc, def string) bool {
	if *seen == nil {
		*seen = map[content.Problem]bool{}
	}
	if (*seen)[*p] {
		return true
	}
	(*seen)[*p] = true
	if loc != def {
		p.Message += " (in " + loc + ")"
	}
	return false
}

// untranslate takes the documents left out for never being valid (held,
// not served) out of the translations of the documents of the other
// locales (served, by locale; raw are the sites as assembled, where the
// left out documents are): a translation that is not served is none. A
// document whose translations change is served as a copy, the same copy
// on every reload that changes them alike.
func (ms *modelState) untranslate(raw, served map[string]*content.Site, held []HeldDoc) {
	type target struct{ loc, typ, slug string }
	drop := map[target][]string{} // document -> the locales to take out
	for _, h := range held {
		if h.Served || raw[h.Locale] == nil {
			continue
		}
		var tr map[string]content.Translation
		if h.Type == schema.KindPages {
			for _, p := range raw[h.Locale].Pages {
				if p.Meta.Path == h.Path {
					tr = p.Translations
				}
			}
		} else {
			for _, it := range raw[h.Locale].Items[h.Type] {
				if it.Meta.Path == h.Path {
					tr = it.Translations
				}
			}
		}
		for loc, t := range tr {
			if loc != h.Locale {
				k := target{loc, h.Type, t.Slug}
				drop[k] = append(drop[k], h.Locale)
			}
		}
	}
	copies := make(map[any]any, len(ms.untranslated))
	defer func() { ms.untranslated = copies }()
	if len(drop) == 0 {
		return
	}
	without := func(tr map[string]content.Translation, locs []string) map[string]content.Translation {
		out := maps.Clone(tr)
		for _, l := range locs {
			delete(out, l)
		}
		return out
	}
	same := func(a, b map[string]content.Translation) bool {
		return maps.Equal(a, b)
	}
	owned := map[string]bool{} // locales whose site is a copy of its own here
	own := func(loc string) *content.Site {
		if !owned[loc] {
			cp := *served[loc]
			cp.Items = maps.Clone(cp.Items)
			served[loc] = &cp
			owned[loc] = true
		}
		return served[loc]
	}
	for k, locs := range drop {
		s := served[k.loc]
		if s == nil {
			continue
		}
		if k.typ == schema.KindPages {
			i, ok := slices.BinarySearchFunc(s.Pages, k.slug, func(p *content.Page, slug string) int { return strings.Compare(p.Slug, slug) })
			if !ok {
				continue
			}
			p := s.Pages[i]
			want := without(p.Translations, locs)
			if len(want) == len(p.Translations) {
				continue
			}
			cp, _ := ms.untranslated[p].(*content.Page)
			if cp == nil || !same(cp.Translations, want) {
				c := *p
				c.Translations = want
				cp = &c
			}
			copies[p] = cp
			o := own(k.loc)
			if sameSlicePages(o.Pages, s.Pages) {
				o.Pages = slices.Clone(s.Pages)
			}
			o.Pages[i] = cp
			continue
		}
		items := s.Items[k.typ]
		i, ok := slices.BinarySearchFunc(items, k.slug, func(it *content.Item, slug string) int { return strings.Compare(it.Slug, slug) })
		if !ok {
			continue
		}
		it := items[i]
		want := without(it.Translations, locs)
		if len(want) == len(it.Translations) {
			continue
		}
		cp, _ := ms.untranslated[it].(*content.Item)
		if cp == nil || !same(cp.Translations, want) {
			c := *it
			c.Translations = want
			cp = &c
		}
		copies[it] = cp
		o := own(k.loc)
		if l := o.Items[k.typ]; len(l) > 0 && &l[0] == &items[0] {
			o.Items[k.typ] = slices.Clone(items)
		}
		o.Items[k.typ][i] = cp
	}
}

func sameSlicePages(a, b []*content.Page) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
