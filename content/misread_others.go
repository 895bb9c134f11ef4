package content

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Signs of sites folio reads otherwise than their generator: a
// Docusaurus or MkDocs site, whose Markdown folio does not read at all,
// and a Hugo site's data files in content/, which Hugo renders as no
// page.

// notDocument tells the Markdown files of a repository that no
// generator publishes: those below a folder starting with "_" or "."
// (partials, includes), in node_modules/, and the root's own notes (a
// file at the root is never counted: unservedByFolder gives it the
// folder "").
func notDocument(p string) bool {
	for _, s := range strings.Split(path.Dir(p), "/") {
		if strings.HasPrefix(s, "_") || strings.HasPrefix(s, ".") || s == "node_modules" {
			return true
		}
	}
	return strings.HasPrefix(path.Base(p), "_")
}

// docusaurusSite finds the Markdown and MDX documents of a Docusaurus
// site (a docusaurus.config.* at the root: helm.sh's docs/, blog/,
// versioned_docs/ and i18n/) that folio does not read: Docusaurus's
// docs, blog and pages plugins read them, with their own slugs, ids
// and versions.
func docusaurusSite(in *MisreadInput) []Misread {
	config := rootConfig(in.Paths, "docusaurus.config.js", "docusaurus.config.ts", "docusaurus.config.mjs", "docusaurus.config.cjs", "docusaurus.config.mts")
	if config == "" {
		return nil
	}
	dirs := map[string]int{} // by plugin folder: docs/, blog/, i18n/<locale>/, versioned_docs/<version>/
	for dir, n := range unservedByFolder(in, func(p string) bool { return !notDocument(p) }) {
		first, _, _ := strings.Cut(dir, "/")
		if dir != "" && first != "i18n" && first != "versioned_docs" && first != "src" {
			dir = first + "/"
		}
		dirs[dir] += n
	}
	var out []Misread
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		if dir == "" {
			continue // the repository's README.md, CONTRIBUTING.md
		}
		out = append(out, Misread{Kind: MisreadDocusaurusSite, Path: dir,
			Message: fmt.Sprintf("%s of a Docusaurus site (%s) not read: folio reads content/<type>/ and pages/, not the folders of Docusaurus's docs, blog and pages plugins; move them to content/<type>/, or name the folder in a Decap collection, to serve them", count(dirs[dir], "Markdown document"), config)})
	}
	return out
}

// mkdocsDocsDir is the docs_dir line of an mkdocs.yml.
var mkdocsDocsDir = regexp.MustCompile(`(?m)^docs_dir:[ \t]*['"]?([^'"\s#]+)`)

// mkdocsSite finds the Markdown documents of an MkDocs site (an
// mkdocs.yml at the root: knative.dev's docs/) that folio does not read:
// MkDocs publishes every Markdown file of its docs_dir (docs/ unless the
// configuration says otherwise), at its path.
func mkdocsSite(in *MisreadInput) []Misread {
	config := rootConfig(in.Paths, "mkdocs.yml", "mkdocs.yaml")
	if config == "" {
		return nil
	}
	docs := "docs"
	if in.Read != nil {
		if data, ok := in.Read(config); ok {
			if m := mkdocsDocsDir.FindSubmatch(data); m != nil {
				docs = strings.Trim(path.Clean(string(m[1])), "/")
			}
		}
	}
	n, first := unservedUnder(in, docs, ".md", ".markdown")
	if n == 0 {
		return nil
	}
	return []Misread{{Kind: MisreadMkDocsSite, Path: docs + "/",
		Message: fmt.Sprintf("%s of an MkDocs site (%s) not read (%s among them): folio reads content/<type>/ and pages/, not MkDocs's docs_dir; move them to content/<type>/ to serve them", count(n, "Markdown document"), config, first)}}
}

