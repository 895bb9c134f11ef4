package content

import (
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
)

// A Hugo site's languages are read from its own configuration when
// folio.yaml declares no locales: hugo.toml (or .yaml, .json; config.* in
// older sites) at the root, and config/_default/ with hugo.*, config.*,
// languages.* (a map of languages) and languages.<code>.* (one
// language's settings). Of each language folio reads contentDir, weight,
// languageName or label, and disabled; defaultContentLanguage is the
// default locale (en when unset, as in Hugo). A module mount of a folder
// onto content (module.mounts in the main config, or mounts in
// config/_default/module.*) is a contentDir: of its language (lang, or
// sites.matrix.languages), else of every language without one, so that a
// site that keeps its one language's content in content/en (Hugo's own
// documentation does) loads its sections as types.

// hugoConfigFile tells whether p is a file of a Hugo site's configuration
// that folio reads for the languages, and which: "main" (hugo.*,
// config.*), "languages", "languages.<code>" or "module" (its mounts).
func hugoConfigFile(p string) (kind string, ok bool) {
	ext := strings.ToLower(path.Ext(p))
	if !isDataExt(ext) {
		return "", false
	}
	dir, base := path.Split(p)
	name := strings.TrimSuffix(base, path.Ext(base))
	if sub, ok := strings.CutPrefix(dir, "config/_default/"); ok && sub != "" && visibleDir(sub) {
		// Hugo reads config/_default/ down its folders, a file's key
		// its name wherever it is (falco.org keeps its languages in
		// config/_default/languages/languages.yaml, its mounts in
		// module/module.yaml)
		dir = "config/_default/"
	}
	switch dir {
	case "":
		if name == "hugo" || name == "config" {
			return "main", true
		}
	case "config/_default/":
		switch {
		case name == "hugo" || name == "config":
			return "main", true
		case name == "languages":
			return "languages", true
		case strings.HasPrefix(name, "languages.") && len(name) > len("languages."):
			return name, true
		case name == "module":
			return "module", true
		case name == "markup" || name == "params":
			return name, true // the Markdown settings (markup.go)
		}
	}
	return "", false
}

// visibleDir tells whether dir ("a/b/") has no segment that starts with
// "." (a folder Hugo's walk of its config folder skips).
func visibleDir(dir string) bool {
	for rest := strings.TrimSuffix(dir, "/"); ; {
		s, tail, more := strings.Cut(rest, "/")
		if s == "" || s[0] == '.' {
			return false
		}
		if !more {
			return true
		}
		rest = tail
	}
}

// kindOfPath is the kind of Hugo config file p is ("" for none).
func kindOfPath(p string) string {
	kind, _ := hugoConfigFile(p)
	return kind
}

// lowerKeys finds key in m case-insensitively (Hugo's keys are).
func lowerKey(m map[string]any, key string) (any, string, bool) {
	if v, ok := m[key]; ok {
		return v, key, true
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, k, true
		}
	}
	return nil, "", false
}

// readHugoI18n reads the languages of a Hugo configuration from its
// files (by path); nil when it has fewer than two enabled languages and
// none with its own contentDir (a single-language site).
func readHugoI18n(files []File) (*I18n, []Problem) {
	r := &hugoReader{langs: map[string]langSrc{}, langMount: map[string]mountSrc{}}
	for _, f := range files {
		r.read(f)
	}
	return r.i18n()
}

// hugoReader gathers the languages of a Hugo configuration, file by file
// (read), then makes them the site's locales (i18n).
type hugoReader struct {
	problems []Problem
	langs    map[string]langSrc
	order    []string // the codes of langs, in the order first read
	// def is defaultContentLanguage, and where it is set
	def     string
	defPath string
	defLine int
	from    string // the file the languages are read from
	// rootDir is the contentDir of the main config (Hugo's default for
	// every language), when it is not content, and where it is set
	rootDir mountSrc
	// the content mounts: langMount per language, rootMount for every
	// language (see readMounts)
	langMount map[string]mountSrc
	rootMount mountSrc
	mainSeen  bool // a main config (hugo.*, config.*) was read
}

// langSrc is one language's settings, and where they are written.
type langSrc struct {
	path     string
	line     int
	settings map[string]any
	// doc and at are the file and key path of the settings, for the line
	// of one of them
	doc *Doc
	at  []string
}

// addLang adds the settings of language code, over those it has.
func (r *hugoReader) addLang(code string, src langSrc) {
	if _, ok := r.langs[code]; !ok {
		r.order = append(r.order, code)
	}
	prev := r.langs[code]
	if prev.settings != nil {
		merged := map[string]any{}
		for k, v := range prev.settings {
			merged[k] = v
		}
		for k, v := range src.settings {
			merged[k] = v
		}
		src.settings = merged
	}
	r.langs[code] = src
}

