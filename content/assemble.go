package content

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/folio-cms/folio/content/chunks"
)

// Assemble builds a Site from parsed files and reports a problem for each
// file left out.
//
// Files are taken in path order, so every conflict has the same winner on
// every load: of two files claiming the same page slug, item (type, slug),
// page id or item (type, id), the one with the lexicographically smallest
// path stays and the other is a problem. Paths that Relevant rejects are
// ignored. See docs/content.md for the conventions.
func Assemble(files []File) (*Site, []Problem) {
	return new(Assembler).Assemble(files)
}

// Assembler assembles successive versions of one site, reusing the page or
// item of every file whose path, document and Updated time are those of the
// previous call: only changed files are read again. When the changed pages
// and items are few and none of them is involved in a whole-site rule (a
// duplicate slug or id, the homepage, globals or config, a broken file, a
// type appearing or disappearing), the new site is the previous one with
// those pages and items taken out and put in at their place by slug, and the
// problems are the previous ones; otherwise the whole-site rules are applied
// afresh to the reused and new ones alike. Either way the result is always
// what Assemble gives. An unchanged file yields the same *Page or *Item
// pointer as before, which callers may use to keep per-document work
// (encoded JSON) across calls. Pages and items must not be modified by
// callers, nor the files after the call (the Assembler keeps them to compare
// the next call's with). Safe for concurrent use; calls run one at a time.
type Assembler struct {
	mu   sync.Mutex
	last *assembly    // nil before the first call
	loc  *localeState // a site with locales: one Assembler per locale
	// plain is set on the Assembler of one locale: it reads no locales.
	plain bool
	// env is the URL rules and locale prefix the last call read its
	// pages and items with: when they change, every file is read again.
	env readEnv
	// patched counts the calls answered by patching the previous site
	// (for tests).
	patched int
	// markup is the site's Markdown settings of the last call: when they
	// change, every file is read again (markup.go)
	markup *Markup
	// links is the site the ref shortcodes of the bodies read resolve
	// in (reflinks.go); reread are the files (RealPath) to read again
	// although unchanged, as a link of theirs resolves otherwise now.
	links  *siteLinks
	reread map[string]bool
	// asRead tells that the last call read the files as they were
	// given (sorted, no locales, nothing renamed, no problem of the
	// whole-site passes): AssembleChanged may patch it.
	asRead bool
	// fromChanges counts the AssembleChanged calls that read only the
	// changed files (for tests).
	fromChanges int
	// bundles is what the leaf bundles of a locale's Assembler (plain)
	// are read with (bundle.go)
	bundles bundleRules
	// of is the site the files are of when they are not all of it
	// (AssembleOne): its declarations and locales' folders hold
	of *Site
}

// Fork returns a new Assembler that starts from this one's last call, as
// if it had made it: assembling another version of the site (another
// branch or commit) then reads only the files that differ, and unchanged
// files yield the same pointers as this Assembler's. The two go on
// independently.
func (as *Assembler) Fork() *Assembler {
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.loc != nil {
		return &Assembler{loc: as.loc.fork(), markup: as.markup, env: as.env}
	}
	if as.last == nil {
		return &Assembler{plain: as.plain, markup: as.markup, env: as.env, links: as.links.fork()}
	}
	last := *as.last // its contested keys are never changed: shared
	return &Assembler{last: &last, plain: as.plain, markup: as.markup, env: as.env, links: as.links.fork(), asRead: as.asRead}
}

// setMarkup makes mk the Markdown settings of the next call: when they
// differ from the last call's, nothing read before is reused.
func (as *Assembler) setMarkup(mk *Markup) {
	if !sameMarkup(as.markup, mk) {
		as.last = nil
		if as.loc != nil {
			for _, sub := range as.loc.subs {
				sub.mu.Lock()
				sub.last, sub.markup = nil, mk
				sub.mu.Unlock()
			}
		}
	}
	as.markup = mk
}

