package engine

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/chunks"
	"github.com/folio-cms/folio/content/schema"
)

// HeldDoc is a document that breaks its type's model (onInvalid: reject):
// the snapshot serves its last valid version instead, or leaves it out
// when it never had one.
type HeldDoc struct {
	Path string `json:"path"`
	Type string `json:"type"` // the content type; "pages" for a page
	// Since is the commit from which on the document is held back.
	Since string `json:"since"`
	// Served tells whether the last valid version is served (false: the
	// document is left out).
	Served bool `json:"served"`
	// Locale is the document's locale, in a site with locales.
	Locale string `json:"locale,omitempty"`
}

// modelState is one branch's content model across reloads: the model
// compiled from the model files it had (recompiled only when one of them
// changes), and the validation result of every document, by document
// (the parse cache hands out the same *content.Doc for the same blob) and
// type model, so that a reload validates only the documents it re-parsed.
type modelState struct {
	files    map[string]*content.Doc // the model files the model was built from
	model    *schema.Model           // the last model that compiled; nil: none
	problems []content.Problem       // the model's own problems (then model is the previous one)

	results map[valKey]docResult
	// typeSlices are, by type, the last assembled slice ([0]) and the
	// slice served for it ([1]: items with defaults and dates filled in
	// are copies), for the same model.
	typeSlices map[string][2][]*content.Item
	// locales are the typeSlices of each locale other than the
	// default one, in a site with locales (model_locale.go), and
	// untranslated the documents served with fewer translations, by
	// document.
	locales      map[string]*modelState
	untranslated map[any]any

	// hash names the model by its files (modelHash); gen counts the
	// validations done, savedGen those the validation cache holds.
	hash          string
	gen, savedGen uint64
	// unsaved counts the documents validated since the validation
	// cache's file was last written; onDisk tells that the file holds
	// this model's results (written since, or read at start). A reload
	// that validated a few documents does not rewrite the file (see
	// saveValidation).
	unsaved int
	onDisk  bool
	// lastChecks are the last applyModel's checks, in path order: the
	// next one takes the result of a document it has at the same path
	// from there, without a lookup in results per document (1.2 ms of a
	// push's reload at 10k files).
	lastChecks *checkList
	// lastFound are the checks of lastChecks with findings, in path
	// order (withFindings).
	lastFound []docCheck
	// checkedAt is the commit lastChecks are of, checkedModel the model
	// they were made with; diff, when the caller sets it before
	// applyModel, the changes of its files since commit diff.base (a
	// patched Load's): the checks are then lastChecks with those paths'
	// made again (patchChecks), not one per file.
	checkedAt    string
	checkedModel *schema.Model
	diff         modelDiff
	// lastResources tells that the site lastChecks are of has resources
	// of leaf bundles (content.Site.Resources), which a patch of its
	// checks cannot follow
	lastResources bool
	// persisted are the validation cache's results at start: the first
	// load takes the results of its model from there (a document by the
	// blob of its file, as the parse cache names it) instead of
	// validating. Dropped after it. pending, when set, delivers them
	// (read in the background while the first load reads the site).
	persisted *persistedResults
	pending   <-chan *persistedResults
}

// docResult is what validating one document against one type model
// gives: its violations, and what the cross-document checks need of it
// (read once, so that a reload does not look into every document again).
//
// Most documents have none of the three: a result is then a nil pointer,
// not three empty slices (the last load's checks and the results kept
// for the next one hold a result for every document: 128 bytes a
// document at 100k).
type docResult struct{ f *docFindings }

type docFindings struct {
	vs     []schema.Violation
	unique []uniqueValue // values of the type's unique fields
	bare   []bareRef     // references written as a bare slug
}

func newDocResult(vs []schema.Violation, unique []uniqueValue, bare []bareRef) docResult {
	if len(vs) == 0 && len(unique) == 0 && len(bare) == 0 {
		return docResult{}
	}
	return docResult{&docFindings{vs: vs, unique: unique, bare: bare}}
}

// violations are the document's violations of the model.
func (r docResult) violations() []schema.Violation {
	if r.f == nil {
		return nil
	}
	return r.f.vs
}

