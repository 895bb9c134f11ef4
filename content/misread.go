package content

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
)

// A Misread is a sign that folio reads a site otherwise than the site's
// own generator or CMS does: content it does not read, or reads as
// something else. folio check reports them after the problems and fails
// on them unless --allow names their kind; a site served anyway serves
// what it read.
type Misread struct {
	Kind    string // one of MisreadKinds
	Path    string // the file or folder it is about
	Line    int    // its line in Path; 0 when none
	Message string
}

func (m Misread) String() string {
	at := m.Path
	if m.Line > 0 {
		at += ":" + strconv.Itoa(m.Line)
	}
	return at + ": " + m.Message + " [" + m.Kind + "]"
}

// The kinds of Misread (folio check --allow takes them).
const (
	MisreadLanguageFolders    = "language-folders"     // content/<code>/ served as a type while the site has that language
	MisreadUnreadFiles        = "unread-files"         // content files of a format folio does not read (.rst, .adoc, …)
	MisreadShortcodes         = "shortcodes"           // Hugo shortcode tags folio cannot parse, left in bodies as written
	MisreadSubfolderSite      = "subfolder-site"       // a site's configuration in a subfolder, not at the site root
	MisreadDecapFolders       = "decap-folders"        // Decap collections whose folder folio does not serve
	MisreadJekyllSite         = "jekyll-site"          // a Jekyll site's _posts/ and collections, which folio does not read
	MisreadAstroSite          = "astro-site"           // an Astro site's Markdown outside src/content/ (a glob loader's folder, src/pages/)
	MisreadEleventySite       = "eleventy-site"        // an Eleventy site's templates folio does not read, or reads otherwise
	MisreadHugoMounts         = "hugo-mounts"          // Hugo module mounts onto a folder of content/, which folio does not follow
	MisreadDocusaurusSite     = "docusaurus-site"      // a Docusaurus site's docs, blog and pages, which folio does not read
	MisreadMkDocsSite         = "mkdocs-site"          // an MkDocs site's docs_dir, which folio does not read
	MisreadHugoDataContent    = "hugo-data-files"      // data files in a Hugo site's content/, served as documents where Hugo renders no page
	MisreadGatsbySite         = "gatsby-site"          // Markdown a Gatsby site's plugins source from folders folio does not read
	MisreadHugoMissingContent = "hugo-content-missing" // a Hugo contentDir the repository does not hold (a build step makes it)
	MisreadVitePressSite      = "vitepress-site"       // a VitePress site's Markdown pages, which folio does not read
	MisreadMdBookSite         = "mdbook-site"          // an mdBook's chapters, which folio does not read
	MisreadHugoOutsideContent = "hugo-outside-content" // Hugo-shaped documents outside content/ that a build step copies in
	MisreadUnreadMarkdown     = "unread-markdown"      // an empty site's Markdown in folders folio does not read, no other sign found
	MisreadGitSubmodules      = "git-submodules"       // Git submodules (not themes), whose files folio does not read
)

// MisreadInput is what the checks look at.
type MisreadInput struct {
	Paths []string // every file path of the repository (or folder), relevant or not
	Files []File   // the content files the site was assembled from
	Site  *Site
	// Read gives the bytes of a file of Paths that folio does not read
	// as content (an Astro site's src/content.config.ts); nil, or false,
	// when it cannot.
	Read func(p string) ([]byte, bool)
}

// misreadChecks look for one kind of Misread each, in the order they
// are reported. A new sign is a function added here and a kind above.
var misreadChecks = []func(*MisreadInput) []Misread{
	subfolderSites,
	languageFolderTypes,
	unreadFiles,
	shortcodes,
	decapFolders,
	jekyllSite,
	astroSite,
	eleventySite,
	hugoSubMounts,
	docusaurusSite,
	mkdocsSite,
	hugoDataContent,
	gatsbySite,
	hugoMissingContent,
	vitepressSite,
	mdbookSite,
	hugoOutsideContent,
	gitSubmodules,
}

// MisreadKinds lists the kinds, for --allow's help and its check.
func MisreadKinds() []string {
	return []string{MisreadSubfolderSite, MisreadLanguageFolders, MisreadUnreadFiles, MisreadShortcodes, MisreadDecapFolders, MisreadJekyllSite, MisreadAstroSite, MisreadEleventySite, MisreadHugoMounts, MisreadDocusaurusSite, MisreadMkDocsSite, MisreadHugoDataContent, MisreadGatsbySite, MisreadHugoMissingContent, MisreadVitePressSite, MisreadMdBookSite, MisreadHugoOutsideContent, MisreadUnreadMarkdown, MisreadGitSubmodules}
}

