package engine

import (
	"cmp"
	"encoding/json"
	"hash/maphash"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/schema"
)

// Referrer is a document that refers to a page, an item or a media item:
// GET …/referrers lists them.
type Referrer struct {
	Kind  string `json:"kind"`           // "item", "page" or "globals"
	Type  string `json:"type,omitempty"` // an item's content type
	Slug  string `json:"slug,omitempty"` // an item's or page's slug
	Title string `json:"title"`          // the site name for the globals
	// Field is the first place (dotted path into the document as the API
	// serves it: "data.cover", "sections.2.data.image", "seo.ogImage")
	// that holds the reference; Fields are all of them.
	Field  string   `json:"field"`
	Fields []string `json:"fields"`
}

// Kinds of referrers.
const (
	ReferrerItem    = "item"
	ReferrerPage    = "page"
	ReferrerGlobals = "globals"
)

// The targets of the index: what a reference names.
func itemTarget(typ, slug string) string { return "i:" + typ + "/" + slug }
func pageTarget(slug string) string      { return "p:" + slug }
func mediaIDTarget(id string) string     { return "m:" + id }
func mediaKeyTarget(key string) string   { return "k:" + key }

// refShards is the number of parts the referrer index is cut into: a
// reload that changes a few documents copies the parts their targets are
// in, not an index of every reference of the site.
const refShards = 256

// refIndex is a snapshot's reverse references: for each target (an item,
// a page, a media id or storage key) the documents of the snapshot (drafts
// included) that refer to it, and where. It is built once per snapshot,
// at its load, and is patched from the last one when a reload changed few
// documents. Immutable once built.
type refIndex struct {
	// What the references were read with: an index made with others is
	// not patched.
	types  string
	bases  string
	model  *schema.Model
	shards [refShards]map[string][]referrerEntry
}

// referrerEntry is one reference of a document: the document
// (*content.Item, *content.Page or *content.Globals) and the field.
type referrerEntry struct {
	doc   any
	field string
}

var refSeed = maphash.MakeSeed()

func shardOf(target string) int { return int(maphash.String(refSeed, target) % refShards) }

// refUse is one reference found in a document.
type refUse struct{ target, field string }

// refScanner reads the references of documents.
type refScanner struct {
	rr    content.RefReader
	model *schema.Model
}

// scan returns the references of a document, in field order.
func (sc *refScanner) scan(doc any) []refUse {
	var out []refUse
	// the field's path: room for the usual depth, not grown per document
	// (every item is scanned at a start: garbage among what it keeps)
	path := make([]string, 0, 8)
	add := func(r content.Ref, field string) {
		switch {
		case r.Kind == content.RefItem:
			out = append(out, refUse{itemTarget(r.Type, r.Slug), field})
		case r.MediaID != "":
			out = append(out, refUse{mediaIDTarget(r.MediaID), field})
		default:
			out = append(out, refUse{mediaKeyTarget(r.MediaKey), field})
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if r, ok := sc.rr.Parse(v); ok {
				add(r, strings.Join(path, "."))
			}
		case map[string]any:
			// Any order: Referrers sorts the fields it answers.
			for k, e := range v {
				path = append(path, k)
				walk(e)
				path = path[:len(path)-1]
			}
		case []any:
			for i, e := range v {
				path = append(path, strconv.Itoa(i))
				walk(e)
				path = path[:len(path)-1]
			}
		}
	}
	// bare reads the references a model's reference fields write as a
	// bare slug, or as pages/<slug>, under data (the top-level keys).
	bare := func(t *schema.Type, data map[string]any, prefix string) {
		for f, to := range t.References() {
			vals, isList := data[f].([]any)
			if !isList {
				vals = []any{data[f]}
			}
			for i, e := range vals {
				s, ok := e.(string)
				if !ok || s == "" {
					continue
				}
				field := prefix + f
				if isList {
					field += "." + strconv.Itoa(i)
				}
				if slug, ok := strings.CutPrefix(s, "pages/"); ok && slices.Contains(to, "pages") && content.ValidSlug(slug) {
					out = append(out, refUse{pageTarget(slug), field})
					continue
				}
				if strings.Contains(s, "/") || !content.ValidSlug(s) {
					continue // <type>/<slug>: read by walk
				}
				for _, typ := range to {
					if typ == "pages" {
						out = append(out, refUse{pageTarget(s), field})
					} else {
						out = append(out, refUse{itemTarget(typ, s), field})
					}
				}
			}
		}
	}
	switch d := doc.(type) {
	case *content.Item:
		path = append(path, "data")
		for k, e := range d.Data {
			if k == "body" || notRefKey(sc.model, d.Type, k) {
				continue
			}
			path = append(path, k)
			walk(e)
			path = path[:1]
		}
		if sc.model != nil {
			if t := sc.model.Of(d.Type); t != nil {
				bare(t, d.Data, "data.")
			}
		}
	case *content.Page:
		for i, s := range d.Sections {
			path = append(path[:0], "sections", strconv.Itoa(i), "data")
			walk(s.Data)
		}
		path = append(path[:0], "seo", "ogImage")
		walk(d.SEO.OGImage)
	case *content.Globals:
		// Globals are one document, changed rarely: read as served.
		b, err := json.Marshal(d)
		if err != nil {
			return nil
		}
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			return nil
		}
		maps.Copy(m, d.Extra)
		walk(m)
		if sc.model != nil && sc.model.Globals != nil {
			bare(sc.model.Globals, d.Extra, "")
		}
	}
	return out
}

