package write

import (
	"path"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
)

// A write must not change which files of a Hugo leaf bundle are documents
// (content.leafBundles): a file written inside a bundle's folder would be
// a resource of its page, not the document the write answered with, and
// an index file written into a folder holding other documents would make
// them resources, so that they are no longer served (one POST of slug
// index into posts made every post a resource of a page posts). Both are
// refused as a conflict; the document stays where it is.

// docPath is a served document's repository path and what it is.
type docPath struct {
	path string
	page bool
	typ  string // the item's type; "" for a page
}

// eachDoc calls f with the repository path of every document of site, in
// every locale (no list made: a write on a site of a million files
// passes over them once).
func eachDoc(site *content.Site, f func(docPath)) {
	visit := func(s *content.Site) {
		for _, pg := range s.Pages {
			f(docPath{path: pg.Meta.Path, page: true})
		}
		for typ, its := range s.Items {
			for _, it := range its {
				f(docPath{path: it.Meta.Path, typ: typ})
			}
		}
	}
	visit(site)
	for loc, s := range site.Locales {
		if s != site && loc != site.Locale {
			visit(s)
		}
	}
}

// bundleConflict refuses writing the file at p (a document's new or
// current file; self: the document's file before the write, "" for a new
// one) when the served site's leaf bundles would read it otherwise. What
// is a leaf bundle is the loader's own decision (content.LeafBundleDir),
// never a folder's name: content/posts/posts/index.md is a bundle, the
// folder of a declared type holding an index file is none.
func bundleConflict(site *content.Site, p, self string) error {
	if site == nil || !strings.HasPrefix(p, "content/") && site.I18n == nil {
		return nil
	}
	var (
		isDoc  bool   // p is a document's file already
		bundle string // the index file of a leaf bundle holding p
		others int    // documents below p's folder, when p is an index file
	)
	pBase, pDir := path.Base(p), path.Dir(p)
	pIndex := content.LeafIndex(pBase) && content.LeafBundleDir(site, pDir)
	pPage := content.BundlePage(site, pBase) // a document even in a bundle (Zola's .md)
	eachDoc(site, func(d docPath) {
		switch {
		case d.path == p:
			isDoc = true
			return
		case d.path == self:
			return
		}
		if pIndex && strings.HasPrefix(d.path, pDir+"/") && !content.BundlePage(site, path.Base(d.path)) {
			others++
		}
		if bundle != "" || pPage || !content.LeafIndex(path.Base(d.path)) {
			return
		}
		if dir := path.Dir(d.path); strings.HasPrefix(p, dir+"/") && content.LeafBundleDir(site, dir) {
			bundle = d.path
		}
	})
	switch {
	case isDoc:
		return nil // writing a document's own file moves no bundle's edge
	case bundle != "":
		return fault.New(fault.Conflict, "%s is inside the leaf bundle of %s: it would be a resource of that page, not a document; write it outside %s/", p, bundle, path.Dir(bundle))
	case others > 0:
		return fault.New(fault.Conflict, "%s would make %s/ a leaf bundle: its %d other document(s) would no longer be served; choose another slug or file name", p, pDir, others)
	}
	return nil
}
