package content

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// I18n is a site's locales: which there are, the default one, how their
// files are laid out and how each falls back. A site without it (nil)
// has no notion of a language. See docs/translations.md.
type I18n struct {
	Locales []Locale // in order (Hugo's weight, else as configured)
	Default string   // code of the default locale
	Layout  string   // LayoutFolder, LayoutFile or LayoutFields
	// From is the path of the file the locales were read from
	// (folio.yaml, a Hugo config, a Decap config.yml).
	From string
}

// The layouts of translated files.
const (
	LayoutFolder = "folder" // content/<locale>/<type>/<slug>.md (and content/<type>/<locale>/<slug>.md)
	LayoutFile   = "file"   // content/<type>/<slug>.<locale>.md beside <slug>.md
	LayoutFields = "fields" // one file, title: {en: …, fr: …}
)

// Locale is one language of a site.
type Locale struct {
	Code string `json:"code"`
	Name string `json:"name"`
	// ContentDir is the folder holding this locale's content (Hugo's
	// contentDir): root files are pages, folders are types. "" : the
	// layout's usual place.
	ContentDir string `json:"contentDir,omitempty"`
	// Fallback is the chain of locales a document missing in this one is
	// looked up in, in order; it ends with the default locale (empty for
	// the default locale itself).
	Fallback []string `json:"fallback"`
	// Language is the search language of the locale (one of Languages;
	// "" when the search index has no rules for it).
	Language string `json:"-"`
	weight   int
}

// Locale returns the locale of code; false when the site has none such.
func (c *I18n) Locale(code string) (*Locale, bool) {
	if c == nil {
		return nil, false
	}
	for i := range c.Locales {
		if c.Locales[i].Code == code {
			return &c.Locales[i], true
		}
	}
	return nil, false
}

// Codes lists the locale codes, in order.
func (c *I18n) Codes() []string {
	out := make([]string, len(c.Locales))
	for i, l := range c.Locales {
		out[i] = l.Code
	}
	return out
}

// cleanContentDir is a locale's contentDir as a folder of the repository
// (content_fr, i18n/fr/content, content/fr: a trailing or leading ./ and
// / apart, as written); an error for one folio never reads: outside the
// repository (absolute, or with ..), hidden, or the repository itself.
func cleanContentDir(dir string) (string, error) {
	if strings.HasPrefix(dir, "/") || strings.Contains(dir, "\\") || (len(dir) > 1 && dir[1] == ':') {
		return "", errors.New("an absolute path, outside the repository; never read")
	}
	d := strings.TrimSuffix(strings.TrimPrefix(dir, "./"), "/")
	if d == "" || d == "." {
		return "", errors.New("the repository's root is not a content folder")
	}
	for _, seg := range strings.Split(d, "/") {
		switch {
		case seg == "..":
			return "", errors.New("outside the repository (..); never read")
		case seg == "" || seg == ".":
			return "", errors.New("not a plain folder path (a//b, a/./b)")
		case seg[0] == '.' || seg[0] == '_':
			return "", fmt.Errorf("folio reads no folder starting with %q", seg[:1])
		}
	}
	if strings.HasPrefix(d, "pages/") || d == "pages" || ModelFile(d+"/config.yml") || strings.HasPrefix(d, "schemas/") || d == "schemas" || strings.HasPrefix(d, "globals/") || d == "globals" {
		return "", errors.New("a folder folio reads for something else")
	}
	return d, nil
}

// maxLocales bounds the locales of one site.
const maxLocales = 64

// checkLocaleCode tells whether code is a BCP 47 language tag usable in
// paths and query strings (letters, digits and '-').
func checkLocaleCode(code string) error {
	if code == "" || len(code) > 35 {
		return fmt.Errorf("%q is not a BCP 47 language tag (en, fr, pt-BR, zh-Hant)", code)
	}
	for i := 0; i < len(code); i++ {
		c := code[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return fmt.Errorf("%q is not a BCP 47 language tag (en, fr, pt-BR, zh-Hant): only letters, digits and '-'", code)
		}
	}
	if _, err := language.Parse(code); err != nil {
		return fmt.Errorf("%q is not a BCP 47 language tag (en, fr, pt-BR, zh-Hant): %v", code, err)
	}
	return nil
}

// localeDefaults fills in a locale's name (its own name for itself, in
// its language) and search language.
func localeDefaults(l *Locale) {
	tag, err := language.Parse(l.Code)
	if err != nil {
		return
	}
	if l.Name == "" {
		l.Name = display.Self.Name(tag)
		if l.Name == "" {
			l.Name = l.Code
		}
	}
	l.Language = searchLanguage(l.Code)
}

// i18nBuilder collects the locales of one config and its problems.
type i18nBuilder struct {
	path     string
	cfg      I18n
	problems []Problem
	// next are the fallback links as configured: locale -> the locales
	// it falls back to, in order.
	next     map[string][]string
	nextLine int
	// dirLine is the line of the contentDir of the locale add is given,
	// when known
	dirLine int
}

