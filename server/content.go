package server

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/server/repr"
	"github.com/folio-cms/folio/server/transport"
	"github.com/julienschmidt/httprouter"
)

// Page sizes of pages and content lists (docs/api.md, "Paging and limits").
const (
	contentDefaultLimit = 20
	contentMaxLimit     = 100
)

// contentHandlers answer the content routes: pages, items, globals,
// resolve, history, diffs and changes, locales, refs and previews,
// schemas and the OpenAPI document, search, the public collections.
type contentHandlers struct {
	engine *engine.Engine
	// media is the library expanded media come from (nil: none).
	media         *media.Library
	previewSecret string                       // "": preview links are off
	refBuilds     *transport.Limiter           // ref snapshots built per client (refs.go)
	openapiDoc    func() openapiBody           // the static document, encoded on first use
	typedDoc      atomic.Pointer[typedOpenAPI] // the document with the content model, per snapshot
	now           func() time.Time
}

// view picks the published or the draft view for the request (draft=true
// needs the content:draft scope), in the locale it asks for (localize).
func (s *contentHandlers) view(w http.ResponseWriter, r *http.Request) (*engine.View, string, error) {
	v, cc, err := s.baseView(w, r)
	if err != nil {
		return nil, "", err
	}
	if v, err = s.localize(w, query(r), v); err != nil {
		return nil, "", err
	}
	return v, cc, nil
}

// baseView is view before the locale.
func (s *contentHandlers) baseView(w http.ResponseWriter, r *http.Request) (*engine.View, string, error) {
	if c := previewFrom(r.Context()); c != nil {
		return s.previewView(w, r, c)
	}
	q := query(r)
	draft, err := parseBool(q, "draft")
	if err != nil {
		return nil, "", err
	}
	if _, ok := q["ref"]; ok {
		return s.refView(w, r, q.Get("ref"), draft)
	}
	if !draft {
		return s.engine.View(false), cachePrivate, nil
	}
	if err := requireScope(r, ScopeContentDraft); err != nil {
		return nil, "", err
	}
	return s.engine.View(true), cacheNoStore, nil
}

// slugParam reads a catch-all slug ("/guides/install" → "guides/install").
func slugParam(p httprouter.Params) (string, error) {
	slug := strings.TrimPrefix(p.ByName("slug"), "/")
	if !content.ValidSlug(slug) {
		return "", badRequest("invalid slug: use letters, digits, '.', '_', '~', '-' and '/' between segments, at most 200 characters")
	}
	return slug, nil
}

func typeParam(p httprouter.Params) (string, error) {
	t := p.ByName("type")
	if !content.ValidType(t) {
		return "", badRequest("invalid content type: use lower-case letters, digits, '_' and '-'")
	}
	return t, nil
}

func (s *contentHandlers) listPages(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	pg, err := parsePage(query(r), contentDefaultLimit, contentMaxLimit)
	if err != nil {
		return err
	}
	v, cc, err := s.view(w, r)
	if err != nil {
		return err
	}
	f, err := fieldsParam(r, repr.PageSummaryFields)
	if err != nil {
		return err
	}
	e, err := expandParam(r, v, false)
	if err != nil {
		return err
	}
	conds, err := filterParams(query(r))
	if err != nil {
		return err
	}
	pages, total, filter, err := pagesWindow(v, conds, pg)
	if err != nil {
		return err
	}
	window, err := project(pages, f)
	if err != nil {
		return err
	}
	if e != nil {
		return s.serveExpandedList(w, r, v, pages, window, e, total, pg.Limit, pg.Offset, cc, pagesKeys(v))
	}
	etag := v.ListETag("pages", strconv.Itoa(pg.Limit), strconv.Itoa(pg.Offset), f.Key(), filter)
	return serveList(w, r, window, total, pg.Limit, pg.Offset, etag, cc, pagesKeys(v))
}

func (s *contentHandlers) getPage(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	slug, err := slugParam(p)
	if err != nil {
		return err
	}
	v, cc, err := s.view(w, r)
	if err != nil {
		return err
	}
	if base, sub := subResource(slug, func(sl string) bool { _, ok := v.Page(sl); return ok }); sub != "" {
		return s.pageSub(w, r, v, cc, base, sub)
	}
	f, err := fieldsParam(r, repr.PageFields)
	if err != nil {
		return err
	}
	e, err := expandParam(r, v, false)
	if err != nil {
		return err
	}
	res, ok := v.Page(slug)
	if !ok {
		return notFound("no page with slug %q", slug)
	}
	return s.serveOne(w, r, v, res, f, e, cc)
}

func (s *contentHandlers) listItems(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	v, cc, err := s.view(w, r)
	if err != nil {
		return err
	}
	return s.serveItemList(w, r, p, v, cc, false)
}

func (s *contentHandlers) getItem(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	v, cc, err := s.view(w, r)
	if err != nil {
		return err
	}
	return s.serveItem(w, r, p, v, cc, false)
}