// unique are the values of the type's unique fields the document has.
func (r docResult) unique() []uniqueValue {
	if r.f == nil {
		return nil
	}
	return r.f.unique
}

// bare are the references the document writes as a bare slug.
func (r docResult) bare() []bareRef {
	if r.f == nil {
		return nil
	}
	return r.f.bare
}

type uniqueValue struct{ field, value string }

type bareRef struct {
	field, slug string
	to          []string
}

// crossOf reads what the cross-document checks need of a document.
func crossOf(t *schema.Type, doc *content.Doc) (uniq []uniqueValue, bare []bareRef) {
	for _, f := range t.Unique() {
		if v, ok := doc.Value(f); ok && v != nil {
			uniq = append(uniq, uniqueValue{f, fmt.Sprint(v)})
		}
	}
	for _, f := range slices.Sorted(maps.Keys(t.References())) {
		v, ok := doc.Value(f)
		if !ok || v == nil {
			continue
		}
		vals, isList := v.([]any)
		if !isList {
			vals = []any{v}
		}
		for _, e := range vals {
			if s, ok := e.(string); ok && s != "" && !strings.Contains(s, "/") {
				bare = append(bare, bareRef{f, s, t.References()[f]})
			}
		}
	}
	return uniq, bare
}

type valKey struct {
	doc *content.Doc
	t   *schema.Type
}

// sameModelFiles tells whether the model files are those of the last
// build, the globals file apart (it is validated, it declares nothing).
func (ms *modelState) sameModelFiles(site *content.Site) bool {
	n := 0
	for p, d := range site.ModelFiles {
		if p == site.GlobalsPath {
			continue
		}
		n++
		if ms.files[p] != d {
			return false
		}
	}
	return n == len(ms.files)
}

// update recompiles the model when its files changed. A model that does
// not compile, or a model file that does not load (folio.yaml included),
// leaves the last one in force.
func (ms *modelState) update(site *content.Site, files chunks.List[content.File]) {
	if ms.files != nil && ms.sameModelFiles(site) {
		return
	}
	for _, f := range files.All() {
		config := !strings.Contains(f.Path, "/") && strings.HasPrefix(strings.ToLower(f.Path), "folio.")
		if !config && !content.ModelFile(f.Path) {
			continue
		}
		if f.Err != nil || f.Doc == nil || (config && site.ConfigPath != f.Path) {
			ms.files = nil // compile again once it loads
			ms.problems = []content.Problem{{Path: f.Path, Message: "content model: this file does not load; the last content model that did stays in force"}}
			return
		}
	}
	ms.files = map[string]*content.Doc{}
	for p, d := range site.ModelFiles {
		if p != site.GlobalsPath {
			ms.files[p] = d
		}
	}
	m, probs, ok := schema.Compile(site)
	ms.problems = probs
	if !ok {
		return
	}
	ms.model = m
	ms.hash = modelHash(ms.files)
	ms.results = map[valKey]docResult{}
	ms.lastChecks, ms.lastFound = nil, nil
	ms.typeSlices = map[string][2][]*content.Item{}
	ms.locales = nil
	ms.onDisk = false // the file has another model's results, or none
}

// parallelValidate is the number of documents to validate from which
// validation uses every CPU (a cold start); parallelFill the number of
// items to fill in (a start).
const (
	parallelValidate = 256
	parallelFill     = 4096
)

type docCheck struct {
	path string
	doc  *content.Doc
	t    *schema.Type
	res  docResult
	*checkScope
}

// checkScope is what a check has in common with the checks of its type
// (and locale): one for all of them, not three fields in each (a start
// keeps a check of every document for the next load: 80 bytes each were
// 48 with the scope shared). Never changed once made.
type checkScope struct {
	typ string // content type, "pages" or "globals"
	loc string // its locale, in a site with locales
	// proj: doc is the reading in loc of a file of the fields layout
	proj bool
}

// checkScopes hands out the scopes of one pass of checks: the last one
// again while it fits (files come in path order, so by type), else the
// one made for the same values, else a new one.
type checkScopes struct {
	last *checkScope
	made map[checkScope]*checkScope
}