// readLanguages reads v, a map of language codes to settings, of file f
// (at line).
func (r *hugoReader) readLanguages(f File, v any, line int) {
	m, ok := v.(map[string]any)
	if !ok {
		r.problems = append(r.problems, Problem{Path: f.Path, Line: line, Message: "languages: want a map of language codes to settings, found " + kindOf(v)})
		return
	}
	for _, code := range slices.Sorted(maps.Keys(m)) {
		sv := m[code]
		s, ok := sv.(map[string]any)
		if !ok {
			s = map[string]any{}
		}
		at := []string{code}
		if _, wrapped := f.Doc.Value("languages"); wrapped || kindOfPath(f.Path) == "main" {
			at = []string{"languages", code}
		}
		r.addLang(code, langSrc{path: f.Path, line: f.Doc.LineOf(at...), settings: s, doc: f.Doc, at: at})
	}
}

// readMounts reads v, the module mounts of file f (at key path at): the
// first mount onto content of each language, and of every language.
func (r *hugoReader) readMounts(f File, v any, at ...string) {
	list, _ := v.([]any)
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		src, dst := mountPath(m, "source"), mountPath(m, "target")
		if dst != "content" || src == "" {
			continue
		}
		ms := mountSrc{dir: src, path: f.Path, line: f.Doc.LineOf(append(slices.Clip(at), strconv.Itoa(i))...)}
		codes := mountLanguages(m)
		if len(codes) == 0 && r.rootMount.dir == "" {
			r.rootMount = ms
		}
		for _, c := range codes {
			if _, seen := r.langMount[c]; !seen {
				r.langMount[c] = ms
			}
		}
	}
}

// read reads one file of the site: a Hugo config file's languages,
// default language, contentDir and mounts; other files are skipped.
func (r *hugoReader) read(f File) {
	kind, ok := hugoConfigFile(f.Path)
	if !ok {
		return
	}
	if f.Err != nil || f.Doc == nil {
		pr, isProblem := f.Err.(Problem)
		if !isProblem {
			pr = Problem{Message: "Hugo config: file was not parsed"}
			if f.Err != nil {
				pr.Message = "Hugo config: " + f.Err.Error()
			}
		}
		pr.Path = f.Path
		r.problems = append(r.problems, pr)
		return
	}
	switch {
	case kind == "main":
		r.readMain(f)
	case kind == "module":
		if v, k, ok := lowerKey(f.Doc.Meta(), "mounts"); ok {
			r.readMounts(f, v, k)
		}
	case kind == "languages":
		m := f.Doc.Meta()
		if v, _, ok := lowerKey(m, "languages"); ok && len(m) == 1 {
			m, _ = v.(map[string]any)
		}
		r.readLanguages(f, m, 0)
		r.from = f.Path
	case kind == "markup" || kind == "params":
		// the Markdown settings (markup.go), not languages
	default:
		code := strings.TrimPrefix(kind, "languages.")
		r.addLang(code, langSrc{path: f.Path, line: 1, settings: f.Doc.Meta(), doc: f.Doc})
		if r.from == "" {
			r.from = f.Path
		}
	}
}

// readMain reads a main config file (hugo.*, config.*).
func (r *hugoReader) readMain(f File) {
	// Hugo reads hugo.* before config.*, the root before config/_default/.
	if r.mainSeen && !strings.HasPrefix(f.Path, "config/") {
		return
	}
	r.mainSeen = true
	if v, k, ok := lowerKey(f.Doc.Meta(), "defaultContentLanguage"); ok {
		if s, isText := v.(string); isText && (r.def == "" || !strings.HasPrefix(f.Path, "config/")) {
			r.def, r.defPath, r.defLine = s, f.Path, f.Doc.KeyLines()[k]
		}
	}
	if v, k, ok := lowerKey(f.Doc.Meta(), "contentDir"); ok {
		// the content folder of the languages without their own
		if d, isText := v.(string); isText && strings.Trim(d, "/") != "content" && (r.rootDir.dir == "" || !strings.HasPrefix(f.Path, "config/")) {
			r.rootDir = mountSrc{dir: d, path: f.Path, line: f.Doc.KeyLines()[k]}
		}
	}
	if v, k, ok := lowerKey(f.Doc.Meta(), "languages"); ok {
		r.readLanguages(f, v, f.Doc.KeyLines()[k])
		r.from = f.Path
		r.zolaDefault(f)
	}
	if mod, k, ok := lowerKey(f.Doc.Meta(), "module"); ok {
		if mm, isMap := mod.(map[string]any); isMap {
			if v, k2, ok := lowerKey(mm, "mounts"); ok {
				r.readMounts(f, v, k, k2)
			}
		}
	}
}

