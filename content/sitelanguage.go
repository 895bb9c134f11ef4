package content

import (
	"cmp"
	"slices"
	"strings"

	"golang.org/x/text/language"
)

// searchLanguage is the search language (one of Languages) of a language
// code or tag (en, en-US, pt_BR, zh-Hans); "" for one folio has no rules
// for.
func searchLanguage(code string) string {
	tag, err := language.Parse(strings.ReplaceAll(strings.TrimSpace(code), "_", "-"))
	if err != nil {
		return ""
	}
	base, _ := tag.Base()
	if b := base.String(); slices.Contains(Languages, b) {
		return b
	}
	return ""
}

// hugoLanguage is the search language a Hugo site without locales says
// it is written in, for a folio.yaml without `language:`: its main
// config's languageCode (en-us), else defaultContentLanguage, else the
// one language of its languages map; "" when it says none folio knows.
// Hugo reads hugo.* before config.*, the root before config/_default/.
func hugoLanguage(sorted []File) string {
	var mains []File
	for _, f := range sorted {
		if kind, ok := hugoConfigFile(f.Path); ok && kind == "main" && f.Err == nil && f.Doc != nil {
			mains = append(mains, f)
		}
	}
	rank := func(p string) int {
		return btoi(strings.HasPrefix(p, "config/"))*2 + btoi(!strings.HasPrefix(path0(p), "hugo."))
	}
	slices.SortStableFunc(mains, func(a, b File) int { return cmp.Compare(rank(a.Path), rank(b.Path)) })
	for _, key := range []string{"languageCode", "defaultContentLanguage"} {
		for _, f := range mains {
			if v, _, ok := lowerKey(f.Doc.Meta(), key); ok {
				if s, isText := v.(string); isText {
					if l := searchLanguage(s); l != "" {
						return l
					}
				}
			}
		}
	}
	for _, f := range mains {
		if v, _, ok := lowerKey(f.Doc.Meta(), "languages"); ok {
			if m, isMap := v.(map[string]any); isMap && len(m) == 1 {
				for code := range m {
					return searchLanguage(code)
				}
			}
		}
	}
	return ""
}

// path0 is the last element of a slash-separated path.
func path0(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// withSiteLanguage is site with the search language of its Hugo config
// when folio.yaml sets none (a copy; site itself is the assembler's).
func withSiteLanguage(site *Site, sorted []File) *Site {
	if site == nil || site.Config.Language != "" {
		return site
	}
	lang := hugoLanguage(sorted)
	if lang == "" {
		return site
	}
	cp := *site
	cp.Config.Language = lang
	return &cp
}