// assembly is one call's result, and what the next call compares with.
type assembly struct {
	files    chunks.List[File]  // sorted by path; the caller's slice when it was sorted
	units    chunks.List[*unit] // of files[i]: nil for other files and failed parses
	accepted chunks.List[bool]  // units[i] is in the site
	site     *Site
	problems []Problem
	// contested are the keys a left-out page or item asked for (claims)
	contested map[claimKey]bool
}

// maxPatched is the number of changed files up to which a call tries to
// patch the previous site.
const maxPatched = 64

// Assemble is Assemble, reusing what the previous call read; see Assembler.
func (as *Assembler) Assemble(files []File) (*Site, []Problem) {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.asRead = false
	sorted := files
	byPath := func(a, b File) int { return strings.Compare(a.Path, b.Path) }
	if !slices.IsSortedFunc(files, byPath) {
		sorted = slices.Clone(files)
		slices.SortStableFunc(sorted, byPath)
	}
	if !as.plain {
		sorted = astroFiles(sorted) // astro.go
	}
	if as.plain {
		files, notes, resources := leafBundles(sorted, as.bundles) // bundle.go
		site, problems := as.assemblePlain(files)
		site.Resources = resources // a new Site each call (assembleOnce)
		site.zola = as.bundles.zola
		return site, withProblems(problems, notes)
	}
	mk := readMarkup(sorted)
	if mk == nil {
		mk = astroMarkup(sorted)
	}
	as.setMarkup(mk)
	rules := readURLRules(sorted)
	cfg, problems := detectI18n(sorted)
	if cfg == nil {
		sorted = hugoMountRemap(sorted) // hugomounts.go
	}
	sorted = decapRemap(sorted, cfg.OutsideDirs(), cfg != nil)
	as.bundles = bundleRules{declared: declaredTypes(sorted), dirs: cfg.OutsideDirs(), zola: rules.zola}
	if as.of != nil {
		as.bundles = rulesOf(as.of)
	}
	if cfg != nil {
		as.last = nil
		if as.loc != nil && as.env.rules != nil && as.env.rules.key != rules.key {
			as.loc = nil // every locale's documents read again
		}
		as.env = readEnv{rules: rules}
		return as.assembleLocales(sorted, cfg, problems)
	}
	as.loc = nil
	as.setEnv(readEnv{rules: rules})
	plain, skipped := hugoPages(sorted)
	problems = append(problems, skipped...)
	plain, notes, resources := leafBundles(plain, as.bundles) // bundle.go
	problems = append(problems, notes...)
	site, plainProblems := as.assemblePlain(plain)
	site.Resources = resources // a new Site each call (assembleOnce)
	site.zola = as.bundles.zola
	if len(problems) > 0 { // a Hugo config that does not parse, files left out
		plainProblems = append(problems, plainProblems...)
		sortProblems(plainProblems)
	}
	served := withSiteLanguage(site, sorted)
	as.asRead = len(problems) == 0 && served == site && sameFiles(plain, files)
	return served, plainProblems
}

// withProblems is problems and more, in path and line order.
func withProblems(problems, more []Problem) []Problem {
	if len(more) == 0 {
		return problems
	}
	out := slices.Concat(problems, more)
	sortProblems(out)
	return out
}

// sortProblems sorts problems by path, then line, keeping the order of
// those at one place.
func sortProblems(problems []Problem) {
	slices.SortStableFunc(problems, func(x, y Problem) int {
		return cmp.Or(strings.Compare(x.Path, y.Path), cmp.Compare(x.Line, y.Line))
	})
}

// sameFiles tells whether a and b are the same slice.
func sameFiles(a, b []File) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// setEnv sets the URL rules and locale prefix pages and items are read
// with; the last call's are forgotten when they differ.
func (as *Assembler) setEnv(env readEnv) {
	if as.env.rules == nil || as.env.rules.key != env.rules.key || as.env.prefix != env.prefix {
		as.last = nil
	}
	as.env = env
}

