package content

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/folio-cms/folio/content/chunks"
)

// Hugo's leaf bundles (gohugo.io, "Page bundles"): a folder of content/
// holding an index file (index.md, index.html, …) is one page, a leaf
// bundle, and every other file in it or below it is a resource of that
// page, not a page ("a leaf bundle has no descendants"). A leaf bundle
// right inside content/ is the page named by its folder, as
// content/about.md is: content/about/index.md is the page about, not
// the item index of a type about. Zola reads a folder with index.md as
// that page too. The rule is applied to a site's files as its site
// without locales reads them (each locale's, in a site with locales),
// so a locale's contentDir reads alike.
//
// What the site declares wins: a folder named as a type by folio.yaml's
// types or by a folder collection of its Decap config stays a type.
// Only the files of Hugo's content folders (content/, the locales'
// contentDirs) are read so: those an Astro collection (src/content/) or
// a Decap folder collection outside content/ places are read as their
// CMS reads them.

// bundleRules is what leafBundles reads a site's files with.
type bundleRules struct {
	declared map[string]bool // the types the site declares (declaredTypes)
	dirs     []string        // the locales' contentDirs outside content/
	// zola: a Zola site (urlRules.zola), where every Markdown file is a
	// page, those beside a folder's index.md too (Zola's "asset
	// colocation" copies only the other files): a bundle's .md files
	// stay documents.
	zola bool
}

// zolaPage tells whether the file base, in a leaf bundle, is a document
// as Zola reads it: a Markdown file (.md, as Zola names them).
func (r bundleRules) zolaPage(base string) bool {
	return r.zola && strings.HasSuffix(base, ".md")
}

// hugo tells whether f is in one of Hugo's content folders.
func (r bundleRules) hugo(f *File) bool {
	real := f.RealPath()
	return strings.HasPrefix(real, "content/") || (len(r.dirs) > 0 && inDirs(real, r.dirs))
}

// AssembleOne is Assemble of the one file f of site (its path in its
// locale's site, its repository path in Source, as Assemble takes a
// locale's file in a site without locales) read with what site declares
// and where its locales' content is, as the whole site reads it: a write
// checks a file so. site may be nil.
func AssembleOne(f File, site *Site) (*Site, []Problem) {
	as := &Assembler{of: site}
	if site == nil {
		as.of = &Site{}
	}
	return as.Assemble([]File{f})
}