// hugoDataContent finds the data files (.yaml, .yml, .json, .toml) in a
// Hugo site's content folders that folio serves as documents (as it
// serves content/<type>/<slug>.yaml on a site of its own): Hugo renders
// no page of them (etcd.io's content/en/docs/v3.5/op-guide/grafana.json,
// dapr's component examples), it publishes them as files, if at all.
func hugoDataContent(in *MisreadInput) []Misread {
	if in.Site == nil || in.Site.zola || !hugoSite(in) {
		return nil
	}
	rules := bundleRules{dirs: in.Site.I18n.OutsideDirs()}
	var found []string
	for _, p := range documentPaths(in.Site) {
		if isDataExt(strings.ToLower(path.Ext(p))) && rules.hugo(&File{Path: p}) {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		return nil
	}
	more := ""
	if len(found) > 1 {
		more = fmt.Sprintf(" (and %s more)", count(len(found)-1, "data file"))
	}
	return []Misread{{Kind: MisreadHugoDataContent, Path: found[0],
		Message: fmt.Sprintf("a data file in a Hugo site's content folder%s, served as a document: Hugo renders no page of a .yaml, .json or .toml file there (it is a resource, copied as it is); move it to data/ or assets/, or delete it", more)}}
}

// hugoKeys are top-level keys of a Hugo configuration that the
// config.yml or config.toml of another tool (Zola's base_url, a Gatsby
// site's settings) does not have.
var hugoKeys = regexp.MustCompile(`(?im)^["']?(baseurl|languagecode|defaultcontentlanguage|theme|disablekinds|params|menus?|taxonomies|module|markup|outputs)["']?[ \t]*[:=]|^\[(params|menus?|taxonomies|module|markup|outputs)[.\]]`)

// hugoSite tells whether in is a Hugo site: its configuration is a
// hugo.* file or in config/_default/, or a root config.* that sets
// keys of Hugo's.
func hugoSite(in *MisreadInput) bool {
	cfg := hugoConfigAt(in.Paths, "")
	if cfg == "" {
		return false
	}
	if !strings.HasPrefix(cfg, "config.") {
		return true // hugo.*, config/_default/
	}
	if in.Read == nil {
		return false
	}
	data, ok := in.Read(cfg)
	return ok && hugoKeys.Match(data)
}

// gatsbyPath is a folder a Gatsby plugin's options name: path:
// `${__dirname}/src/posts`, "./content/blog", path.join(__dirname,
// "posts").
var gatsbyPath = regexp.MustCompile("(?:path|folder)\\s*:\\s*(?:`\\$\\{__dirname\\}/|[`'\"](?:\\./)?|path\\.(?:join|resolve)\\(\\s*__dirname\\s*,\\s*[`'\"](?:\\./)?)([A-Za-z0-9_][A-Za-z0-9_./-]*)[`'\"]")

// gatsbySite finds the Markdown and MDX documents of a Gatsby site (a
// gatsby-config.* at the root) in the folders its plugins source
// (gatsby-source-filesystem's path: cilium.io's src/posts/) that folio
// does not read: Gatsby's pages are what gatsby-node.js makes of them,
// which folio does not run.
func gatsbySite(in *MisreadInput) []Misread {
	config := rootConfig(in.Paths, "gatsby-config.js", "gatsby-config.ts", "gatsby-config.mjs", "gatsby-config.cjs")
	if config == "" || in.Read == nil {
		return nil
	}
	data, ok := in.Read(config)
	if !ok {
		return nil
	}
	var sourced []string
	for _, m := range gatsbyPath.FindAllSubmatch(data, -1) {
		if d := strings.Trim(path.Clean(string(m[1])), "/"); d != "." && !strings.HasPrefix(d, "..") {
			sourced = append(sourced, d)
		}
	}
	if len(sourced) == 0 {
		return nil
	}
	dirs := map[string]int{}
	for dir, n := range unservedByFolder(in, func(p string) bool { return !notDocument(p) && inDirs(p, sourced) }) {
		dirs[dir] += n
	}
	var out []Misread
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		out = append(out, Misread{Kind: MisreadGatsbySite, Path: dir,
			Message: fmt.Sprintf("%s of a Gatsby site (%s sources them) not read: folio reads content/<type>/, pages/ and the folders of the site's Decap config, not gatsby-source-filesystem's; move them, or name the folder in a Decap collection, to serve them", count(dirs[dir], "Markdown document"), config)})
	}
	return out
}

