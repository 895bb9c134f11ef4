package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/folio-cms/folio/content"
)

// farFuture stands for "never" as a view's end of validity.
var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// View is what one kind of reader (published or draft) sees of a snapshot
// during an interval of time. It is immutable; its resources encode their
// JSON on first use, once.
type View struct {
	// ID names the view's content: the commit and the instant from which
	// the visible set is what it is. List ETags derive from it.
	ID string

	validFrom, validUntil time.Time
	pages                 []*pageEntry // homepage first, then by slug
	pageBySlug            map[string]*pageEntry
	types                 map[string]*TypeList
	globals               *Resource

	// snap is the snapshot the view shows (its content model:
	// filter.go; a site with locales: the default locale's, or a
	// locale's), draft whether it is the draft view, locale its locale
	// ("" for a site without locales).
	snap        *Snapshot
	draft       bool
	locale      string
	pageKeys    keyHeaders
	pageIndexes sync.Map // filter index key -> *lazyIndex (filter.go)
	// byPath finds a page or item by its path on the site (Resolve),
	// made on first use.
	byPath lazyPaths
}

type pageEntry struct {
	full    *Resource
	summary *Resource
}

// Resource is one JSON body with its ETag and surrogate keys, encoded once
// on first use. A snapshot holds one for every page and item (two for a
// page), most never requested: what the encoding keeps is made with it
// (encoded), so a resource not yet encoded is 48 bytes, not 128.
type Resource struct {
	value any
	// mu serialises the encoding; enc is set once it succeeded. A
	// failed encoding keeps nothing, so the next request tries again.
	mu  sync.Mutex
	enc atomic.Pointer[encoded]
	// kept is the HTTP layer's (see Kept).
	kept atomic.Pointer[any]
}

// encoded is what a resource's encoding made.
type encoded struct {
	body []byte
	etag string
	keys keyHeaders
}

func newResource(v any) *Resource { return &Resource{value: v} }

// NewResource is a resource of v (a page, item, globals or any value
// encoding/json takes) that is not in a snapshot: for tests of the
// layers above.
func NewResource(v any) *Resource { return newResource(v) }

// Kept is where the HTTP layer keeps what it derives from the resource
// (compressed forms, field projections, header values), made on first
// use and shared by every reader for as long as the resource lives: a
// resource a reload did not change keeps them. The engine never reads
// it; nil until the first use.
func (r *Resource) Kept() *atomic.Pointer[any] { return &r.kept }

// WithBody is a resource of r's value and surrogate keys whose encoding
// is body with ETag etag (a projection of r's JSON, say).
func (r *Resource) WithBody(body []byte, etag string) (*Resource, error) {
	if _, err := r.encode(); err != nil {
		return nil, err
	}
	p := &Resource{value: r.value}
	p.enc.Store(&encoded{body: body, etag: etag, keys: r.enc.Load().keys})
	return p, nil
}

// Keys returns the values of the Surrogate-Key header (keys separated by
// spaces) and of the Cache-Tag header (by commas) that name the resource
// (see ChangedKeys for the scheme), as one-element slices to put in a
// header map as they are; nil for a page summary, and for a resource that
// does not encode (see Body). The slices are shared: never modify them.
func (r *Resource) Keys() (surrogateKey, cacheTag []string) {
	e, err := r.encode()
	if err != nil {
		return nil, nil
	}
	return e.keys.surrogate, e.keys.tag
}

// Body returns the JSON encoding and its strong ETag (quoted), made on
// first use and kept. A resource that cannot be encoded (a lazy Markdown
// body whose blob is gone from the repository, a render that panicked)
// returns the error, naming the file, and keeps nothing: the next call
// tries again.
func (r *Resource) Body() ([]byte, string, error) {
	e, err := r.encode()
	if err != nil {
		return nil, "", err
	}
	return e.body, e.etag, nil
}