// zolaDefault reads a Zola configuration's (config.toml with base_url)
// default language: default_language, else en. Zola's [languages] lists
// the other languages only (a table for the default one is optional), so
// the default one is added: a site of en and [languages.fr] has two
// languages, its French files named x.fr.md, as Hugo's are.
func (r *hugoReader) zolaDefault(f File) {
	m := f.Doc.Meta()
	if _, zola := m["base_url"]; !zola || f.Path != "config.toml" {
		return
	}
	def, line := "en", 0
	if v, ok := m["default_language"].(string); ok && v != "" {
		def, line = v, f.Doc.KeyLines()["default_language"]
	}
	r.def, r.defPath, r.defLine = def, f.Path, line
	if _, ok := r.langs[def]; !ok {
		r.addLang(def, langSrc{path: f.Path, line: line, settings: map[string]any{}})
	}
}

// i18n makes the languages read the site's locales; nil when the site
// has fewer than two enabled languages and none with its own contentDir.
func (r *hugoReader) i18n() (*I18n, []Problem) {
	if r.rootDir.dir == "" && r.rootMount.dir != "" && r.rootMount.dir != "content" {
		r.rootDir = r.rootMount
	}
	if len(r.langs) == 0 && (r.rootDir.dir != "" || len(r.langMount) > 0) {
		// one language, its content elsewhere: Hugo's default language
		code := r.def
		if code == "" {
			code = "en"
		}
		r.addLang(code, langSrc{path: r.rootDir.path, line: r.rootDir.line, settings: map[string]any{}})
	}
	if len(r.langs) == 0 {
		return nil, r.problems
	}
	b := &i18nBuilder{path: r.from}
	withDir := false
	enabled := 0
	for _, code := range r.order {
		src := r.langs[code]
		l, ok := r.locale(b, code, src)
		if !ok {
			continue
		}
		if l.ContentDir != "" {
			withDir = true
		}
		b.path = src.path
		if b.add(l, src.line) {
			enabled++
		}
	}
	b.path = r.from
	if enabled < 2 && !withDir {
		return nil, slices.Concat(r.problems, b.problems)
	}
	b.cfg.Layout = LayoutFile
	if withDir {
		b.cfg.Layout = LayoutFolder
	}
	def, defLine := r.def, r.defLine
	if def == "" {
		def = "en"
		if _, ok := b.cfg.Locale(def); !ok {
			def = ""
		}
	} else {
		b.path = r.defPath
	}
	cfg := b.finish(def, defLine)
	if cfg != nil {
		cfg.From = r.from
	}
	return cfg, slices.Concat(r.problems, b.problems)
}

// locale is the locale of language code, its settings src: its content
// folder (its own contentDir, a mount of its own, else the main config's
// contentDir or mount), weight and name; false when it is disabled. The
// line of its content folder, when known, is b's dirLine.
func (r *hugoReader) locale(b *i18nBuilder, code string, src langSrc) (Locale, bool) {
	s := src.settings
	if v, _, ok := lowerKey(s, "disabled"); ok && v == true {
		return Locale{}, false
	}
	l := Locale{Code: code, weight: 1 << 20}
	if v, k, ok := lowerKey(s, "contentDir"); ok {
		l.ContentDir, _ = v.(string)
		if src.doc != nil {
			b.dirLine = src.doc.LineOf(append(slices.Clip(src.at), k)...)
		}
	} else if ms, ok := r.langMount[code]; ok {
		l.ContentDir = ms.dir
		b.dirLine = ms.line
	} else if r.rootDir.dir != "" {
		l.ContentDir = r.rootDir.dir
		if src.path == r.rootDir.path {
			b.dirLine = r.rootDir.line
		}
	}
	if v, _, ok := lowerKey(s, "weight"); ok {
		switch w := v.(type) {
		case int64:
			l.weight = int(w)
		case float64:
			l.weight = int(w)
		}
	}
	for _, k := range []string{"label", "languageName"} {
		if v, _, ok := lowerKey(s, k); ok {
			if n, isText := v.(string); isText && n != "" {
				l.Name = n
				break
			}
		}
	}
	return l, true
}

// mountSrc is a module mount's source folder and where it is written.
type mountSrc struct {
	dir, path string
	line      int
}

// mountPath is a mount's source or target as a repository path ("" when
// it is not text).
func mountPath(m map[string]any, key string) string {
	v, _, _ := lowerKey(m, key)
	s, _ := v.(string)
	return strings.Trim(path.Clean("/"+s), "/")
}

// mountLanguages are the languages a mount is for: lang (Hugo before
// 0.153), or sites.matrix.languages; none for every language.
func mountLanguages(m map[string]any) []string {
	if v, _, ok := lowerKey(m, "lang"); ok {
		if s, isText := v.(string); isText && s != "" {
			return []string{s}
		}
	}
	sites, _, _ := lowerKey(m, "sites")
	sm, _ := sites.(map[string]any)
	matrix, _, _ := lowerKey(sm, "matrix")
	mm, _ := matrix.(map[string]any)
	v, _, _ := lowerKey(mm, "languages")
	var out []string
	switch l := v.(type) {
	case string:
		out = append(out, l)
	case []any:
		for _, e := range l {
			if s, isText := e.(string); isText && s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}