func (s *contentHandlers) listPublicItems(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	v, cc, err := s.publicView(w, r)
	if err != nil {
		return err
	}
	return s.serveItemList(w, r, p, v, cc, true)
}

func (s *contentHandlers) getPublicItem(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	v, cc, err := s.publicView(w, r)
	if err != nil {
		return err
	}
	return s.serveItem(w, r, p, v, cc, true)
}

// publicView is the published view for the public surface, or the ref of
// a preview token (never cached).
func (s *contentHandlers) publicView(w http.ResponseWriter, r *http.Request) (*engine.View, string, error) {
	var v *engine.View
	var cc string
	if c := previewFrom(r.Context()); c != nil {
		var err error
		if v, cc, err = s.previewView(w, r, c); err != nil {
			return nil, "", err
		}
	} else {
		if err := refuseDraft(r); err != nil {
			return nil, "", err
		}
		v = s.engine.View(false)
	}
	v, err := s.localize(w, query(r), v)
	if err != nil {
		return nil, "", err
	}
	if cc == "" {
		cc = publicCache(v, s.now())
	}
	return v, cc, nil
}

// publicCache is the Cache-Control of a public content response: the
// usual one, but within its max-age of a scheduled publish or expiry, a
// max-age of the seconds left and no stale-while-revalidate, so that no
// cache serves the response past that instant.
func publicCache(v *engine.View, now time.Time) string {
	if !v.Scheduled() {
		return cachePublicShort
	}
	left := v.ValidUntil().Sub(now)
	if left >= publicMaxAge*time.Second {
		return cachePublicShort
	}
	secs := max(int(left/time.Second), 0)
	return "public, max-age=" + strconv.Itoa(secs) + ", stale-if-error=86400"
}

// refuseDraft: the public surface never serves drafts, whatever the key,
// nor another ref.
func refuseDraft(r *http.Request) error {
	q := query(r)
	draft, err := parseBool(q, "draft")
	if err != nil {
		return err
	}
	if _, ok := q["ref"]; ok {
		return badRequest("ref is not served on the public surface: use /api/v1/content with a key holding content:preview")
	}
	if draft {
		return badRequest("drafts are not served on the public surface: use /api/v1/content with a key holding content:draft")
	}
	return nil
}

// contentType finds a type of the view; public-only lookups hide the types
// that folio.yaml does not mark public.
func contentType(v *engine.View, p httprouter.Params, publicOnly bool) (*engine.TypeList, error) {
	name, err := typeParam(p)
	if err != nil {
		return nil, err
	}
	t, ok := v.Type(name)
	if !ok || (publicOnly && !t.Config.Public) {
		return nil, notFound("no content type %q", name)
	}
	return t, nil
}

func (s *contentHandlers) serveItemList(w http.ResponseWriter, r *http.Request, p httprouter.Params, v *engine.View, cc string, publicOnly bool) error {
	q := query(r)
	pg, err := parsePage(q, contentDefaultLimit, contentMaxLimit)
	if err != nil {
		return err
	}
	t, err := contentType(v, p, publicOnly)
	if err != nil {
		return err
	}
	f, err := fieldsParam(r, repr.ItemFields)
	if err != nil {
		return err
	}
	if f == nil && t.Config.NoListBody {
		f = repr.WithoutBody
	}
	e, err := expandParam(r, v, publicOnly)
	if err != nil {
		return err
	}
	conds, err := filterParams(q)
	if err != nil {
		return err
	}
	tree, err := bodyParam(r)
	if err != nil {
		return err
	}
	items, total, sort, filter, err := listWindow(v, t, conds, q.Get("sort"), pg)
	if err != nil {
		return fmt.Errorf("%s: %w", t.Name, err) // engine.ErrBadSort, a bad filter: 400
	}
	shown := items
	var tm *engine.TreeMedia
	if tree {
		tm = s.treeMedia(v)
		if shown, err = treeResources(items, tm); err != nil {
			return err
		}
		filter += "\x00body=tree"
	}
	window, err := project(shown, f)
	if err != nil {
		return err
	}
	keys := withKeys(keysOf(t.Keys()), tm.Keys())
	if e != nil {
		return s.serveExpandedList(w, r, v, items, window, e, total, pg.Limit, pg.Offset, cc, keys)
	}
	if tree && s.media != nil {
		// The trees' media are resolved now: the ETag is of the bytes,
		// as an expanded list's (the library changes on its own).
		bs, err := bodies(window)
		if err != nil {
			return err
		}
		body := listBody("items", bs, total, pg.Limit, pg.Offset)
		return serveBody(w, r, body, engine.ETag(body), cc, keys)
	}
	etag := v.ListETag("content", t.Name, sort, strconv.Itoa(pg.Limit), strconv.Itoa(pg.Offset), f.Key(), filter)
	return serveList(w, r, window, total, pg.Limit, pg.Offset, etag, cc, keysOf(t.Keys()))
}

