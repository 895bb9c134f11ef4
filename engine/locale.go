package engine

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine/gitsource"
)

// A snapshot of a site with locales holds one snapshot per locale (the
// default locale's is the snapshot itself), each with its own resources
// and views. A reader asking for a locale gets that locale's view, merged
// with the views of its fallback chain: every document of the locale,
// and every document of the chain's locales that has no translation
// shown before it, marked as a fallback.

// localeSet is the locales of a snapshot.
type localeSet struct {
	i18n  *content.I18n
	subs  map[string]*Snapshot // by locale; the default's is the root snapshot
	views map[string]*localeViews

	fbMu sync.Mutex
	fb   map[*Resource]*Resource // a document's resource -> its fallback copy's
}

// localeViews caches the merged views of one locale: [draft][fallback].
type localeViews struct {
	v [2][2]atomic.Pointer[mergedView]
}

type mergedView struct {
	parts []*View // the views it was merged from: the locale's, then its chain's
	view  *View
}

func newLocaleSet(root *Snapshot, branch string, tree *gitsource.Tree, now time.Time, prev *Snapshot) *localeSet {
	site := root.Site
	ls := &localeSet{i18n: site.I18n, subs: map[string]*Snapshot{}, views: map[string]*localeViews{}, fb: map[*Resource]*Resource{}}
	for _, l := range site.I18n.Locales {
		ls.views[l.Code] = &localeViews{}
		if l.Code == site.Locale {
			ls.subs[l.Code] = root
			continue
		}
		var p *Snapshot
		if prev != nil && prev.loc != nil {
			p = prev.loc.subs[l.Code]
		}
		sub := site.Locales[l.Code]
		if sub == nil {
			sub = &content.Site{Items: map[string][]*content.Item{}, Locale: l.Code, I18n: site.I18n}
		} else {
			cp := *sub
			sub = &cp
		}
		// the types' options as the content model left them (declared
		// fields sort), in the locale's search language
		lang := sub.Config.Language
		sub.Config = site.Config
		sub.Config.Language = lang
		ls.subs[l.Code] = newSnapshotOne(branch, tree, sub, nil, now, p)
	}
	return ls
}

// LocaleError is a locale the site does not have (a 400).
type LocaleError struct {
	Asked string
	Known []string // nil: the site has no locales
}

func (e *LocaleError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("locale %q: this site has no locales", e.Asked)
	}
	return fmt.Sprintf("unknown locale %q; the site's locales are %s", e.Asked, strings.Join(e.Known, ", "))
}

// I18n is the locales of the view's site; nil for a site without.
func (v *View) I18n() *content.I18n {
	if v.snap == nil {
		return nil
	}
	return v.snap.Site.I18n
}

// Locale is the locale of the view; "" for a site without locales.
func (v *View) Locale() string { return v.locale }

// InLocale is the view of locale code: that locale's documents, and with
// fallback those of its fallback chain that it lacks (see
// content.Localized). An unknown locale, or any on a site without
// locales, is a *LocaleError.
func (v *View) InLocale(code string, fallback bool, now time.Time) (*View, error) {
	root := v.snap
	if root == nil || root.loc == nil {
		var known []string
		if c := v.I18n(); c != nil {
			known = c.Codes()
		}
		return nil, &LocaleError{Asked: code, Known: known}
	}
	ls := root.loc
	l, ok := ls.i18n.Locale(code)
	if !ok {
		return nil, &LocaleError{Asked: code, Known: ls.i18n.Codes()}
	}
	var chain []string
	if fallback {
		chain = l.Fallback
	}
	d, f := 0, 0
	if v.draft {
		d = 1
	}
	if fallback {
		f = 1
	}
	slot := &ls.views[code].v[d][f]
	partOf := func(i int) *View {
		c := code
		if i > 0 {
			c = chain[i-1]
		}
		if c == root.Site.Locale {
			if i == 0 && len(chain) == 0 {
				return v
			}
			return root.View(v.draft, now)
		}
		return ls.subs[c].View(v.draft, now)
	}
	if m := slot.Load(); m != nil && len(m.parts) == len(chain)+1 {
		same := true
		for i := range m.parts {
			if partOf(i) != m.parts[i] {
				same = false
				break
			}
		}
		if same {
			return m.view, nil
		}
	}
	parts := make([]*View, len(chain)+1)
	for i := range parts {
		parts[i] = partOf(i)
	}
	m := &mergedView{parts: parts, view: parts[0]}
	if len(parts) > 1 {
		m.view = ls.merge(parts, slices.Concat([]string{code}, chain))
	}
	slot.Store(m)
	return m.view, nil
}

