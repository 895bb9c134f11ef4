package content

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
)

// MaxSlugLen bounds a slug (the whole nested path).
const MaxSlugLen = 200

var typeRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// ValidType tells whether s can name a content type (its folder under content/).
func ValidType(s string) bool { return typeRE.MatchString(s) }

// ValidSlug tells whether s is a slug: segments of [A-Za-z0-9._~-] joined
// by "/", no empty, "." or ".." segment, at most MaxSlugLen bytes.
func ValidSlug(s string) bool {
	if s == "" || len(s) > MaxSlugLen {
		return false
	}
	for _, seg := range strings.Split(s, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '~' || c == '-') {
				return false
			}
		}
	}
	return true
}

// Assemble builds a Site from parsed files and reports a problem for each
// file left out. Two files claiming the same slug (or id) keep the one with
// the lexicographically smallest path; the others are problems.
func Assemble(files []File) (*Site, []Problem) {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	a := &assembler{site: &Site{Items: map[string][]*Item{}}, pageSlugs: map[string]string{}, itemSlugs: map[string]string{}, ids: map[string]string{}}
	for _, f := range files {
		if f.Err != nil {
			a.fileErr(f)
			continue
		}
		if f.Doc == nil {
			continue
		}
		segs := strings.Split(f.Path, "/")
		switch {
		case len(segs) == 1 && strings.HasPrefix(strings.ToLower(f.Path), "folio."):
			a.config(f)
		case len(segs) == 1 && strings.HasPrefix(strings.ToLower(f.Path), "globals."):
			a.globals(f)
		case segs[0] == "pages" && len(segs) >= 2:
			a.page(f, strings.Join(segs[1:], "/"))
		case segs[0] == "content" && len(segs) >= 3:
			a.item(f, segs[1], strings.Join(segs[2:], "/"))
		}
	}
	a.homepage()
	slices.SortFunc(a.site.Pages, func(x, y *Page) int { return strings.Compare(x.Slug, y.Slug) })
	for _, items := range a.site.Items {
		slices.SortFunc(items, func(x, y *Item) int { return strings.Compare(x.Slug, y.Slug) })
	}
	return a.site, a.problems
}

type assembler struct {
	site      *Site
	problems  []Problem
	pageSlugs map[string]string // slug -> path
	itemSlugs map[string]string // type/slug -> path
	ids       map[string]string // kind:id -> path
	homes     []*Page
}

func (a *assembler) problem(p string, line int, format string, args ...any) {
	a.problems = append(a.problems, Problem{Path: p, Line: line, Message: fmt.Sprintf(format, args...)})
}

func (a *assembler) fileErr(f File) {
	if pr, ok := f.Err.(Problem); ok {
		if pr.Path == "" {
			pr.Path = f.Path
		}
		a.problems = append(a.problems, pr)
		return
	}
	a.problem(f.Path, 0, "%v", f.Err)
}

func (a *assembler) config(f File) {
	var cfg Config
	types, _ := f.Doc.Meta["types"].(map[string]any)
	if raw, ok := f.Doc.Meta["types"]; ok && types == nil && raw != nil {
		a.problem(f.Path, 0, "types must be a map of content type to options")
		return
	}
	cfg.Types = map[string]TypeConfig{}
	for name, v := range types {
		if !ValidType(name) {
			a.problem(f.Path, 0, "types.%s: not a valid content type name", name)
			continue
		}
		m, _ := v.(map[string]any)
		var tc TypeConfig
		tc.Public, _ = m["public"].(bool)
		if list, ok := m["sortable"].([]any); ok {
			for _, s := range list {
				field, ok := s.(string)
				if !ok || !sortFieldRE.MatchString(field) {
					a.problem(f.Path, 0, "types.%s.sortable: %v is not a field name", name, s)
					continue
				}
				tc.Sortable = append(tc.Sortable, field)
			}
		}
		if ds, ok := m["defaultSort"].(string); ok && ds != "" {
			field := strings.TrimPrefix(ds, "-")
			if !sortFieldRE.MatchString(field) || !(builtinSort(field) || slices.Contains(tc.Sortable, field)) {
				a.problem(f.Path, 0, "types.%s.defaultSort: %q is not a sortable field", name, ds)
			} else {
				tc.DefaultSort = ds
			}
		}
		cfg.Types[name] = tc
	}
	a.site.Config = cfg
}

var sortFieldRE = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

func builtinSort(f string) bool {
	return f == "publishedAt" || f == "updatedAt" || f == "title" || f == "slug"
}

