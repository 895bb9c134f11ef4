package engine

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/media"
)

// MaxExpandDepth bounds how deep references are expanded: those of the
// resource (1) and, with expand=*, those inside the items they bring (2).
const MaxExpandDepth = 2

// MaxExpanded is the default Expand.Max: the references one response may
// expand, in all its items and at both depths. Each costs a decode and
// an encode of what it brings; a public list of 100 items with expand=*
// could otherwise cost a second of CPU and megabytes of body (issue 29).
const MaxExpanded = 1000

// ErrTooManyExpanded is the error of a response that would expand more
// references than its Expand.Max.
var ErrTooManyExpanded = fault.New(fault.Invalid, "expand: the response would expand more than %d references (a response's limit); ask for fewer items (limit=) or expand fewer types", MaxExpanded)

// Expand says which references of a resource ExpandBody replaces by the
// objects they name (content.ParseRef has the forms): the server makes
// one from the `expand` parameter.
type Expand struct {
	All        bool            // "*": media and every type, two levels deep
	Media      bool            // media references
	Types      map[string]bool // references to items of these types
	PublicOnly bool            // the public surface: only public types expand
	// MediaLocales is the fallback chain (media.FallbackChain) of the
	// locale of the request: an expanded media reference carries the alt
	// text of the first of them the item has, else its unlocalized alt.
	// Empty: the unlocalized alt.
	MediaLocales []string
	// Max bounds the references expanded with this Expand, across every
	// ExpandBody call made with it (the items of a list): past it,
	// ExpandBody fails with ErrTooManyExpanded. 0: no limit.
	Max      int
	expanded int
}

func (e *Expand) wantsMedia() bool { return e.All || e.Media }

func (e *Expand) wantsType(v *View, name string) bool {
	if e.PublicOnly && !v.types[name].Config.Public {
		return false
	}
	return e.All || e.Types[name]
}

// MediaLookup finds media items for references: by id ("media:<id>") and
// by storage key (an "/uploads/<key>" path). *media.Library is one.
type MediaLookup interface {
	Get(id string) (*media.Item, bool)
	ByKey(key string) (*media.Item, bool)
}

// MediaRef is what an expanded media reference becomes.
type MediaRef struct {
	ID            string       `json:"id"`
	URL           string       `json:"url"`
	Sizes         []media.Size `json:"sizes"`
	Alt           string       `json:"alt"`
	FocalX        float64      `json:"focalX"`
	FocalY        float64      `json:"focalY"`
	Placeholder   string       `json:"placeholder"`
	DominantColor string       `json:"dominantColor"`
	Width         int          `json:"width"`
	Height        int          `json:"height"`
	MimeType      string       `json:"mimeType"`
}

func mediaRef(it *media.Item, locales []string) *MediaRef {
	it = media.Localized(it, locales)
	sizes := it.Sizes
	if sizes == nil {
		sizes = []media.Size{}
	}
	return &MediaRef{ID: it.ID, URL: it.URL, Sizes: sizes, Alt: it.Alt, FocalX: it.FocalX, FocalY: it.FocalY,
		Placeholder: it.Placeholder, DominantColor: it.DominantColor, Width: it.Width, Height: it.Height, MimeType: it.MimeType}
}

// metaKeys are the top-level fields of pages and items that are never
// references: what the file's own identity and dates are.
var metaKeys = map[string]bool{"id": true, "type": true, "title": true, "slug": true, "isHomepage": true, "publishedAt": true, "updatedAt": true}

// ExpandBody returns body (the JSON of a page or item, or of its `fields`
// projection) with the references e selects replaced by the objects they
// name, read from v and from ml (nil: no media library, media references
// expand to null), and the surrogate keys of what it embeds ("media:<id>",
// the keys of each embedded item, "type:<type>" for a reference to an item
// v does not show). self is the "<type>/<slug>" of the resource ("" for a
// page), so a reference back to it is a cycle and stays as written. The
// result is built per call: media changes show at once.
func (v *View) ExpandBody(body []byte, e *Expand, ml MediaLookup, self string) ([]byte, []string, error) {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, err
	}
	x := &expander{v: v, e: e, ml: ml, keys: map[string]bool{}}
	var chain []string
	if self != "" {
		chain = []string{self}
	}
	x.walkDoc(doc, 1, chain)
	if x.err != nil {
		return nil, nil, x.err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, nil, err
	}
	keys := make([]string, 0, len(x.keys))
	for k := range x.keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return bytes.TrimRight(buf.Bytes(), "\n"), keys, nil
}

type expander struct {
	v    *View
	e    *Expand
	ml   MediaLookup
	keys map[string]bool
	err  error // the first embedded resource that did not encode
}

