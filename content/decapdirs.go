package content

import (
	"maps"
	"path"
	"slices"
	"strings"
)

// A Decap/Sveltia CMS config says where each collection lives: a folder
// collection's documents are the files with its extension below its
// folder, a files collection's are the files it names. folio serves them
// wherever they are: a folder collection outside content/ and pages/
// (a Gatsby site's src/pages/blog) is the type named by the collection,
// its files read as if they were content/<name>/…; a file of a files
// collection outside them (src/pages/about/index.md) is the page named
// by its entry (about), read as pages/<name>.<ext>. Files a site serves
// already (under content/ or pages/, the globals file) stay as they are.
// The config is the one folio.yaml's schemaFrom names, else the first of
// static/admin/, public/admin/ and admin/ (then any other admin/
// config.yml, by path).

// decapLayout is where one Decap config's collections live, outside
// content/ and pages/.
type decapLayout struct {
	folders []decapFolder     // deepest folder first
	files   map[string]string // repository path -> virtual path
}

type decapFolder struct {
	dir  string   // the folder, without slashes around it
	name string   // the type
	exts []string // file extensions with their dot, lower case
}

// decapConfigRank orders the places a Decap config is looked for.
func decapConfigRank(p string) int {
	switch p {
	case "static/admin/config.yml", "static/admin/config.yaml":
		return 0
	case "public/admin/config.yml", "public/admin/config.yaml":
		return 1
	case "admin/config.yml", "admin/config.yaml":
		return 2
	}
	return 3
}

// decapConfig is the site's Decap config among files (sorted by path):
// folio.yaml's schemaFrom, else the first by decapConfigRank; nil when
// none.
func decapConfig(files []File) *File {
	var best *File
	schemaFrom := ""
	for i := range files {
		f := &files[i]
		if strings.IndexByte(f.Path, '/') < 0 {
			if low := strings.ToLower(f.Path); strings.HasPrefix(low, "folio.") && f.Doc != nil && schemaFrom == "" {
				schemaFrom, _ = f.Doc.Get("schemaFrom").(string)
			}
			continue
		}
		if f.Doc == nil || !strings.Contains(f.Path, "admin/") || !ModelFile(f.Path) || path.Ext(f.Path) == ".json" {
			continue
		}
		if best == nil || decapConfigRank(f.Path) < decapConfigRank(best.Path) {
			best = f
		}
	}
	if schemaFrom != "" {
		for i := range files {
			if files[i].Path == schemaFrom && files[i].Doc != nil {
				return &files[i]
			}
		}
		return nil
	}
	return best
}

// readDecapLayout reads the collections of a Decap config; nil when
// none lives outside content/ and pages/. Collections it cannot read are
// left to the content model, which reports them.
//
// A files collection's file under content/ (content/about/index.md, which
// folio would read as the type about's item index) is a page too, in a
// site without locales (locales: false); with locales, the locale's
// folders say what it is.
func readDecapLayout(doc *Doc, locales bool) *decapLayout {
	cols, _ := doc.Get("collections").([]any)
	l := &decapLayout{}
	for _, cv := range cols {
		c, _ := cv.(map[string]any)
		name, _ := c["name"].(string)
		if folder, ok := c["folder"].(string); ok {
			folder = SiteFolder(strings.Trim(path.Clean("/"+folder), "/"))
			if folder == "" || servedAsIs(folder+"/x.md") || !ValidType(name) || !safeDir(folder) {
				continue
			}
			l.folders = append(l.folders, decapFolder{dir: folder, name: name, exts: decapExts(c)})
			continue
		}
		files, _ := c["files"].([]any)
		for _, fv := range files {
			f, _ := fv.(map[string]any)
			file, _ := f["file"].(string)
			fname, _ := f["name"].(string)
			file = SiteFolder(strings.Trim(path.Clean("/"+file), "/"))
			ext := strings.ToLower(path.Ext(file))
			asIs := servedAsIs(file)
			if asIs && !locales && strings.HasPrefix(file, "content/") && strings.Count(file, "/") >= 2 {
				asIs = false // an item otherwise
			}
			if file == "" || asIs || !ValidSlug(fname) || !safeDir(file) || !isDocExt(ext) {
				continue
			}
			if l.files == nil {
				l.files = map[string]string{}
			}
			if _, dup := l.files[file]; !dup {
				l.files[file] = "pages/" + fname + ext
			}
		}
	}
	if len(l.folders) == 0 && len(l.files) == 0 {
		return nil
	}
	slices.SortStableFunc(l.folders, func(a, b decapFolder) int { return strings.Count(b.dir, "/") - strings.Count(a.dir, "/") })
	return l
}

