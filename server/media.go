package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/search"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/grant"
	"github.com/folio-cms/folio/server/notify"
	"github.com/julienschmidt/httprouter"
)

// Page sizes of media lists (docs/api.md, "Paging and limits"; the authenticated maximum is not
// shown there, we use the public one).
const (
	mediaDefaultLimit = 24
	mediaMaxLimit     = 100
	maxJSONBody       = 64 << 10
)

// mediaHandlers answer the media routes (/api/v1/media…, the public media
// routes) and /uploads/ with its image variants.
type mediaHandlers struct {
	engine     *engine.Engine // nil-safe: the site's locales and image presets
	media      *media.Library
	search     *search.MediaSearch
	mediaRoot  string       // "": media lives on cloud storage
	grants     *grant.Store // nil: the presign flow is off
	presignTTL time.Duration
	notifier   *notify.Notifier
	transforms *transformer
	log        *slog.Logger
	now        func() time.Time
	maxFiles   int // files in one upload request (maxUploadFiles)
}

// publicItem is the public view of a media item (docs/api.md, media).
type publicItem struct {
	ID            string       `json:"id"`
	Filename      string       `json:"filename"`
	MimeType      string       `json:"mimeType"`
	Width         int          `json:"width"`
	Height        int          `json:"height"`
	Alt           string       `json:"alt"`
	URL           string       `json:"url"`
	FocalX        float64      `json:"focalX"`
	FocalY        float64      `json:"focalY"`
	Sizes         []media.Size `json:"sizes"`
	Placeholder   string       `json:"placeholder,omitempty"`
	DominantColor string       `json:"dominantColor,omitempty"`
	// Presets are the URLs of the image presets of folio.yaml (raster
	// images only).
	Presets map[string]string `json:"presets,omitempty"`
}

func (pv presetViews) publicView(it *media.Item) publicItem {
	it = pv.localized(it)
	return publicItem{ID: it.ID, Filename: it.Filename, MimeType: it.MimeType, Width: it.Width, Height: it.Height,
		Alt: it.Alt, URL: it.URL, FocalX: it.FocalX, FocalY: it.FocalY, Sizes: sizesOf(it),
		Placeholder: it.Placeholder, DominantColor: it.DominantColor, Presets: pv.urls(it)}
}

// fullItem is the item with every field, and its preset URLs.
type fullItem struct {
	*media.Item
	Presets map[string]string `json:"presets,omitempty"`
}

// fullView is the item with every field; sizes is always an array.
func (pv presetViews) fullView(it *media.Item) fullItem {
	it = pv.localized(it)
	return fullItem{Item: withSizes(it), Presets: pv.urls(it)}
}

// withSizes is the item as the upload response has it: sizes is always an
// array.
func withSizes(it *media.Item) *media.Item {
	it.Sizes = sizesOf(it)
	return it
}

func sizesOf(it *media.Item) []media.Size {
	if it.Sizes == nil {
		return []media.Size{}
	}
	return it.Sizes
}

// mediaETag names one version of an item's representation: the item's
// version, when folio.yaml has image presets their digest (the preset
// URLs are in the body), and the locale asked for.
func (pv presetViews) mediaETag(it *media.Item, public bool) string {
	v := `"` + it.ID + "." + strconv.Itoa(it.Version)
	if pv.digest != "" && media.Raster(it) {
		v += "-" + pv.digest
	}
	if pv.locale != "" {
		v += "~" + pv.locale
	}
	if public {
		return v + `.p"`
	}
	return v + `"`
}

// mediaQuery is a parsed media list request.
type mediaQuery struct {
	q      media.Query
	page   page
	search string
}

