package content

import (
	"slices"
	"strings"
	"unicode"
)

// Astro content collections: src/content/<collection>/… holds the
// documents of the collection (a Starlight docs site keeps its pages in
// src/content/docs/, mostly .mdx). folio reads each collection as a
// content type: src/content/docs/guides/intro.mdx is the item
// guides/intro of type docs, served at /api/v1/content/docs/guides/intro.
// A file of the same path under content/ wins. A site with a Hugo
// configuration, or locales in folio.yaml, is read as they say instead.

// astroRelevant tells whether p is a document of an Astro content
// collection.
func astroRelevant(p string) bool {
	rest, ok := strings.CutPrefix(p, "src/content/")
	if !ok {
		return false
	}
	return relevantPlain("content/" + rest)
}

// astroFiles gives each file of an Astro content collection its path in
// the site, content/<collection>/…, its repository path kept as Source;
// sorted stays sorted by Path. files is not modified.
func astroFiles(sorted []File) []File {
	i := slices.IndexFunc(sorted, func(f File) bool { return strings.HasPrefix(f.Path, "src/content") })
	if i < 0 {
		return sorted
	}
	globs := astroGlobFolders(sorted) // astroglob.go
	// a site that says where its content is (a Hugo configuration, whose
	// contentDir may be src/content; folio.yaml's locales) is not Astro's
	for _, f := range sorted {
		if _, hugo := hugoConfigFile(f.Path); hugo {
			return sorted
		}
		if !strings.Contains(f.Path, "/") && strings.HasPrefix(strings.ToLower(f.Path), "folio.") && f.Doc != nil {
			if _, ok := f.Doc.Value("locales"); ok {
				return sorted
			}
		}
	}
	taken := map[string]bool{}
	for _, f := range sorted {
		if strings.HasPrefix(f.Path, "content/") {
			taken[f.Path] = true
		}
	}
	out := make([]File, 0, len(sorted))
	for _, f := range sorted {
		if astroRelevant(f.Path) && f.Source == "" {
			virt := "content/" + strings.TrimPrefix(f.Path, "src/content/")
			if taken[virt] {
				continue
			}
			f.Path, f.Source = virt, f.Path
		}
		for _, g := range globs {
			if virt, ok := g.virt(f.Path); ok && f.Source == "" {
				if taken[virt] {
					break
				}
				f.Path, f.Source = virt, f.Path
				break
			}
		}
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// astroMarkup is the Markdown settings of an Astro site: raw HTML is
// passed through (sanitized), as Astro's Markdown does.
func astroMarkup(sorted []File) *Markup {
	for _, f := range sorted {
		if strings.HasPrefix(f.Source, "src/content/") {
			return &Markup{Unsafe: true, key: "astro"}
		}
	}
	return nil
}

// astroSlug is the slug Astro's glob() loader gives an entry whose path
// (name) is no valid slug: each segment slugified as github-slugger
// does, lower case, spaces as '-', other characters than letters, digits,
// '-' and '_' dropped (greensoftware.foundation's
// articles/en/…-metrics—meet-…/index.md is …-metricsmeet-…).
func astroSlug(name string) (string, bool) {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == '/' || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		case unicode.In(r, unicode.L, unicode.M, unicode.N):
			b.WriteRune(unicode.ToLower(r))
		}
	}
	s := b.String()
	return s, ValidSlug(s)
}
