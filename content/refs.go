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
	return new(RefChecker).Problems(site, files, mediaExists)
}

// RefChecker is ReferenceProblems for the successive sites of one branch:
// it keeps the references it found in each page and item (by pointer:
// an Assembler keeps the pointers of the documents a commit did not
// change) and looks for them only in the new ones, so that a one-file
// push on a site of 100k files does not read every string of every
// document again. The references are checked afresh each time (the
// items they name may have changed). Not safe for concurrent use.
type RefChecker struct {
	types string // the content types the references were parsed for
	gen   uint64
	docs  map[any]*docRefs
}

type docRefs struct {
	gen  uint64
	refs []foundRef
}

// foundRef is a reference and where it is: the top-level key, and the
// string as written.
type foundRef struct {
	key, s string
	ref    Ref
}

// Problems is ReferenceProblems(site, files, mediaExists).
func (c *RefChecker) Problems(site *Site, files []File, mediaExists func(Ref) bool) []Problem {
	typeNames := make([]string, 0, len(site.Items)+len(site.Config.Types))
	for t := range site.Items {
		typeNames = append(typeNames, t)
	}
	for t := range site.Config.Types {
		if _, ok := site.Items[t]; !ok {
			typeNames = append(typeNames, t)
		}
	}
	slices.Sort(typeNames)
	types := strings.Join(typeNames, "\x00")
	if c.docs == nil || types != c.types {
		// Whether a string is a reference depends on the types.
		c.types, c.docs = types, map[any]*docRefs{}
	}
	isType := func(t string) bool {
		_, ok := slices.BinarySearch(typeNames, t)
		return ok
	}
	c.gen++
	refsOf := func(doc any, scan func(add func(key string, v any))) []foundRef {
		if e := c.docs[doc]; e != nil {
			e.gen = c.gen
			return e.refs
		}
		var refs []foundRef
		scan(func(key string, v any) {
			walkStrings(v, func(s string) {
				if r, ok := ParseRef(s, isType); ok {
					refs = append(refs, foundRef{key: key, s: s, ref: r})
				}
			})
		})
		c.docs[doc] = &docRefs{gen: c.gen, refs: refs}
		return refs
	}

	var lines map[string]map[string]int // made when a problem needs them
	var out []Problem
	problem := func(path string, f foundRef, msg string) {
		if lines == nil {
			lines = make(map[string]map[string]int, len(files))
			for _, f := range files {
				if f.Doc != nil {
					lines[f.Path] = f.Doc.Lines
				}
			}
		}
		out = append(out, Problem{Path: path, Line: lines[path][f.key], Message: msg})
	}
	check := func(path string, refs []foundRef) {
		for _, f := range refs {
			r := f.ref
			if r.Kind == RefMedia {
				if mediaExists != nil && !mediaExists(r) {
					problem(path, f, fmt.Sprintf("reference to a missing media item %s (null when expanded)", f.s))
				}
				continue
			}
			items := site.Items[r.Type] // sorted by slug, slugs unique
			i, found := slices.BinarySearchFunc(items, r.Slug, func(it *Item, slug string) int { return strings.Compare(it.Slug, slug) })
			switch {
			case !found:
				problem(path, f, fmt.Sprintf("reference to a missing item %s (null when expanded)", f.s))
			case items[i].Meta.Draft:
				problem(path, f, fmt.Sprintf("reference to a draft item %s (null when expanded)", f.s))
			}
		}
	}
	for _, p := range site.Pages {
		if p.Meta.Draft {
			continue
		}
		check(p.Meta.Path, refsOf(p, func(add func(string, any)) {
			for _, s := range p.Sections {
				add("sections", s.Data)
			}
			add("seo", p.SEO.OGImage)
		}))
	}
	for _, items := range site.Items {
		for _, it := range items {
			if it.Meta.Draft {
				continue
			}
			check(it.Meta.Path, refsOf(it, func(add func(string, any)) {
				keys := make([]string, 0, len(it.Data))
				for k := range it.Data {
					if k != "body" {
						keys = append(keys, k)
					}
				}
				slices.Sort(keys)
				for _, k := range keys {
					add(k, it.Data[k])
				}
			}))
		}
	}
	for d, e := range c.docs {
		if e.gen != c.gen {
			delete(c.docs, d) // not in this site, or a draft now
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