func (cs *checkScopes) of(typ, loc string, proj bool) *checkScope {
	want := checkScope{typ: typ, loc: loc, proj: proj}
	if cs.last != nil && *cs.last == want {
		return cs.last
	}
	sc := cs.made[want]
	if sc == nil {
		if cs.made == nil {
			cs.made = map[checkScope]*checkScope{}
		}
		sc = &want
		cs.made[want] = sc
	}
	cs.last = sc
	return sc
}

// startResults looks documents up in the validation cache's results at
// a start: by the blob and extension of each document's file (the parse
// cache's name of the document it handed out) and the type, in path
// order, the order the file has them in.
type startResults struct {
	p        *persistedResults
	lastT    *schema.Type
	lastTKey string
}

// get is the result of f's document for type t. A locale's reading of
// a file (proj, the fields layout) is not the file's document: the
// validation cache has none of it.
func (s *startResults) get(f content.File, t *schema.Type, proj bool) (docResult, bool) {
	if s.p == nil || proj {
		return docResult{}, false
	}
	blob, ok := parseHash(f.Blob)
	if !ok {
		return docResult{}, false
	}
	if t != s.lastT {
		s.lastT, s.lastTKey = t, typeKey(t)
	}
	return s.p.get(blob, path.Ext(f.Path), s.lastTKey)
}