// rulesOf is the bundleRules of an assembled site.
func rulesOf(s *Site) bundleRules {
	files := make([]File, 0, len(s.ModelFiles))
	for p, d := range s.ModelFiles {
		files = append(files, File{Path: p, Doc: d})
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	r := bundleRules{declared: declaredTypes(files), dirs: s.I18n.OutsideDirs(), zola: s.zola}
	for typ := range s.Config.Types {
		if r.declared == nil {
			r.declared = map[string]bool{}
		}
		r.declared[typ] = true
	}
	return r
}

// LeafIndex tells whether base, a file's name, is the index file of a
// leaf bundle: index.<ext> of a content format (Markdown, HTML), not
// Hugo's _index.
func LeafIndex(base string) bool { return leafIndex(base) }

// leafIndex tells whether base is the index file of a leaf bundle:
// index.<ext> of a content format (Markdown, HTML), not Hugo's _index.
func leafIndex(base string) bool {
	stem, ok := strings.CutPrefix(base, "index.")
	if !ok || strings.Contains(stem, ".") {
		return false
	}
	ext := strings.ToLower(path.Ext(base))
	return isMarkdownExt(ext) || IsHTMLExt(ext)
}

// leafBundles reads the leaf bundles of sorted (a site's files as its
// site without locales reads them, sorted by Path): a leaf bundle right
// inside content/ is a page (its index file's Path becomes
// pages/<folder>/index.<ext>, its repository path kept as Source), and
// the other files of every leaf bundle are left out, one warning per
// bundle saying so, their repository paths returned (sorted). sorted
// itself is returned when nothing changes.
func leafBundles(sorted []File, rules bundleRules) ([]File, []Problem, []string) {
	var leaves []string // folders below content/ holding an index file
	for i := range sorted {
		f := &sorted[i]
		if !strings.HasPrefix(f.Path, "content/") {
			continue
		}
		j := strings.LastIndexByte(f.Path, '/')
		if j <= len("content") || !leafIndex(f.Path[j+1:]) || !rules.hugo(f) {
			continue
		}
		dir := f.Path[:j]
		if !strings.Contains(dir[len("content/"):], "/") && !topLeaf(sorted, dir[len("content/"):], rules.declared) {
			continue
		}
		if len(leaves) == 0 || leaves[len(leaves)-1] != dir {
			leaves = append(leaves, dir)
		}
	}
	if len(leaves) == 0 {
		return sorted, nil, nil
	}
	slices.Sort(leaves)
	leaves = slices.Compact(leaves)
	type bundle struct {
		dir       string // its folder's repository path
		resources []string
	}
	var bundles []bundle
	var byDir map[string]int
	var out []File // nil until a file is renamed or left out
	var resources []string
	renamed := false
	for i, f := range sorted {
		leaf := ""
		if strings.HasPrefix(f.Path, "content/") && rules.hugo(&sorted[i]) {
			leaf = outerOf(leaves, f.Path) // a bundle in a bundle is a resource of the outer one
		}
		if leaf == "" {
			if out != nil {
				out = append(out, f)
			}
			continue
		}
		dir, base := path.Split(f.Path)
		if dir == leaf+"/" && leafIndex(base) {
			rest := leaf[len("content/"):]
			if strings.Contains(rest, "/") {
				if out != nil {
					out = append(out, f)
				}
				continue // the item it was: content/posts/b/index.md is the post b
			}
			if out == nil {
				out = slices.Clone(sorted[:i])
			}
			nf := f
			nf.Path, nf.Source = "pages/"+rest+"/"+base, f.RealPath()
			out = append(out, nf)
			renamed = true
			continue
		}
		if rules.zolaPage(base) {
			if out != nil {
				out = append(out, f)
			}
			continue // a page of its own on a Zola site
		}
		// a resource of the bundle leaf
		if out == nil {
			out = slices.Clone(sorted[:i])
		}
		real := f.RealPath()
		resources = append(resources, real)
		realDir := realFolder(real, f.Path, leaf)
		j, ok := byDir[realDir]
		if !ok {
			if byDir == nil {
				byDir = map[string]int{}
			}
			j = len(bundles)
			byDir[realDir] = j
			bundles = append(bundles, bundle{dir: realDir})
		}
		bundles[j].resources = append(bundles[j].resources, strings.TrimPrefix(real, realDir+"/"))
	}
	if out == nil {
		return sorted, nil, nil
	}
	if renamed {
		slices.SortStableFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	}
	problems := make([]Problem, 0, len(bundles))
	for _, b := range bundles {
		problems = append(problems, Problem{Path: b.dir + "/", Level: LevelWarn, Message: resourcesMessage(b.resources, rules.zola)})
	}
	slices.SortFunc(problems, func(x, y Problem) int { return strings.Compare(x.Path, y.Path) })
	slices.Sort(resources)
	return out, problems, resources
}

// outerOf is the outermost folder of leaves that holds the file p, ""
// when none does.
func outerOf(leaves []string, p string) string {
	d := p
	found := ""
	for {
		i := strings.LastIndexByte(d, '/')
		if i <= len("content") {
			return found
		}
		d = d[:i]
		if _, ok := slices.BinarySearch(leaves, d); ok {
			found = d
		}
	}
}

// topLeaf tells whether the folder content/<name>, holding an index
// file, is a leaf bundle, the page name: not when the site declares the
// type name, nor when another file is the page name already (Hugo's
// section page content/<name>/_index.md, content/<name>.md, pages/…),
// which keeps it the type it was.
func topLeaf(sorted []File, name string, declared map[string]bool) bool {
	if declared[name] {
		return false
	}
	prefix := "pages/" + name + "."
	i, _ := slices.BinarySearchFunc(sorted, prefix, func(f File, p string) int { return strings.Compare(f.Path, p) })
	return i == len(sorted) || !strings.HasPrefix(sorted[i].Path, prefix)
}

// realFolder is the repository path of the bundle folder leaf (a path
// of the site as read, as virt is) of a file whose repository path is
// real: real's folder as many levels up as virt is below leaf.
func realFolder(real, virt, leaf string) string {
	up := strings.Count(virt[len(leaf):], "/")
	d := real
	for range up {
		d = path.Dir(d)
	}
	return d
}

// resourcesMessage says which files of a leaf bundle are resources.
func resourcesMessage(names []string, zola bool) string {
	const what = "a leaf bundle (a folder with an index file): "
	gen := "Hugo"
	if zola {
		gen = "Zola" // which reads only .md files as pages
	}
	if len(names) == 1 {
		return what + names[0] + " in it is a resource of its page, not a document, as " + gen + " reads it"
	}
	list, more := names, ""
	if len(list) > 3 {
		list, more = list[:3], ", and "+strconv.Itoa(len(names)-3)+" more"
	}
	return what + "its " + count(len(names), "other content file") + " (" + strings.Join(list, ", ") + more +
		") are resources of its page, not documents, as " + gen + " reads them"
}

// declaredTypes are the content types a site names itself, which its
// folders under content/ stay whatever they hold: folio.yaml's types, and
// the folders below content/ of its Decap config's folder collections
// (content/about: about; content/en/about: about).
func declaredTypes(sorted []File) map[string]bool {
	var out map[string]bool
	add := func(name string) {
		if out == nil {
			out = map[string]bool{}
		}
		out[name] = true
	}
	for _, f := range sorted {
		if strings.IndexByte(f.Path, '/') >= 0 {
			continue
		}
		low := strings.ToLower(f.Path)
		if !strings.HasPrefix(low, "folio.") || !isDataExt(path.Ext(low)) || f.Doc == nil {
			continue
		}
		types, _ := f.Doc.Get("types").(map[string]any)
		for name := range types {
			add(name)
		}
		break
	}
	if cf := decapConfig(sorted); cf != nil {
		cols, _ := cf.Doc.Get("collections").([]any)
		for _, cv := range cols {
			c, _ := cv.(map[string]any)
			folder, ok := c["folder"].(string)
			if !ok {
				continue
			}
			folder = SiteFolder(strings.Trim(path.Clean("/"+folder), "/"))
			if rest, ok := strings.CutPrefix(folder, "content/"); ok && rest != "" {
				add(path.Base(rest))
			}
		}
	}
	return out
}

// bundleChange tells whether a change of the path p, between the files
// old and new (each sorted by path, as given: no file renamed), may read
// a leaf bundle otherwise: an index file added or removed, or any file
// of a folder that holds one, in either (leafBundles).
func bundleChange(old, new chunks.List[File], p string) bool {
	if !strings.HasPrefix(p, "content/") {
		return false
	}
	dir, base := path.Split(p)
	d := strings.TrimSuffix(dir, "/")
	if leafIndex(base) {
		if hasPath(old, p) != hasPath(new, p) {
			return true
		}
		d = path.Dir(d) // its own folder holds it: the folders above
	}
	for ; len(d) > len("content"); d = path.Dir(d) {
		if hasIndex(old, d) || hasIndex(new, d) {
			return true
		}
	}
	return false
}

func hasPath(files chunks.List[File], p string) bool {
	_, ok := findPath(files, p)
	return ok
}

// findPath is the index of the first file of files (in path order) not
// before path p, and whether it is p.
func findPath(files chunks.List[File], p string) (int, bool) {
	return files.Search(func(f *File) int { return strings.Compare(f.Path, p) })
}

// hasIndex tells whether files holds the index file of a leaf bundle in
// the folder dir.
func hasIndex(files chunks.List[File], dir string) bool {
	prefix := dir + "/index."
	i, _ := findPath(files, prefix)
	for ; i < files.Len() && strings.HasPrefix(files.Ptr(i).Path, prefix); i++ {
		if base := files.Ptr(i).Path[len(dir)+1:]; !strings.Contains(base, "/") && leafIndex(base) {
			return true
		}
	}
	return false
}

// LeafBundleDir tells whether the loader reads the folder dir (a
// repository path) of site as a leaf bundle when it holds an index file
// (leafBundles' rule, for a write to ask before it adds a file): a folder
// of Hugo's content below content/ (a locale's contentDir), but for one
// right inside it that stays a type, being declared (folio.yaml's types,
// a Decap folder collection) or another file being its page already.
// Names decide nothing: content/posts/posts is a bundle, a declared
// type's folder is none. site may be nil: none is.
func LeafBundleDir(site *Site, dir string) bool {
	if site == nil {
		return false
	}
	virt := dir
	if site.I18n != nil {
		_, v, ok := site.I18n.locate(dir + "/index.md")
		if !ok {
			return false
		}
		virt = path.Dir(v)
	}
	rest, ok := strings.CutPrefix(virt, "content/")
	if !ok || rest == "" {
		return false
	}
	rules := rulesOf(site)
	if !rules.hugo(&File{Path: virt + "/index.md", Source: dir + "/index.md"}) {
		return false
	}
	if strings.Contains(rest, "/") {
		return true
	}
	if rules.declared[rest] {
		return false
	}
	// another file is the page rest already: the folder stays a type
	other := func(s *Site) bool {
		i, found := slices.BinarySearchFunc(s.Pages, rest, func(p *Page, slug string) int { return strings.Compare(p.Slug, slug) })
		return found && !strings.HasPrefix(s.Pages[i].Meta.Path, dir+"/")
	}
	if other(site) {
		return false
	}
	for _, s := range site.Locales {
		if s != site && other(s) {
			return false
		}
	}
	return true
}

// BundlePage tells whether a file named base inside a leaf bundle of
// site is a document all the same: a Markdown file on a Zola site.
func BundlePage(site *Site, base string) bool {
	return site != nil && bundleRules{zola: site.zola}.zolaPage(base)
}