// merge is the view of locale codes[0] with fallbacks from the others.
func (ls *localeSet) merge(parts []*View, codes []string) *View {
	base := parts[0]
	v := &View{
		validFrom:  base.validFrom,
		validUntil: base.validUntil,
		pageBySlug: make(map[string]*pageEntry, len(base.pageBySlug)),
		types:      make(map[string]*TypeList, len(base.types)),
		globals:    base.globals,
		snap:       base.snap,
		draft:      base.draft,
		locale:     base.locale,
		pageKeys:   base.pageKeys,
	}
	ids := make([]string, len(parts))
	for i, p := range parts {
		ids[i] = p.ID
		if p.validFrom.After(v.validFrom) {
			v.validFrom = p.validFrom
		}
		if p.validUntil.Before(v.validUntil) {
			v.validUntil = p.validUntil
		}
	}
	v.ID = strings.Join(ids, "+")

	// covered tells whether a document with these translations is shown
	// by one of the first n parts, and which entry shows it.
	coveredPage := func(tr map[string]content.Translation, n int) (*pageEntry, bool) {
		for j := 0; j < n; j++ {
			if t, ok := tr[codes[j]]; ok {
				if e, ok := parts[j].pageBySlug[t.Slug]; ok {
					return e, true
				}
			}
		}
		return nil, false
	}
	v.pages = slices.Clone(base.pages)
	for slug, e := range base.pageBySlug {
		v.pageBySlug[slug] = e
	}
	for j := 1; j < len(parts); j++ {
		for _, e := range parts[j].pages {
			p, ok := docValue(e.full.value).(*content.Page)
			if !ok {
				continue
			}
			if by, ok := coveredPage(p.Translations, j); ok {
				if _, taken := v.pageBySlug[p.Slug]; !taken {
					// the slug of another locale finds the translation
					// shown, as this view shows it
					if shown := v.pageBySlugOf(by); shown != nil {
						v.pageBySlug[p.Slug] = shown
					}
				}
				continue
			}
			fe := &pageEntry{full: ls.fallback(e.full), summary: ls.fallback(e.summary)}
			v.pages = append(v.pages, fe)
			if _, taken := v.pageBySlug[p.Slug]; !taken {
				v.pageBySlug[p.Slug] = fe
			}
		}
	}
	slices.SortStableFunc(v.pages, func(a, b *pageEntry) int {
		sa, sb := summaryOf(a.summary), summaryOf(b.summary)
		if sa.IsHomepage != sb.IsHomepage {
			if sa.IsHomepage {
				return -1
			}
			return 1
		}
		return strings.Compare(sa.Slug, sb.Slug)
	})

	names := map[string]bool{}
	for _, p := range parts {
		for n := range p.types {
			names[n] = true
		}
	}
	for name := range names {
		bt := base.types[name]
		tl := &TypeList{Name: name, keys: newKeyHeaders(localeKey(TypeKey(name), base.locale))}
		bySlug := map[string]*itemEntry{}
		if bt != nil {
			tl.Config = bt.Config
			tl.items = slices.Clone(bt.items)
			for s, e := range bt.bySlug.all() {
				bySlug[s] = e
			}
		}
		added := false
		for j := 1; j < len(parts); j++ {
			pt := parts[j].types[name]
			if pt == nil {
				continue
			}
			if bt == nil && tl.Config.Model == nil && !tl.Config.Public && len(tl.Config.Sortable) == 0 {
				tl.Config = pt.Config
			}
			for _, e := range pt.items {
				covered := false
				for k := 0; k < j && !covered; k++ {
					if t, ok := e.item.Translations[codes[k]]; ok {
						if kt := parts[k].types[name]; kt != nil {
							if _, ok := kt.bySlug.get(t.Slug); ok {
								covered = true
								if _, taken := bySlug[e.item.Slug]; !taken {
									if shown, ok := bySlug[t.Slug]; ok {
										bySlug[e.item.Slug] = shown
									}
								}
							}
						}
					}
				}
				if covered {
					continue
				}
				fe := &itemEntry{item: e.item, res: ls.fallback(e.res)}
				tl.items = append(tl.items, fe)
				added = true
				if _, taken := bySlug[e.item.Slug]; !taken {
					bySlug[e.item.Slug] = fe
				}
			}
		}
		tl.bySlug = newLayerMap(bySlug)
		if added {
			slices.SortStableFunc(tl.items, func(a, b *itemEntry) int { return strings.Compare(a.item.Slug, b.item.Slug) })
		}
		v.types[name] = tl
	}
	return v
}

