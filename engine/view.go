package engine

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
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
}

type pageEntry struct {
	full    *Resource
	summary *Resource
}

// Resource is one JSON body with its ETag, encoded once on first use.
type Resource struct {
	value any
	once  sync.Once
	body  []byte
	etag  string
}

func newResource(v any) *Resource { return &Resource{value: v} }

// Body returns the JSON encoding and its strong ETag (quoted).
func (r *Resource) Body() ([]byte, string) {
	r.once.Do(func() {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r.value); err != nil {
			// Content values are plain maps, strings, numbers and times: an
			// encoding failure is a bug, not bad input. Serve it visibly.
			buf.Reset()
			buf.WriteString(`{"error":"INTERNAL_ERROR","message":"resource could not be encoded"}`)
		}
		r.body = bytes.TrimRight(buf.Bytes(), "\n")
		r.etag = etagOf(r.body)
	})
	return r.body, r.etag
}

func etagOf(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
}

// ListETag is the ETag of a list response of this view: the view's identity
// and the canonical parameters that shaped the list.
func (v *View) ListETag(parts ...string) string {
	return etagOf([]byte(v.ID + "\x00" + strings.Join(parts, "\x00")))
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

// TypeList is the visible items of one content type.
type TypeList struct {
	Name   string
	Config content.TypeConfig
	items  []*itemEntry // by slug
	bySlug map[string]*itemEntry
	sorted sync.Map // canonical sort -> []*Resource
}

type itemEntry struct {
	item *content.Item
	res  *Resource
}

// Item returns one item by slug.
func (t *TypeList) Item(slug string) (*Resource, bool) {
	e, ok := t.bySlug[slug]
	if !ok {
		return nil, false
	}
	return e.res, true
}

// Len is the number of visible items.
func (t *TypeList) Len() int { return len(t.items) }

// Sorted returns the items in the order of sort ("field" or "-field"; ""
// for the type's default). Allowed fields are publishedAt, updatedAt, title,
// slug and the data fields folio.yaml declares sortable; any other is
// ErrBadSort. It also returns the canonical sort, for ETags.
func (t *TypeList) Sorted(sort string) ([]*Resource, string, error) {
	if sort == "" {
		sort = t.Config.DefaultSort
		if sort == "" {
			sort = "-publishedAt"
		}
	}
	if cached, ok := t.sorted.Load(sort); ok {
		return cached.([]*Resource), sort, nil
	}
	field, desc := strings.CutPrefix(sort, "-")
	if !t.sortable(field) {
		return nil, "", ErrBadSort
	}
	entries := slices.Clone(t.items)
	slices.SortStableFunc(entries, func(a, b *itemEntry) int {
		return compareItems(a.item, b.item, field, desc)
	})
	out := make([]*Resource, len(entries))
	for i, e := range entries {
		out[i] = e.res
	}
	t.sorted.Store(sort, out)
	return out, sort, nil
}

func (t *TypeList) sortable(field string) bool {
	switch field {
	case "publishedAt", "updatedAt", "title", "slug":
		return true
	}
	return slices.Contains(t.Config.Sortable, field)
}

// compareItems orders by field, items lacking the field last in either
// direction, ties by slug ascending so every order is deterministic.
func compareItems(a, b *content.Item, field string, desc bool) int {
	va, okA := sortValue(a, field)
	vb, okB := sortValue(b, field)
	switch {
	case okA && !okB:
		return -1
	case !okA && okB:
		return 1
	case okA && okB:
		c := compareValues(va, vb)
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return strings.Compare(a.Slug, b.Slug)
}

func sortValue(it *content.Item, field string) (any, bool) {
	switch field {
	case "publishedAt":
		return it.PublishedAt, true
	case "updatedAt":
		return it.UpdatedAt, true
	case "title":
		return it.Title, true
	case "slug":
		return it.Slug, true
	}
	v, ok := it.Data[field]
	if !ok || v == nil {
		return nil, false
	}
	return v, true
}

// compareValues orders numbers before times before strings before anything
// else; within a kind by value.
func compareValues(a, b any) int {
	ka, kb := valueKind(a), valueKind(b)
	if ka != kb {
		return cmp.Compare(ka, kb)
	}
	switch ka {
	case 0:
		return cmp.Compare(toFloat(a), toFloat(b))
	case 1:
		return a.(time.Time).Compare(b.(time.Time))
	case 2:
		return strings.Compare(strings.ToLower(a.(string)), strings.ToLower(b.(string)))
	case 3:
		return cmp.Compare(boolInt(a.(bool)), boolInt(b.(bool)))
	}
	return 0
}

func valueKind(v any) int {
	switch v.(type) {
	case int, int64, uint64, float64, float32, int32, uint32, uint, int8, int16, uint8, uint16:
		return 0
	case time.Time:
		return 1
	case string:
		return 2
	case bool:
		return 3
	}
	return 4
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case uint64:
		return float64(n)
	case float64:
		return n
	case float32:
		return float64(n)
	case int32:
		return float64(n)
	case uint32:
		return float64(n)
	case uint:
		return float64(n)
	case int8:
		return float64(n)
	case int16:
		return float64(n)
	case uint8:
		return float64(n)
	case uint16:
		return float64(n)
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pageSummary is one item of the page list (contract §2.4).
type pageSummary struct {
	ID          string    `json:"id"`
	Slug        string    `json:"slug"`
	Title       string    `json:"title"`
	IsHomepage  bool      `json:"isHomepage"`
	PublishedAt time.Time `json:"publishedAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// buildView filters the snapshot for a reader at instant now. A draft view
// holds everything; a published view holds what is visible at now and is
// valid until the next publish or expiry instant.
func buildView(s *Snapshot, draft bool, now time.Time) *View {
	site := s.Site
	v := &View{
		validFrom:  time.Time{},
		validUntil: farFuture,
		pageBySlug: make(map[string]*pageEntry, len(site.Pages)),
		types:      make(map[string]*TypeList, len(site.Items)),
	}
	visible := func(m content.Meta, publishedAt time.Time) bool {
		if draft {
			return true
		}
		v.noteBoundary(now, publishedAt)
		if !m.ExpiresAt.IsZero() {
			v.noteBoundary(now, m.ExpiresAt)
		}
		return m.Visible(publishedAt, now)
	}
	for _, p := range site.Pages {
		if !visible(p.Meta, p.PublishedAt) {
			continue
		}
		e := &pageEntry{
			full: newResource(p),
			summary: newResource(pageSummary{ID: p.ID, Slug: p.Slug, Title: p.Title, IsHomepage: p.IsHomepage,
				PublishedAt: p.PublishedAt, UpdatedAt: p.UpdatedAt}),
		}
		v.pages = append(v.pages, e)
		v.pageBySlug[p.Slug] = e
	}
	// Site.Pages is sorted by slug; the homepage moves to the front.
	slices.SortStableFunc(v.pages, func(a, b *pageEntry) int {
		ha := a.summary.value.(pageSummary).IsHomepage
		hb := b.summary.value.(pageSummary).IsHomepage
		return -cmp.Compare(boolInt(ha), boolInt(hb))
	})
	for name, items := range site.Items {
		t := &TypeList{Name: name, Config: site.Config.Types[name], bySlug: make(map[string]*itemEntry, len(items))}
		for _, it := range items {
			if !visible(it.Meta, it.PublishedAt) {
				continue
			}
			e := &itemEntry{item: it, res: newResource(it)}
			t.items = append(t.items, e)
			t.bySlug[it.Slug] = e
		}
		v.types[name] = t
	}
	for name, cfg := range site.Config.Types {
		if _, ok := v.types[name]; !ok {
			v.types[name] = &TypeList{Name: name, Config: cfg, bySlug: map[string]*itemEntry{}}
		}
	}
	if site.Globals != nil {
		v.globals = newResource(site.Globals)
	}
	kind := "p"
	if draft {
		kind = "d"
	}
	v.ID = s.Branch + "@" + s.Commit + ":" + kind + strconv.FormatInt(v.validFrom.UnixNano(), 36)
	return v
}

// noteBoundary narrows the view's validity around now by instant t.
func (v *View) noteBoundary(now, t time.Time) {
	if t.After(now) {
		if t.Before(v.validUntil) {
			v.validUntil = t
		}
	} else if t.After(v.validFrom) {
		v.validFrom = t
	}
}
