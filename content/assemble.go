package content

import (
	"cmp"
	"errors"
	"fmt"

	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Assemble builds a Site from parsed files and reports a problem for each
// file left out.
//
// Files are taken in path order, so every conflict has the same winner on
// every load: of two files claiming the same page slug, item (type, slug),
// page id or item (type, id), the one with the lexicographically smallest
// path stays and the other is a problem. Paths that Relevant rejects are
// ignored. See README.md for the conventions.
func Assemble(files []File) (*Site, []Problem) {
	return new(Assembler).Assemble(files)
}

// Assembler assembles successive versions of one site, reusing the page or
// item of every file whose path, document and Updated time are those of the
// previous call: only changed files are read again, and the whole-site
// rules (duplicate slugs and ids, the homepage) are applied afresh to the
// reused and new ones alike, so the result is always what Assemble gives.
// An unchanged file yields the same *Page or *Item pointer as before, which
// callers may use to keep per-document work (encoded JSON) across calls.
// Pages and items must not be modified by callers. Safe for concurrent use;
// calls run one at a time.
type Assembler struct {
	mu    sync.Mutex
	gen   uint64
	units map[unitKey]*unit
	// The last call's files (by path) and their units: a file the same
	// as then takes its unit without a lookup by key.
	lastFiles []File
	lastUnits []*unit
}

// unitKey is what a page's or an item's reading depends on.
type unitKey struct {
	path    string
	doc     *Doc
	sec     int64 // Updated, as an instant
	nsec    int
	hasTime bool
}

// unit is one file read as a page or an item, before whole-site rules. A
// page is kept as its front matter says (IsHomepage may change later, on a
// copy).
type unit struct {
	used    uint64
	page    *Page
	homeSet bool
	item    *Item
	typ     string
	slugKey string // item: type "\x00" slug
	idKey   string // item: type "\x00" id
	err     error  // the file's problem, when it cannot be read
}

func newUnitKey(f File) unitKey {
	k := unitKey{path: f.Path, doc: f.Doc}
	if !f.Updated.IsZero() {
		k.sec, k.nsec, k.hasTime = f.Updated.Unix(), f.Updated.Nanosecond(), true
	}
	return k
}

// Assemble is Assemble, reusing what the previous call read; see Assembler.
func (as *Assembler) Assemble(files []File) (*Site, []Problem) {
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.units == nil {
		as.units = map[unitKey]*unit{}
	}
	as.gen++
	sorted := files
	byPath := func(a, b File) int { return strings.Compare(a.Path, b.Path) }
	if !slices.IsSortedFunc(files, byPath) {
		sorted = slices.Clone(files)
		slices.SortStableFunc(sorted, byPath)
	}
	a := &assembler{
		site:      &Site{Items: map[string][]*Item{}, Config: Config{Types: map[string]TypeConfig{}}},
		pageSlugs: make(map[string]string, len(files)/4), pageIDs: make(map[string]string, len(files)/4),
		itemSlugs: make(map[string]string, len(files)), itemIDs: make(map[string]string, len(files)),
	}
	units := as.readUnits(sorted)
	var globalsFrom, configFrom string
	for i, f := range sorted {
		if u := units[i]; u != nil {
			a.unit(f, u)
			continue
		}
		if !Relevant(f.Path) {
			continue
		}
		if f.Err != nil || f.Doc == nil {
			a.fileErr(f)
			continue
		}
		segs := strings.SplitN(f.Path, "/", 3)
		switch {
		case len(segs) == 1 && strings.HasPrefix(strings.ToLower(f.Path), "globals."):
			if globalsFrom != "" {
				a.problem(f.Path, 0, "%s is the globals file already; this one is left out", globalsFrom)
				continue
			}
			g, err := readGlobals(f.Doc)
			if a.check(f.Path, err) {
				a.site.Globals, globalsFrom = g, f.Path
			}
		case len(segs) == 1:
			if configFrom != "" {
				a.problem(f.Path, 0, "%s is the folio config already; this one is left out", configFrom)
				continue
			}
			cfg, err := readConfig(f.Doc)
			if a.check(f.Path, err) {
				a.site.Config, configFrom = cfg, f.Path
			}
		}
	}
	for k, u := range as.units {
		if u.used != as.gen {
			delete(as.units, k)
		}
	}
	a.homepage()
	slices.SortFunc(a.site.Pages, func(x, y *Page) int { return strings.Compare(x.Slug, y.Slug) })
	for _, items := range a.site.Items {
		slices.SortFunc(items, func(x, y *Item) int { return strings.Compare(x.Slug, y.Slug) })
	}
	slices.SortStableFunc(a.problems, func(x, y Problem) int {
		return cmp.Or(strings.Compare(x.Path, y.Path), cmp.Compare(x.Line, y.Line))
	})
	return a.site, a.problems
}

type assembler struct {
	site      *Site
	problems  []Problem
	pageSlugs map[string]string // slug -> path
	pageIDs   map[string]string // id -> path
	itemSlugs map[string]string // type "\x00" slug -> path
	itemIDs   map[string]string // type "\x00" id -> path
	marked    []int             // indexes in site.Pages of pages whose front matter says isHomepage: true
	unmarked  map[string]bool   // slugs of pages that say isHomepage: false
}

func (a *assembler) problem(p string, line int, format string, args ...any) {
	a.problems = append(a.problems, Problem{Path: p, Line: line, Message: fmt.Sprintf(format, args...)})
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

func (a *assembler) fileErr(f File) {
	if f.Err == nil {
		a.problem(f.Path, 0, "file was not parsed")
		return
	}
	a.check(f.Path, f.Err)
}

// parallelUnits is the number of files to read from which readUnits uses
// every CPU (a cold start; a reload reads a few).
const parallelUnits = 256

// readUnits returns the unit of every page and item file of sorted (nil for
// other files and failed parses): the known ones, and the others read, in
// parallel when there are many.
func (as *Assembler) readUnits(sorted []File) []*unit {
	units := make([]*unit, len(sorted))
	var todo []int
	j := 0
	for i, f := range sorted {
		if f.Err != nil || f.Doc == nil {
			continue
		}
		for j < len(as.lastFiles) && as.lastFiles[j].Path < f.Path {
			j++
		}
		if j < len(as.lastFiles) && as.lastUnits[j] != nil && sameUnitFile(as.lastFiles[j], f) {
			u := as.lastUnits[j]
			u.used = as.gen
			units[i] = u
			continue
		}
		if u := as.units[newUnitKey(f)]; u != nil {
			u.used = as.gen
			units[i] = u
			continue
		}
		if !Relevant(f.Path) {
			continue
		}
		if strings.HasPrefix(f.Path, "pages/") || strings.HasPrefix(f.Path, "content/") {
			todo = append(todo, i)
		}
	}
	read := func(i int) {
		f := sorted[i]
		if rel, ok := strings.CutPrefix(f.Path, "pages/"); ok {
			units[i] = readPageUnit(f, rel)
			return
		}
		segs := strings.SplitN(f.Path, "/", 3)
		units[i] = readItemUnit(f, segs[1], segs[2])
	}
	if workers := runtime.GOMAXPROCS(0); len(todo) >= parallelUnits && workers > 1 {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for {
					n := int(next.Add(1)) - 1
					if n >= len(todo) {
						return
					}
					read(todo[n])
				}
			})
		}
		wg.Wait()
	} else {
		for _, i := range todo {
			read(i)
		}
	}
	for _, i := range todo {
		units[i].used = as.gen
		as.units[newUnitKey(sorted[i])] = units[i]
	}
	as.lastFiles = make([]File, len(sorted))
	for i, f := range sorted {
		// Only what sameUnitFile compares: no documents or errors kept
		// past their use.
		if units[i] != nil {
			as.lastFiles[i] = File{Path: f.Path, Doc: f.Doc, Updated: f.Updated}
		} else {
			as.lastFiles[i] = File{Path: f.Path}
		}
	}
	as.lastUnits = units
	return units
}