// hugoMissingContent finds the content folder a Hugo configuration
// names (its contentDir; a language's own may be missing, Hugo serves
// the language empty) that the repository does not hold: a build step makes them (thanos.io's website/hugo.yaml reads
// docs-pre-processed/, which a script writes from docs/), and folio,
// which runs none, serves nothing of them.
func hugoMissingContent(in *MisreadInput) []Misread {
	type named struct{ dir, from string }
	var dirs []named
	for _, f := range in.Files {
		if kind, ok := hugoConfigFile(f.Path); !ok || kind != "main" || f.Doc == nil {
			continue
		}
		if v, _, ok := lowerKey(f.Doc.Meta(), "contentDir"); ok {
			if d, _ := v.(string); d != "" {
				dirs = append(dirs, named{d, f.Path})
			}
		}
	}
	var out []Misread
	seen := map[string]bool{}
	for _, d := range dirs {
		dir := strings.Trim(path.Clean(d.dir), "/")
		if seen[dir] || dir == "." || strings.HasPrefix(dir, "..") {
			continue
		}
		seen[dir] = true
		held := slices.ContainsFunc(in.Paths, func(p string) bool { return strings.HasPrefix(p, dir+"/") })
		if !held {
			out = append(out, Misread{Kind: MisreadHugoMissingContent, Path: d.from,
				Message: fmt.Sprintf("the content folder %s/ (contentDir) is not in the repository: a build step makes it, which folio does not run, so it serves nothing of it", dir)})
		}
	}
	return out
}

// vitepressSite finds the Markdown pages of a VitePress site (a
// .vitepress/config.* : vuejs.org's src/guide/, src/api/) that folio
// does not read: VitePress publishes every Markdown file of its srcDir
// (the root unless the config says otherwise) at its path, by first
// folder; the root's own notes (README.md) are not counted.
func vitepressSite(in *MisreadInput) []Misread {
	config := rootConfig(in.Paths, ".vitepress/config.ts", ".vitepress/config.mts", ".vitepress/config.js", ".vitepress/config.mjs")
	if config == "" {
		return nil
	}
	dirs := unservedByFirstFolder(in)
	var out []Misread
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		out = append(out, Misread{Kind: MisreadVitePressSite, Path: dir,
			Message: fmt.Sprintf("%s of a VitePress site (%s) not read: folio reads content/<type>/ and pages/, not VitePress's srcDir; move them to content/<type>/ to serve them", count(dirs[dir], "Markdown page"), config)})
	}
	return out
}

// mdbookSrc is the src line of a book.toml.
var mdbookSrc = regexp.MustCompile(`(?m)^src[ \t]*=[ \t]*["']([^"']+)["']`)

// mdbookSite finds the chapters of an mdBook (a root book.toml: the Rust
// book's src/) that folio does not read: mdBook renders the Markdown
// files of its src folder (src/ unless book.toml says otherwise) that
// SUMMARY.md lists.
func mdbookSite(in *MisreadInput) []Misread {
	if !slices.Contains(in.Paths, "book.toml") {
		return nil
	}
	src := "src"
	if in.Read != nil {
		if data, ok := in.Read("book.toml"); ok {
			if m := mdbookSrc.FindSubmatch(data); m != nil {
				src = strings.Trim(path.Clean(string(m[1])), "/")
			}
		}
	}
	n, first := unservedUnder(in, src, ".md")
	if n == 0 {
		return nil
	}
	return []Misread{{Kind: MisreadMdBookSite, Path: src + "/",
		Message: fmt.Sprintf("%s of an mdBook (book.toml) not read (%s among them): folio reads content/<type>/ and pages/, not an mdBook's chapters; move them to content/<type>/ to serve them", count(n, "Markdown chapter"), first)}}
}

// hugoNotContent are the folders of a Hugo site that hold Markdown which
// is no content: its themes, layouts, archetypes and the like.
var hugoNotContent = map[string]bool{"themes": true, "layouts": true, "archetypes": true, "node_modules": true, "static": true, "assets": true, "i18n": true, "data": true, "resources": true, "public": true, "exampleSite": true}

// hugoOutsideContent finds a Hugo site's folders outside its content
// that hold Hugo-shaped documents (the folder's own section page
// _index.md, among Markdown) folio does not read: a build step copies them into content/
// (goharbor.io's load-docs.sh copies docs/ to content/docs/<release>/),
// which folio does not run.
func hugoOutsideContent(in *MisreadInput) []Misread {
	if !hugoSite(in) {
		return nil
	}
	served := servedPaths(in.Files)
	rules := bundleRules{}
	if in.Site != nil {
		rules.dirs = in.Site.I18n.OutsideDirs()
	}
	sections := map[string]bool{}
	docs := map[string]int{}
	for _, p := range in.Paths {
		first, rest, ok := strings.Cut(p, "/")
		if !ok || hugoNotContent[first] || first == "content" || first == "pages" || strings.HasPrefix(first, ".") || strings.HasPrefix(first, "_") {
			continue
		}
		ext := strings.ToLower(path.Ext(p))
		if ext != ".md" && ext != ".markdown" || served[p] || rules.hugo(&File{Path: p}) {
			continue
		}
		docs[first]++
		if strings.HasPrefix(rest, "_index.") {
			sections[first] = true // the folder's own section page: docs/_index.md
		}
	}
	var out []Misread
	for _, dir := range slices.Sorted(maps.Keys(sections)) {
		out = append(out, Misread{Kind: MisreadHugoOutsideContent, Path: dir + "/",
			Message: fmt.Sprintf("%s laid out as Hugo content (%s_index.md its section page) outside the site's content folder, not read: a build step copies or mounts them into content/, which folio does not run; move them into content/ to serve them", count(docs[dir], "Markdown document"), dir+"/")})
	}
	return out
}