// Misreads are the signs of in's site being misread, in order.
func Misreads(in MisreadInput) []Misread {
	var out []Misread
	for _, check := range misreadChecks {
		out = append(out, check(&in)...)
	}
	if len(out) == 0 {
		out = emptySiteMarkdown(&in) // the last resort: no sign said why the site is empty
	}
	return out
}

// hugoConfigAt is the Hugo configuration file of a site whose root is
// dir ("" for the repository's), among sorted paths: hugo.* or config.*
// there, or config/_default/hugo.* (config.*); "" when there is none.
func hugoConfigAt(paths []string, dir string) string {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	for _, p := range paths {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		if kind, ok := hugoConfigFile(rest); ok && kind == "main" {
			return p
		}
	}
	return ""
}

// subfolderSites finds the Hugo sites of a repository whose root has
// none: a folder with a Hugo configuration and a content/ folder (a
// theme's exampleSite/, the Decap templates' site/), and says which
// setting reads it.
func subfolderSites(in *MisreadInput) []Misread {
	if hugoConfigAt(in.Paths, "") != "" && rootHasContent(in.Paths) {
		return nil // the root is a Hugo site: subfolders are its themes' examples
	}
	content := map[string]int{} // site folder -> its content files
	configs := map[string]string{}
	for _, p := range in.Paths {
		if strings.HasPrefix(p, "content/") || strings.HasPrefix(p, "node_modules/") || strings.Contains(p, "/node_modules/") {
			continue
		}
		if dir, rest, ok := cutSiteDir(p, "/content/"); ok && isDocExt(strings.ToLower(path.Ext(rest))) {
			content[dir]++
		}
		dir, base := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		if d, ok := strings.CutSuffix(dir, "/config/_default"); ok {
			dir, base = d, "config/_default/"+base
		}
		if dir == "" {
			continue
		}
		if kind, ok := hugoConfigFile(base); ok && kind == "main" {
			if _, seen := configs[dir]; !seen {
				configs[dir] = p
			}
		}
	}
	empty := in.Site != nil && siteEmpty(in.Site)
	if empty {
		// a root with nothing folio reads: any folder with content/ is
		// where the site may be (a Decap template's site/)
		for dir := range content {
			if _, ok := configs[dir]; !ok && !strings.Contains(dir, "/") {
				configs[dir] = ""
			}
		}
	}
	for dir, cfg := range configs {
		if cfg == "" {
			continue
		}
		// a Hugo site's content may be in content.en/, content_fr/
		n := 0
		for _, p := range in.Paths {
			if rest, ok := strings.CutPrefix(p, dir+"/content"); ok && rest != "" && strings.ContainsRune("/._", rune(rest[0])) && strings.Contains(rest, "/") && isDocExt(strings.ToLower(path.Ext(p))) {
				n++
			}
		}
		content[dir] = n
	}
	var out []Misread
	for _, dir := range slices.Sorted(maps.Keys(configs)) {
		n := content[dir]
		if n == 0 {
			continue
		}
		what := "a site (" + dir + "/content/, " + count(n, "content file") + ")"
		if configs[dir] != "" {
			what = fmt.Sprintf("a Hugo site (%s, %s)", configs[dir], count(n, "content file"))
		}
		msg := what + " that folio does not read: it reads the site at the repository's root"
		if empty {
			msg += ", which has none"
		}
		msg += fmt.Sprintf("; serve it with --root %s (or root: %s in folio.yaml)", dir, dir)
		out = append(out, Misread{Kind: MisreadSubfolderSite, Path: dir + "/", Message: msg})
	}
	return out
}

// rootHasContent tells whether the repository's root has content files
// (a theme's own hugo.toml has none beside it).
func rootHasContent(paths []string) bool {
	for _, p := range paths {
		if strings.HasPrefix(p, "content/") && isDocExt(strings.ToLower(path.Ext(p))) {
			return true
		}
	}
	return false
}

// cutSiteDir splits p at the first sep ("/content/") into the folder
// before it and the path after.
func cutSiteDir(p, sep string) (dir, rest string, ok bool) {
	i := strings.Index(p, sep)
	if i <= 0 {
		return "", "", false
	}
	return p[:i], p[i+len(sep):], true
}

