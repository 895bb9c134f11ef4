package engine

import (
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/chunks"
	"github.com/folio-cms/folio/content/schema"
)

// modelDiff is what changed in a branch's files since the commit base:
// the paths added, deleted or changed, in path order (gitsource's
// Tree.Base and Tree.Changed).
type modelDiff struct {
	base  string
	paths []string
}

// maxPatchedChecks is the number of changed paths up to which a reload's
// checks are patched from the last one's.
const maxPatchedChecks = 1024

type patchedChecks struct {
	checks *checkList
	todo   []*docCheck // the checks to validate
	made   []*docCheck // the checks of the changed paths, in path order
}

// patchChecks makes the checks of a reload from the last reload's, when
// its files are that reload's with diff's changes and nothing else the
// checks depend on changed: the same model, no locales (a file's
// readings there depend on the site's locales), only pages and items
// changed (not the globals nor a model file), no validation cache's
// results to take. The checks of the changed paths are made again, the
// others are the last ones, in the chunks of the last list they share
// (checkList); ok is false when it does not apply.
func (ms *modelState) patchChecks(site *content.Site, files chunks.List[content.File], m *schema.Model, diff modelDiff, persisted bool, commit string) (patchedChecks, bool) {
	last := ms.lastChecks
	if diff.base == "" || diff.base != ms.checkedAt || m != ms.checkedModel || site.I18n != nil || persisted ||
		len(diff.paths) > maxPatchedChecks || last == nil {
		return patchedChecks{}, false
	}
	if len(site.Resources) > 0 || ms.lastResources {
		return patchedChecks{}, false // which files of a leaf bundle are documents may have changed
	}
	for _, p := range diff.paths {
		if !strings.HasPrefix(p, "content/") && !strings.HasPrefix(p, "pages/") || p == site.GlobalsPath || content.ModelFile(p) {
			return patchedChecks{}, false
		}
	}
	var out patchedChecks
	out.checks, out.made = patchList(last, diff.paths, func(p string) (docCheck, bool) {
		j, found := files.Search(func(f *content.File) int { return strings.Compare(f.Path, p) })
		if !found {
			return docCheck{}, false
		}
		c, ok := checkOf(files.At(j), site, m)
		if !ok {
			return docCheck{}, false
		}
		if res, ok := ms.results[valKey{c.doc, c.t}]; ok {
			c.res = res
		}
		return c, true
	})
	for _, c := range out.made {
		if _, ok := ms.results[valKey{c.doc, c.t}]; !ok {
			out.todo = append(out.todo, c)
		}
	}
	return out, true
}

// resourceOf tells whether the file at path is a resource of a Hugo
// leaf bundle in its locale loc's site ("": a site without locales), no
// document, which the model does not check.
func resourceOf(site *content.Site, loc, path string) bool {
	if loc != "" && site.Locales[loc] != nil {
		site = site.Locales[loc]
	}
	return len(site.Resources) > 0 && site.Resource(path)
}

// checkOf is the check of a file of a site without locales: its type's
// model, or ok false when it has none (or is not a document).
func checkOf(f content.File, site *content.Site, m *schema.Model) (docCheck, bool) {
	if f.Doc == nil || f.Err != nil {
		return docCheck{}, false
	}
	typ, t := modelTypeOf(f.Path, f.Path, site, m)
	if t == nil {
		return docCheck{}, false
	}
	return docCheck{path: f.Path, doc: f.Doc, t: t, checkScope: &checkScope{typ: typ}}, true
}

// modelTypeOf is the type of the document at p (its path in its locale on
// a site with locales; path is the file's own) and the type's model, nil
// when it has none or p is no document's path.
func modelTypeOf(p, path string, site *content.Site, m *schema.Model) (string, *schema.Type) {
	switch {
	case strings.HasPrefix(p, "content/"):
		// content/<type>/<file>: no allocation per file on a reload
		rest := p[len("content/"):]
		i := strings.IndexByte(rest, '/')
		if i <= 0 || i == len(rest)-1 {
			return "", nil
		}
		return rest[:i], m.Of(rest[:i])
	case strings.HasPrefix(p, "pages/"):
		return schema.KindPages, m.Pages
	case path == site.GlobalsPath:
		return schema.KindGlobals, m.Globals
	}
	return "", nil
}