// parseMediaQuery reads folder, type, limit and offset, and, when allowed,
// search, sort and order.
func parseMediaQuery(r *http.Request, withSearch bool) (mediaQuery, error) {
	q := query(r)
	var mq mediaQuery
	pg, err := parsePage(q, mediaDefaultLimit, mediaMaxLimit)
	if err != nil {
		return mq, err
	}
	mq.page = pg
	mq.q.Limit, mq.q.Offset = pg.Limit, pg.Offset
	if f, ok := q["folder"]; ok {
		c, err := media.CleanFolder(f[0])
		if err != nil {
			return mq, err
		}
		mq.q.Folder = c
	}
	switch t := q.Get("type"); t {
	case "", "image", "document", "video":
		mq.q.Type = t
	default:
		return mq, badRequest("type must be image, document or video")
	}
	if !withSearch {
		for _, p := range []string{"search", "sort", "order"} {
			if q.Has(p) {
				return mq, errorf(fault.Unauthorized,
					"%s on the public media list needs an API key with the media:read scope", p)
			}
		}
		return mq, nil
	}
	mq.search = strings.TrimSpace(q.Get("search"))
	if len(mq.search) > 200 {
		return mq, badRequest("search is limited to 200 bytes")
	}
	switch s := q.Get("sort"); s {
	case "":
		if mq.search == "" {
			mq.q.Sort = media.SortCreatedAt
		}
	case media.SortCreatedAt, media.SortFilename, media.SortSize:
		mq.q.Sort = s
	default:
		return mq, badRequest("sort must be createdAt, filename or size")
	}
	switch o := q.Get("order"); o {
	case "", "desc":
		mq.q.Desc = true
	case "asc":
	default:
		return mq, badRequest("order must be asc or desc")
	}
	return mq, nil
}

// list runs a media query. A search without sort is paged by the index
// itself (relevance, best first; order=asc reverses it) and only the page's
// items are read from the library; a search with sort takes every hit,
// unscored, from the index and the library orders only those. Folder and type
// filter inside the index either way.
func (s *mediaHandlers) list(ctx context.Context, mq mediaQuery) ([]*media.Item, int, error) {
	if mq.q.Folder != "" && !s.folderExists(mq.q.Folder) {
		return nil, 0, notFound("no folder %q", mq.q.Folder)
	}
	if mq.search == "" {
		items, total := s.media.List(mq.q)
		return items, total, nil
	}
	sq := search.MediaQuery{Text: mq.search, Folder: mq.q.Folder, Type: mq.q.Type}
	if mq.q.Sort == "" {
		sq.Offset, sq.Limit, sq.Reverse = mq.q.Offset, mq.q.Limit, !mq.q.Desc
		ids, total, err := s.search.Find(ctx, sq)
		if err != nil {
			return nil, 0, err
		}
		// In the order of ids; an item deleted since the search is left out.
		items, _ := s.media.List(media.Query{IDs: ids})
		return items, total, nil
	}
	sq.All = true
	ids, _, err := s.search.Find(ctx, sq)
	if err != nil {
		return nil, 0, err
	}
	items, total := s.media.ListHits(ids, mq.q)
	return items, total, nil
}

func (s *mediaHandlers) folderExists(f string) bool {
	for _, x := range s.media.Folders() {
		if x == f {
			return true
		}
	}
	return false
}

// catchUp applies what the other boxes sharing the media library (s3
// storage) wrote since this box last polled; on an unshared library it
// does nothing. Behind a load balancer a client's next write may land on
// another box than the one that made the item or folder it names, before
// that box's poll: the write routes call it once on such a miss rather
// than answer 404 for something the bucket has. Reads do not: they serve
// what the box has (a CDN caches them anyway), and a 404 of a read costs
// no request to the bucket.
func (s *mediaHandlers) catchUp(ctx context.Context) bool {
	if err := s.media.Sync(ctx); err != nil {
		s.log.Warn("media: catching up with the other boxes failed", "err", err)
		return false
	}
	return true
}

// folderToWrite is folderExists for the write routes: on a miss it
// catches up once.
func (s *mediaHandlers) folderToWrite(ctx context.Context, f string) bool {
	return s.folderExists(f) || (s.catchUp(ctx) && s.folderExists(f))
}