func (b *i18nBuilder) problem(line int, format string, args ...any) {
	b.problems = append(b.problems, Problem{Path: b.path, Line: line, Message: fmt.Sprintf(format, args...)})
}

// add adds a locale unless its code is bad or taken; it tells whether it did.
func (b *i18nBuilder) add(l Locale, line int) bool {
	dirLine := cmp.Or(b.dirLine, line)
	b.dirLine = 0
	if err := checkLocaleCode(l.Code); err != nil {
		b.problem(line, "locale %v; it is left out", err)
		return false
	}
	if _, dup := b.cfg.Locale(l.Code); dup {
		b.problem(line, "locale %q is listed twice; the second is left out", l.Code)
		return false
	}
	if len(b.cfg.Locales) == maxLocales {
		b.problem(line, "at most %d locales; %q is left out", maxLocales, l.Code)
		return false
	}
	if l.ContentDir != "" {
		dir, err := cleanContentDir(l.ContentDir)
		if err != nil {
			b.problem(dirLine, "locale %q: contentDir %q: %v; the locale's content is looked for as without a contentDir", l.Code, l.ContentDir, err)
		}
		l.ContentDir = dir
	}
	localeDefaults(&l)
	b.cfg.Locales = append(b.cfg.Locales, l)
	return true
}

// finish sets the default locale and the fallback chains; nil when no
// locale is left.
func (b *i18nBuilder) finish(def string, defLine int) *I18n {
	if len(b.cfg.Locales) == 0 {
		return nil
	}
	slices.SortStableFunc(b.cfg.Locales, func(x, y Locale) int { return x.weight - y.weight })
	if def == "" {
		def = b.cfg.Locales[0].Code
	} else if _, ok := b.cfg.Locale(def); !ok {
		b.problem(defLine, "the default locale %q is not one of the locales (%s); %s is the default", def, strings.Join(b.cfg.Codes(), ", "), b.cfg.Locales[0].Code)
		def = b.cfg.Locales[0].Code
	}
	b.cfg.Default = def
	if b.cfg.Layout == "" {
		b.cfg.Layout = LayoutFolder
	}
	for from, to := range b.next {
		for _, code := range slices.Concat([]string{from}, to) {
			if _, ok := b.cfg.Locale(code); !ok {
				b.problem(b.nextLine, "fallback: %q is not one of the locales (%s); it is left out", code, strings.Join(b.cfg.Codes(), ", "))
			}
		}
	}
	for i := range b.cfg.Locales {
		l := &b.cfg.Locales[i]
		l.Fallback = b.chain(l.Code)
	}
	b.cfg.From = b.path
	out := b.cfg
	return &out
}

// chain is the fallback chain of code: the locales its links lead to,
// depth first, then the default locale. A link back to a locale already
// on the way is a cycle: a problem, and the link is not followed.
func (b *i18nBuilder) chain(code string) []string {
	var out []string
	seen := map[string]bool{code: true}
	var walk func(c string, path []string)
	walk = func(c string, path []string) {
		for _, n := range b.next[c] {
			if _, ok := b.cfg.Locale(n); !ok {
				continue
			}
			if slices.Contains(path, n) {
				b.cycle(path, n)
				continue
			}
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
			walk(n, append(slices.Clip(path), n))
		}
	}
	walk(code, []string{code})
	if code != b.cfg.Default && !seen[b.cfg.Default] {
		out = append(out, b.cfg.Default)
	}
	if code == b.cfg.Default {
		return []string{}
	}
	return out
}

// cycle reports a fallback cycle once, whichever locale it is met from.
func (b *i18nBuilder) cycle(path []string, back string) {
	i := slices.Index(path, back)
	loop := slices.Clone(path[i:])
	// the same cycle met from another locale starts elsewhere: name it
	// from its smallest code
	m := 0
	for j := range loop {
		if loop[j] < loop[m] {
			m = j
		}
	}
	loop = append(loop[m:], loop[:m]...)
	msg := "fallback: cycle " + strings.Join(append(loop, loop[0]), " → ") + "; the link back is not followed"
	for _, p := range b.problems {
		if p.Message == msg {
			return
		}
	}
	b.problem(b.nextLine, "%s", msg)
}