// walkDoc replaces the references in doc, a page or item (or its fields
// projection), at depth: in its fields but those of metaKeys, and in its
// data but under the keys that name URLs (content.URLKey) the content
// model does not declare references (notRefKey).
func (x *expander) walkDoc(doc map[string]any, depth int, chain []string) {
	for k, val := range doc {
		if metaKeys[k] {
			continue
		}
		if data, ok := val.(map[string]any); ok && k == "data" {
			typ, _ := doc["type"].(string)
			if typ == "" && len(chain) > 0 { // a fields projection without type
				typ, _, _ = strings.Cut(chain[len(chain)-1], "/")
			}
			for dk, dv := range data {
				if !notRefKey(x.v.snap.Model, typ, dk) {
					data[dk] = x.walk(dv, depth, chain)
				}
			}
			continue
		}
		doc[k] = x.walk(val, depth, chain)
	}
}

// walk replaces the references in val at depth (1: the resource's own).
func (x *expander) walk(val any, depth int, chain []string) any {
	switch val := val.(type) {
	case map[string]any:
		if isBodyTree(val) {
			return val // ?body=tree: its URLs stay as written (its images carry their media)
		}
		for k, c := range val {
			val[k] = x.walk(c, depth, chain)
		}
		return val
	case []any:
		for i, c := range val {
			val[i] = x.walk(c, depth, chain)
		}
		return val
	case string:
		return x.ref(val, depth, chain)
	}
	return val
}

func (x *expander) ref(s string, depth int, chain []string) any {
	r, ok := content.RefReader{IsType: x.v.hasType, MediaBases: x.v.snap.mediaBases}.Parse(s)
	if !ok {
		return s
	}
	if r.Kind == content.RefMedia {
		if !x.e.wantsMedia() {
			return s
		}
		var it *media.Item
		if x.ml != nil {
			if r.MediaID != "" {
				it, ok = x.ml.Get(r.MediaID)
			} else {
				it, ok = x.ml.ByKey(r.MediaKey)
			}
		}
		if !ok || it == nil {
			return nil
		}
		if !x.count() {
			return nil
		}
		x.keys["media:"+it.ID] = true
		return mediaRef(it, x.e.MediaLocales)
	}
	if !x.e.wantsType(x.v, r.Type) {
		return s
	}
	target := r.Type + "/" + r.Slug
	if slices.Contains(chain, target) {
		return s // a cycle: stays as written
	}
	t := x.v.types[r.Type]
	ent, ok := t.bySlug.get(r.Slug)
	if !ok {
		x.keys[TypeKey(r.Type)] = true
		return nil // missing, or not visible in this view (a draft)
	}
	if !x.count() {
		return nil
	}
	x.keys[ItemKey(r.Type, ent.item.ID)] = true
	b, _, err := ent.res.Body()
	if err != nil {
		if x.err == nil {
			x.err = err
		}
		return nil
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return nil
	}
	if t.Config.NoListBody {
		// What the type's lists serve: everything but data.body.
		if data, ok := obj["data"].(map[string]any); ok {
			delete(data, "body")
		}
	}
	if x.e.All && depth < MaxExpandDepth {
		x.walkDoc(obj, depth+1, append(slices.Clone(chain), target))
	}
	return obj
}

// isBodyTree tells a body tree's root ({"type": "root", "children": …}).
func isBodyTree(m map[string]any) bool {
	if m["type"] != "root" {
		return false
	}
	for k := range m {
		if k != "type" && k != "children" {
			return false
		}
	}
	return true
}

// count counts one more expanded reference; false (and x.err set) past
// the Expand's Max.
func (x *expander) count() bool {
	if x.err != nil {
		return false
	}
	x.e.expanded++
	if x.e.Max > 0 && x.e.expanded > x.e.Max {
		x.err = ErrTooManyExpanded
		if x.e.Max != MaxExpanded {
			x.err = fault.New(fault.Invalid, "expand: the response would expand more than %d references (a response's limit); ask for fewer items (limit=) or expand fewer types", x.e.Max)
		}
		return false
	}
	return true
}

// CollapseKeys replaces the keys of embedded items ("item:<type>/<id>")
// by their type's key ("type:<type>") and those of media items
// ("media:<id>") by "media": fewer, coarser keys that purge at least what
// the fine ones do (a changed item also names its type's key, a changed
// media item "media"). Sorted, no duplicates. For the keys of ExpandBody
// when they would not fit a response header.
func CollapseKeys(keys []string) []string {
	set := map[string]bool{}
	for _, k := range keys {
		switch {
		case strings.HasPrefix(k, "item:"):
			typ, _, _ := strings.Cut(strings.TrimPrefix(k, "item:"), "/")
			set["type:"+typ] = true
		case strings.HasPrefix(k, "media:"):
			set["media"] = true
		default:
			set[k] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func (v *View) hasType(name string) bool {
	_, ok := v.types[name]
	return ok
}

// Ref is the reference that names the resource ("<type>/<slug>" for an
// item), or "" for any other resource: the start of ExpandBody's cycle
// check.
func (r *Resource) Ref() string {
	if it, ok := docValue(r.value).(*content.Item); ok {
		return it.Type + "/" + it.Slug
	}
	return ""
}
