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
	if rest, ok := strings.CutPrefix(p, "content/"); ok {
		if sectionPageLang(rest) {
			return true // the home page, a section's page, a locale folder's home page
		}
	}
	for _, s := range strings.Split(p, "/") {
		if s == "" || s[0] == '.' || s[0] == '_' {
			return false
		}
	}
	if _, ok := hugoConfigFile(p); ok {
		return true
	}
	if _, ok := GlobalsLocale(p); ok {
		return true
	}
	if rest, ok := strings.CutPrefix(p, "content/"); ok && !strings.Contains(rest, "/") {
		return isDocExt(strings.ToLower(path.Ext(rest)))
	}
	return false
}

// GlobalsLocale tells whether p is a locale's globals file,
// globals.<locale>.yaml or globals/<locale>.yaml, and which locale's.
func GlobalsLocale(p string) (string, bool) {
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
		schemaFrom, _ = folio.Doc.Get("schemaFrom").(string)
	}
	// Hugo reads hugo.* before config.*, the root before config/_default/.
	slices.SortStableFunc(hugoRoot, func(a, b File) int {
		return cmp.Compare(btoi(!strings.HasPrefix(a.Path, "hugo.")), btoi(!strings.HasPrefix(b.Path, "hugo.")))
	})
	if len(hugoRoot)+len(hugoDefault) > 0 {
		cfg, probs := readHugoI18n(slices.Concat(hugoRoot, hugoDefault))
		if cfg != nil {
			return languageFolders(cfg, sorted), probs
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

// Classify tells the locale of a content file (under pages/ or
// content/) and the path it has in that locale's site (content/posts/a.md
// for content/fr/posts/a.md); ok is false for a file no locale reads.
func (c *I18n) Classify(p string) (loc, virt string, ok bool) { return c.classify(p) }

// classify tells the locale of a content file (under pages/ or content/)
// and the path it has in that locale's site; ok is false for a file no
// locale reads, and for one that is not a document in that site (Hugo's
// content/en/posts/_index.md is the list page of posts, whereas
// content/en/posts/a/_index.md is the branch bundle a: see Relevant).
func (c *I18n) classify(p string) (loc, virt string, ok bool) {
	if c.Layout != LayoutFields && c.unknownLanguage(p) != "" {
		return "", "", false // Hugo leaves it out (the loop reports it)
	}
	loc, virt, ok = c.locate(p)
	if ok && (strings.HasPrefix(virt, "content/") || strings.HasPrefix(virt, "pages/")) && !relevantPlain(virt) {
		return "", "", false
	}
	return loc, virt, ok
}

// locate is classify before the virtual path is checked.
func (c *I18n) locate(p string) (loc, virt string, ok bool) {
	if l := c.dirOf(p); l != nil {
		rest := p[len(l.ContentDir)+1:]
		if c.Layout != LayoutFields {
			// a file's name says its locale in a contentDir too
			// (several locales may share one, contentDir = "content")
			if code, name, ok := c.nameLocale(rest); ok {
				return code, contentVirt(name), true
			}
		}
		return l.Code, contentVirt(rest), true
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
		if code, name, ok := c.nameLocale(p); ok {
			return code, rootVirt(name), true
		}
	}
	if c.allInDirs() && strings.HasPrefix(p, "content/") {
		return "", "", false // Hugo reads no other content folder
	}
	return c.Default, rootVirt(p), true
}

// dirOf is the locale whose contentDir holds p (the deepest one, for
// content and content/fr); nil when none does.
func (c *I18n) dirOf(p string) *Locale {
	var best *Locale
	for i := range c.Locales {
		l := &c.Locales[i]
		if l.ContentDir == "" || len(p) <= len(l.ContentDir) || p[len(l.ContentDir)] != '/' || !strings.HasPrefix(p, l.ContentDir) {
			continue
		}
		if best == nil || len(l.ContentDir) > len(best.ContentDir) {
			best = l
		}
	}
	return best
}

// ContentFile tells whether p is where a content file of the site may
// be: under pages/ or content/, or in a locale's contentDir.
func (c *I18n) ContentFile(p string) bool {
	if strings.HasPrefix(p, "content/") || strings.HasPrefix(p, "pages/") {
		return true
	}
	return c != nil && c.dirOf(p) != nil
}

// relevant is Relevant for the site: files in its locales' contentDirs
// too.
func (c *I18n) relevant(p string) bool {
	if Relevant(p) {
		return true
	}
	if l := c.dirOf(p); l != nil {
		return inContentDir(p[len(l.ContentDir)+1:])
	}
	return false
}

// inContentDir tells whether rest, a path below a locale's contentDir, is
// a content file (a document, in no hidden folder).
func inContentDir(rest string) bool {
	if sectionPageLang(rest) {
		return true
	}
	for _, s := range strings.Split(rest, "/") {
		if s == "" || s[0] == '.' || s[0] == '_' {
			return false
		}
	}
	return isDocExt(strings.ToLower(path.Ext(rest)))
}

// LocaleConfigFile tells whether p may be a file that names the folders
// of the locales' content (ContentDirs): folio.yaml or a Hugo config, at
// the root or in config/_default/.
func LocaleConfigFile(p string) bool {
	if strings.IndexByte(p, '/') < 0 {
		return true
	}
	rest, ok := strings.CutPrefix(p, "config/_default/")
	return ok && !strings.Contains(rest, "/")
}

// ContentDirs are the folders outside content/ and pages/ a site's
// locales read their content from (Hugo's contentDir = "content_fr"), in
// order; nil for a site with none. Of files only those LocaleConfigFile
// names are read (a Decap config names no such folder): a loader reads
// them first, and then the files below these folders too (RelevantIn).
func ContentDirs(files []File) []string {
	var own []File
	for _, f := range files {
		if LocaleConfigFile(f.Path) {
			own = append(own, f)
		}
	}
	cfg, _ := detectI18n(own)
	dirs := cfg.OutsideDirs()
	if cfg == nil {
		dirs = append(dirs, hugoMountDirs(own)...) // hugomounts.go
	}
	for _, g := range astroGlobFolders(files) { // astroglob.go
		dirs = append(dirs, g.base)
	}
	if decap := decapDirs(files, dirs); len(decap) > 0 {
		dirs = append(dirs, decap...)
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// OutsideDirs are the contentDirs of c's locales outside content/ and
// pages/ (content_fr, i18n/de/content), sorted; nil for none (and for a
// nil c). RelevantIn reads the files below them.
func (c *I18n) OutsideDirs() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, l := range c.Locales {
		d := l.ContentDir
		if d == "" || d == "content" || d == "pages" || strings.HasPrefix(d, "content/") || strings.HasPrefix(d, "pages/") {
			continue
		}
		out = append(out, d)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// RelevantIn is Relevant for a site whose locales read content from dirs
// (ContentDirs) too.
func RelevantIn(p string, dirs []string) bool {
	if Relevant(p) {
		return true
	}
	for _, d := range dirs {
		if len(p) > len(d) && p[len(d)] == '/' && strings.HasPrefix(p, d) {
			return inContentDir(p[len(d)+1:])
		}
		if p == d { // a file of a Decap files collection
			return isDocExt(strings.ToLower(path.Ext(p)))
		}
	}
	return false
}

// nameLocale tells whether the file p is named <name>.<locale>.<ext>, and
// its locale and path without it.
func (c *I18n) nameLocale(p string) (code, name string, ok bool) {
	dir, base := path.Split(p)
	ext := path.Ext(base)
	stem := base[:len(base)-len(ext)]
	if i := strings.LastIndexByte(stem, '.'); i > 0 {
		if _, in := c.Locale(stem[i+1:]); in {
			return stem[i+1:], dir + stem[:i] + ext, true
		}
	}
	return "", "", false
}

// contentVirt is the path of a file of a locale's content folder (rest is
// below it): root files are pages, folders are types.
func contentVirt(rest string) string {
	if v, ok := sectionPage(rest); ok {
		return v
	}
	if !strings.Contains(rest, "/") {
		return "pages/" + rest
	}
	return "content/" + rest
}

// rootVirt makes a file right inside content/ a page, and a Hugo _index
// file of content/ or of a section a page too (sectionPage).
func rootVirt(p string) string {
	if rest, ok := strings.CutPrefix(p, "content/"); ok {
		if v, ok := sectionPage(rest); ok {
			return v
		}
		if !strings.Contains(rest, "/") {
			return "pages/" + rest
		}
	}
	return p
}

// sectionPage is the page a Hugo _index file is in a site with locales,
// rest being its path below a content root: right inside it, the home
// page (_index.md is pages/index.md, the homepage, as Hugo's "/"); one
// folder down, that section's own page (blog/_index.md is pages/blog.md,
// as Hugo's "/blog/"). ok is false for any other path (a deeper _index
// file is a branch bundle: see branchBundle).
func sectionPage(rest string) (string, bool) {
	dir, base := path.Split(rest)
	ext := path.Ext(base)
	if !strings.HasPrefix(base, "_index.") || base != "_index"+ext || !isDocExt(strings.ToLower(ext)) {
		return "", false
	}
	if dir == "" {
		return "pages/index" + ext, true
	}
	sec := strings.TrimSuffix(dir, "/")
	if strings.Contains(sec, "/") || sec[0] == '.' || sec[0] == '_' {
		return "", false
	}
	return "pages/" + sec + ext, true
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
	out     map[string]localeOut

	// The last call's content files (sorted by path) and their locale
	// and path in it, so that a call classifies only the new paths.
	lastPaths []string
	lastClass []fileClass
	lastDocs  []*Doc

	// links are the documents of the last sub-sites (by pointer) and
	// their groups of translations; see link.
	links  map[any]*docLink
	groups map[string]*transGroup
	last   map[string]*Site // the sub-assemblers' last sites, by locale
}

type fileClass struct {
	loc, virt string
	ok        bool
	unknown   string // a language suffix the site has not: left out
}

// docLink is one document of a locale's sub-site: its group of
// translations and the copy served, with Localized filled in. A document
// whose translationKey another of its locale holds already is in no
// group's docs: problem says so.
type docLink struct {
	group   string
	loc     string
	copy    any // *Page or *Item
	problem *Problem
}

// transGroup is the documents that translate each other, by locale; tr
// is shared by their copies and never modified (a change makes a new
// one). losers counts the documents left out for a taken translationKey.
type transGroup struct {
	docs   map[string]any
	tr     map[string]Translation
	losers int
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
		globals: maps.Clone(st.globals), out: maps.Clone(st.out), lastPaths: st.lastPaths, lastClass: st.lastClass, lastDocs: st.lastDocs,
		last: maps.Clone(st.last)}
	for k, a := range st.subs {
		n.subs[k] = a.Fork()
	}
	if st.links != nil {
		n.links = make(map[any]*docLink, len(st.links))
		for d, l := range st.links {
			cp := *l
			n.links[d] = &cp
		}
		n.groups = make(map[string]*transGroup, len(st.groups))
		for k, g := range st.groups {
			n.groups[k] = &transGroup{docs: maps.Clone(g.docs), tr: g.tr, losers: g.losers}
		}
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

// assembleLocales assembles a site with locales; see Site.
func (as *Assembler) assembleLocales(sorted []File, cfg *I18n, problems []Problem) (*Site, []Problem) {
	st := as.loc
	if key := i18nKey(cfg); st == nil || st.cfgKey != key {
		st = &localeState{cfgKey: key, subs: map[string]*Assembler{}, derived: map[derivedKey]*Doc{},
			globals: map[string]mergedGlobals{}, out: map[string]localeOut{}}
		as.loc = st
	}
	buckets := make(map[string][]File, len(cfg.Locales))
	for _, l := range cfg.Locales {
		buckets[l.Code] = make([]File, 0, len(sorted)/len(cfg.Locales)+16)
	}
	globals := map[string]File{}
	paths := make([]string, 0, len(st.lastPaths)+16)
	classes := make([]fileClass, 0, len(st.lastPaths)+16)
	docs := make([]*Doc, 0, len(st.lastPaths)+16)
	j := 0
	for _, f := range sorted {
		p := f.Path
		if cfg.ContentFile(p) {
			for j < len(st.lastPaths) && st.lastPaths[j] < p {
				j++
			}
			var c fileClass
			if j < len(st.lastPaths) && st.lastPaths[j] == p {
				c = st.lastClass[j]
			} else if cfg.relevant(p) {
				c.loc, c.virt, c.ok = cfg.classify(p)
				if !c.ok && cfg.Layout != LayoutFields {
					c.unknown = cfg.unknownLanguage(p)
				}
			}
			paths, classes, docs = append(paths, p), append(classes, c), append(docs, f.Doc)
			if !c.ok {
				if c.unknown != "" {
					problems = append(problems, unknownLanguageProblem(p, c.unknown, cfg.Codes()))
				}
				continue
			}
			nf := f
			nf.Path, nf.Source = c.virt, f.RealPath()
			if nf.Path == nf.Source {
				nf.Source = ""
			}
			if cfg.Layout != LayoutFields || f.Doc == nil {
				buckets[c.loc] = append(buckets[c.loc], nf)
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
			continue
		}
		if !Relevant(p) {
			continue
		}
		if _, hugo := hugoConfigFile(p); hugo {
			continue
		}
		if code, ok := GlobalsLocale(p); ok {
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
	}
	st.lastPaths, st.lastClass, st.lastDocs = paths, classes, docs
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
		// in path order, so that the locale's Assembler need not sort
		b := buckets[l.Code]
		i, _ := slices.BinarySearchFunc(b, gf.Path, func(f File, p string) int { return strings.Compare(f.Path, p) })
		buckets[l.Code] = slices.Insert(b, i, gf)
	}

	var localize func(*Doc, string) (*Doc, bool)
	if cfg.Layout == LayoutFields {
		localize = func(d *Doc, loc string) (*Doc, bool) {
			if out, ok := st.derived[derivedKey{d, loc}]; ok {
				return out, out != nil
			}
			out := localizeDoc(d, loc, cfg)
			return out, out != nil
		}
	}
	sites := map[string]*Site{}
	raw := map[string]*Site{}
	seen := map[Problem]bool{}
	for _, p := range problems {
		seen[p] = true
	}
	for _, l := range cfg.Locales {
		sub := st.subs[l.Code]
		if sub == nil {
			sub = &Assembler{plain: true, markup: as.markup}
			st.subs[l.Code] = sub
		}
		prefix := "/" + l.Code
		if l.Code == cfg.Default && !as.env.rules.inSubdir {
			prefix = ""
		}
		sub.setEnv(readEnv{rules: as.env.rules.forLocale(l.Code), prefix: prefix})
		sub.bundles = as.bundles
		site, probs := sub.Assemble(buckets[l.Code])
		raw[l.Code] = site
		for _, p := range probs {
			if !seen[p] {
				seen[p] = true
				problems = append(problems, p)
			}
		}
		cp := *site
		cp.Locale, cp.I18n, cp.Localize = l.Code, cfg, localize
		if l.Language != "" {
			cp.Config.Language = l.Language
		}
		sites[l.Code] = &cp
	}
	problems = append(problems, st.link(cfg, sorted, raw, sites)...)
	for _, s := range sites {
		s.Locales = sites
	}
	sortProblems(problems)
	return sites[cfg.Default], problems
}

func sameSlice[T any](a, b []*T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// diffBySlug calls gone and added with the documents of old that new
// lacks and the other way round; both are sorted by slug, slugs unique.
// A slice that is old itself is not compared (the Assemblers hand out
// the same slice for what did not change).
func diffBySlug[T any](old, new []*T, slug func(*T) string, gone, added func(*T)) {
	if sameSlice(old, new) {
		return
	}
	i, j := 0, 0
	for i < len(old) || j < len(new) {
		switch {
		case j == len(new) || (i < len(old) && slug(old[i]) < slug(new[j])):
			gone(old[i])
			i++
		case i == len(old) || slug(new[j]) < slug(old[i]):
			added(new[j])
			j++
		default:
			if old[i] != new[j] {
				gone(old[i])
				added(new[j])
			}
			i++
			j++
		}
	}
}

// UnionKeys is the set of the keys of a and b: what a comparison of two
// sites' maps (types, items) walks.
func UnionKeys[V any](a, b map[string]V) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func quote(s string) string { return `"` + s + `"` }