// sameUnitFile tells whether two files have the same unitKey.
func sameUnitFile(a, b File) bool {
	return newUnitKey(a) == newUnitKey(b)
}

// readPageUnit reads a file under pages/; rel is the path below pages/.
func readPageUnit(f File, rel string) *unit {
	p, homeSet, err := readPage(f, rel)
	return &unit{page: p, homeSet: homeSet, err: err}
}

// readItemUnit reads a file under content/<typ>/; rel is the path below.
func readItemUnit(f File, typ, rel string) *unit {
	if !ValidType(typ) {
		return &unit{err: problemAt(0, "content type folder %q is not a valid type name: use lower-case letters, digits, '_' and '-', starting with a letter or digit, at most %d characters", typ, MaxTypeLen)}
	}
	it, err := readItem(f, typ, rel)
	if err != nil {
		return &unit{err: err}
	}
	return &unit{item: it, typ: typ, slugKey: typ + "\x00" + it.Slug, idKey: typ + "\x00" + it.ID}
}

// unit adds a file's page or item to the site, unless a file before it
// (by path) has the same slug or id.
func (a *assembler) unit(f File, u *unit) {
	if !a.check(f.Path, u.err) {
		return
	}
	if u.item != nil {
		a.item(f, u)
		return
	}
	a.page(f, u)
}

func (a *assembler) page(f File, u *unit) {
	p := u.page
	if prev, dup := a.pageSlugs[p.Slug]; dup {
		a.problem(f.Path, 0, "page slug %q is used by %s already; this file is left out", p.Slug, prev)
		return
	}
	if prev, dup := a.pageIDs[p.ID]; dup {
		a.problem(f.Path, f.Doc.Lines["id"], "page id %q is used by %s already; this file is left out", p.ID, prev)
		return
	}
	a.pageSlugs[p.Slug], a.pageIDs[p.ID] = f.Path, f.Path
	a.site.Pages = append(a.site.Pages, p)
	switch {
	case p.IsHomepage:
		a.marked = append(a.marked, len(a.site.Pages)-1)
	case u.homeSet:
		if a.unmarked == nil {
			a.unmarked = map[string]bool{}
		}
		a.unmarked[p.Slug] = true
	}
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

func (a *assembler) item(f File, u *unit) {
	it := u.item
	if prev, dup := a.itemSlugs[u.slugKey]; dup {
		a.problem(f.Path, 0, "%s slug %q is used by %s already; this file is left out", u.typ, it.Slug, prev)
		return
	}
	if prev, dup := a.itemIDs[u.idKey]; dup {
		a.problem(f.Path, f.Doc.Lines["id"], "%s id %q is used by %s already; this file is left out", u.typ, it.ID, prev)
		return
	}
	a.itemSlugs[u.slugKey], a.itemIDs[u.idKey] = f.Path, f.Path
	a.site.Items[u.typ] = append(a.site.Items[u.typ], it)
}