// applyModel validates the documents of a freshly assembled site against
// the branch's model and returns the site to serve: documents of a type
// with onInvalid: reject that break the model replaced by their version in
// prev (or left out), items' data with defaults and dates filled in. It
// returns the problems (the model's own, and each violation as "path:line:
// field: message") and the documents held back.
func (ms *modelState) applyModel(site *content.Site, files chunks.List[content.File], prev *Snapshot, commit string) (*content.Site, []content.Problem, []HeldDoc) {
	if ms.pending != nil {
		ms.persisted, ms.pending = <-ms.pending, nil
	}
	ms.update(site, files)
	problems := slices.Clone(ms.problems)
	m := ms.model
	if m.Empty() {
		return site, problems, nil
	}
	// The documents to check, the cached results taken: those of the
	// last loads, at a start those the validation cache kept for this
	// model.
	var checks []docCheck          // the full pass's, in path order
	last := ms.lastChecks.cursor() // at the first of the last load's not before the file
	var list *checkList
	var todo, fresh []*docCheck // to validate; whose results ms.results does not have yet
	var todoAt, freshAt []int   // the same, in checks
	persisted := startResults{p: ms.persisted}
	if p := ms.persisted; p == nil || p.hash != ms.hash || ms.hash == "" {
		persisted.p = nil
	}
	var projs []string // the fields layout: the locales to read each file in
	var scopes checkScopes
	if site.I18n != nil {
		projs = projections(site)
	}
	diff := ms.diff
	ms.diff = modelDiff{}
	patched, isPatched := ms.patchChecks(site, files, m, diff, persisted.p != nil, commit)
	if isPatched {
		list, todo = patched.checks, patched.todo
	} else {
		checks = make([]docCheck, 0, files.Len())
		for _, f := range files.All() {
			if f.Doc == nil || f.Err != nil {
				continue
			}
			p, loc := f.Path, ""
			var proj []string
			if site.I18n != nil && site.I18n.ContentFile(p) {
				// a site with locales: the file's path in its locale
				// (content/fr/posts/a.md is content/posts/a.md); with
				// the fields layout a file holds every locale's values:
				// each locale's reading of it is checked (projections)
				l, virt, ok := site.I18n.Classify(p)
				if !ok {
					continue
				}
				p, loc = virt, l
				proj = projs
			}
			typ, t := modelTypeOf(p, f.Path, site, m)
			if t == nil || resourceOf(site, loc, f.Path) {
				continue
			}
			c := docCheck{path: f.Path, doc: f.Doc, t: t, checkScope: scopes.of(typ, loc, false)}
			for i := 0; i == 0 || i < len(proj); i++ { // once, or once per locale
				if proj != nil {
					d, in := site.Localize(f.Doc, proj[i])
					if !in {
						continue
					}
					c.doc, c.checkScope = d, scopes.of(typ, proj[i], true)
				}
				for l := last.peek(); l != nil && l.path < c.path; l = last.peek() {
					last.next()
				}
				if l := last.peek(); l != nil && l.path == c.path && l.doc == c.doc && l.t == t {
					// the last load's result for the same document and
					// type: what results has for them
					c.res = l.res
					last.next()
				} else if res, ok := ms.results[valKey{c.doc, t}]; ok {
					c.res = res
				} else if res, ok := persisted.get(*f, t, c.proj); ok {
					c.res = res
					freshAt = append(freshAt, len(checks))
				} else {
					todoAt = append(todoAt, len(checks))
				}
				checks = append(checks, c)
			}
		}
		for _, i := range todoAt {
			todo = append(todo, &checks[i])
		}
		for _, i := range freshAt {
			fresh = append(fresh, &checks[i])
		}
		list = newCheckList(checks)
	}
	ms.lastChecks = list
	ms.checkedAt, ms.checkedModel = commit, m
	ms.lastResources = len(site.Resources) > 0
	if len(fresh) > 0 {
		ms.onDisk = true // the file holds this model's results
	}
	if len(todo)+len(fresh) > 0 {
		ms.persisted = nil // only the first load that validates takes them
	}
	if len(ms.results) == 0 && len(todo)+len(fresh) > 0 {
		ms.results = make(map[valKey]docResult, list.len()) // sized: a start fills it
	}
	parallel(len(todo), parallelValidate, func(n int) {
		c := todo[n]
		vs := c.t.Validate(c.doc)
		unique, bare := crossOf(c.t, c.doc)
		c.res = newDocResult(vs, unique, bare)
	})
	fresh = append(fresh, todo...)
	if len(todo) > 0 {
		ms.gen++
		ms.unsaved += len(todo)
	}
	// The checks the passes below read: those with findings. A patched
	// load's are the last load's but for the changed paths'.
	var found []docCheck
	if isPatched {
		found = patchFindings(ms.lastFound, diff.paths, patched.made)
	} else {
		found = withFindings(list.all())
	}
	ms.lastFound = found
	// At a start (many results new), the results kept for the next load
	// (ms.results, and the documents in path order for the validation
	// cache's file) are written meanwhile, as are the cross-document
	// checks made: nothing below reads the first, the second read only
	// the assembled site. A reload does both in turn (no wait for a
	// goroutine to be scheduled).
	start := len(fresh) >= parallelFill
	async := func(fn func()) <-chan struct{} {
		done := make(chan struct{})
		if !start {
			fn()
			close(done)
			return done
		}
		go func() {
			defer close(done)
			fn()
		}()
		return done
	}
	stored := async(func() {
		for _, c := range fresh {
			ms.results[valKey{c.doc, c.t}] = c.res
		}
		if len(ms.results) > 2*list.len()+1024 {
			kept := make(map[valKey]docResult, list.len())
			for c := range list.all() {
				kept[valKey{c.doc, c.t}] = c.res
			}
			ms.results = kept
		}
	})

	// the invalid documents of the other locales, by locale
	var inLocales map[string]map[string]bool
	reject := map[string]bool{} // paths of invalid documents to hold back
	var projSeen map[content.Problem]bool
	for _, c := range found {
		for _, v := range c.res.violations() {
			msg := v.String()
			if v.Warn {
				msg += " (warning)"
			}
			pr := content.Problem{Path: c.path, Line: v.Line, Message: msg}
			if c.proj && projProblem(&projSeen, &pr, c.loc, site.Locale) {
				continue
			}
			problems = append(problems, pr)
		}
		if c.t.OnInvalid == "reject" && c.typ != schema.KindGlobals && schema.Invalid(c.res.violations()) {
			if c.loc != "" && c.loc != site.Locale {
				rejectIn(&inLocales, c.loc, c.path)
				continue
			}
			reject[c.path] = true
		}
	}
	var crossProbs []content.Problem
	crossed := async(func() { crossProbs = crossCheck(site, found) })
	served, held := ms.hold(site, prevIn(prev, site, site.Locale), reject, commit)
	served = ms.fillIn(served, m)
	served = sortable(served, m)
	served, held = ms.applyLocales(served, m, prev, inLocales, commit, held)
	<-crossed
	problems = append(problems, crossProbs...)
	<-stored
	slices.SortStableFunc(problems, func(a, b content.Problem) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	return served, problems, held
}

// parallel calls fn(0) to fn(n-1), on every CPU when n is at least
// from (each worker takes the next 32 at a time).
func parallel(n, from int, fn func(int)) {
	workers := runtime.GOMAXPROCS(0)
	if n < from || workers < 2 {
		for i := range n {
			fn(i)
		}
		return
	}
	const chunk = 32
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+chunk, n); i++ {
					fn(i)
				}
			}
		})
	}
	wg.Wait()
}