// emptySiteMarkdown finds, when no other sign did, the Markdown of a
// repository whose site folio reads as empty: a generator folio does
// not know reads it (prometheus.io's Next.js app renders docs/), and
// check would say "no problems … the site is empty". By first folder;
// the root's own files, and folders starting with "." or "_", are not
// counted.
func emptySiteMarkdown(in *MisreadInput) []Misread {
	if in.Site == nil || !siteEmpty(in.Site) {
		return nil
	}
	dirs := unservedByFirstFolder(in)
	var out []Misread
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		out = append(out, Misread{Kind: MisreadUnreadMarkdown, Path: dir,
			Message: fmt.Sprintf("%s not read, and the site is empty: folio reads pages/, content/<type>/ and the folders a Hugo, Decap or folio configuration names; another generator reads these, which folio does not know", count(dirs[dir], "Markdown document"))})
	}
	return out
}

// submodulePath is a path line of a .gitmodules.
var submodulePath = regexp.MustCompile(`(?m)^\s*path\s*=\s*(\S+)\s*$`)

// gitSubmodules finds the Git submodules of a site (its .gitmodules)
// other than themes: folio reads no file of a submodule (a commit of
// another repository), where a build step copies documents out of it
// (containerd.io's refresh-docs.sh copies containerd-main/docs/ into
// content/docs/) or a Hugo mount reads it. A theme's (below themes/,
// or named for one) is no sign: folio needs no layouts.
func gitSubmodules(in *MisreadInput) []Misread {
	if in.Read == nil || !slices.Contains(in.Paths, ".gitmodules") {
		return nil
	}
	data, ok := in.Read(".gitmodules")
	if !ok {
		return nil
	}
	var subs []string
	for _, m := range submodulePath.FindAllSubmatch(data, -1) {
		p := strings.Trim(string(m[1]), "\"/")
		if low := strings.ToLower(p); strings.HasPrefix(low, "themes/") || strings.Contains(low, "/themes/") || strings.Contains(path.Base(low), "theme") {
			continue
		}
		subs = append(subs, p)
	}
	if len(subs) == 0 {
		return nil
	}
	list, more := subs, ""
	if len(list) > 3 {
		list, more = list[:3], fmt.Sprintf(", and %d more", len(subs)-3)
	}
	return []Misread{{Kind: MisreadGitSubmodules, Path: ".gitmodules",
		Message: fmt.Sprintf("%s (%s%s) not read: folio serves no file of a submodule; documents a build step copies out of one, or a Hugo mount reads from one, are not served", count(len(subs), "Git submodule"), strings.Join(list, ", "), more)}}
}

// unservedByFirstFolder counts the Markdown documents folio does not
// serve by their first folder ("docs/"), the root's own files left out.
func unservedByFirstFolder(in *MisreadInput) map[string]int {
	dirs := map[string]int{}
	for dir, n := range unservedByFolder(in, func(p string) bool { return !notDocument(p) }) {
		if dir == "" {
			continue
		}
		first, _, _ := strings.Cut(dir, "/")
		dirs[first+"/"] += n
	}
	return dirs
}

// unservedUnder counts the files below folder dir, with one of the
// extensions exts (lower case), that folio does not serve, and names the
// first of them.
func unservedUnder(in *MisreadInput, dir string, exts ...string) (n int, first string) {
	served := servedPaths(in.Files)
	for _, p := range in.Paths {
		if !slices.Contains(exts, strings.ToLower(path.Ext(p))) || !strings.HasPrefix(p, dir+"/") || served[p] {
			continue
		}
		if first == "" {
			first = p
		}
		n++
	}
	return n, first
}