func siteEmpty(s *Site) bool {
	n := len(s.Pages)
	for _, l := range s.Items {
		n += len(l)
	}
	return n == 0 && s.Globals == nil
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// languageFolderTypes finds content types named for a language of the
// site (its locales, or any language when a Hugo configuration with
// none is there): Hugo serves content/<code>/ as that language's
// content, folio as a type.
func languageFolderTypes(in *MisreadInput) []Misread {
	if in.Site == nil {
		return nil
	}
	hugo := hugoConfigAt(in.Paths, "") != ""
	var out []Misread
	seen := map[string]bool{}
	for _, s := range sitesOf(in.Site) {
		for _, typ := range slices.Sorted(maps.Keys(s.Items)) {
			if seen[typ] {
				continue
			}
			_, isLocale := in.Site.I18n.Locale(typ)
			if !isLocale && !(hugo && langSuffix("x."+typ+".md") == typ) {
				continue
			}
			seen[typ] = true
			out = append(out, Misread{Kind: MisreadLanguageFolders, Path: "content/" + typ + "/",
				Message: fmt.Sprintf("served as the content type %q (%s), but it is named for a language: Hugo reads it as that language's content (mounted by a module.mounts or a contentDir folio did not find); name each language's contentDir in folio.yaml's locales", typ, count(len(s.Items[typ]), "item"))})
		}
	}
	return out
}

// sitesOf is a site's locales' sites, or the site.
func sitesOf(s *Site) []*Site {
	if len(s.Locales) == 0 {
		return []*Site{s}
	}
	out := make([]*Site, 0, len(s.Locales))
	for _, code := range slices.Sorted(maps.Keys(s.Locales)) {
		out = append(out, s.Locales[code])
	}
	return out
}

// unreadExts are the content formats of static site generators folio
// does not read.
var unreadExts = map[string]bool{".rst": true, ".adoc": true, ".asciidoc": true, ".ad": true, ".org": true, ".pandoc": true, ".pdc": true, ".ipynb": true}

// unreadFiles finds content files of formats folio does not read,
// where it reads content, by folder.
func unreadFiles(in *MisreadInput) []Misread {
	type group struct {
		n    int
		exts map[string]bool
	}
	groups := map[string]*group{}
	var i18n *I18n
	if in.Site != nil {
		i18n = in.Site.I18n
	}
	for _, p := range in.Paths {
		ext := strings.ToLower(path.Ext(p))
		if !unreadExts[ext] || !i18n.ContentFile(p) {
			continue
		}
		segs := strings.SplitN(p, "/", 3)
		dir := segs[0] + "/"
		if len(segs) == 3 {
			dir += segs[1] + "/"
		}
		g := groups[dir]
		if g == nil {
			g = &group{exts: map[string]bool{}}
			groups[dir] = g
		}
		g.n++
		g.exts[ext] = true
	}
	var out []Misread
	for _, dir := range slices.Sorted(maps.Keys(groups)) {
		g := groups[dir]
		out = append(out, Misread{Kind: MisreadUnreadFiles, Path: dir,
			Message: fmt.Sprintf("%s (%s) not read: folio reads Markdown (.md, .markdown), HTML, YAML, JSON and TOML", count(g.n, "content file"), strings.Join(slices.Sorted(maps.Keys(g.exts)), ", "))})
	}
	return out
}

// shortcodes finds Markdown bodies with a Hugo shortcode tag folio
// cannot parse ({{< or {{% that opens no tag it reads: an unclosed
// quote, a tag cut short), which it serves as written. The shortcodes
// it parses are component nodes (shortcode.go), no misread.
func shortcodes(in *MisreadInput) []Misread {
	n, first := 0, ""
	for _, f := range in.Files {
		if f.Doc == nil || !f.Doc.HasBody || f.Doc.Body.IsHTML() {
			continue
		}
		if unparsedShortcodes(f.Doc.Body.Source()) > 0 {
			if n == 0 {
				first = f.RealPath()
			}
			n++
		}
	}
	var out []Misread
	if n > 0 {
		msg := "has a Hugo shortcode tag folio cannot parse ({{< … >}} or {{% … %}}), served as written"
		if n > 1 {
			msg = fmt.Sprintf("and %s more have a Hugo shortcode tag folio cannot parse ({{< … >}} or {{%% … %%}}), served as written", count(n-1, "document"))
		}
		out = append(out, Misread{Kind: MisreadShortcodes, Path: first, Message: msg})
	}
	return append(out, codeShortcodes(in)...)
}

// codeShortcodes finds the Markdown bodies of a Hugo site with a
// shortcode tag inside code, which Hugo runs and folio shows as written
// (shortcodesInCode).
func codeShortcodes(in *MisreadInput) []Misread {
	if !hugoSite(in) {
		return nil // another generator's code shows {{< as written too
	}
	n, first := 0, ""
	for _, f := range in.Files {
		if f.Doc == nil || !f.Doc.HasBody || f.Doc.Body.IsHTML() {
			continue
		}
		if shortcodesInCode(f.Doc.Body.Source()) > 0 {
			if n == 0 {
				first = f.RealPath()
			}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	more := ""
	if n > 1 {
		more = fmt.Sprintf(" (and %s more)", count(n-1, "document"))
	}
	return []Misread{{Kind: MisreadShortcodes, Path: first,
		Message: fmt.Sprintf("has a Hugo shortcode tag inside code%s ({{< … >}} in a code block or `span`): Hugo runs it there, folio shows it as written; write {{</* … */>}} to show the tag", more)}}
}

// decapFolders finds the collections of a Decap/Sveltia config whose
// folder is not where folio reads content.
func decapFolders(in *MisreadInput) []Misread {
	if in.Site == nil {
		return nil
	}
	var out []Misread
	for _, p := range slices.Sorted(maps.Keys(in.Site.ModelFiles)) {
		if !ModelFile(p) || !strings.Contains(p, "admin/") {
			continue
		}
		doc := in.Site.ModelFiles[p]
		list, _ := doc.Get("collections").([]any)
		for i, c := range list {
			m, _ := c.(map[string]any)
			folder, _ := m["folder"].(string)
			folder = SiteFolder(strings.Trim(path.Clean("/"+folder), "/"))
			if folder == "" {
				continue
			}
			probe := folder + "/x.md"
			if Relevant(probe) || (in.Site.I18n != nil && in.Site.I18n.relevant(probe)) {
				continue
			}
			if decapServes(in.Site, p, folder) {
				continue // served where it is (decapdirs.go); empty, a problem says so
			}
			name, _ := m["name"].(string)
			out = append(out, Misread{Kind: MisreadDecapFolders, Path: p, Line: doc.LineOf("collections", strconv.Itoa(i)),
				Message: fmt.Sprintf("collection %q keeps its entries in %s/, which folio does not serve (it reads content/<type>/ and pages/, and the locales' content folders)", name, folder)})
		}
	}
	return out
}

// jekyllDirs are the folders of a Jekyll site that hold no documents.
var jekyllDirs = map[string]bool{"_layouts": true, "_includes": true, "_sass": true, "_data": true, "_site": true, "_plugins": true, "_drafts": true}

// jekyllSite finds a Jekyll site (a _config.yml at the root) whose posts
// (_posts/) and collections (_<name>/) hold Markdown or HTML documents:
// folio reads neither (they start with "_"), nor Jekyll's dates and
// slugs from file names, so their documents are not served.
func jekyllSite(in *MisreadInput) []Misread {
	config := ""
	for _, p := range in.Paths {
		if p == "_config.yml" || p == "_config.yaml" || p == "_config.toml" {
			config = p
			break
		}
	}
	if config == "" {
		return nil
	}
	dirs := map[string]int{}
	var pages []string // Markdown pages at the root (about.md)
	for _, p := range in.Paths {
		if !strings.Contains(p, "/") {
			low := strings.ToLower(p)
			ext := path.Ext(low)
			if (ext == ".md" || ext == ".markdown") && !jekyllNotPage(strings.TrimSuffix(low, ext)) {
				pages = append(pages, p)
			}
			continue
		}
		dir, rest, ok := strings.Cut(p, "/")
		if !ok || len(dir) < 2 || dir[0] != '_' || jekyllDirs[dir] || strings.HasPrefix(path.Base(rest), ".") {
			continue
		}
		switch strings.ToLower(path.Ext(p)) {
		case ".md", ".markdown", ".html":
			dirs[dir]++
		}
	}
	if len(dirs) == 0 {
		return nil // a Hugo or other site that keeps a _config.yml
	}
	var out []Misread
	if len(pages) > 0 {
		list, more := pages, ""
		if len(list) > 3 {
			list, more = list[:3], ", and "+strconv.Itoa(len(pages)-3)+" more"
		}
		out = append(out, Misread{Kind: MisreadJekyllSite, Path: config,
			Message: fmt.Sprintf("%s at the root of a Jekyll site (%s%s) not read: folio reads pages in pages/ or content/", count(len(pages), "Markdown page"), strings.Join(list, ", "), more)})
	}
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		out = append(out, Misread{Kind: MisreadJekyllSite, Path: dir + "/",
			Message: fmt.Sprintf("%s of a Jekyll site (%s) not read: folio reads Hugo's content/ and pages/, not Jekyll's posts and collections; move them to content/<type>/ to serve them", count(dirs[dir], "content file"), config)})
	}
	return out
}

// jekyllNotPage tells the root Markdown files (lower-case, without their
// extension) that are a repository's, not a Jekyll site's pages.
func jekyllNotPage(stem string) bool {
	switch stem {
	case "readme", "license", "changelog", "contributing", "code_of_conduct", "security":
		return true
	}
	return false
}