// assemblePlain is Assemble of a site without locales: the site, whose
// links the bodies read then resolve in, and once more, reading the
// files whose rendered links resolve otherwise in it (reflinks.go).
func (as *Assembler) assemblePlain(sorted []File) (*Site, []Problem) {
	if as.links == nil {
		as.links = &siteLinks{}
	}
	site, problems := as.assembleOnce(sorted)
	return as.rereadStale(chunks.Of(sorted), site, problems)
}

// rereadStale keeps site's links for the bodies, and assembles files once
// more, reading the files whose rendered links resolve otherwise in it.
func (as *Assembler) rereadStale(files chunks.List[File], site *Site, problems []Problem) (*Site, []Problem) {
	as.links.set(site)
	if stale := as.links.stale(); len(stale) > 0 {
		as.reread = stale
		site, problems = as.assembleOnce(files.Slice())
		as.reread = nil
		as.links.set(site)
	}
	return site, problems
}

// assembleOnce is one pass of assemblePlain.
func (as *Assembler) assembleOnce(sorted []File) (*Site, []Problem) {
	units, accepted, changes, few, r := as.readUnitsAsync(sorted)
	if few {
		r.wait()
		if next, ok := as.patch(chunks.Of(sorted), chunks.Of(units), chunks.Of(accepted), changes); ok {
			as.last = next
			as.patched++
			return next.site, slices.Clone(next.problems)
		}
	}
	as.last = assembleUnitsReading(sorted, units, accepted, r)
	return as.last.site, slices.Clone(as.last.problems)
}

// assembleUnits applies the whole-site rules to every file.
func assembleUnits(sorted []File, units []*unit, accepted []bool) *assembly {
	return assembleUnitsReading(sorted, units, accepted, &unitReading{})
}

// assembleUnitsReading is assembleUnits of units still being read by r:
// each file's rules are applied once its unit is read, in the files'
// order, while the later ones are read.
func assembleUnitsReading(sorted []File, units []*unit, accepted []bool, r *unitReading) *assembly {
	pages, items := r.counts(sorted, units)
	a := &assembler{
		site:   &Site{Items: map[string][]*Item{}, Config: Config{Types: map[string]TypeConfig{}}},
		claims: newClaims(pages, items),
		paths:  make(map[string]string, len(sorted)),
	}
	var globalsFrom, configFrom string
	for i, f := range sorted {
		r.ready(i)
		if u := units[i]; u != nil {
			accepted[i] = a.unit(f, u)
			if accepted[i] {
				a.untitled(f, u)
			}
			continue
		}
		accepted[i] = false
		if !relevantPlain(f.Path) {
			continue
		}
		if f.Err != nil || f.Doc == nil {
			a.fileErr(f)
			continue
		}
		if ModelFile(f.Path) {
			if a.site.ModelFiles == nil {
				a.site.ModelFiles = map[string]*Doc{}
			}
			a.site.ModelFiles[f.Path] = f.Doc
			continue
		}
		segs := strings.SplitN(f.Path, "/", 3)
		switch {
		case len(segs) == 1 && strings.HasPrefix(strings.ToLower(f.Path), "globals."):
			if globalsFrom != "" {
				a.problem(f.RealPath(), 0, "%s is the globals file already; this one is left out", globalsFrom)
				continue
			}
			g, err := readGlobals(f.Doc)
			if err == nil {
				g.Blob = f.Blob
			}
			if a.check(f.RealPath(), err) {
				a.site.Globals, globalsFrom = g, f.RealPath()
				a.site.GlobalsPath = f.RealPath()
				a.modelFile(f)
			}
		case len(segs) == 1:
			if configFrom != "" {
				a.problem(f.RealPath(), 0, "%s is the folio config already; this one is left out", configFrom)
				continue
			}
			cfg, err := readConfig(f.Doc)
			if a.check(f.Path, err) {
				a.site.Config, configFrom = cfg, f.Path
				a.site.ConfigPath = f.Path
				a.modelFile(f)
			}
		}
	}
	a.homepage()
	a.untitledProblem()
	slices.SortFunc(a.site.Pages, func(x, y *Page) int { return strings.Compare(x.Slug, y.Slug) })
	for _, items := range a.site.Items {
		slices.SortFunc(items, func(x, y *Item) int { return strings.Compare(x.Slug, y.Slug) })
	}
	sortProblems(a.problems)
	ul, al := chunks.Of(units), chunks.Of(accepted)
	ul.Seal()
	al.Seal()
	return &assembly{files: chunks.Of(sorted), units: ul, accepted: al, site: a.site, problems: a.problems, contested: a.claims.contested}
}

