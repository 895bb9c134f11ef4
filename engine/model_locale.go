package engine

import (
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
			lms = &modelState{applied: map[*content.Item]*content.Item{}, typeSlices: map[string][2][]*content.Item{}}
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
	slices.SortFunc(held, func(a, b HeldDoc) int {
		return strings.Compare(a.Path+"\x00"+a.Locale, b.Path+"\x00"+b.Locale)
	})
	out.Locales = locales
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