// newRefScanner reads the references of s's documents; key tells what
// they were read with (an index read otherwise is not patched).
func newRefScanner(s *Snapshot) (sc *refScanner, types, bases string) {
	names := make([]string, 0, len(s.Site.Items)+len(s.Site.Config.Types))
	for t := range s.Site.Items {
		names = append(names, t)
	}
	for t := range s.Site.Config.Types {
		if _, ok := s.Site.Items[t]; !ok {
			names = append(names, t)
		}
	}
	slices.Sort(names)
	sc = &refScanner{model: s.Model, rr: content.RefReader{MediaBases: s.mediaBases, IsType: func(t string) bool {
		_, ok := slices.BinarySearch(names, t)
		return ok
	}}}
	return sc, strings.Join(names, "\x00"), strings.Join(s.mediaBases, "\x00")
}

// patchRefIndex is the referrer index of s made from prev's: prev's with
// the references of the documents a push took away taken out and those
// of the documents it brought put in. nil when prev has no index yet, it
// was read otherwise (other types, media bases or model) or many
// documents changed: then buildRefIndex reads every document.
func patchRefIndex(s, prev *Snapshot) *refIndex {
	if prev == nil {
		return nil
	}
	px := prev.refs.Load()
	if px == nil {
		return nil
	}
	sc, types, bases := newRefScanner(s)
	if px.types != types || px.bases != bases || px.model != s.Model {
		return nil
	}
	gone, added, ok := changedDocs(prev, s)
	if !ok {
		return nil
	}
	x := &refIndex{types: types, bases: bases, model: s.Model, shards: px.shards}
	x.patch(sc, gone, added)
	return x
}

// buildRefIndex makes the referrer index of s from every document.
func buildRefIndex(s *Snapshot) *refIndex {
	sc, types, bases := newRefScanner(s)
	x := &refIndex{types: types, bases: bases, model: s.Model}
	// Not sized for the documents: few may have references (403
	// targets at 10k files, where shards sized for every document held
	// 0.7 MB of empty slots at ready); they grow with what they get.
	for i := range x.shards {
		x.shards[i] = map[string][]referrerEntry{}
	}
	addDoc := func(doc any) {
		for _, r := range sc.scan(doc) {
			sh := x.shards[shardOf(r.target)]
			sh[r.target] = append(sh[r.target], referrerEntry{doc, r.field})
		}
	}
	for _, p := range s.Site.Pages {
		addDoc(p)
	}
	for _, items := range s.Site.Items {
		for _, it := range items {
			addDoc(it)
		}
	}
	if s.Site.Globals != nil {
		addDoc(s.Site.Globals)
	}
	return x
}