// patch builds the site from the last one when every change is a plain
// page or item whose slug and id no other file asks for (see Assembler);
// ok is false when the whole-site rules must be applied afresh. Nothing
// of the last call is modified unless ok.
func (as *Assembler) patch(sorted chunks.List[File], units chunks.List[*unit], accepted chunks.List[bool], changes []change) (*assembly, bool) {
	last := as.last
	if last == nil {
		return nil, false
	}
	contested := last.contested
	freed := map[claimKey]bool{}
	for _, c := range changes {
		if c.old < 0 {
			continue
		}
		u := last.units.At(c.old)
		if !u.plain() || !last.accepted.At(c.old) {
			return nil, false
		}
		for _, k := range u.keys() {
			if contested[k] {
				return nil, false // a left-out file may get in now
			}
			freed[k] = true
		}
	}
	taken := map[claimKey]bool{}
	for _, c := range changes {
		if c.new < 0 {
			continue
		}
		u := units.At(c.new)
		if !u.plain() || (u.item != nil && len(last.site.Items[u.typ()]) == 0) {
			return nil, false
		}
		for _, k := range u.keys() {
			if contested[k] || taken[k] || (!freed[k] && siteHolds(last.site, k)) {
				return nil, false
			}
			taken[k] = true
		}
	}

	site := *last.site
	site.Items = maps.Clone(last.site.Items)
	pagesCopied, itemsCopied := false, map[string]bool{}
	for _, c := range changes {
		if c.old < 0 {
			continue
		}
		u := last.units.At(c.old)
		if u.page != nil {
			if !pagesCopied {
				site.Pages, pagesCopied = slices.Clone(site.Pages), true
			}
			i, found := slices.BinarySearchFunc(site.Pages, u.page.Slug, pageSlugOrder)
			if !found || site.Pages[i] != u.page {
				return nil, false
			}
			site.Pages = slices.Delete(site.Pages, i, i+1)
			continue
		}
		items := site.Items[u.typ()]
		if !itemsCopied[u.typ()] {
			items, itemsCopied[u.typ()] = slices.Clone(items), true
		}
		i, found := slices.BinarySearchFunc(items, u.item.Slug, itemSlugOrder)
		if !found || items[i] != u.item {
			return nil, false
		}
		site.Items[u.typ()] = slices.Delete(items, i, i+1)
	}
	for _, c := range changes {
		if c.new < 0 {
			continue
		}
		u := units.At(c.new)
		if u.page != nil {
			if !pagesCopied {
				site.Pages, pagesCopied = slices.Clone(site.Pages), true
			}
			i, _ := slices.BinarySearchFunc(site.Pages, u.page.Slug, pageSlugOrder)
			site.Pages = slices.Insert(site.Pages, i, u.page)
			*accepted.Mut(c.new) = true
			continue
		}
		items := site.Items[u.typ()]
		if !itemsCopied[u.typ()] {
			items, itemsCopied[u.typ()] = slices.Clone(items), true
		}
		i, _ := slices.BinarySearchFunc(items, u.item.Slug, itemSlugOrder)
		site.Items[u.typ()] = slices.Insert(items, i, u.item)
		*accepted.Mut(c.new) = true
	}
	for typ := range itemsCopied {
		if len(site.Items[typ]) == 0 {
			return nil, false // the type goes: its lists and references change
		}
	}
	if len(site.Pages) == 0 {
		site.Pages = nil
	}

	units.Seal()
	accepted.Seal()
	return &assembly{files: sorted, units: units, accepted: accepted, site: &site, problems: last.problems, contested: contested}, true
}

