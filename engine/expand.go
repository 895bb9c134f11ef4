package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/media"
)

// MaxExpandDepth bounds how deep references are expanded: those of the
// resource (1) and, with expand=*, those inside the items they bring (2).
const MaxExpandDepth = 2

// Expand is a parsed `expand` parameter: which references of a resource
// are replaced by the objects they name (content.ParseRef has the forms).
type Expand struct {
	key        string // canonical: sorted, deduplicated values
	all        bool   // "*": media and every type, two levels deep
	media      bool
	types      map[string]bool
	publicOnly bool // the public surface: only public types expand
}

// Key is the canonical form of e; "" for nil.
func (e *Expand) Key() string {
	if e == nil {
		return ""
	}
	return e.key
}

// ParseExpand reads `expand`: comma-separated values, each "media", "*" or
// a content type of v (a public one when publicOnly). An empty raw is nil:
// references come back as written. An unknown value is an error.
func ParseExpand(raw string, v *View, publicOnly bool) (*Expand, error) {
	if raw == "" {
		return nil, nil
	}
	e := &Expand{types: map[string]bool{}, publicOnly: publicOnly}
	var vals []string
	for p := range strings.SplitSeq(raw, ",") {
		p = strings.TrimSpace(p)
		switch {
		case p == "*":
			e.all = true
		case p == "media":
			e.media = true
		default:
			t, ok := v.types[p]
			if !ok || (publicOnly && !t.Config.Public) {
				return nil, fmt.Errorf("unknown value %q: use media, * or a content type (%s)", p, strings.Join(v.expandable(publicOnly), ", "))
			}
			e.types[p] = true
		}
		if !slices.Contains(vals, p) {
			vals = append(vals, p)
		}
	}
	slices.Sort(vals)
	e.key = strings.Join(vals, ",")
	return e, nil
}

func (v *View) expandable(publicOnly bool) []string {
	var out []string
	for _, n := range v.TypeNames() {
		if !publicOnly || v.types[n].Config.Public {
			out = append(out, n)
		}
	}
	return out
}

func (e *Expand) wantsMedia() bool { return e.all || e.media }

func (e *Expand) wantsType(v *View, name string) bool {
	if e.publicOnly && !v.types[name].Config.Public {
		return false
	}
	return e.all || e.types[name]
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

func mediaRef(it *media.Item) *MediaRef {
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
	for k, val := range doc {
		if !metaKeys[k] {
			doc[k] = x.walk(val, 1, chain)
		}
	}
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

// walk replaces the references in val at depth (1: the resource's own).
func (x *expander) walk(val any, depth int, chain []string) any {
	switch val := val.(type) {
	case map[string]any:
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
	r, ok := content.ParseRef(s, x.v.hasType)
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
		x.keys["media:"+it.ID] = true
		return mediaRef(it)
	}
	if !x.e.wantsType(x.v, r.Type) {
		return s
	}
	target := r.Type + "/" + r.Slug
	if slices.Contains(chain, target) {
		return s // a cycle: stays as written
	}
	t := x.v.types[r.Type]
	ent, ok := t.bySlug[r.Slug]
	if !ok {
		x.keys[TypeKey(r.Type)] = true
		return nil // missing, or not visible in this view (a draft)
	}
	x.keys[ItemKey(r.Type, ent.item.ID)] = true
	res := ent.res
	var err error
	if t.Config.NoListBody {
		res, err = res.Project(WithoutBody)
	}
	var b []byte
	if err == nil {
		b, _, err = res.Body()
	}
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
	if x.e.all && depth < MaxExpandDepth {
		next := append(slices.Clone(chain), target)
		for k, val := range obj {
			if !metaKeys[k] {
				obj[k] = x.walk(val, depth+1, next)
			}
		}
	}
	return obj
}

func (v *View) hasType(name string) bool {
	_, ok := v.types[name]
	return ok
}

// Ref is the reference that names the resource ("<type>/<slug>" for an
// item), or "" for any other resource: the start of ExpandBody's cycle
// check.
func (r *Resource) Ref() string {
	if it, ok := r.value.(*content.Item); ok {
		return it.Type + "/" + it.Slug
	}
	return ""
}