// servedAsIs tells whether p is a file folio serves where it is: under
// content/ or pages/, or the globals file.
func servedAsIs(p string) bool {
	return strings.HasPrefix(p, "content/") || strings.HasPrefix(p, "pages/") || relevantPlain(p)
}

// safeDir tells whether p has no hidden segment (., _) and no "..".
func safeDir(p string) bool {
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == ".." || s[0] == '.' {
			return false
		}
	}
	return true
}

// decapExts are the extensions of a folder collection's files: its
// extension, else its format's (json, yml and yaml, toml), else md.
func decapExts(c map[string]any) []string {
	if e, ok := c["extension"].(string); ok && e != "" {
		e = "." + strings.ToLower(strings.TrimPrefix(e, "."))
		if e == ".yml" || e == ".yaml" {
			return []string{".yml", ".yaml"}
		}
		return []string{e}
	}
	switch f, _ := c["format"].(string); strings.ToLower(f) {
	case "json":
		return []string{".json"}
	case "yml", "yaml":
		return []string{".yml", ".yaml"}
	case "toml":
		return []string{".toml"}
	}
	return []string{".md", ".markdown"}
}

// virt is the path file p is read at, and whether it is one of the
// layout's.
func (l *decapLayout) virt(p string) (string, bool) {
	if v, ok := l.files[p]; ok {
		return v, true
	}
	for _, f := range l.folders {
		if len(p) > len(f.dir) && p[len(f.dir)] == '/' && strings.HasPrefix(p, f.dir) {
			rest := p[len(f.dir)+1:]
			if !slices.Contains(f.exts, strings.ToLower(path.Ext(rest))) || !inContentDir(rest) {
				return "", false
			}
			return "content/" + f.name + "/" + rest, true
		}
	}
	return "", false
}

// dirs are the folders and files the layout reads (for a loader: see
// ContentDirs).
func (l *decapLayout) dirs() []string {
	out := make([]string, 0, len(l.folders)+len(l.files))
	for _, f := range l.folders {
		out = append(out, f.dir)
	}
	for p := range l.files {
		out = append(out, p)
	}
	return out
}

// decapRemap gives the files of sorted that a Decap config places (see
// above) their path as folio reads them, the real one in Source; sorted
// itself when there are none. Files below a folder of skip (the
// locales' contentDirs, which read them) stay as they are. A folder
// collection with no file folio serves is a sign folio check reports
// (Misreads, MisreadDecapFolders).
func decapRemap(sorted []File, skip []string, locales bool) []File {
	cf := decapConfig(sorted)
	if cf == nil {
		return sorted
	}
	l := readDecapLayout(cf.Doc, locales)
	if l == nil {
		return sorted
	}
	var out []File
	for i, f := range sorted {
		v, ok := l.virt(f.Path)
		if !ok || inDirs(f.Path, skip) {
			continue
		}
		if out == nil {
			out = slices.Clone(sorted)
		}
		out[i].Path, out[i].Source = v, f.RealPath()
	}
	if out == nil {
		return sorted
	}
	slices.SortStableFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// decapDirs are the folders and files outside content/ and pages/ the
// site's Decap config places collections in, for ContentDirs.
func decapDirs(files []File, skip []string) []string {
	cf := decapConfig(files)
	if cf == nil {
		return nil
	}
	l := readDecapLayout(cf.Doc, true) // the files under content/ are read anyway
	if l == nil {
		return nil
	}
	return slices.DeleteFunc(l.dirs(), func(d string) bool { return inDirs(d, skip) })
}

// DecapConfigFile tells whether p may be the Decap config that places
// collections outside content/ and pages/ (a loader reads it with the
// ones LocaleConfigFile names, for ContentDirs).
func DecapConfigFile(p string) bool {
	return strings.Contains(p, "admin/") && ModelFile(p)
}

// inDirs tells whether p is one of dirs or below one.
func inDirs(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || len(p) > len(d) && p[len(d)] == '/' && strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}

// decapServes tells whether the site's Decap config (of the site's
// model files: see decapConfig) is the one at p and places a folder
// collection in folder (a path of the site), and folio serves items from
// there.
func decapServes(site *Site, p, folder string) bool {
	files := make([]File, 0, len(site.ModelFiles))
	for _, mp := range slices.Sorted(maps.Keys(site.ModelFiles)) {
		files = append(files, File{Path: mp, Doc: site.ModelFiles[mp]})
	}
	cf := decapConfig(files)
	if cf == nil || cf.Path != p {
		return false
	}
	l := readDecapLayout(cf.Doc, site.I18n != nil)
	if l == nil {
		return false
	}
	for _, f := range l.folders {
		if f.dir != folder {
			continue
		}
		for _, it := range site.Items[f.name] {
			if strings.HasPrefix(it.Meta.Path, folder+"/") {
				return true
			}
		}
	}
	return false
}
