package content

import (
	"cmp"
	"maps"
	"path"
	"slices"
	"strings"
)

// A site with locales is assembled locale by locale: each file is given
// to its locale as the path it would have in a site without locales
// (content/fr/posts/a.md and content/posts/a.fr.md are content/posts/a.md
// of locale fr), one Assembler per locale reads them, and the documents
// of the locales are then linked as translations of each other.

// localeRelevant tells whether p is a file only a site with locales uses:
// a Hugo config, a locale's globals, a file right inside content/ (a
// Hugo root page).
func localeRelevant(p string) bool {
	if _, ok := hugoConfigFile(p); ok {
		return true
	}
	for _, s := range strings.Split(p, "/") {
		if s == "" || s[0] == '.' || s[0] == '_' {
			return false
		}
	}
	if _, ok := hugoConfigFile(p); ok {
		return true
	}
	if _, ok := globalsLocale(p); ok {
		return true
	}
	if rest, ok := strings.CutPrefix(p, "content/"); ok && !strings.Contains(rest, "/") {
		return isDocExt(strings.ToLower(path.Ext(rest)))
	}
	return false
}

// globalsLocale tells whether p is a locale's globals file,
// globals.<locale>.yaml or globals/<locale>.yaml, and which locale's.
func globalsLocale(p string) (string, bool) {
	ext := strings.ToLower(path.Ext(p))
	if !isDataExt(ext) {
		return "", false
	}
	name := p[:len(p)-len(ext)]
	var code string
	if c, ok := strings.CutPrefix(name, "globals/"); ok {
		code = c
	} else if strings.HasPrefix(strings.ToLower(name), "globals.") && !strings.Contains(name, "/") {
		code = name[len("globals."):]
	} else {
		return "", false
	}
	if code == "" || strings.ContainsAny(code, "/.") {
		return "", false
	}
	return code, true
}

