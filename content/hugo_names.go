package content

import (
	"path"
	"slices"
	"strings"

	"golang.org/x/text/language"
)

// Hugo's content file names: a language suffix (about.de.md,
// _index.zh-CN.md) says the file's language, the _index files too, and a
// file whose suffix names a language the site does not have is left out,
// as Hugo leaves it out. A site without locales serves content/about.md
// and the _index files as pages all the same (hugoPages).

// langSuffix is the language code a file's name ends in before its
// extension (de of about.de.md, zh-CN of _index.zh-CN.md); "" when it
// ends in none. Only a known language with a two-letter primary subtag
// counts, so that v1.md, notes.old.md and api.min.md keep their names.
func langSuffix(p string) string {
	base := path.Base(p)
	ext := path.Ext(base)
	stem := base[:len(base)-len(ext)]
	i := strings.LastIndexByte(stem, '.')
	if i <= 0 {
		return ""
	}
	code := stem[i+1:]
	primary, _, _ := strings.Cut(strings.ReplaceAll(code, "_", "-"), "-")
	if len(primary) != 2 || !isLower(primary) {
		return ""
	}
	if _, err := language.Parse(code); err != nil {
		return ""
	}
	return code
}

func isLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// indexWithLang tells whether base is a Hugo _index file with a
// language suffix (_index.de.md), and its name without it.
func indexWithLang(base string) (string, bool) {
	if !strings.HasPrefix(base, "_index.") {
		return "", false
	}
	code := langSuffix(base)
	if code == "" {
		return "", false
	}
	ext := path.Ext(base)
	if base != "_index."+code+ext || !isDocExt(strings.ToLower(ext)) {
		return "", false
	}
	return "_index" + ext, true
}

// sectionPageLang is sectionPage for an _index file with or without a
// language suffix.
func sectionPageLang(rest string) bool {
	if _, ok := sectionPage(rest); ok {
		return true
	}
	dir, base := path.Split(rest)
	if name, ok := indexWithLang(base); ok {
		_, ok = sectionPage(dir + name)
		return ok
	}
	return false
}

// unknownLanguage is the language suffix of a content file's name when
// it names a language c does not have ("" when it names none, or one of
// c's).
func (c *I18n) unknownLanguage(p string) string {
	code := langSuffix(p)
	if code == "" {
		return ""
	}
	if _, ok := c.Locale(code); ok {
		return ""
	}
	return code
}

// unknownLanguageProblem says a file was left out for its language.
func unknownLanguageProblem(p, code string, codes []string) Problem {
	have := "the site has one language"
	if len(codes) > 0 {
		have = "the site's languages are " + strings.Join(codes, ", ")
	}
	return Problem{Path: p, Message: "the file name says language " + code + ", which is not a language of the site (" + have + "); left out, as Hugo leaves it out"}
}

// hugoPages are the files of a site without locales as it reads them:
// Hugo's root pages and _index files are pages (content/about.md is the
// page about, content/_index.md the page index, the homepage,
// content/blog/_index.md the page blog), as in a site with locales. One
// whose name has a language suffix is left out (unknown: the site has
// no languages), and said. sorted is returned when nothing is renamed.
func hugoPages(sorted []File) ([]File, []Problem) {
	var out []File
	var problems []Problem
	for i, f := range sorted {
		rest, ok := strings.CutPrefix(f.Path, "content/")
		if !ok || !(sectionPageLang(rest) || (!strings.Contains(rest, "/") && isDocExt(strings.ToLower(path.Ext(rest))))) {
			if out != nil {
				out = append(out, f)
			}
			continue
		}
		if out == nil {
			out = slices.Clone(sorted[:i])
		}
		if code := langSuffix(rest); code != "" {
			problems = append(problems, unknownLanguageProblem(f.Path, code, nil))
			continue
		}
		nf := f
		nf.Path, nf.Source = rootVirt(f.Path), f.RealPath()
		out = append(out, nf)
	}
	if out == nil {
		return sorted, nil
	}
	slices.SortStableFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out, problems
}

// languageFolders makes content/<code>/ the contentDir of each language
// of a Hugo site whose configuration lists languages without saying
// where their content is (no contentDir, no module mount) when those
// folders are there, the default language's among them: such a site
// mounts them where folio does not look (a theme's or a module's
// configuration), and read as they are its language folders would be
// content types (en, fr, …). Files of the others are named for their
// language (about.fr.md) as before. cfg is returned as it is otherwise.
func languageFolders(cfg *I18n, sorted []File) *I18n {
	if cfg.Layout != LayoutFile || len(cfg.Locales) < 2 {
		return cfg
	}
	has := func(code string) bool {
		dir := "content/" + code + "/"
		i, _ := slices.BinarySearchFunc(sorted, dir, func(f File, p string) int { return strings.Compare(f.Path, p) })
		return i < len(sorted) && strings.HasPrefix(sorted[i].Path, dir)
	}
	if !has(cfg.Default) {
		return cfg
	}
	out := *cfg
	out.Locales = slices.Clone(cfg.Locales)
	found := 0
	for i := range out.Locales {
		if l := &out.Locales[i]; has(l.Code) {
			l.ContentDir = "content/" + l.Code
			found++
		}
	}
	if found < 2 {
		return cfg
	}
	out.Layout = LayoutFolder
	return &out
}
