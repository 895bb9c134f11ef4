package content

import (
	"cmp"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// A document's path is its URL path on the site, as the site's generator
// makes it; GET /api/v1/resolve finds a document by it. folio's layout is
// Hugo's, so the rules are Hugo's:
//
//   - front matter url: is the path as written; on a Zola site (a
//     config.toml with base_url, Zola's key: Hugo's is baseURL) so is
//     front matter path:, between slashes;
//   - a page is /<slug>/, the homepage (slug index) /;
//   - an item of type t is /t/<folders>/<slug or file name>/, unless the
//     Hugo configuration's [permalinks] (or [permalinks.page]) gives t a
//     pattern: /:year/:month/:day/:slug/ and the other tokens Hugo knows;
//   - paths are lower case, as Hugo makes them, unless the configuration
//     says disablePathToLower; a locale other than the default one is
//     under /<locale>/ (the default one too with
//     defaultContentLanguageInSubdir).

// urlRules are what the site's configuration says of its URL paths.
type urlRules struct {
	permalinks map[string]string            // section (type) -> pattern
	keepCase   bool                         // disablePathToLower
	inSubdir   bool                         // defaultContentLanguageInSubdir
	zola       bool                         // a Zola site: front matter path: is the document's path
	hugo       bool                         // a Hugo configuration, not Zola's: modified is lastmod
	zolaSlugs  bool                         // Zola's slugify.paths = "on" (its default): page slugs slugified in paths
	locales    map[string]map[string]string // a language's own permalinks (languages.<code>.permalinks)
	starlight  bool                         // an Astro site's src/content/docs/: Starlight's docs, served at the root
	eleventy   bool                         // an Eleventy site: x/x.md is served at x/ (eleventy.go)
	key        string                       // all of it, to tell a change
}

// updatedKey is the front matter key, beside updatedAt and lastmod,
// that the site's generator reads as a document's last update: Zola's
// updated, Hugo's modified (its alias of lastmod); "" for none. It stays
// in data as written.
func (r *urlRules) updatedKey() string {
	switch {
	case r == nil:
		return ""
	case r.zola:
		return "updated"
	case r.hugo:
		return "modified"
	}
	return ""
}

// permalinksFile tells whether p is config/_default/permalinks.* (Hugo's
// split configuration), or a permalinks.* in a folder of it.
func permalinksFile(p string) bool {
	rest, ok := strings.CutPrefix(p, "config/_default/")
	if !ok {
		return false
	}
	dir, base := path.Split(rest)
	ext, ok := strings.CutPrefix(base, "permalinks.")
	return ok && isDataExt("."+strings.ToLower(ext)) && (dir == "" || visibleDir(dir))
}

// readURLRules reads the URL rules of the site's Hugo configuration, if
// any: hugo.* before config.* at the root, then config/_default/.
func readURLRules(sorted []File) *urlRules {
	var files, langs []File
	for _, f := range sorted {
		if f.Doc == nil || (strings.IndexByte(f.Path, '/') >= 0 && !strings.HasPrefix(f.Path, "config/")) {
			continue
		}
		kind, ok := hugoConfigFile(f.Path)
		if (ok && kind == "main") || permalinksFile(f.Path) {
			files = append(files, f)
		}
		if ok && (kind == "main" || strings.HasPrefix(kind, "languages")) {
			langs = append(langs, f)
		}
	}
	r := &urlRules{starlight: starlightDocs(sorted), eleventy: eleventySiteOf(sorted)}
	if len(files) == 0 {
		if r.starlight {
			r.key = "starlight\x00"
		}
		if r.eleventy {
			r.key += "eleventy\x00"
		}
		return r
	}
	rank := func(f File) int {
		switch {
		case strings.HasPrefix(f.Path, "hugo."):
			return 0
		case !strings.Contains(f.Path, "/"):
			return 1
		}
		return 2
	}
	slices.SortStableFunc(files, func(a, b File) int { return cmp.Compare(rank(a), rank(b)) })
	for _, f := range files {
		m := f.Doc.Meta()
		if permalinksFile(f.Path) {
			r.addPermalinks(m)
			continue
		}
		if v, _, ok := lowerKey(m, "permalinks"); ok {
			if pm, ok := v.(map[string]any); ok {
				r.addPermalinks(pm)
			}
		}
		if v, _, ok := lowerKey(m, "disablePathToLower"); ok && v == true {
			r.keepCase = true
		}
		if v, _, ok := lowerKey(m, "defaultContentLanguageInSubdir"); ok && v == true {
			r.inSubdir = true
		}
		if _, ok := m["base_url"]; ok && f.Path == "config.toml" {
			r.zola, r.zolaSlugs = true, true
			if sl, ok := m["slugify"].(map[string]any); ok {
				if v, ok := sl["paths"].(string); ok && v != "on" {
					r.zolaSlugs = false // "safe" or "off": the name as written
				}
			}
		}
	}
	r.hugo = !r.zola
	r.locales = readLocalePermalinks(langs)
	var b strings.Builder
	keys := make([]string, 0, len(r.permalinks))
	for k := range r.permalinks {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString(k + "=" + r.permalinks[k] + "\x00")
	}
	if r.keepCase {
		b.WriteString("keepCase\x00")
	}
	if r.inSubdir {
		b.WriteString("inSubdir\x00")
	}
	if r.zola {
		b.WriteString("zola\x00")
	}
	if r.hugo {
		b.WriteString("hugo\x00")
	}
	if r.zolaSlugs {
		b.WriteString("zolaSlugs\x00")
	}
	if r.starlight {
		b.WriteString("starlight\x00")
	}
	if r.eleventy {
		b.WriteString("eleventy\x00")
	}
	for _, code := range slices.Sorted(maps.Keys(r.locales)) {
		lp := r.locales[code]
		for _, k := range slices.Sorted(maps.Keys(lp)) {
			b.WriteString("locale " + code + ":" + k + "=" + lp[k] + "\x00")
		}
	}
	r.key = b.String()
	return r
}

// starlightDocs tells whether sorted (astroFiles's) has documents of an
// Astro collection docs (src/content/docs/), Starlight's.
func starlightDocs(sorted []File) bool {
	i, _ := slices.BinarySearchFunc(sorted, "content/docs/", func(f File, p string) int { return strings.Compare(f.Path, p) })
	for ; i < len(sorted) && strings.HasPrefix(sorted[i].Path, "content/docs/"); i++ {
		if strings.HasPrefix(sorted[i].Source, "src/content/docs/") {
			return true
		}
	}
	return false
}

// readLocalePermalinks reads the permalinks a Hugo site gives one
// language (languages.<code>.permalinks: miriamlasserre.fr's
// config/_default/languages.yaml puts its publications at /presse/:slug/
// in French, /press/:slug/ in English): of the main config's languages,
// a languages.* file's, or a languages.<code>.* file's own, of files (the
// site's Hugo configuration files); nil when none does.
func readLocalePermalinks(files []File) map[string]map[string]string {
	var out map[string]map[string]string
	add := func(code string, settings any) {
		m, _ := settings.(map[string]any)
		v, _, ok := lowerKey(m, "permalinks")
		pm, isMap := v.(map[string]any)
		if !ok || !isMap {
			return
		}
		r := urlRules{}
		r.addPermalinks(pm)
		if len(r.permalinks) == 0 {
			return
		}
		if out == nil {
			out = map[string]map[string]string{}
		}
		if out[code] == nil {
			out[code] = map[string]string{}
		}
		maps.Copy(out[code], r.permalinks)
	}
	addAll := func(langs any) {
		m, _ := langs.(map[string]any)
		for _, code := range slices.Sorted(maps.Keys(m)) {
			add(code, m[code])
		}
	}
	for _, f := range files {
		kind, ok := hugoConfigFile(f.Path)
		if !ok || f.Doc == nil {
			continue
		}
		m := f.Doc.Meta()
		switch {
		case kind == "main":
			if v, _, ok := lowerKey(m, "languages"); ok {
				addAll(v)
			}
		case kind == "languages":
			if v, _, ok := lowerKey(m, "languages"); ok && len(m) == 1 {
				addAll(v)
			} else {
				addAll(m)
			}
		case strings.HasPrefix(kind, "languages."):
			add(strings.TrimPrefix(kind, "languages."), m)
		}
	}
	return out
}

// forLocale is r for the documents of the locale code: its own
// permalinks (readLocalePermalinks) over the site's.
func (r *urlRules) forLocale(code string) *urlRules {
	lp := r.locales[code]
	if lp == nil {
		lp = r.locales[strings.ToLower(code)]
	}
	if len(lp) == 0 {
		return r
	}
	cp := *r
	cp.permalinks = maps.Clone(r.permalinks)
	if cp.permalinks == nil {
		cp.permalinks = map[string]string{}
	}
	maps.Copy(cp.permalinks, lp)
	cp.locales = nil
	cp.key = r.key + "for locale " + code + "\x00"
	return &cp
}

// addPermalinks reads a permalinks map: section = pattern, or Hugo's
// newer form by kind ({page: {posts: …}}), of which the page kind's.
func (r *urlRules) addPermalinks(m map[string]any) {
	if r.permalinks == nil {
		r.permalinks = map[string]string{}
	}
	if v, _, ok := lowerKey(m, "page"); ok {
		if pm, ok := v.(map[string]any); ok {
			m = pm
		}
	}
	for k, v := range m {
		if s, ok := v.(string); ok && s != "" {
			r.permalinks[k] = s
		}
	}
}

// docInfo is what a document's path is made of.
type docInfo struct {
	typ      string    // "" for a page
	pathSlug string    // the slug the file's path below pages/ or content/<typ>/ gives
	slug     string    // the document's slug
	slugSet  bool      // front matter slug:
	title    string    // its title
	date     time.Time // its date
	dateText string    // the date as written (Hugo takes the date as written, not in UTC)
	url      string    // front matter url:
	zolaPath string    // front matter path: (Zola's)
	zolaPage bool      // a Zola page (not a section, _index): its slug is slugified in its path
}

// docPath is the URL path of a document in the locale whose prefix is
// prefix ("" or "/fr").
func (r *urlRules) docPath(d docInfo, prefix string) string {
	if d.url != "" {
		u := d.url
		if !strings.HasPrefix(u, "/") {
			u = "/" + u
		}
		return u
	}
	if p := strings.Trim(d.zolaPath, "/"); r.zola && p != "" {
		return "/" + p + "/" // as written, as Zola serves it
	}
	var p string
	switch {
	case r.eleventy && !d.slugSet && eleventyFolder(d.pathSlug) != "":
		// Eleventy writes x/x.md at x/, as x/index.md
		p = "/" + d.typ + "/" + eleventyFolder(d.pathSlug) + "/"
		if d.typ == "" {
			p = "/" + eleventyFolder(d.pathSlug) + "/"
		}
	case d.typ == "":
		if d.slug == "index" {
			p = "/"
		} else {
			p = "/" + r.zolaName(d, d.slug) + "/"
		}
	case d.typ == "docs" && r.starlight:
		// Starlight serves its docs collection at the site's root, an
		// entry's slug (its path, or slug: in full) the URL: docs/
		// guides/intro.md is /guides/intro/, index.mdx /
		s := d.pathSlug
		if d.slugSet {
			s = d.slug
		}
		if s = strings.TrimSuffix(s, "/index"); s == "index" || s == "" {
			p = "/"
		} else {
			p = "/" + s + "/"
		}
	default:
		if pat, ok := r.permalinks[d.typ]; ok {
			p = r.expand(pat, d)
		} else {
			i := strings.LastIndexByte(d.pathSlug, '/')
			dir, name := d.pathSlug[:i+1], d.pathSlug[i+1:]
			if d.slugSet {
				name = d.slug // Hugo's slug: replaces the file's name
			}
			p = "/" + d.typ + "/" + dir + r.zolaName(d, name) + "/"
		}
	}
	if !r.keepCase && !r.zola { // Zola lowercases no folder, and its slugs are slugified
		p = strings.ToLower(p)
	}
	return prefix + p
}

// zolaName is the last segment of name (a page's slug, an item's file
// name or slug) as Zola puts it in a page's path: slugified (zolaSlugify)
// on a Zola site whose slugify.paths is "on", as written otherwise and
// for sections (_index files).
func (r *urlRules) zolaName(d docInfo, name string) string {
	if !r.zolaSlugs || !d.zolaPage {
		return name
	}
	i := strings.LastIndexByte(name, '/')
	return name[:i+1] + zolaSlugify(name[i+1:])
}

// expand fills a Hugo permalink pattern in.
func (r *urlRules) expand(pat string, d docInfo) string {
	date := d.date
	if len(d.dateText) >= 10 {
		if t, err := time.Parse("2006-01-02", d.dateText[:10]); err == nil {
			date = t
		}
	}
	fileName := path.Base(d.pathSlug)
	slugOr := func(fallback string) string {
		if d.slugSet {
			return urlize(path.Base(d.slug))
		}
		return fallback
	}
	var b strings.Builder
	for i := 0; i < len(pat); {
		if pat[i] != ':' {
			b.WriteByte(pat[i])
			i++
			continue
		}
		j := i + 1
		for j < len(pat) && (pat[j] >= 'a' && pat[j] <= 'z' || pat[j] >= 'A' && pat[j] <= 'Z') {
			j++
		}
		tok := pat[i+1 : j]
		switch tok {
		case "year":
			b.WriteString(date.Format("2006"))
		case "month":
			b.WriteString(date.Format("01"))
		case "monthname":
			b.WriteString(strings.ToLower(date.Format("January")))
		case "day":
			b.WriteString(date.Format("02"))
		case "weekday":
			b.WriteString(strconv.Itoa(int(date.Weekday())))
		case "weekdayname":
			b.WriteString(strings.ToLower(date.Format("Monday")))
		case "yearday":
			b.WriteString(date.Format("002"))
		case "section":
			b.WriteString(d.typ)
		case "sections":
			dir := path.Dir(d.pathSlug)
			if dir == "." {
				b.WriteString(d.typ)
			} else {
				b.WriteString(d.typ + "/" + dir)
			}
		case "title":
			b.WriteString(urlize(d.title))
		case "slug":
			b.WriteString(slugOr(urlize(d.title)))
		case "filename", "contentbasename":
			b.WriteString(urlize(fileName))
		case "slugorfilename", "slugorcontentbasename":
			b.WriteString(slugOr(urlize(fileName)))
		default:
			b.WriteString(pat[i:j]) // not a token Hugo knows: as written
		}
		i = j
	}
	p := b.String()
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p
}

// urlize is Hugo's urlize of a title or name (its UnicodeSanitize):
// letters, digits, marks and . / \ _ # + ~ - @ kept, a space a '-' unless
// one is just before, other characters dropped; a '-' right after a '-'
// is dropped too, as the URLs of Hugo sites show ("work - libasr" is
// work-libasr).
func urlize(s string) string {
	s = strings.TrimSpace(s)
	var b strings.Builder
	wasHyphen := false
	for _, r := range s {
		switch {
		case r == '-':
			if !wasHyphen {
				b.WriteByte('-')
			}
			wasHyphen = true
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || strings.ContainsRune("./\\_#+~@", r):
			b.WriteRune(r)
			wasHyphen = false
		case unicode.IsSpace(r):
			if !wasHyphen {
				b.WriteByte('-')
			}
			wasHyphen = true
		}
	}
	return b.String()
}