// indexRefs gives a freshly loaded snapshot its referrer index: patched
// from prev's at once when it can be (a push of a few documents: well
// under a millisecond at 10k), else read from every document in the
// background (tens of milliseconds at 10k), off the load: the first
// request that needs it waits for it (Snapshot.referrers).
func (s *Snapshot) indexRefs(prev *Snapshot) {
	if x := patchRefIndex(s, prev); x != nil {
		s.refs.Store(x)
		return
	}
	go s.referrers()
}

// patch takes the references of the gone documents out of x (prev's
// shards) and puts those of the added ones in, copying the shards it
// changes.
func (x *refIndex) patch(sc *refScanner, gone, added []any) {
	copied := [refShards]bool{}
	shard := func(target string) map[string][]referrerEntry {
		i := shardOf(target)
		if !copied[i] {
			x.shards[i] = maps.Clone(x.shards[i])
			copied[i] = true
		}
		return x.shards[i]
	}
	for _, doc := range gone {
		for _, r := range sc.scan(doc) {
			sh := shard(r.target)
			es := slices.DeleteFunc(slices.Clone(sh[r.target]), func(e referrerEntry) bool { return e.doc == doc })
			if len(es) == 0 {
				delete(sh, r.target)
			} else {
				sh[r.target] = es
			}
		}
	}
	for _, doc := range added {
		for _, r := range sc.scan(doc) {
			sh := shard(r.target)
			sh[r.target] = append(slices.Clip(sh[r.target]), referrerEntry{doc, r.field})
		}
	}
}

// changedDocs lists the documents of prev that s lacks and those of s
// that prev lacks (by pointer); false when too many changed.
func changedDocs(prev, s *Snapshot) (gone, added []any, ok bool) {
	diffs, ok := diffSiteItems(prev, s.Site)
	if !ok {
		return nil, nil, false
	}
	for _, d := range diffs {
		for _, it := range d.gone {
			gone = append(gone, it)
		}
		for _, it := range d.added {
			added = append(added, it)
		}
	}
	if len(prev.Site.Pages) != len(s.Site.Pages) || (len(s.Site.Pages) > 0 && &prev.Site.Pages[0] != &s.Site.Pages[0]) {
		for _, p := range prev.Site.Pages {
			if _, kept := s.pageRes[p]; !kept {
				gone = append(gone, p)
			}
		}
		for _, p := range s.Site.Pages {
			if _, was := prev.pageRes[p]; !was {
				added = append(added, p)
			}
		}
	}
	if prev.Site.Globals != s.Site.Globals {
		if prev.Site.Globals != nil {
			gone = append(gone, prev.Site.Globals)
		}
		if s.Site.Globals != nil {
			added = append(added, s.Site.Globals)
		}
	}
	if len(gone)+len(added) > 2*maxPatchedItems {
		return nil, nil, false
	}
	return gone, added, true
}

// referrers is the snapshot's index, built on first use when it was not
// patched from the last snapshot's at the load (indexRefs).
func (s *Snapshot) referrers() *refIndex {
	s.refsOnce.Do(func() {
		if s.refs.Load() == nil {
			s.refs.Store(buildRefIndex(s))
		}
	})
	return s.refs.Load()
}

// refsState is what a snapshot keeps of its referrer index.
type refsState struct {
	refsOnce sync.Once
	refs     atomic.Pointer[refIndex]
	// mediaBases are the media library's absolute URL bases
	// (Config.MediaBases), for references written as absolute URLs.
	mediaBases []string
}

// ReferrersQuery says whose referrers to list.
type ReferrersQuery struct {
	Type, Slug string // an item (Type set) or a page (Type "")
	// MediaID and MediaKeys name a media item: its id and storage keys
	// (original and derivatives).
	MediaID   string
	MediaKeys []string
}

// Referrers lists the documents the view shows that refer to the
// target: each document once, with the fields that hold the reference;
// pages first (by slug), then items (by type and slug), then the globals.
func (v *View) Referrers(q ReferrersQuery) []Referrer {
	var targets []string
	switch {
	case q.MediaID != "":
		targets = append(targets, mediaIDTarget(q.MediaID))
		for _, k := range q.MediaKeys {
			targets = append(targets, mediaKeyTarget(k))
		}
	case q.Type != "":
		targets = append(targets, itemTarget(q.Type, q.Slug))
	default:
		targets = append(targets, pageTarget(q.Slug))
	}
	return v.referrersOf(v.snap.referrers(), targets)
}