func (s *contentHandlers) serveItem(w http.ResponseWriter, r *http.Request, p httprouter.Params, v *engine.View, cc string, publicOnly bool) error {
	t, err := contentType(v, p, publicOnly)
	if err != nil {
		return err
	}
	slug, err := slugParam(p)
	if err != nil {
		return err
	}
	if base, sub := subResource(slug, func(sl string) bool { _, ok := t.Item(sl); return ok }); sub != "" && !publicOnly {
		return s.itemSub(w, r, v, cc, t.Name, base, sub)
	}
	f, err := fieldsParam(r, repr.ItemFields)
	if err != nil {
		return err
	}
	e, err := expandParam(r, v, publicOnly)
	if err != nil {
		return err
	}
	res, ok := t.Item(slug)
	if !ok {
		return notFound("no %s with slug %q", t.Name, slug)
	}
	return s.serveOne(w, r, v, res, f, e, cc)
}

func (s *contentHandlers) globals(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	v, cc, err := s.view(w, r)
	if err != nil {
		return err
	}
	// Globals' keys vary by site: any name is accepted, and one the file
	// lacks is absent from the response.
	f, err := fieldsParam(r, nil)
	if err != nil {
		return err
	}
	e, err := expandParam(r, v, false)
	if err != nil {
		return err
	}
	res, ok := v.Globals()
	if !ok {
		return notFound("the site has no globals file")
	}
	return s.serveOne(w, r, v, res, f, e, cc)
}

// fieldsParam reads `fields` (repr.ParseFields) against the top-level
// fields of the route's resources; nil when absent.
func fieldsParam(r *http.Request, allowed []string) (*repr.Fields, error) {
	f, err := repr.ParseFields(query(r).Get("fields"), allowed)
	if err != nil {
		return nil, badRequest("fields: %v", err)
	}
	return f, nil
}

// serveOne serves one page, item or globals narrowed to f and expanded
// by e (each nil for none).
func (s *contentHandlers) serveOne(w http.ResponseWriter, r *http.Request, v *engine.View, res *engine.Resource, f *repr.Fields, e *repr.Expand, cc string) error {
	if v.Locale() != "" {
		if l := res.Locale(); l != "" && l != v.Locale() {
			w.Header().Set("Content-Language", l) // a fallback
		}
	}
	tree, err := bodyParam(r)
	if err != nil {
		return err
	}
	orig := res
	var tm *engine.TreeMedia
	if tree {
		tm = s.treeMedia(v)
		if res, err = res.TreeResource(tm); err != nil {
			return err
		}
	}
	p, err := repr.Project(res, f)
	if err != nil {
		return err
	}
	if e != nil {
		return s.serveExpanded(w, r, v, orig, p, e, cc, tm.Keys())
	}
	if mk := tm.Keys(); len(mk) > 0 {
		body, etag, err := p.Body()
		if err != nil {
			return err
		}
		return serveBody(w, r, body, etag, cc, withKeys(keysOf(orig.Keys()), mk))
	}
	return serveResource(w, r, p, cc)
}

// bodyParam reads `body`: html (the default) or tree, each Markdown body
// as its body tree (engine.Resource.TreeResource). A query without it is
// not parsed again.
func bodyParam(r *http.Request) (tree bool, err error) {
	if !strings.Contains(r.URL.RawQuery, "body") {
		return false, nil
	}
	switch b := query(r).Get("body"); b {
	case "", "html":
		return false, nil
	case "tree":
		return true, nil
	default:
		return false, badRequest("body: want html or tree, not %q", b)
	}
}

// treeMedia resolves the media references of the images of the body
// trees of one response (engine.TreeMedia), with the alt text of v's
// locale as expand=media gives it.
func (s *contentHandlers) treeMedia(v *engine.View) *engine.TreeMedia {
	return v.TreeMedia(s.mediaLookup(), mediaChain(s.engine, s.contentLocale(v)))
}

// treeResources is each resource with its bodies as trees, their images'
// media resolved by tm.
func treeResources(rs []*engine.Resource, tm *engine.TreeMedia) ([]*engine.Resource, error) {
	out := make([]*engine.Resource, len(rs))
	for i, r := range rs {
		var err error
		if out[i], err = r.TreeResource(tm); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// project narrows each resource to f (a no-op for nil).
func project(rs []*engine.Resource, f *repr.Fields) ([]*engine.Resource, error) {
	if f == nil {
		return rs, nil
	}
	out := make([]*engine.Resource, len(rs))
	for i, r := range rs {
		var err error
		if out[i], err = repr.Project(r, f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func bodies(rs []*engine.Resource) ([][]byte, error) {
	out := make([][]byte, len(rs))
	for i, r := range rs {
		var err error
		if out[i], _, err = r.Body(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