// encode is the resource's encoding, made on the first call that
// succeeds.
func (r *Resource) encode() (*encoded, error) {
	if e := r.enc.Load(); e != nil {
		return e, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.enc.Load(); e != nil {
		return e, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r.value); err != nil {
		if p := r.path(); p != "" {
			return nil, fmt.Errorf("encoding %s: %w", p, err)
		}
		return nil, fmt.Errorf("encoding a resource: %w", err)
	}
	e := &encoded{keys: resourceKeys(r.value), body: bytes.TrimRight(buf.Bytes(), "\n")}
	e.etag = ETag(e.body)
	if b := r.blob(); b != "" {
		// Tied to the file's blob, for the write API's If-Match.
		e.etag = `"` + b + "." + e.etag[1:]
	}
	r.enc.Store(e)
	return e, nil
}

// path is the repository path of the file the resource was made from, for
// errors; "" when it has none.
func (r *Resource) path() string {
	switch v := docValue(r.value).(type) {
	case *content.Item:
		return v.Meta.Path
	case *content.Page:
		return v.Meta.Path
	}
	return ""
}

// BlobTagLen is how many hex digits of a document's blob hash its ETag
// starts with: `"<blob prefix>.<hash of the JSON>"`.
const BlobTagLen = 16

// blob is the blob prefix of a page's or item's ETag; "" for other
// values.
func (r *Resource) blob() string {
	var b string
	switch v := docValue(r.value).(type) {
	case *content.Item:
		b = v.Meta.Blob
	case *content.Page:
		b = v.Meta.Blob
	case *content.Globals:
		b = v.Blob
	}
	if len(b) > BlobTagLen {
		b = b[:BlobTagLen]
	}
	return b
}

// ETag is the strong ETag (quoted) of the bytes b: of a resource's JSON,
// of a list's identity, of any response body.
func ETag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
}

// ListETag is the ETag of a list response of this view: the view's identity
// and the canonical parameters that shaped the list.
func (v *View) ListETag(parts ...string) string {
	return ETag([]byte(v.ID + "\x00" + strings.Join(parts, "\x00")))
}

func (v *View) covers(now time.Time) bool {
	return !now.Before(v.validFrom) && now.Before(v.validUntil)
}

// Globals returns the site settings; false when the site has none.
func (v *View) Globals() (*Resource, bool) { return v.globals, v.globals != nil }

// Pages returns the page summaries in list order.
func (v *View) Pages() []*Resource {
	out := make([]*Resource, len(v.pages))
	for i, p := range v.pages {
		out[i] = p.summary
	}
	return out
}

// PagesWindow returns the page summaries [from, to) of the list order
// (from and to within PageCount): what a list request serves, without
// copying every summary of the site.
func (v *View) PagesWindow(from, to int) []*Resource {
	out := make([]*Resource, to-from)
	for i, p := range v.pages[from:to] {
		out[i] = p.summary
	}
	return out
}

// PageCount is the number of pages of the view.
func (v *View) PageCount() int { return len(v.pages) }

// Page returns one page by slug.
func (v *View) Page(slug string) (*Resource, bool) {
	p, ok := v.pageBySlug[slug]
	if !ok {
		return nil, false
	}
	return p.full, true
}

// Type returns the items of a content type; false for an unknown type.
// A type with no visible items still exists when it has any file or is
// declared in folio.yaml.
func (v *View) Type(name string) (*TypeList, bool) {
	t, ok := v.types[name]
	return t, ok
}

// TypeNames are the names of the view's content types, sorted.
func (v *View) TypeNames() []string { return slices.Sorted(maps.Keys(v.types)) }

// TypeList is the visible items of one content type.
type TypeList struct {
	Name   string
	Config content.TypeConfig
	keys   keyHeaders
	items  []*itemEntry // by slug
	bySlug *layerMap[string, *itemEntry]
	sorted sync.Map // canonical sort -> *lazySorted
	// indexes are the filter indexes (filter.go), by field and kind.
	indexes sync.Map
	// matches are the matches of recent filtered queries (filter_cache.go).
	matches matchCache
	// prev, for a list a reload patched (patchView), is what it may
	// take over of its predecessor's sorts and indexes; nil otherwise.
	prev *listPrev
}

type itemEntry struct {
	item *content.Item
	res  *Resource
}