// sortable lets every declared top-level scalar field of a type be a sort
// field (sort=), on top of folio.yaml's sortable list.
func sortable(site *content.Site, m *schema.Model) *content.Site {
	var types map[string]content.TypeConfig
	for _, typ := range slices.Sorted(maps.Keys(m.Types)) {
		var add []string
		tc := site.Config.Types[typ]
		for _, f := range m.Types[typ].Fields {
			if scalarKinds[f.Kind] && !slices.Contains(tc.Sortable, f.Name) && !slices.Contains(content.SortFields(content.TypeConfig{}), f.Name) &&
				validSortName(f.Name) {
				add = append(add, f.Name)
			}
		}
		if len(add) == 0 {
			continue
		}
		if types == nil {
			types = maps.Clone(site.Config.Types)
			if types == nil {
				types = map[string]content.TypeConfig{}
			}
		}
		tc.Sortable = append(slices.Clone(tc.Sortable), add...)
		types[typ] = tc
	}
	if types == nil {
		return site
	}
	out := *site
	out.Config.Types = types
	return &out
}

func validSortName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

// hold replaces the invalid documents of rejecting types by their version
// in prev, or leaves them out.
func (ms *modelState) hold(site *content.Site, prev *Snapshot, reject map[string]bool, commit string) (*content.Site, []HeldDoc) {
	if len(reject) == 0 {
		return site, nil
	}
	var prevSite *content.Site
	since := map[string]string{}
	if prev != nil {
		prevSite = prev.Site
		for _, h := range prev.Held {
			since[h.Path] = h.Since
		}
	}
	out := *site
	var held []HeldDoc
	// items
	out.Items = make(map[string][]*content.Item, len(site.Items))
	for typ, items := range site.Items {
		out.Items[typ] = items
		var bad []int
		for i, it := range items {
			if reject[it.Meta.Path] {
				bad = append(bad, i)
			}
		}
		if len(bad) == 0 {
			continue
		}
		kept := make([]*content.Item, 0, len(items))
		slugs := map[string]bool{}
		for i, it := range items {
			if !slices.Contains(bad, i) {
				kept = append(kept, it)
				slugs[it.Slug] = true
			}
		}
		for _, i := range bad {
			it := items[i]
			h := HeldDoc{Path: it.Meta.Path, Type: typ, Since: cmp.Or(since[it.Meta.Path], commit)}
			if prevSite != nil {
				for _, old := range prevSite.Items[typ] {
					if old.Meta.Path == it.Meta.Path && !slugs[old.Slug] {
						kept = append(kept, old)
						slugs[old.Slug] = true
						h.Served = true
						break
					}
				}
			}
			held = append(held, h)
		}
		slices.SortFunc(kept, func(a, b *content.Item) int { return strings.Compare(a.Slug, b.Slug) })
		out.Items[typ] = kept // the type stays, even with no item left
	}
	// pages
	var bad []*content.Page
	for _, p := range site.Pages {
		if reject[p.Meta.Path] {
			bad = append(bad, p)
		}
	}
	if len(bad) > 0 {
		kept := make([]*content.Page, 0, len(site.Pages))
		slugs := map[string]bool{}
		for _, p := range site.Pages {
			if !slices.Contains(bad, p) {
				kept = append(kept, p)
				slugs[p.Slug] = true
			}
		}
		for _, p := range bad {
			h := HeldDoc{Path: p.Meta.Path, Type: schema.KindPages, Since: cmp.Or(since[p.Meta.Path], commit)}
			if prevSite != nil {
				for _, old := range prevSite.Pages {
					if old.Meta.Path == p.Meta.Path && !slugs[old.Slug] && (!old.IsHomepage || p.IsHomepage) {
						kept = append(kept, old)
						slugs[old.Slug] = true
						h.Served = true
						break
					}
				}
			}
			held = append(held, h)
		}
		slices.SortFunc(kept, func(a, b *content.Page) int { return strings.Compare(a.Slug, b.Slug) })
		out.Pages = kept
	}
	slices.SortFunc(held, func(a, b HeldDoc) int { return strings.Compare(a.Path, b.Path) })
	return &out, held
}