// detectI18n finds the locales of a site: folio.yaml's, else its Hugo
// config's, else its Decap/Sveltia config's i18n block; nil for a site
// without.
func detectI18n(sorted []File) (*I18n, []Problem) {
	var (
		folio        *File
		hugoRoot     []File
		hugoDefault  []File
		decap        []*File
		hugoProblems []Problem
	)
	for i := range sorted {
		f := &sorted[i]
		p := f.Path
		switch {
		case strings.IndexByte(p, '/') < 0:
			low := strings.ToLower(p)
			if strings.HasPrefix(low, "folio.") && isDataExt(path.Ext(low)) && folio == nil {
				folio = f
			} else if _, ok := hugoConfigFile(p); ok {
				hugoRoot = append(hugoRoot, *f)
			}
		case strings.HasPrefix(p, "config/_default/"):
			if _, ok := hugoConfigFile(p); ok {
				hugoDefault = append(hugoDefault, *f)
			}
		case (strings.HasSuffix(p, "/config.yml") || strings.HasSuffix(p, "/config.yaml")) && ModelFile(p):
			decap = append(decap, f)
		}
	}
	schemaFrom := ""
	if folio != nil && folio.Doc != nil {
		if cfg, probs := readFolioI18n(folio.Path, folio.Doc); cfg != nil || len(probs) > 0 {
			return cfg, probs
		}
		schemaFrom, _ = folio.Doc.Meta["schemaFrom"].(string)
	}
	// Hugo reads hugo.* before config.*, the root before config/_default/.
	slices.SortStableFunc(hugoRoot, func(a, b File) int {
		return cmp.Compare(btoi(!strings.HasPrefix(a.Path, "hugo.")), btoi(!strings.HasPrefix(b.Path, "hugo.")))
	})
	if len(hugoRoot)+len(hugoDefault) > 0 {
		cfg, probs := readHugoI18n(slices.Concat(hugoRoot, hugoDefault))
		if cfg != nil {
			return cfg, probs
		}
		hugoProblems = probs
	}
	for _, f := range decap {
		if f.Doc == nil || (schemaFrom != "" && f.Path != schemaFrom) {
			continue
		}
		if cfg, probs := readDecapI18n(f.Path, f.Doc); cfg != nil {
			return cfg, slices.Concat(hugoProblems, probs)
		}
	}
	// a Hugo config that does not parse: the site is served as one
	// without locales, and the problem is reported.
	return nil, hugoProblems
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// classify tells the locale of a content file (under pages/ or content/)
// and the path it has in that locale's site; ok is false for a file no
// locale reads.
func (c *I18n) classify(p string) (loc, virt string, ok bool) {
	for _, l := range c.Locales {
		if l.ContentDir == "" {
			continue
		}
		if rest, in := strings.CutPrefix(p, l.ContentDir+"/"); in {
			return l.Code, contentVirt(rest), true
		}
	}
	segs := strings.Split(p, "/")
	if c.Layout == LayoutFolder {
		if len(segs) >= 3 {
			if _, in := c.Locale(segs[1]); in {
				rest := strings.Join(segs[2:], "/")
				if segs[0] == "pages" {
					return segs[1], "pages/" + rest, true
				}
				return segs[1], contentVirt(rest), true
			}
		}
		// Decap's multiple_folders: <folder>/<locale>/<slug>.md
		if segs[0] == "content" && len(segs) >= 4 {
			if _, in := c.Locale(segs[2]); in {
				return segs[2], "content/" + segs[1] + "/" + strings.Join(segs[3:], "/"), true
			}
		}
	}
	if c.Layout != LayoutFields {
		// <slug>.<locale>.md, Hugo's and Decap's multiple_files
		base := segs[len(segs)-1]
		ext := path.Ext(base)
		stem := base[:len(base)-len(ext)]
		if i := strings.LastIndexByte(stem, '.'); i > 0 {
			if _, in := c.Locale(stem[i+1:]); in {
				segs[len(segs)-1] = stem[:i] + ext
				return stem[i+1:], rootVirt(strings.Join(segs, "/")), true
			}
		}
	}
	if c.allInDirs() && strings.HasPrefix(p, "content/") {
		return "", "", false // Hugo reads no other content folder
	}
	return c.Default, rootVirt(p), true
}

// contentVirt is the path of a file of a locale's content folder (rest is
// below it): root files are pages, folders are types.
func contentVirt(rest string) string {
	if !strings.Contains(rest, "/") {
		return "pages/" + rest
	}
	return "content/" + rest
}

// rootVirt makes a file right inside content/ a page.
func rootVirt(p string) string {
	if rest, ok := strings.CutPrefix(p, "content/"); ok && !strings.Contains(rest, "/") {
		return "pages/" + rest
	}
	return p
}

func (c *I18n) allInDirs() bool {
	for _, l := range c.Locales {
		if l.ContentDir == "" {
			return false
		}
	}
	return true
}

// localeState is what an Assembler of a site with locales keeps across
// calls.
type localeState struct {
	cfgKey  string
	subs    map[string]*Assembler
	derived map[derivedKey]*Doc // fields layout: a document in one locale
	globals map[string]mergedGlobals
	copies  map[any]any // a locale's page or item -> its copy with Localized filled in
	out     map[string]localeOut
}

type derivedKey struct {
	doc    *Doc
	locale string
}

type mergedGlobals struct {
	from []*Doc
	doc  *Doc
}

// localeOut is the last site of one locale, whose slices a call reuses
// when nothing in them changed.
type localeOut struct {
	pages   []*Page
	items   map[string][]*Item
	globals [2]*Globals // the sub-assembler's and its copy
}

func (st *localeState) fork() *localeState {
	n := &localeState{cfgKey: st.cfgKey, subs: map[string]*Assembler{}, derived: maps.Clone(st.derived),
		globals: maps.Clone(st.globals), copies: maps.Clone(st.copies), out: maps.Clone(st.out)}
	for k, a := range st.subs {
		n.subs[k] = a.Fork()
	}
	return n
}

func i18nKey(c *I18n) string {
	var b strings.Builder
	b.WriteString(c.Default + "|" + c.Layout)
	for _, l := range c.Locales {
		b.WriteString("|" + l.Code + ">" + l.ContentDir + ">" + strings.Join(l.Fallback, ","))
	}
	return b.String()
}

// docInfo is what linking needs of a document's file.
type docInfo struct {
	virt string // path in its locale's site
	tkey string // translationKey; "" when none
	line int
}

// assembleLocales assembles a site with locales; see Site.
func (as *Assembler) assembleLocales(sorted []File, cfg *I18n, problems []Problem) (*Site, []Problem) {
	st := as.loc
	if key := i18nKey(cfg); st == nil || st.cfgKey != key {
		st = &localeState{cfgKey: key, subs: map[string]*Assembler{}, derived: map[derivedKey]*Doc{},
			globals: map[string]mergedGlobals{}, copies: map[any]any{}, out: map[string]localeOut{}}
		as.loc = st
	}
	buckets := map[string][]File{}
	globals := map[string]File{}
	infos := map[string]docInfo{} // by real path
	for _, f := range sorted {
		p := f.Path
		if !Relevant(p) {
			continue
		}
		if _, hugo := hugoConfigFile(p); hugo {
			continue
		}
		if code, ok := globalsLocale(p); ok {
			if _, known := cfg.Locale(code); !known {
				problems = append(problems, Problem{Path: p, Message: "globals of locale " + code + ", which is not one of the locales (" + strings.Join(cfg.Codes(), ", ") + "); left out"})
				continue
			}
			if _, dup := globals[code]; dup {
				problems = append(problems, Problem{Path: p, Message: globals[code].Path + " is locale " + code + "'s globals already; this one is left out"})
				continue
			}
			globals[code] = f
			continue
		}
		if !strings.HasPrefix(p, "pages/") && !strings.HasPrefix(p, "content/") {
			if strings.HasPrefix(strings.ToLower(p), "globals.") && !strings.Contains(p, "/") {
				if _, dup := globals[cfg.Default]; !dup {
					globals[cfg.Default] = f
					continue
				}
			}
			if strings.Contains(p, "/") {
				buckets[cfg.Default] = append(buckets[cfg.Default], f) // model files
				continue
			}
			for _, l := range cfg.Locales { // folio.yaml
				buckets[l.Code] = append(buckets[l.Code], f)
			}
			continue
		}
		loc, virt, ok := cfg.classify(p)
		if !ok {
			continue
		}
		info := docInfo{virt: virt}
		if f.Doc != nil {
			for _, k := range []string{"translationKey", "translationkey"} {
				if v, ok := f.Doc.Meta[k]; ok {
					info.tkey, _ = scalarText(v)
					info.line = f.Doc.Lines[k]
					break
				}
			}
		}
		infos[p] = info
		nf := f
		nf.Path, nf.Source = virt, p
		if nf.Path == p {
			nf.Source = ""
		}
		if cfg.Layout != LayoutFields || f.Doc == nil {
			buckets[loc] = append(buckets[loc], nf)
			continue
		}
		for _, l := range cfg.Locales {
			d, in := st.localize(f.Doc, l.Code, cfg)
			if !in {
				continue
			}
			lf := nf
			lf.Doc = d
			buckets[l.Code] = append(buckets[l.Code], lf)
		}
	}
	// Globals: each locale's over those of its fallback chain, key by key.
	for _, l := range cfg.Locales {
		var from []*Doc
		var top File
		found := false
		chain := slices.Concat([]string{l.Code}, l.Fallback)
		for i := len(chain) - 1; i >= 0; i-- {
			g, ok := globals[chain[i]]
			if !ok {
				continue
			}
			if g.Err != nil || g.Doc == nil {
				if chain[i] == l.Code {
					top, found, from = g, true, nil
				}
				continue
			}
			from = append(from, g.Doc)
			top, found = g, true
		}
		if !found {
			continue
		}
		gf := top
		gf.Path, gf.Source = "globals"+path.Ext(top.Path), top.Path
		if len(from) > 1 {
			gf.Doc = st.mergeGlobals(l.Code, from)
		}
		buckets[l.Code] = append(buckets[l.Code], gf)
	}

	sites := map[string]*Site{}
	seen := map[Problem]bool{}
	for _, p := range problems {
		seen[p] = true
	}
	for _, l := range cfg.Locales {
		sub := st.subs[l.Code]
		if sub == nil {
			sub = &Assembler{plain: true}
			st.subs[l.Code] = sub
		}
		site, probs := sub.Assemble(buckets[l.Code])
		for _, p := range probs {
			if !seen[p] {
				seen[p] = true
				problems = append(problems, p)
			}
		}
		cp := *site
		cp.Locale, cp.I18n = l.Code, cfg
		if l.Language != "" {
			cp.Config.Language = l.Language
		}
		sites[l.Code] = &cp
	}
	problems = append(problems, st.link(cfg, sites, infos)...)
	for _, s := range sites {
		s.Locales = sites
	}
	slices.SortStableFunc(problems, func(x, y Problem) int {
		return cmp.Or(strings.Compare(x.Path, y.Path), cmp.Compare(x.Line, y.Line))
	})
	return sites[cfg.Default], problems
}

// localize is a document of the fields layout as it reads in locale loc:
// each top-level value that is a map of locale codes ({en: …, fr: …})
// replaced by loc's value (the default locale's when loc has none), and
// Decap's top-level locale maps (en: {title: …}) merged in. in is false
// when the document has localized values but none for loc.
func (st *localeState) localize(d *Doc, loc string, cfg *I18n) (*Doc, bool) {
	k := derivedKey{d, loc}
	if out, ok := st.derived[k]; ok {
		return out, out != nil
	}
	isLocaleMap := func(v any) (map[string]any, bool) {
		m, ok := v.(map[string]any)
		if !ok || len(m) == 0 {
			return nil, false
		}
		for c := range m {
			if _, known := cfg.Locale(c); !known {
				return nil, false
			}
		}
		return m, true
	}
	localized, has := false, false
	for key, v := range d.Meta {
		if _, code := cfg.Locale(key); code {
			if _, ok := v.(map[string]any); ok {
				localized = true
				if key == loc {
					has = true
				}
			}
			continue
		}
		if m, ok := isLocaleMap(v); ok {
			localized = true
			if _, ok := m[loc]; ok {
				has = true
			}
		}
	}
	var out *Doc
	switch {
	case !localized:
		out = d
	case has:
		nd := *d
		nd.Meta = make(map[string]any, len(d.Meta))
		for key, v := range d.Meta {
			if _, code := cfg.Locale(key); code {
				if _, ok := v.(map[string]any); ok {
					continue
				}
			}
			if m, ok := isLocaleMap(v); ok {
				if lv, ok := m[loc]; ok {
					nd.Meta[key] = lv
				} else if dv, ok := m[cfg.Default]; ok {
					nd.Meta[key] = dv
				}
				continue
			}
			nd.Meta[key] = v
		}
		if m, ok := d.Meta[loc].(map[string]any); ok {
			for key, v := range m {
				nd.Meta[key] = v
			}
		}
		out = &nd
	}
	if len(st.derived) > 1<<20 {
		clear(st.derived)
	}
	st.derived[k] = out
	return out, out != nil
}

// mergeGlobals is the globals of one locale: the documents of its chain,
// the default locale's first, each over the one before, key by key.
func (st *localeState) mergeGlobals(loc string, from []*Doc) *Doc {
	if m, ok := st.globals[loc]; ok && slices.Equal(m.from, from) {
		return m.doc
	}
	top := from[len(from)-1]
	nd := *top
	nd.Meta, nd.Lines = map[string]any{}, map[string]int{}
	for _, d := range from {
		maps.Copy(nd.Meta, d.Meta)
		for k := range d.Meta {
			// lines only make sense in the locale's own file
			delete(nd.Lines, k)
		}
	}
	for k, v := range top.Lines {
		nd.Lines[k] = v
	}
	st.globals[loc] = mergedGlobals{from: slices.Clone(from), doc: &nd}
	return &nd
}

// link fills in every document's Localized: its locale and its
// translations, the documents of the other locales at the same path in
// their locale (or with the same translationKey). A locale's site gets
// copies of its sub-assembler's documents; an unchanged copy is reused
// (same pointer) so that its encoded JSON survives the reload.
func (st *localeState) link(cfg *I18n, sites map[string]*Site, infos map[string]docInfo) []Problem {
	var problems []Problem
	groups := map[string]map[string]Translation{}
	groupOf := func(kind, realPath string) string {
		info := infos[realPath]
		if info.tkey != "" {
			return kind + "\x00k\x00" + info.tkey
		}
		v := info.virt
		v = v[:len(v)-len(path.Ext(v))]
		return kind + "\x00p\x00" + v
	}
	add := func(g, loc, realPath string, t Translation) {
		m := groups[g]
		if m == nil {
			m = make(map[string]Translation, len(cfg.Locales))
			groups[g] = m
		}
		if prev, dup := m[loc]; dup {
			info := infos[realPath]
			problems = append(problems, Problem{Path: realPath, Line: info.line, Message: "translationKey " + quote(info.tkey) + " is used by the " + loc + " document " + prev.Slug + " already; this one is not linked as a translation"})
			return
		}
		m[loc] = t
	}
	pageGroup := map[*Page]string{}
	itemGroup := map[*Item]string{}
	for _, l := range cfg.Locales {
		s := sites[l.Code]
		for _, p := range s.Pages {
			g := groupOf("page", p.Meta.Path)
			pageGroup[p] = g
			add(g, l.Code, p.Meta.Path, Translation{Slug: p.Slug, ID: p.ID, URL: "/api/v1/pages/" + p.Slug + "?locale=" + l.Code})
		}
		for typ, items := range s.Items {
			for _, it := range items {
				g := groupOf("item\x00"+typ, it.Meta.Path)
				itemGroup[it] = g
				add(g, l.Code, it.Meta.Path, Translation{Slug: it.Slug, ID: it.ID, URL: "/api/v1/content/" + typ + "/" + it.Slug + "?locale=" + l.Code})
			}
		}
	}
	copies := make(map[any]any, len(st.copies))
	for _, l := range cfg.Locales {
		s := sites[l.Code]
		last := st.out[l.Code]
		out := localeOut{items: map[string][]*Item{}}
		pages := make([]*Page, len(s.Pages))
		same := len(last.pages) == len(s.Pages)
		for i, p := range s.Pages {
			tr := groups[pageGroup[p]]
			var c *Page
			if prev, ok := st.copies[p].(*Page); ok && prev.Locale == l.Code && maps.Equal(prev.Translations, tr) {
				c = prev
			} else {
				cp := *p
				cp.Localized = Localized{Locale: l.Code, Translations: tr}
				c = &cp
			}
			copies[p] = c
			pages[i] = c
			same = same && last.pages[i] == c
		}
		if same && len(pages) > 0 {
			pages = last.pages
		}
		if len(pages) == 0 {
			pages = nil
		}
		s.Pages, out.pages = pages, pages
		items := make(map[string][]*Item, len(s.Items))
		for typ, list := range s.Items {
			lastList := last.items[typ]
			cl := make([]*Item, len(list))
			same := len(lastList) == len(list)
			for i, it := range list {
				tr := groups[itemGroup[it]]
				var c *Item
				if prev, ok := st.copies[it].(*Item); ok && prev.Locale == l.Code && maps.Equal(prev.Translations, tr) {
					c = prev
				} else {
					cp := *it
					cp.Localized = Localized{Locale: l.Code, Translations: tr}
					c = &cp
				}
				copies[it] = c
				cl[i] = c
				same = same && lastList[i] == c
			}
			if same {
				cl = lastList
			}
			items[typ] = cl
		}
		s.Items, out.items = items, items
		if g := s.Globals; g != nil {
			if last.globals[0] == g {
				out.globals = last.globals
			} else {
				cp := *g
				cp.Locale = l.Code
				out.globals = [2]*Globals{g, &cp}
			}
			s.Globals = out.globals[1]
		}
		st.out[l.Code] = out
	}
	st.copies = copies
	return problems
}

func quote(s string) string { return `"` + s + `"` }