// itemToWrite is item for the write routes: on a miss it catches up once.
func (s *mediaHandlers) itemToWrite(ctx context.Context, p httprouter.Params) (*media.Item, error) {
	it, err := s.item(p)
	if err != nil && media.ValidID(p.ByName("id")) && s.catchUp(ctx) {
		it, err = s.item(p)
	}
	return it, err
}

type mediaList[T any] struct {
	Data    []T      `json:"data"`
	Total   int      `json:"total"`
	Limit   int      `json:"limit"`
	Offset  int      `json:"offset"`
	Folders []string `json:"folders,omitempty"`
	// Locales are the locales the admin UI offers (Server.Locales).
	Locales []string `json:"locales,omitempty"`
}

func (s *mediaHandlers) listMedia(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	out, err := listPage(s, r, true, presetViews.fullView)
	if err != nil {
		return err
	}
	out.Folders, out.Locales = s.media.Folders(), s.locales()
	return serveJSON(w, r, out, cachePrivate, hdrKeyMediaList)
}

// listPage answers one page of a media list, each item in the view the route
// serves (presetViews.fullView or publicView) and in the request's locale.
func listPage[T any](s *mediaHandlers, r *http.Request, withSearch bool, view func(presetViews, *media.Item) T) (mediaList[T], error) {
	mq, err := parseMediaQuery(r, withSearch)
	if err != nil {
		return mediaList[T]{}, err
	}
	pv, err := s.withMediaLocale(s.presetViews(), r)
	if err != nil {
		return mediaList[T]{}, err
	}
	items, total, err := s.list(r.Context(), mq)
	if err != nil {
		return mediaList[T]{}, err
	}
	out := mediaList[T]{Data: make([]T, len(items)), Total: total, Limit: mq.page.Limit, Offset: mq.page.Offset}
	for i, it := range items {
		out.Data[i] = view(pv, it)
	}
	return out, nil
}

func (s *mediaHandlers) listPublicMedia(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	cc := cachePublicShort
	withSearch := false
	if k := keyFrom(r.Context()); k != nil {
		// A key (say content:read, sent by a site that uses one key for
		// everything) does not lock it out of the public list; only the
		// key-only parameters need media:read.
		cc = cachePrivate
		if k.Has(ScopeMediaRead) {
			withSearch = true
		} else if q := query(r); q.Has("search") || q.Has("sort") || q.Has("order") {
			return forbidden(ScopeMediaRead)
		}
	}
	out, err := listPage(s, r, withSearch, presetViews.publicView)
	if err != nil {
		return err
	}
	return serveJSON(w, r, out, cc, hdrKeyMediaList)
}

// item finds the item of the :id parameter.
func (s *mediaHandlers) item(p httprouter.Params) (*media.Item, error) {
	id := p.ByName("id")
	if !media.ValidID(id) {
		return nil, notFound("no media item %q", id)
	}
	it, ok := s.media.Get(id)
	if !ok {
		return nil, notFound("no media item %q", id)
	}
	return it, nil
}

func (s *mediaHandlers) getMedia(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	return serveOne(s, w, r, p, presetViews.fullView, false, cachePrivate)
}

func (s *mediaHandlers) getPublicMedia(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	return serveOne(s, w, r, p, presetViews.publicView, true, cachePublicHour)
}

// serveOne answers one media item in the view the route serves
// (presetViews.fullView or publicView) and the request's locale.
func serveOne[T any](s *mediaHandlers, w http.ResponseWriter, r *http.Request, p httprouter.Params, view func(presetViews, *media.Item) T, public bool, cc string) error {
	it, err := s.item(p)
	if err != nil {
		return err
	}
	pv, err := s.withMediaLocale(s.presetViews(), r)
	if err != nil {
		return err
	}
	return serveItem(w, r, view(pv, it), pv.mediaETag(it, public), cc, mediaJSONKeyHdr(it.ID))
}