// Item returns one item by slug.
func (t *TypeList) Item(slug string) (*Resource, bool) {
	e, ok := t.bySlug.get(slug)
	if !ok {
		return nil, false
	}
	return e.res, true
}

// Keys returns the Surrogate-Key and Cache-Tag header values of the
// type's list ("type:<type>"); shared, never modify them.
func (t *TypeList) Keys() (surrogateKey, cacheTag []string) {
	return t.keys.surrogate, t.keys.tag
}

// Len is the number of visible items.
func (t *TypeList) Len() int { return len(t.items) }

// Sorted returns the items in the order of sort ("field" or "-field"; ""
// for the type's default): see content.ParseSort for the fields allowed and
// content.CompareItems for the order. A sort not allowed is ErrBadSort. It
// also returns the canonical sort, for ETags. Each order is computed once
// per list: sorted afresh, or, for a list a reload patched, patched from
// the predecessor's order (listPrev).
func (t *TypeList) Sorted(sort string) ([]*Resource, string, error) {
	sl, canonical, err := t.sortedList(sort)
	if err != nil {
		return nil, "", err
	}
	return sl.res, canonical, nil
}

func (t *TypeList) sortedList(sort string) (*sortedList, string, error) {
	field, desc, err := content.ParseSort(sortField(sort), t.Config)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrBadSort, err)
	}
	canonical := field
	if desc {
		canonical = "-" + field
	}
	v, _ := t.sorted.LoadOrStore(canonical, &lazySorted{})
	ls := v.(*lazySorted)
	// Built once however many requests ask at once: at 1M files a sort
	// of a type's items takes a second, and 64 first requests each
	// making their own took the box down for a minute.
	ls.once.Do(func() { ls.sl.Store(t.buildSorted(canonical, field, desc)) })
	return ls.sl.Load(), canonical, nil
}

// lazySorted is one sort of a list, made on its first request.
type lazySorted struct {
	once sync.Once
	sl   atomic.Pointer[sortedList]
}

// buildSorted sorts the list's items by field: patched from the
// predecessor's same sort when there is one, else afresh.
func (t *TypeList) buildSorted(canonical, field string, desc bool) *sortedList {
	if t.prev != nil {
		if old := t.prev.sorted[canonical]; old != nil {
			return t.patchSorted(old, field, desc)
		}
	}
	perm := make([]int32, len(t.items))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int {
		return content.CompareItems(t.items[a].item, t.items[b].item, field, desc)
	})
	out := make([]*Resource, len(perm))
	for i, p := range perm {
		out[i] = t.items[p].res
	}
	return &sortedList{res: out, perm: perm}
}

