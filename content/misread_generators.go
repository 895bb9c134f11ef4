package content

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Signs of an Astro or Eleventy site that folio reads in part: both
// generators say in code (astro.config.*, src/content.config.ts,
// eleventy.config.js and its data files) where their documents are and
// what their URLs are, which folio does not run.

// rootConfig is the first of names among the repository's root files
// (paths), "" when none is there.
func rootConfig(paths []string, names ...string) string {
	for _, n := range names {
		if slices.Contains(paths, n) {
			return n
		}
	}
	return ""
}

// servedPaths are the repository paths of the files the site was
// assembled from.
func servedPaths(files []File) map[string]bool {
	out := make(map[string]bool, len(files))
	for _, f := range files {
		out[f.RealPath()] = true
	}
	return out
}

// documentPaths are the repository paths of a site's pages and items,
// in every locale, sorted.
func documentPaths(site *Site) []string {
	if site == nil {
		return nil
	}
	var out []string
	for _, s := range sitesOf(site) {
		for _, pg := range s.Pages {
			out = append(out, pg.Meta.Path)
		}
		for _, list := range s.Items {
			for _, it := range list {
				out = append(out, it.Meta.Path)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// unservedByFolder counts the Markdown documents (.md, .markdown, .mdx,
// and Markdoc's .mdoc) that keep(p) names and folio did not read, by
// folder (its first two segments; "" for the root's).
func unservedByFolder(in *MisreadInput, keep func(p string) bool) map[string]int {
	served := servedPaths(in.Files)
	dirs := map[string]int{}
	for _, p := range in.Paths {
		switch strings.ToLower(path.Ext(p)) {
		case ".md", ".markdown", ".mdx", ".mdoc":
		default:
			continue
		}
		if served[p] || strings.HasPrefix(p, "node_modules/") || strings.Contains(p, "/node_modules/") || !keep(p) {
			continue
		}
		segs := strings.SplitN(p, "/", 3)
		dir := "" // a file at the root
		switch len(segs) {
		case 2:
			dir = segs[0] + "/"
		case 3:
			dir = segs[0] + "/" + segs[1] + "/"
		}
		dirs[dir]++
	}
	return dirs
}

// astroSite finds the Markdown and MDX documents of an Astro site (an
// astro.config.* at the root) that folio does not read: those of a
// content collection whose glob() loader reads another folder than
// src/content/<collection>/ (AstroWind's src/data/post/, named in
// src/content.config.ts), and Astro's Markdown pages in src/pages/.
func astroSite(in *MisreadInput) []Misread {
	config := rootConfig(in.Paths, "astro.config.mjs", "astro.config.ts", "astro.config.js", "astro.config.mts", "astro.config.cjs")
	if config == "" {
		return nil
	}
	dirs := unservedByFolder(in, func(p string) bool { return strings.HasPrefix(p, "src/") })
	out := astroUnpublished(in)
	out = append(out, astroRootContent(in)...)
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		msg := fmt.Sprintf("%s of an Astro site (%s) not read: folio reads the content collections in src/content/<collection>/, not a glob() loader's other folders (src/content.config.ts names them); move them there, or to content/<type>/, to serve them", count(dirs[dir], "content file"), config)
		if strings.HasPrefix(dir, "src/pages/") {
			msg = fmt.Sprintf("%s of an Astro site (%s) not read: Astro's Markdown pages (src/pages/) are not read; folio reads pages in pages/ or content/", count(dirs[dir], "Markdown page"), config)
		}
		out = append(out, Misread{Kind: MisreadAstroSite, Path: dir, Message: msg})
	}
	return out
}

// eleventyNotPage tells the Markdown files of an Eleventy site's
// repository that are no templates: its includes and layouts, and the
// repository's own notes.
func eleventyNotPage(p string) bool {
	for _, s := range strings.Split(path.Dir(p), "/") {
		if s == "." {
			break // a file at the root
		}
		if strings.HasPrefix(s, "_") || strings.HasPrefix(s, ".") {
			return true // _includes/, _data/, _site/
		}
	}
	stem := strings.ToLower(strings.TrimSuffix(path.Base(p), path.Ext(p)))
	return jekyllNotPage(stem)
}

// eleventySite finds what folio reads otherwise than Eleventy (an
// eleventy.config.* or .eleventy.js at the root) does: its directory
// data files (pages/pages.json: the layout, tags and permalink of every
// template of pages/) served as documents, and Markdown templates it
// does not read. (A template named for its folder, blog/fourthpost/
// fourthpost.md, is served at the folder's path, as Eleventy writes it:
// eleventy.go.)
func eleventySite(in *MisreadInput) []Misread {
	config := rootConfig(in.Paths, "eleventy.config.js", "eleventy.config.mjs", "eleventy.config.cjs", "eleventy.config.ts", ".eleventy.js", ".eleventy.cjs", ".eleventy.mjs") // eleventyConfigs
	if config == "" {
		return nil
	}
	var out []Misread
	for _, p := range documentPaths(in.Site) {
		dir, base := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		ext := path.Ext(base)
		stem := strings.TrimSuffix(base, ext)
		if dir == "" || stem != path.Base(dir) {
			continue
		}
		if isDataExt(strings.ToLower(ext)) {
			out = append(out, Misread{Kind: MisreadEleventySite, Path: p,
				Message: fmt.Sprintf("Eleventy's directory data file of %s/ (data every template in it has: its layout, tags, permalink), served as a document of its own (%s)", dir, config)})
		}
	}
	dirs := unservedByFolder(in, func(p string) bool { return !eleventyNotPage(p) })
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		at, where := dir, ""
		if dir == "" {
			at, where = config, " at the root"
		}
		out = append(out, Misread{Kind: MisreadEleventySite, Path: at,
			Message: fmt.Sprintf("%s%s of an Eleventy site (%s) not read: folio reads content/<type>/, pages/ and the folders of the site's Decap config, not Eleventy's input folders; move them, or name the folder in a Decap collection, to serve them", count(dirs[dir], "Markdown template"), where, config)})
	}
	return out
}

// hugoSubMounts finds the module mounts of a Hugo configuration whose
// target is a folder below content/ (jaegertracing.io mounts
// content/docs/v2 onto content/docs and content/docs/v2/_dev onto
// content/docs/2.dev): Hugo serves the mounted documents at the
// target's paths; folio reads a mount onto content itself (a language's
// content folder) and no other, so it serves them where they are, or
// not at all (a folder starting with _).
func hugoSubMounts(in *MisreadInput) []Misread {
	var out []Misread
	for _, f := range in.Files {
		for mt, line := range hugoMountsOf(f) {
			src, dst := mountPath(mt, "source"), mountPath(mt, "target")
			rest, below := strings.CutPrefix(dst, "content/")
			if !below || rest == "" || src == "" {
				continue
			}
			raw, outside := mountSource(mt)
			if !outside && in.Site != nil && in.Site.I18n == nil {
				continue // followed (hugomounts.go)
			}
			if outside {
				// not a file of the site (docsy.dev's ../CONTRIBUTING.md
				// is the repository's): what it holds is not known
				if ext := strings.ToLower(path.Ext(raw)); ext != "" && !isDocExt(ext) {
					continue // an image mounted as a resource
				}
				out = append(out, Misread{Kind: MisreadHugoMounts, Path: f.Path, Line: line,
					Message: fmt.Sprintf("a module mount of %s, outside the site's folder, onto %s: Hugo reads it there, folio reads no file outside the site", raw, dst)})
				continue
			}
			n := 0
			for _, p := range in.Paths {
				if (p == src || strings.HasPrefix(p, src+"/")) && isDocExt(strings.ToLower(path.Ext(p))) {
					n++
				}
			}
			if n == 0 {
				continue // an image mounted as a resource
			}
			out = append(out, Misread{Kind: MisreadHugoMounts, Path: f.Path, Line: line,
				Message: fmt.Sprintf("a module mount of %s/ (%s) onto %s/: Hugo serves them below /%s/, folio does not follow a mount below content/ and serves them at their own paths (or not at all, below a folder starting with _)", src, count(n, "content file"), dst, rest)})
		}
	}
	return out
}

// astroUnpublishedDefault finds a collection schema's published key that
// defaults to false (published: z.boolean().default(false)): an entry
// without it is not published by the site's pages.
var astroUnpublishedDefault = regexp.MustCompile(`\bpublished\s*:\s*z\s*\.\s*boolean\(\s*\)\s*\.\s*default\(\s*false\s*\)`)

// astroGlobBase finds a glob() loader's base folder.
var astroGlobBase = regexp.MustCompile(`\bglob\(\s*\{[^}]*?\bbase\s*:\s*["'` + "`" + `]([^"'` + "`" + `]+)["'` + "`" + `]`)

// astroConfig is an Astro site's content config (src/content.config.ts,
// or the older src/content/config.ts) and its text; "" when none is
// there or in.Read cannot read it.
func astroConfig(in *MisreadInput) (string, string) {
	if in.Read == nil {
		return "", ""
	}
	for _, p := range []string{"src/content.config.ts", "src/content.config.mjs", "src/content.config.js", "src/content.config.mts", "src/content/config.ts", "src/content/config.mjs", "src/content/config.js"} {
		if !slices.Contains(in.Paths, p) {
			continue
		}
		if b, ok := in.Read(p); ok {
			return p, string(b)
		}
	}
	return "", ""
}

// astroRootContent finds the documents folio serves from the root's
// content/ folder of an Astro site whose content config reads none of
// it (kyverno.io's content/en/community/code-of-conduct.md, served as a
// type en, a leftover of its Hugo site): the site's collections are
// elsewhere.
func astroRootContent(in *MisreadInput) []Misread {
	config, src := astroConfig(in)
	if config == "" {
		return nil
	}
	for _, m := range astroGlobBase.FindAllStringSubmatch(src, -1) {
		base := strings.Trim(path.Clean("/"+strings.TrimPrefix(m[1], "./")), "/")
		if base == "content" || strings.HasPrefix(base, "content/") {
			return nil // a collection of the site is there
		}
	}
	n, first := 0, ""
	for _, p := range documentPaths(in.Site) {
		if strings.HasPrefix(p, "content/") {
			if n == 0 {
				first = p
			}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	which := first
	if n > 1 {
		which = fmt.Sprintf("%s and %d more", first, n-1)
	}
	return []Misread{{Kind: MisreadAstroSite, Path: "content/",
		Message: fmt.Sprintf("%s served from content/ (%s) that the Astro site does not read: no collection of %s loads from it; move them to a collection's folder, or delete them", count(n, "document"), which, config)}}
}

// astroUnpublished finds the entries an Astro site's collection schema
// (src/content.config.ts, or src/content/config.ts) leaves unpublished
// and folio serves as published: a collection whose published key
// defaults to false (greensoftware.foundation's articles), read from
// src/content/<collection>/, with entries that do not set it. folio runs
// no schema: such an entry is a draft to the site, published to folio.
func astroUnpublished(in *MisreadInput) []Misread {
	config, src := astroConfig(in)
	if config == "" {
		return nil
	}
	// each defineCollection( … ) up to the next one is a collection's
	var bases []string
	blocks := strings.Split(src, "defineCollection(")
	for _, b := range blocks[1:] {
		m := astroGlobBase.FindStringSubmatch(b)
		if m == nil || !astroUnpublishedDefault.MatchString(b) {
			continue
		}
		base := strings.Trim(path.Clean("/"+strings.TrimPrefix(m[1], "./")), "/")
		if base != "" {
			bases = append(bases, base)
		}
	}
	var out []Misread
	for _, base := range bases {
		n, first := 0, ""
		for _, f := range in.Files {
			p := f.RealPath()
			if f.Doc == nil || !strings.HasPrefix(p, base+"/") {
				continue
			}
			if _, set := f.Doc.Value("published"); set {
				continue
			}
			if n == 0 {
				first = p
			}
			n++
		}
		if n == 0 {
			continue
		}
		more := ""
		if n > 1 {
			more = fmt.Sprintf(" (and %s more)", count(n-1, "document"))
		}
		out = append(out, Misread{Kind: MisreadAstroSite, Path: first,
			Message: fmt.Sprintf("has no published: key%s, which the schema of %s/ (%s) defaults to false, so the site does not publish it; folio runs no schema and serves it as published: set published: false (or true)", more, base, config)})
	}
	return out
}