func serveItem(w http.ResponseWriter, r *http.Request, v any, etag, cc string, keys keyHdr) error {
	// Encoded even for a 304: whether the body is compressed, and so
	// which ETag the 304 carries, depends on its size.
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return serveBody(w, r, b, etag, cc, keys)
}

// patchBody is the PATCH request; every field optional.
type patchBody struct {
	Alt         localText `json:"alt"`
	Title       localText `json:"title"`
	Description localText `json:"description"`
	Folder      *string   `json:"folder"`
	FocalX      *float64  `json:"focalX"`
	FocalY      *float64  `json:"focalY"`
}

func (s *mediaHandlers) patchMedia(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	it, err := s.itemToWrite(r.Context(), p)
	if err != nil {
		return err
	}
	var body patchBody
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	pv, err := s.withMediaLocale(s.presetViews(), r)
	if err != nil {
		return err
	}
	patch := media.Patch{Alt: body.Alt.plain, Title: body.Title.plain, Description: body.Description.plain,
		AltByLocale: body.Alt.byLocale, TitleByLocale: body.Title.byLocale, DescriptionByLocale: body.Description.byLocale,
		Folder: body.Folder, FocalX: body.FocalX, FocalY: body.FocalY}
	// If-Match "*" holds for any existing item (RFC 9110 §13.1.1).
	if im := strings.TrimSpace(r.Header.Get("If-Match")); im != "" && im != "*" {
		v, ok := versionFromETag(im, it.ID)
		if !ok {
			return errorf(fault.PreconditionFailed, "If-Match does not name the current version of this item")
		}
		patch.IfVersion = v
	}
	updated, err := s.media.Patch(r.Context(), it.ID, patch)
	if errors.Is(err, media.ErrFolderNotFound) && s.catchUp(r.Context()) {
		// A folder another box made (Patch checks folders before it writes).
		updated, err = s.media.Patch(r.Context(), it.ID, patch)
	}
	if errors.Is(err, media.ErrConflict) && patch.IfVersion != 0 {
		return errorf(fault.PreconditionFailed, "the item was changed since the ETag in If-Match")
	}
	if err != nil {
		return err
	}
	s.mediaChanged(updated.ID)
	w.Header().Set("ETag", pv.mediaETag(updated, false))
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, pv.fullView(updated))
}

// versionFromETag reads the version of `"<id>.<version>"` (either view's,
// any locale's).
func versionFromETag(h, id string) (int, bool) {
	h = strings.TrimPrefix(strings.TrimSpace(h), "W/")
	h = strings.Trim(uncoded(h), `"`)
	h = strings.TrimSuffix(h, ".p")
	rest, ok := strings.CutPrefix(h, id+".")
	if !ok {
		return 0, false
	}
	if i := strings.IndexAny(rest, "-~"); i >= 0 {
		rest = rest[:i] // the presets' digest, the locale
	}
	v, err := strconv.Atoi(rest)
	if err != nil || v < 1 {
		return 0, false
	}
	return v, true
}

func (s *mediaHandlers) deleteMedia(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	it, err := s.itemToWrite(r.Context(), p)
	if err != nil {
		return err
	}
	// A delete that has begun finishes even if the client goes away.
	ctx := context.WithoutCancel(r.Context())
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := s.media.Delete(ctx, it.ID); err != nil {
		return err
	}
	s.mediaChanged(it.ID)
	return writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}

// decodeJSON reads a small JSON object body strictly: unknown fields,
// trailing data and wrong types are 400.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return badRequest("the body must be JSON (Content-Type: application/json)")
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxJSONBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errorf(fault.TooLarge, "JSON body over %d bytes", maxJSONBody)
		}
		if errors.Is(err, io.EOF) {
			return badRequest("empty body: send a JSON object")
		}
		return badRequest("invalid JSON body: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return badRequest("invalid JSON body: data after the object")
	}
	return nil
}