// pageSummary is one item of the page list (docs/api.md, pages).
type pageSummary struct {
	ID          string    `json:"id"`
	Slug        string    `json:"slug"`
	Title       string    `json:"title"`
	IsHomepage  bool      `json:"isHomepage"`
	PublishedAt time.Time `json:"publishedAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	content.Addressed
	content.Localized
}

// buildView filters the snapshot for a reader at instant now. A draft view
// holds everything; a published view holds what is visible at now and is
// valid until the next publish or expiry instant.
func buildView(s *Snapshot, draft bool, now time.Time) *View {
	site := s.Site
	v := &View{
		snap:       s,
		validFrom:  time.Time{},
		validUntil: farFuture,
		pageBySlug: make(map[string]*pageEntry, len(site.Pages)),
		types:      make(map[string]*TypeList, len(site.Items)),
		draft:      draft,
		locale:     site.Locale,
		pageKeys:   newKeyHeaders(localeKey(KeyPages, site.Locale)),
	}
	// A draft view shows every document, and is rebuilt at the same
	// instants as the published one: the documents' status changes then.
	visible := func(m content.Meta, publishedAt time.Time) bool {
		v.noteBoundary(now, publishedAt)
		if !m.ExpiresAt.IsZero() {
			v.noteBoundary(now, m.ExpiresAt)
		}
		return draft || m.Visible(publishedAt, now)
	}
	v.addPages(s, func(p *content.Page) bool { return visible(p.Meta, p.PublishedAt) })
	// Each type's list on its own, the types on both cores when there
	// are many items; each notes its documents' instants in a bounds of
	// its own, merged after (the earliest end, the latest start: the same
	// whatever the order).
	names, total := typesBySize(site.Items)
	lists := make([]*TypeList, len(names))
	bounds := make([]validity, len(names))
	eachType(names, total, func(i int) {
		name := names[i]
		items := site.Items[name]
		b := &bounds[i]
		b.until = farFuture
		t := &TypeList{Name: name, Config: site.Config.Types[name], keys: newKeyHeaders(localeKey(TypeKey(name), site.Locale))}
		bySlug := make(map[string]*itemEntry, len(items))
		for _, it := range items {
			b.note(now, it.PublishedAt)
			if !it.Meta.ExpiresAt.IsZero() {
				b.note(now, it.Meta.ExpiresAt)
			}
			if !draft && !it.Meta.Visible(it.PublishedAt, now) {
				continue
			}
			e := &itemEntry{item: it, res: s.itemResource(name, it)}
			t.items = append(t.items, e)
			bySlug[it.Slug] = e
		}
		t.bySlug = newLayerMap(bySlug)
		lists[i] = t
	})
	for i, name := range names {
		v.types[name] = lists[i]
		v.merge(bounds[i])
	}
	for name, cfg := range site.Config.Types {
		if _, ok := v.types[name]; !ok {
			v.types[name] = &TypeList{Name: name, Config: cfg, keys: newKeyHeaders(localeKey(TypeKey(name), site.Locale)), bySlug: newLayerMap(map[string]*itemEntry{})}
		}
	}
	if site.Globals != nil {
		v.globals = newResource(site.Globals)
	}
	if draft {
		v.withStatus(now)
	}
	v.setID(s, draft)
	return v
}

// addPages puts the pages that visible keeps into the view, homepage
// first, then by slug.
func (v *View) addPages(s *Snapshot, visible func(*content.Page) bool) {
	for _, p := range s.Site.Pages {
		if !visible(p) {
			continue
		}
		e := s.pageRes[p]
		v.pages = append(v.pages, e)
		v.pageBySlug[p.Slug] = e
	}
	// Site.Pages is sorted by slug; the homepage moves to the front.
	slices.SortStableFunc(v.pages, func(a, b *pageEntry) int {
		ha := a.summary.value.(pageSummary).IsHomepage
		hb := b.summary.value.(pageSummary).IsHomepage
		switch {
		case ha == hb:
			return 0
		case ha:
			return -1
		}
		return 1
	})
}

func (v *View) setID(s *Snapshot, draft bool) {
	kind := "p"
	if draft {
		kind = "d"
	}
	v.ID = s.Branch + "@" + s.Commit + ":" + kind + strconv.FormatInt(v.validFrom.UnixNano(), 36)
	if s.Site.Locale != "" {
		v.ID += ":" + s.Site.Locale
	}
}

// patchView is buildView(s, false, now) made from prev's published view
// when that is valid at now and the folio config is the same: the types
// diffs does not name keep prev's lists, the others are prev's with the
// gone items taken out and the added ones put in. The view is valid from
// the last publish or expiry instant of any document up to now, until the
// next one: prev's interval, narrowed by the added documents. nil when a
// gone document had an instant that bounds prev's interval (the interval
// may widen: it is built afresh then).
func patchView(s *Snapshot, prev *Snapshot, diffs map[string]itemDiff, now time.Time) *View {
	pv := prev.published.Load()
	site := s.Site
	if pv == nil || !pv.covers(now) || !reflect.DeepEqual(prev.Site.Config, site.Config) {
		return nil
	}
	v := &View{
		snap:       s,
		validFrom:  pv.validFrom,
		validUntil: pv.validUntil,
		pageBySlug: make(map[string]*pageEntry, len(pv.pageBySlug)+1),
		types:      make(map[string]*TypeList, len(pv.types)),
		locale:     pv.locale,
		pageKeys:   pv.pageKeys,
	}
	bounds := func(m content.Meta, publishedAt time.Time) bool {
		at := func(t time.Time) bool { return t.Equal(pv.validFrom) || t.Equal(pv.validUntil) }
		return at(publishedAt) || (!m.ExpiresAt.IsZero() && at(m.ExpiresAt))
	}
	added := func(m content.Meta, publishedAt time.Time) bool {
		v.noteBoundary(now, publishedAt)
		if !m.ExpiresAt.IsZero() {
			v.noteBoundary(now, m.ExpiresAt)
		}
		return m.Visible(publishedAt, now)
	}
	pagesKept := samePages(prev.Site.Pages, site.Pages)
	for _, p := range prev.Site.Pages {
		if pagesKept {
			break // none gone
		}
		if _, ok := s.pageRes[p]; !ok && bounds(p.Meta, p.PublishedAt) {
			return nil
		}
	}
	for _, d := range diffs {
		for _, it := range d.gone {
			if bounds(it.Meta, it.PublishedAt) {
				return nil
			}
		}
	}
	if pagesKept {
		// the same pages, visible as in pv (valid at now): its lists,
		// never changed once made
		v.pages, v.pageBySlug = pv.pages, pv.pageBySlug
	} else {
		v.addPages(s, func(p *content.Page) bool {
			if _, old := prev.pageRes[p]; old {
				return p.Meta.Visible(p.PublishedAt, now)
			}
			return added(p.Meta, p.PublishedAt)
		})
	}
	for name, ptl := range pv.types {
		d, changed := diffs[name]
		if !changed {
			v.types[name] = ptl
			continue
		}
		// the slug map over the last one's (a copy was 14 ms of a push
		// at 1M files)
		tl := &TypeList{Name: name, Config: ptl.Config, keys: ptl.keys, items: slices.Clone(ptl.items)}
		var del []string
		set := map[string]*itemEntry{}
		for _, it := range d.gone {
			if e, ok := ptl.bySlug.get(it.Slug); ok && e.item == it {
				del = append(del, it.Slug)
				i, _ := slices.BinarySearchFunc(tl.items, it.Slug, entrySlugOrder)
				tl.items = slices.Delete(tl.items, i, i+1)
			}
		}
		for _, it := range d.added {
			if !added(it.Meta, it.PublishedAt) {
				continue
			}
			e := &itemEntry{item: it, res: s.itemResource(name, it)}
			i, _ := slices.BinarySearchFunc(tl.items, it.Slug, entrySlugOrder)
			tl.items = slices.Insert(tl.items, i, e)
			set[it.Slug] = e
		}
		tl.bySlug = ptl.bySlug.with(del, set)
		tl.prev = prevCaches(ptl)
		v.types[name] = tl
	}
	for name := range site.Items {
		if v.types[name] == nil {
			return nil
		}
	}
	if site.Globals != nil {
		v.globals = pv.globals
		if site.Globals != prev.Site.Globals || v.globals == nil {
			v.globals = newResource(site.Globals)
		}
	}
	v.setID(s, false)
	return v
}

func entrySlugOrder(e *itemEntry, slug string) int { return strings.Compare(e.item.Slug, slug) }

// noteBoundary narrows the view's validity around now by instant t.
func (v *View) noteBoundary(now, t time.Time) {
	b := validity{v.validFrom, v.validUntil}
	b.note(now, t)
	v.validFrom, v.validUntil = b.from, b.until
}

// validity is the interval a view is valid in: from the last publish or
// expiry instant of its documents up to now, until the next one.
type validity struct{ from, until time.Time }

// note narrows the interval around now by instant t.
func (b *validity) note(now, t time.Time) {
	if t.After(now) {
		if t.Before(b.until) {
			b.until = t
		}
	} else if t.After(b.from) {
		b.from = t
	}
}

// merge narrows the view's validity to b too.
func (v *View) merge(b validity) {
	if b.until.Before(v.validUntil) {
		v.validUntil = b.until
	}
	if b.from.After(v.validFrom) {
		v.validFrom = b.from
	}
}