// fillIn serves every item of a modelled type with defaults and dates
// filled in (schema.Type.Apply). An item that needs none is served as
// assembled; one that does is a copy, the same copy on every reload that
// keeps the item, so its encoded JSON survives the reload: the last
// call's items of the type (ms.typeSlices) are walked along the new ones,
// both in slug order, and an item found there keeps its served copy. A
// type whose slice is the last call's is the last call's served slice.
func (ms *modelState) fillIn(site *content.Site, m *schema.Model) *content.Site {
	var out *content.Site
	for typ, items := range site.Items {
		t := m.Of(typ)
		if t == nil || !t.Fills() || len(items) == 0 {
			continue
		}
		last, hasLast := ms.typeSlices[typ]
		if hasLast && len(last[0]) == len(items) && &last[0][0] == &items[0] {
			if out == nil {
				cp := *site
				cp.Items = maps.Clone(site.Items)
				out = &cp
			}
			out.Items[typ] = last[1]
			continue
		}
		// the served items: the last call's copies, then the others
		// filled in (on every CPU at a start)
		nits := make([]*content.Item, len(items))
		var todo []int
		j := 0 // in last[0]
		for i, it := range items {
			if hasLast {
				if j < len(last[0]) && last[0][j] != it {
					// not the next one: on to its slug
					for j < len(last[0]) && last[0][j].Slug < it.Slug {
						j++
					}
				}
				if j < len(last[0]) && last[0][j] == it {
					nits[i] = last[1][j]
					j++
					continue
				}
			}
			todo = append(todo, i)
		}
		parallel(len(todo), parallelFill, func(n int) {
			i := todo[n]
			it := items[i]
			nits[i] = it
			if data, changed := t.Apply(it.Data); changed {
				cp := *it
				cp.Data = data
				nits[i] = &cp
			}
		})
		served := items // when no item is a copy
		for i, nit := range nits {
			if nit != items[i] {
				served = nits
				break
			}
		}
		ms.typeSlices[typ] = [2][]*content.Item{items, served}
		if out == nil {
			cp := *site
			cp.Items = maps.Clone(site.Items)
			out = &cp
		}
		out.Items[typ] = served
	}
	for typ := range ms.typeSlices {
		if _, ok := site.Items[typ]; !ok {
			delete(ms.typeSlices, typ)
		}
	}
	if out == nil {
		return site
	}
	return out
}

// CheckFiles assembles files as a load of a commit does and returns every
// problem a snapshot of them would have: the files', the references'
// (media ones when mediaExists is given) and the content model's. It is
// `folio check --worktree`: files read from disk, no Git.
func CheckFiles(files []content.File, mediaExists func(content.Ref) bool) []content.Problem {
	_, problems := CheckSite(files, mediaExists)
	return problems
}

// CheckSite is CheckFiles that also returns the assembled site.
func CheckSite(files []content.File, mediaExists func(content.Ref) bool) (*content.Site, []content.Problem) {
	site, problems := content.Assemble(files)
	var ms modelState
	ms.update(site, chunks.Of(files))
	rc := content.RefChecker{URLRefs: urlRefs(ms.model)}
	problems = append(problems, rc.Problems(site, files, mediaExists)...)
	problems = append(problems, content.CaseProblems(files)...)
	_, mp, _ := ms.applyModel(site, chunks.Of(files), nil, "")
	problems = append(problems, mp...)
	slices.SortStableFunc(problems, func(a, b content.Problem) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	return site, problems
}