// pageBySlugOf is the entry of v showing the document of e (a page of one
// of the merged views): e itself, or its fallback copy.
func (v *View) pageBySlugOf(e *pageEntry) *pageEntry {
	slug := summaryOf(e.summary).Slug
	if shown, ok := v.pageBySlug[slug]; ok {
		return shown
	}
	return nil
}

func summaryOf(r *Resource) pageSummary {
	switch s := r.value.(type) {
	case pageSummary:
		return s
	case statusSummary:
		return s.pageSummary
	}
	return pageSummary{}
}

// fallback is the resource of r's document served in another locale's
// place: the same document, saying fallback: true. Made once per
// snapshot.
func (ls *localeSet) fallback(r *Resource) *Resource {
	ls.fbMu.Lock()
	defer ls.fbMu.Unlock()
	if f, ok := ls.fb[r]; ok {
		return f
	}
	var val any
	switch x := r.value.(type) {
	case *content.Item:
		c := *x
		c.Fallback = true
		val = &c
	case statusItem:
		c := *x.Item
		c.Fallback = true
		val = statusItem{&c, x.Status}
	case *content.Page:
		c := *x
		c.Fallback = true
		val = &c
	case statusPage:
		c := *x.Page
		c.Fallback = true
		val = statusPage{&c, x.Status}
	case pageSummary:
		x.Fallback = true
		val = x
	case statusSummary:
		x.Fallback = true
		val = x
	default:
		return r
	}
	f := newResource(val)
	ls.fb[r] = f
	return f
}

// LocaleCounts are the documents of each locale of the published view
// (the locale's own, without fallbacks): pages and items.
func (v *View) LocaleCounts(now time.Time) map[string]int {
	root := v.snap
	if root == nil || root.loc == nil {
		return nil
	}
	out := map[string]int{}
	for code, sub := range root.loc.subs {
		lv := sub.View(v.draft, now)
		n := len(lv.pages)
		for _, t := range lv.types {
			n += len(t.items)
		}
		out[code] = n
	}
	return out
}

// PagesKeys are the Surrogate-Key and Cache-Tag values of the view's page
// list ("pages", or "pages@<locale>").
func (v *View) PagesKeys() (surrogateKey, cacheTag []string) {
	return v.pageKeys.surrogate, v.pageKeys.tag
}

// ResourceLocale is the locale of a page's or item's resource ("" when
// none): for Content-Language.
func (r *Resource) Locale() string {
	switch d := docValue(r.value).(type) {
	case *content.Item:
		return d.Locale
	case *content.Page:
		return d.Locale
	case *content.Globals:
		return d.Locale
	}
	return ""
}

// localeChangedKeys adds the keys of the other locales of a site with
// locales to keys (see ChangedKeys): each locale's changes, and since a
// locale's lists and globals show its chain's documents, a list or
// globals key of one locale names that of every locale.
func localeChangedKeys(keys map[string]bool, old, new *Snapshot) {
	if new.loc == nil {
		return
	}
	for code, sub := range new.loc.subs {
		if sub == new {
			continue
		}
		var o *Snapshot
		if old.loc != nil {
			o = old.loc.subs[code]
		}
		if o == nil {
			o = &Snapshot{Site: &content.Site{}}
		}
		for _, k := range ChangedKeys(o, sub) {
			keys[k] = true
		}
	}
	spreadLocaleKeys(keys, new.loc)
}

// spreadLocaleKeys adds, for each list or globals key of one locale in
// keys, that key of every locale: a locale's lists and globals show its
// fallback chain's documents.
func spreadLocaleKeys(keys map[string]bool, ls *localeSet) {
	for k := range keys {
		at := strings.LastIndexByte(k, '@')
		if at < 0 {
			continue
		}
		base := k[:at]
		if base == KeyPages || base == KeyGlobals || strings.HasPrefix(base, "type:") {
			for code := range ls.subs {
				keys[base+"@"+code] = true
			}
		}
	}
}