// referrersOf is Referrers of the targets in index x.
func (v *View) referrersOf(x *refIndex, targets []string) []Referrer {
	byDoc := map[any]*Referrer{}
	var out []*Referrer
	for _, t := range targets {
		for _, e := range x.shards[shardOf(t)][t] {
			if r := byDoc[e.doc]; r != nil {
				if !slices.Contains(r.Fields, e.field) {
					r.Fields = append(r.Fields, e.field)
				}
				continue
			}
			r := v.referrer(e.doc)
			if r == nil {
				continue // not shown by this view (a draft, another version)
			}
			r.Fields = []string{e.field}
			byDoc[e.doc] = r
			out = append(out, r)
		}
	}
	rank := map[string]int{ReferrerPage: 0, ReferrerItem: 1, ReferrerGlobals: 2}
	slices.SortFunc(out, func(a, b *Referrer) int {
		return cmp.Or(cmp.Compare(rank[a.Kind], rank[b.Kind]), strings.Compare(a.Type, b.Type), strings.Compare(a.Slug, b.Slug))
	})
	res := make([]Referrer, len(out))
	for i, r := range out {
		slices.SortFunc(r.Fields, compareFieldPaths)
		r.Field = r.Fields[0]
		res[i] = *r
	}
	return res
}

// compareFieldPaths orders dotted paths segment by segment, list
// indexes by number.
func compareFieldPaths(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range min(len(as), len(bs)) {
		ai, aerr := strconv.Atoi(as[i])
		bi, berr := strconv.Atoi(bs[i])
		c := strings.Compare(as[i], bs[i])
		if aerr == nil && berr == nil {
			c = cmp.Compare(ai, bi)
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}

// referrer describes doc when the view shows that very document; nil
// when it does not.
func (v *View) referrer(doc any) *Referrer {
	switch d := doc.(type) {
	case *content.Item:
		t := v.types[d.Type]
		if t == nil {
			return nil
		}
		if e, _ := t.bySlug.get(d.Slug); e == nil || e.item != d {
			return nil
		}
		return &Referrer{Kind: ReferrerItem, Type: d.Type, Slug: d.Slug, Title: d.Title}
	case *content.Page:
		e := v.pageBySlug[d.Slug]
		if e == nil || docValue(e.full.value) != any(d) {
			return nil
		}
		return &Referrer{Kind: ReferrerPage, Slug: d.Slug, Title: d.Title}
	case *content.Globals:
		if v.globals == nil || v.globals.value != any(d) {
			return nil
		}
		return &Referrer{Kind: ReferrerGlobals, Title: d.SiteName}
	}
	return nil
}

// MediaReference is a media item (by id or by storage key) the documents
// of a view refer to, and those documents.
type MediaReference struct {
	ID        string     `json:"id,omitempty"`  // media:<id>
	Key       string     `json:"key,omitempty"` // /uploads/<key> (or an absolute URL of it)
	Referrers []Referrer `json:"referrers"`
}

// MediaReferences lists the media items the view's documents refer to
// that want keeps (it is given the id, or the storage key, alone), by key
// then by id, with the documents (as Referrers lists them): GET
// /api/v1/status lists those the library lacks. A document the view does
// not show does not count.
func (v *View) MediaReferences(want func(id, key string) bool) []MediaReference {
	x := v.snap.referrers()
	var out []MediaReference
	for _, sh := range x.shards {
		for t := range sh {
			var mr MediaReference
			switch kind, rest := t[:2], t[2:]; kind {
			case "m:":
				mr.ID = rest
			case "k:":
				mr.Key = rest
			default:
				continue
			}
			if !want(mr.ID, mr.Key) {
				continue
			}
			if mr.Referrers = v.referrersOf(x, []string{t}); len(mr.Referrers) > 0 {
				out = append(out, mr)
			}
		}
	}
	slices.SortFunc(out, func(a, b MediaReference) int {
		return cmp.Or(strings.Compare(a.Key, b.Key), strings.Compare(a.ID, b.ID))
	})
	return out
}
