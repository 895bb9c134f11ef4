package content

import (
	"cmp"
	"errors"
	"fmt"

	"slices"
	"strings"
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
	sorted := slices.Clone(files)
	slices.SortStableFunc(sorted, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	a := &assembler{
		site:      &Site{Items: map[string][]*Item{}, Config: Config{Types: map[string]TypeConfig{}}},
		pageSlugs: map[string]string{}, pageIDs: map[string]string{},
		itemSlugs: map[string]string{}, itemIDs: map[string]string{},
	}
	var globalsFrom, configFrom string
	for _, f := range sorted {
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
		case segs[0] == "pages":
			a.page(f, strings.TrimPrefix(f.Path, "pages/"))
		case segs[0] == "content":
			a.item(f, segs[1], segs[2])
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
	marked    []*Page           // pages whose front matter says isHomepage: true
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

func (a *assembler) page(f File, rel string) {
	p, homeSet, err := readPage(f, rel)
	if !a.check(f.Path, err) {
		return
	}
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
		a.marked = append(a.marked, p)
	case homeSet:
		if a.unmarked == nil {
			a.unmarked = map[string]bool{}
		}
		a.unmarked[p.Slug] = true
	}
}

// homepage makes at most one page the homepage: the one whose front matter
// says isHomepage: true (the first by path when several do, the others are
// problems but still served), else the page with slug "index", else "home",
// unless that page says isHomepage: false.
func (a *assembler) homepage() {
	if len(a.marked) > 0 {
		for _, p := range a.marked[1:] {
			p.IsHomepage = false
			a.problem(p.Meta.Path, 0, "isHomepage: %s is the homepage already; this page is served as an ordinary page", a.marked[0].Meta.Path)
		}
		return
	}
	for _, slug := range []string{"index", "home"} {
		if a.unmarked[slug] {
			continue
		}
		for _, p := range a.site.Pages {
			if p.Slug == slug {
				p.IsHomepage = true
				return
			}
		}
	}
}

func (a *assembler) item(f File, typ, rel string) {
	if !ValidType(typ) {
		a.problem(f.Path, 0, "content type folder %q is not a valid type name: use lower-case letters, digits, '_' and '-', starting with a letter or digit, at most %d characters", typ, MaxTypeLen)
		return
	}
	it, err := readItem(f, typ, rel)
	if !a.check(f.Path, err) {
		return
	}
	key := typ + "\x00" + it.Slug
	if prev, dup := a.itemSlugs[key]; dup {
		a.problem(f.Path, 0, "%s slug %q is used by %s already; this file is left out", typ, it.Slug, prev)
		return
	}
	idKey := typ + "\x00" + it.ID
	if prev, dup := a.itemIDs[idKey]; dup {
		a.problem(f.Path, f.Doc.Lines["id"], "%s id %q is used by %s already; this file is left out", typ, it.ID, prev)
		return
	}
	a.itemSlugs[key], a.itemIDs[idKey] = f.Path, f.Path
	a.site.Items[typ] = append(a.site.Items[typ], it)
}
