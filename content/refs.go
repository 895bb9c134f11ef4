package content

import (
	"fmt"
	"slices"
	"strings"
)

// RefKind tells what a reference names.
type RefKind int

const (
	RefMedia RefKind = iota + 1 // a media item
	RefItem                     // an item of a content type
)

// Ref is a reference written in a front matter or data field: a string
// that names a media item ("media:<id>", or the item's "/uploads/<key>"
// path) or another item ("<type>/<slug>", when <type> is a content type of
// the site). The API replaces it by the object on ?expand=.
type Ref struct {
	Kind     RefKind
	MediaID  string // "media:<id>"
	MediaKey string // "/uploads/<key>": the storage key
	Type     string
	Slug     string
}

// ParseRef reads a reference; false when s is none. isType tells the
// content types of the site.
func ParseRef(s string, isType func(string) bool) (Ref, bool) {
	if len(s) > 400 {
		return Ref{}, false
	}
	if id, ok := strings.CutPrefix(s, "media:"); ok {
		if id == "" || strings.Trim(id, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
			return Ref{}, false
		}
		return Ref{Kind: RefMedia, MediaID: id}, true
	}
	if key, ok := strings.CutPrefix(s, "/uploads/"); ok {
		if key == "" || strings.Contains(key, "..") || strings.ContainsAny(key, " ?#\\") {
			return Ref{}, false
		}
		return Ref{Kind: RefMedia, MediaKey: key}, true
	}
	typ, slug, ok := strings.Cut(s, "/")
	if !ok || !ValidType(typ) || !ValidSlug(slug) || !isType(typ) {
		return Ref{}, false
	}
	return Ref{Kind: RefItem, Type: typ, Slug: slug}, true
}

// ReferenceProblems lists the references of published (non-draft) pages
// and items to items that are drafts or do not exist: a published view
// serves them as null when expanded. The line is that of the top-level
// key holding the reference, when the file's format tells it. files are
// the files site was assembled from. Media references are checked only
// when mediaExists is given (content knows nothing of media): one it
// reports false for is a reference to a missing media item.
func ReferenceProblems(site *Site, files []File, mediaExists func(Ref) bool) []Problem {
	lines := make(map[string]map[string]int, len(files))
	for _, f := range files {
		if f.Doc != nil {
			lines[f.Path] = f.Doc.Lines
		}
	}
	isType := func(t string) bool {
		if _, ok := site.Items[t]; ok {
			return true
		}
		_, ok := site.Config.Types[t]
		return ok
	}
	bySlug := map[string]*Item{}
	for _, items := range site.Items {
		for _, it := range items {
			bySlug[it.Type+"/"+it.Slug] = it
		}
	}
	var out []Problem
	check := func(path, key string, v any) {
		walkStrings(v, func(s string) {
			r, ok := ParseRef(s, isType)
			if !ok {
				return
			}
			if r.Kind == RefMedia {
				if mediaExists != nil && !mediaExists(r) {
					out = append(out, Problem{Path: path, Line: lines[path][key],
						Message: fmt.Sprintf("reference to a missing media item %s (null when expanded)", s)})
				}
				return
			}
			what := ""
			switch it, ok := bySlug[r.Type+"/"+r.Slug]; {
			case !ok:
				what = "missing"
			case it.Meta.Draft:
				what = "draft"
			default:
				return
			}
			out = append(out, Problem{Path: path, Line: lines[path][key],
				Message: fmt.Sprintf("reference to a %s item %s (null when expanded)", what, s)})
		})
	}
	for _, p := range site.Pages {
		if p.Meta.Draft {
			continue
		}
		for _, s := range p.Sections {
			check(p.Meta.Path, "sections", s.Data)
		}
		check(p.Meta.Path, "seo", p.SEO.OGImage)
	}
	for _, items := range site.Items {
		for _, it := range items {
			if it.Meta.Draft {
				continue
			}
			keys := make([]string, 0, len(it.Data))
			for k := range it.Data {
				if k != "body" {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				check(it.Meta.Path, k, it.Data[k])
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Problem) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.Message, b.Message)
	})
	return out
}

// walkStrings calls fn for every string in v (maps, lists, strings).
func walkStrings(v any, fn func(string)) {
	switch v := v.(type) {
	case string:
		fn(v)
	case map[string]any:
		for _, c := range v {
			walkStrings(c, fn)
		}
	case []any:
		for _, c := range v {
			walkStrings(c, fn)
		}
	}
}