func (a *assembler) globals(f File) {
	g := &Globals{Extra: map[string]any{}}
	for k, v := range f.Doc.Meta {
		switch k {
		case "siteName":
			g.SiteName = str(v)
		case "logoUrl":
			g.LogoURL = str(v)
		case "nav":
			g.Nav = links(v)
		case "footer":
			m, _ := v.(map[string]any)
			g.Footer.CopyrightText = str(m["copyrightText"])
			g.Footer.Links = links(m["links"])
		case "social":
			for _, e := range list(v) {
				m, _ := e.(map[string]any)
				g.Social = append(g.Social, SocialLink{Platform: str(m["platform"]), URL: str(m["url"])})
			}
		default:
			g.Extra[k] = v
		}
	}
	if g.Nav == nil {
		g.Nav = []NavLink{}
	}
	if g.Social == nil {
		g.Social = []SocialLink{}
	}
	a.site.Globals = g
}

func links(v any) []NavLink {
	var out []NavLink
	for _, e := range list(v) {
		m, _ := e.(map[string]any)
		out = append(out, NavLink{Label: str(m["label"]), URL: str(m["url"])})
	}
	return out
}

func list(v any) []any { l, _ := v.([]any); return l }

func str(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case nil:
		return ""
	case time.Time:
		return s.UTC().Format(time.RFC3339)
	}
	return fmt.Sprint(v)
}

// common is what pages and items share: identity, visibility and times.
type common struct {
	id, slug, title      string
	meta                 Meta
	publishedAt, updated time.Time
	rest                 map[string]any
}

// known front matter keys, with their Hugo and Jekyll aliases.
var knownKeys = map[string]bool{
	"id": true, "slug": true, "title": true, "draft": true, "published": true, "status": true,
	"publishedAt": true, "date": true, "publishDate": true, "updatedAt": true, "lastmod": true,
	"expiresAt": true, "expiryDate": true,
}

// slugOf is the slug of a file: its path below pages/ or the type folder
// without extension; a bundle's index file is its folder.
func slugOf(rel string) string {
	s := strings.TrimSuffix(rel, path.Ext(rel))
	if base := path.Base(s); base == "index" && strings.Contains(s, "/") {
		s = path.Dir(s)
	}
	return s
}

func (a *assembler) common(f File, kind, rel string) (common, bool) {
	m := f.Doc.Meta
	c := common{rest: map[string]any{}}
	c.slug = slugOf(rel)
	if s, ok := m["slug"]; ok {
		c.slug = strings.Trim(str(s), "/")
	}
	if !ValidSlug(c.slug) {
		a.problem(f.Path, 0, "slug %q is not valid: use letters, digits, '.', '_', '~', '-' and '/' between segments, at most %d characters", c.slug, MaxSlugLen)
		return c, false
	}
	c.title = str(m["title"])
	if id, ok := m["id"]; ok && str(id) != "" {
		c.id = str(id)
	} else {
		sum := sha256.Sum256([]byte(kind + "/" + c.slug))
		c.id = hex.EncodeToString(sum[:10])
	}
	if b, ok := m["draft"].(bool); ok && b {
		c.meta.Draft = true
	}
	if b, ok := m["published"].(bool); ok && !b {
		c.meta.Draft = true
	}
	if s, ok := m["status"].(string); ok && strings.EqualFold(s, "draft") {
		c.meta.Draft = true
	}
	var err error
	if c.publishedAt, err = firstTime(m, "publishedAt", "date", "publishDate"); err != nil {
		a.problem(f.Path, 0, "%v", err)
		return c, false
	}
	c.meta.PublishedSet = !c.publishedAt.IsZero()
	if c.updated, err = firstTime(m, "updatedAt", "lastmod"); err != nil {
		a.problem(f.Path, 0, "%v", err)
		return c, false
	}
	if c.meta.ExpiresAt, err = firstTime(m, "expiresAt", "expiryDate"); err != nil {
		a.problem(f.Path, 0, "%v", err)
		return c, false
	}
	if c.updated.IsZero() {
		c.updated = f.Updated.UTC()
	}
	if c.publishedAt.IsZero() {
		c.publishedAt = f.Updated.UTC()
	}
	for k, v := range m {
		if !knownKeys[k] {
			c.rest[k] = v
		}
	}
	c.meta.Path = f.Path
	return c, true
}

// claimID records the id of kind for path, or reports the file that has it.
func (a *assembler) claimID(kind, id, path string) bool {
	key := kind + ":" + id
	if prev, dup := a.ids[key]; dup {
		a.problem(path, 0, "id %q is used by %s already; this file is left out", id, prev)
		return false
	}
	a.ids[key] = path
	return true
}

// timeLayouts are the date formats front matter may use; no zone is UTC.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04", "2006-01-02"}