// readFallback reads fallback: one chain [fr-CA, fr, en], a list of
// chains, or a map {fr-CA: [fr, en], de-CH: de}.
func (b *i18nBuilder) readFallback(v any, line int) {
	b.next, b.nextLine = map[string][]string{}, line
	link := func(from string, to ...string) {
		for _, t := range to {
			if !slices.Contains(b.next[from], t) {
				b.next[from] = append(b.next[from], t)
			}
		}
	}
	chain := func(list []any) bool {
		var codes []string
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				return false
			}
			codes = append(codes, s)
		}
		for i := 0; i+1 < len(codes); i++ {
			link(codes[i], codes[i+1])
		}
		return true
	}
	switch x := v.(type) {
	case nil:
	case []any:
		if len(x) > 0 {
			if _, nested := x[0].([]any); nested {
				for _, c := range x {
					l, ok := c.([]any)
					if !ok || !chain(l) {
						b.problem(line, "fallback: want a chain of locale codes [fr-CA, fr, en], a list of chains or a map {fr-CA: [fr, en]}")
						return
					}
				}
				return
			}
		}
		if !chain(x) {
			b.problem(line, "fallback: want a chain of locale codes [fr-CA, fr, en], a list of chains or a map {fr-CA: [fr, en]}")
		}
	case map[string]any:
		for from, to := range x {
			switch t := to.(type) {
			case string:
				link(from, t)
			case []any:
				for _, e := range t {
					s, ok := e.(string)
					if !ok {
						b.problem(line, "fallback.%s: want locale codes, found %s", from, kindOf(e))
						continue
					}
					link(from, s)
				}
			default:
				b.problem(line, "fallback.%s: want a locale code or a list of them, found %s", from, kindOf(to))
			}
		}
	default:
		b.problem(line, "fallback: want a chain of locale codes [fr-CA, fr, en], a list of chains or a map {fr-CA: [fr, en]}, found %s", kindOf(v))
	}
}

// i18nKeys are folio.yaml's keys for locales.
var i18nKeys = map[string]bool{"locales": true, "defaultLocale": true, "layout": true, "fallback": true}

// readFolioI18n reads the locales of folio.yaml; nil when it declares none.
func readFolioI18n(path string, doc *Doc) (*I18n, []Problem) {
	v, ok := doc.Value("locales")
	if !ok || v == nil {
		return nil, nil
	}
	b := &i18nBuilder{path: path}
	list, isList := v.([]any)
	if !isList {
		b.problem(doc.KeyLines()["locales"], "locales: want a list of locale codes [en, fr, de] or of {code, name, contentDir}, found %s", kindOf(v))
		return nil, b.problems
	}
	for i, e := range list {
		line := doc.LineOf("locales", itoa(i))
		if line == 0 {
			line = doc.KeyLines()["locales"]
		}
		var l Locale
		switch x := e.(type) {
		case string:
			l.Code = x
		case map[string]any:
			bad := false
			for k, kv := range x {
				s, isText := kv.(string)
				switch k {
				case "code":
					l.Code = s
				case "name":
					l.Name = s
				case "contentDir":
					l.ContentDir = s
				default:
					b.problem(line, "locales: unknown key %q (known: code, name, contentDir)", k)
					bad = true
				}
				if !isText {
					b.problem(line, "locales: %s: want text, found %s", k, kindOf(kv))
					bad = true
				}
			}
			if bad {
				continue
			}
		default:
			b.problem(line, "locales: want a locale code or {code, name, contentDir}, found %s", kindOf(e))
			continue
		}
		l.weight = i
		b.add(l, line)
	}
	lay, isText := doc.Get("layout").(string)
	if _, set := doc.Value("layout"); set && !isText {
		lay = "?"
	}
	switch lay {
	case "", LayoutFolder, LayoutFile, LayoutFields:
		b.cfg.Layout = lay
	default:
		b.problem(doc.KeyLines()["layout"], "layout: want folder, file or fields, found %v", doc.Get("layout"))
	}
	if fv, ok := doc.Value("fallback"); ok {
		b.readFallback(fv, doc.KeyLines()["fallback"])
	}
	def, _ := doc.Get("defaultLocale").(string)
	if dv, ok := doc.Value("defaultLocale"); ok && dv != nil {
		if _, isText := dv.(string); !isText {
			b.problem(doc.KeyLines()["defaultLocale"], "defaultLocale: want a locale code, found %s", kindOf(dv))
		}
	}
	return b.finish(def, doc.KeyLines()["defaultLocale"]), b.problems
}

// readDecapI18n reads the i18n block of a Decap/Sveltia config.yml:
// structure (multiple_folders, multiple_files, single_file), locales and
// default_locale; nil when it has none.
func readDecapI18n(path string, doc *Doc) (*I18n, []Problem) {
	v, ok := doc.Get("i18n").(map[string]any)
	if !ok {
		return nil, nil
	}
	b := &i18nBuilder{path: path}
	line := doc.KeyLines()["i18n"]
	list, _ := v["locales"].([]any)
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			b.problem(line, "i18n.locales: want locale codes, found %s", kindOf(e))
			continue
		}
		b.add(Locale{Code: s, weight: i}, doc.LineOf("i18n", "locales", itoa(i)))
	}
	switch st, _ := v["structure"].(string); st {
	case "multiple_files":
		b.cfg.Layout = LayoutFile
	case "single_file":
		b.cfg.Layout = LayoutFields
	case "", "multiple_folders":
		b.cfg.Layout = LayoutFolder
	default:
		b.problem(doc.LineOf("i18n", "structure"), "i18n.structure: want multiple_folders, multiple_files or single_file, found %q", st)
	}
	def, _ := v["default_locale"].(string)
	if def == "" {
		def, _ = v["defaultLocale"].(string)
	}
	return b.finish(def, doc.LineOf("i18n", "default_locale")), b.problems
}