func pageSlugOrder(p *Page, slug string) int  { return strings.Compare(p.Slug, slug) }
func itemSlugOrder(it *Item, slug string) int { return strings.Compare(it.Slug, slug) }

type assembler struct {
	site     *Site
	problems []Problem
	claims   *claims
	marked   []int // indexes in site.Pages of pages whose front matter says isHomepage: true
	// paths are the site paths of the pages and items in the site so far
	// (to the file holding each), for the documents whose slug is taken.
	paths map[string]string
	// untitledAt is the first file served with a title from its name, and
	// untitledN how many are.
	untitledAt, untitledTitle string
	untitledN                 int
	unmarked                  map[string]bool // slugs of pages that say isHomepage: false
	// tablesOf is the type of the last itemTables, slugs and ids its tables
	tablesOf   string
	slugs, ids map[string]string
}

// itemTables are the claims' tables of the slugs and ids of type typ
// (made when the type has none yet). Items come in path order, so by
// type: the last type's are kept, no lookup per item.
func (a *assembler) itemTables(typ string) (slugs, ids map[string]string) {
	if a.slugs == nil || a.tablesOf != typ {
		a.tablesOf = typ
		a.slugs, a.ids = a.claims.tableFor(itemSlug, typ, 0), a.claims.tableFor(itemID, typ, 0)
	}
	return a.slugs, a.ids
}

func (a *assembler) problem(p string, line int, format string, args ...any) {
	a.problems = append(a.problems, Problem{Path: p, Line: line, Message: fmt.Sprintf(format, args...)})
}

// warn is problem at LevelWarn: the file is served.
func (a *assembler) warn(p string, line int, format string, args ...any) {
	a.problems = append(a.problems, Problem{Path: p, Line: line, Message: fmt.Sprintf(format, args...), Level: LevelWarn})
}

// check records err, if any, as a problem of path and tells whether there
// was none.
func (a *assembler) check(p string, err error) bool {
	if err == nil {
		return true
	}
	var pr Problem
	if !errors.As(err, &pr) {
		pr = Problem{Message: err.Error()}
	}
	pr.Path = p
	a.problems = append(a.problems, pr)
	return false
}

func (a *assembler) modelFile(f File) {
	if a.site.ModelFiles == nil {
		a.site.ModelFiles = map[string]*Doc{}
	}
	a.site.ModelFiles[f.RealPath()] = f.Doc
}

func (a *assembler) fileErr(f File) {
	if f.Err == nil {
		a.problem(f.RealPath(), 0, "file was not parsed")
		return
	}
	a.check(f.RealPath(), f.Err)
}

// unit adds a file's page or item to the site, unless a file before it
// (by path) has the same slug or id, and tells whether it did. A page or
// item left out for a duplicate marks both its keys contested.
func (a *assembler) unit(f File, u *unit) bool {
	if !a.check(f.RealPath(), u.err) {
		return false
	}
	var ok bool
	if u.item != nil {
		ok = a.item(f, u)
	} else {
		ok = a.page(f, u)
	}
	if !ok {
		for _, k := range u.keys() {
			a.claims.contested[k] = true
		}
	}
	return ok
}