func firstTime(m map[string]any, keys ...string) (time.Time, error) {
	for _, k := range keys {
		v, ok := m[k]
		if !ok || v == nil {
			continue
		}
		switch t := v.(type) {
		case time.Time:
			return t.UTC(), nil
		case string:
			s := strings.TrimSpace(t)
			for _, layout := range timeLayouts {
				if tt, err := time.Parse(layout, s); err == nil {
					return tt.UTC(), nil
				}
			}
			return time.Time{}, fmt.Errorf("%s: %q is not a date (use 2006-01-02 or RFC 3339)", k, t)
		default:
			return time.Time{}, fmt.Errorf("%s: %v is not a date", k, v)
		}
	}
	return time.Time{}, nil
}

func (a *assembler) page(f File, rel string) {
	c, ok := a.common(f, "page", rel)
	if !ok {
		return
	}
	if prev, dup := a.pageSlugs[c.slug]; dup {
		a.problem(f.Path, 0, "page slug %q is used by %s already; this file is left out", c.slug, prev)
		return
	}
	if !a.claimID("page", c.id, f.Path) {
		return
	}
	p := &Page{ID: c.id, Slug: c.slug, Title: c.title, PublishedAt: c.publishedAt, UpdatedAt: c.updated, Meta: c.meta}
	if h, ok := c.rest["isHomepage"].(bool); ok {
		p.IsHomepage = h
	} else if h, ok := c.rest["homepage"].(bool); ok {
		p.IsHomepage = h
	}
	seo, _ := c.rest["seo"].(map[string]any)
	p.SEO = SEO{Title: str(seo["title"]), Description: str(seo["description"]), OGImage: str(seo["ogImage"])}
	if p.SEO.Title == "" {
		p.SEO.Title = p.Title
	}
	if p.SEO.Description == "" {
		p.SEO.Description = str(c.rest["description"])
	}
	raw, hasSections := c.rest["sections"]
	secs := list(raw)
	if hasSections && raw != nil && secs == nil {
		a.problem(f.Path, 0, "sections must be a list")
		return
	}
	p.Sections = make([]Section, 0, len(secs)+1)
	for i, s := range secs {
		m, ok := s.(map[string]any)
		if !ok {
			a.problem(f.Path, 0, "sections[%d] must be a map with a type", i)
			return
		}
		typ := str(m["type"])
		if typ == "" {
			a.problem(f.Path, 0, "sections[%d] has no type", i)
			return
		}
		sec := Section{ID: str(m["id"]), Type: typ, Order: i}
		if sec.ID == "" {
			sec.ID = fmt.Sprintf("%s-%d", p.ID[:8], i)
		}
		if d, ok := m["data"].(map[string]any); ok {
			sec.Data = d
		} else {
			sec.Data = map[string]any{}
			for k, v := range m {
				if k != "id" && k != "type" {
					sec.Data[k] = v
				}
			}
		}
		p.Sections = append(p.Sections, sec)
	}
	if f.Doc.HasBody && strings.TrimSpace(f.Doc.Body) != "" {
		i := len(p.Sections)
		p.Sections = append(p.Sections, Section{ID: fmt.Sprintf("%s-%d", p.ID[:8], i), Type: "richText", Order: i, Data: map[string]any{"html": f.Doc.Body}})
	}
	a.pageSlugs[c.slug] = f.Path
	a.site.Pages = append(a.site.Pages, p)
	if p.IsHomepage {
		a.homes = append(a.homes, p)
	}
}

// homepage makes exactly one page the homepage: the one front matter marks
// (the first by path when several do), else a page with slug index or home.
func (a *assembler) homepage() {
	if len(a.homes) > 1 {
		for _, p := range a.homes[1:] {
			p.IsHomepage = false
			a.problem(p.Meta.Path, 0, "isHomepage: %s is the homepage already", a.homes[0].Meta.Path)
		}
	}
	if len(a.homes) > 0 {
		return
	}
	for _, want := range []string{"index", "home"} {
		for _, p := range a.site.Pages {
			if p.Slug == want {
				p.IsHomepage = true
				return
			}
		}
	}
}

func (a *assembler) item(f File, typ, rel string) {
	if !ValidType(typ) {
		a.problem(f.Path, 0, "content type folder %q is not valid: use lower-case letters, digits, '_' and '-'", typ)
		return
	}
	c, ok := a.common(f, typ, rel)
	if !ok {
		return
	}
	key := typ + "/" + c.slug
	if prev, dup := a.itemSlugs[key]; dup {
		a.problem(f.Path, 0, "%s slug %q is used by %s already; this file is left out", typ, c.slug, prev)
		return
	}
	if !a.claimID(typ, c.id, f.Path) {
		return
	}
	if f.Doc.HasBody {
		c.rest["body"] = f.Doc.Body
	}
	a.itemSlugs[key] = f.Path
	a.site.Items[typ] = append(a.site.Items[typ], &Item{
		ID: c.id, Type: typ, Title: c.title, Slug: c.slug, Data: c.rest,
		PublishedAt: c.publishedAt, UpdatedAt: c.updated, Meta: c.meta,
	})
}
