package content

import (
	"path"
	"slices"
	"strings"
)

// An Eleventy site (an eleventy.config.* or .eleventy.* at the root)
// writes a template named for its folder at the folder's URL:
// eleventy-base-blog's content/blog/fourthpost/fourthpost.md is
// /blog/fourthpost/, as an index.md there would be. folio reads the
// root's config file among the site's files (Relevant) only to know the
// site is Eleventy's: it serves no document from it, and a document's
// path follows that rule (permalink.go); its slug stays the one its file
// gives (fourthpost/fourthpost).

// eleventyConfigs are the names of an Eleventy site's config file at the
// root, in the order Eleventy looks for them.
var eleventyConfigs = []string{".eleventy.js", "eleventy.config.js", "eleventy.config.mjs", "eleventy.config.cjs", "eleventy.config.ts", ".eleventy.cjs", ".eleventy.mjs"}

// eleventyConfigFile tells whether p is an Eleventy config at the root.
func eleventyConfigFile(p string) bool {
	if strings.IndexByte(p, '/') >= 0 || !strings.Contains(p, "eleventy") {
		return false
	}
	return slices.Contains(eleventyConfigs, p)
}

// eleventySiteOf tells whether sorted has an Eleventy config at the root.
func eleventySiteOf(sorted []File) bool {
	for _, f := range sorted {
		if eleventyConfigFile(f.Path) {
			return true
		}
	}
	return false
}

// eleventyFolder is the folder of a template named for it (slug
// blog/fourthpost/fourthpost is blog/fourthpost); "" for another.
func eleventyFolder(slug string) string {
	dir, name := path.Split(slug)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" || path.Base(dir) != name {
		return ""
	}
	return dir
}