func (a *assembler) page(f File, u *unit) bool {
	p := u.page
	slugs, ids := a.claims.table(claimKey{kind: pageSlug}), a.claims.table(claimKey{kind: pageID})
	if prev, dup := slugs[p.Slug]; dup {
		alt, ok := a.altPage(p)
		if !ok {
			a.problem(f.RealPath(), 0, "page slug %q is used by %s already; this file is left out", p.Slug, prev)
			return false
		}
		a.warn(f.RealPath(), 0, "page slug %q is used by %s already; this file is served with slug %q, after its path %s", p.Slug, prev, alt.Slug, alt.Path)
		for _, k := range u.keys() {
			a.claims.contested[k] = true
		}
		a.claims.contested[claimKey{pageSlug, "", alt.Slug}] = true
		p = alt
	}
	if prev, dup := ids[p.ID]; dup {
		a.problem(f.RealPath(), f.Doc.KeyLines()["id"], "page id %q is used by %s already; this file is left out", p.ID, prev)
		return false
	}
	slugs[p.Slug], ids[p.ID] = f.RealPath(), f.RealPath()
	a.site.Pages = append(a.site.Pages, p)
	a.paths[p.Path] = f.RealPath()
	switch {
	case p.IsHomepage:
		a.marked = append(a.marked, len(a.site.Pages)-1)
	case u.homeSet:
		if a.unmarked == nil {
			a.unmarked = map[string]bool{}
		}
		a.unmarked[p.Slug] = true
	}
	return true
}

// setHomepage makes page i the homepage or not, on a copy: pages may be
// shared with earlier sites of an Assembler.
func (a *assembler) setHomepage(i int, home bool) {
	cp := *a.site.Pages[i]
	cp.IsHomepage = home
	a.site.Pages[i] = &cp
}

// homepage makes at most one page the homepage: the one whose front matter
// says isHomepage: true (the first by path when several do, the others are
// problems but still served), else the page with slug "index", else "home",
// unless that page says isHomepage: false.
func (a *assembler) homepage() {
	if len(a.marked) > 0 {
		home := a.site.Pages[a.marked[0]].Meta.Path
		for _, i := range a.marked[1:] {
			a.setHomepage(i, false)
			a.problem(a.site.Pages[i].Meta.Path, 0, "isHomepage: %s is the homepage already; this page is served as an ordinary page", home)
		}
		return
	}
	for _, slug := range []string{"index", "home"} {
		if a.unmarked[slug] {
			continue
		}
		for i, p := range a.site.Pages {
			if p.Slug == slug {
				a.setHomepage(i, true)
				return
			}
		}
	}
}

func (a *assembler) item(f File, u *unit) bool {
	it := u.item
	slugs, ids := a.itemTables(u.typ())
	if prev, dup := slugs[it.Slug]; dup {
		alt, ok := a.altItem(u)
		if !ok {
			a.problem(f.RealPath(), 0, "%s slug %q is used by %s already; this file is left out", u.typ(), it.Slug, prev)
			return false
		}
		a.warn(f.RealPath(), 0, "%s slug %q is used by %s already; this file is served with slug %q, after its path %s", u.typ(), it.Slug, prev, alt.Slug, alt.Path)
		for _, k := range u.keys() {
			a.claims.contested[k] = true
		}
		slugs[alt.Slug], ids[alt.ID] = f.RealPath(), f.RealPath()
		a.claims.contested[claimKey{itemSlug, u.typ(), alt.Slug}] = true
		a.site.Items[u.typ()] = append(a.site.Items[u.typ()], alt)
		a.paths[alt.Path] = f.RealPath()
		return true
	}
	if prev, dup := ids[it.ID]; dup {
		a.problem(f.RealPath(), f.Doc.KeyLines()["id"], "%s id %q is used by %s already; this file is left out", u.typ(), it.ID, prev)
		return false
	}
	slugs[it.Slug], ids[it.ID] = f.RealPath(), f.RealPath()
	a.site.Items[u.typ()] = append(a.site.Items[u.typ()], it)
	a.paths[it.Path] = f.RealPath()
	return true
}
