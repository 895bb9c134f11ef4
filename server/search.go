package server

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/search"
	"github.com/julienschmidt/httprouter"
)

// maxSearchText bounds q, in bytes.
const maxSearchText = 500

// searchList is the body of a search response.
type searchList struct {
	Items  []search.SearchHit `json:"items"`
	Total  int                `json:"total"`
	Limit  int                `json:"limit"`
	Offset int                `json:"offset"`
}

// searchContent serves GET /api/v1/search: pages and items of the view
// (draft=true: the draft view, with content:draft).
func (s *contentHandlers) searchContent(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	q := query(r)
	sq, pg, err := parseSearch(q)
	if err != nil {
		return err
	}
	if _, ok := q["ref"]; ok {
		return badRequest("search covers the published and draft branches: ref is not served here")
	}
	v, cc, err := s.view(w, r)
	if err != nil {
		return err
	}
	sq.Draft, _ = parseBool(q, "draft") // s.view checked it
	sq.Locale = v.Locale()
	var keys []string
	if sq.Type != "" {
		t, ok := v.Type(sq.Type)
		if !ok {
			return notFound("no content type %q", sq.Type)
		}
		keys = []string{typeKey(v, t.Name)}
	} else {
		pk, _ := v.PagesKeys()
		if len(pk) == 0 {
			pk = []string{engine.KeyPages}
		}
		keys = append(pk[:1:1], typeKeys(v, false)...)
	}
	return s.serveSearch(w, r, sq, pg, cc, keys)
}

// searchPublic serves GET /api/v1/public/search: the published items of
// the public types, without a key.
func (s *contentHandlers) searchPublic(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if err := refuseDraft(r); err != nil {
		return err
	}
	sq, pg, err := parseSearch(query(r))
	if err != nil {
		return err
	}
	sq.PublicOnly = true
	v, err := s.localize(w, query(r), s.engine.View(false))
	if err != nil {
		return err
	}
	sq.Locale = v.Locale()
	var keys []string
	if sq.Type != "" {
		t, ok := v.Type(sq.Type)
		if !ok || !t.Config.Public {
			return notFound("no content type %q", sq.Type)
		}
		keys = []string{typeKey(v, t.Name)}
	} else {
		keys = typeKeys(v, true)
	}
	return s.serveSearch(w, r, sq, pg, cachePublicShort, keys)
}

// parseSearch reads q, type, limit and offset; draft is the view's.
func parseSearch(q url.Values) (search.SearchQuery, page, error) {
	var sq search.SearchQuery
	pg, err := parsePage(q, contentDefaultLimit, contentMaxLimit)
	if err != nil {
		return sq, pg, err
	}
	text := strings.TrimSpace(q.Get("q"))
	switch {
	case text == "":
		return sq, pg, badRequest("q is required: the words to search for")
	case len(text) > maxSearchText:
		return sq, pg, badRequest("q is too long: at most %d bytes", maxSearchText)
	case !utf8.ValidString(text):
		return sq, pg, badRequest("q must be UTF-8 text")
	}
	sq.Text = text
	if raw := q.Get("q"); strings.TrimRightFunc(raw, unicode.IsSpace) != raw {
		// a space after the last word: it is finished, not a prefix
		// being typed (see search.SearchQuery)
		sq.Text += " "
	}
	if typ := q.Get("type"); typ != "" {
		if !content.ValidType(typ) {
			return sq, pg, badRequest("invalid content type: use lower-case letters, digits, '_' and '-'")
		}
		sq.Type = typ
	}
	sq.Limit, sq.Offset = pg.Limit, pg.Offset
	return sq, pg, nil
}

func (s *contentHandlers) serveSearch(w http.ResponseWriter, r *http.Request, sq search.SearchQuery, pg page, cc string, keys []string) error {
	res, err := s.engine.Search(r.Context(), sq)
	switch {
	case errors.Is(err, search.ErrSearchBusy):
		w.Header().Set("Retry-After", "5")
		return err
	case err != nil && r.Context().Err() != nil:
		// The client hung up while the search waited for the index:
		// nothing to log, and no one reads the answer.
		return errorf(fault.SearchBuilding, "the request ended before the search index was ready")
	case err != nil:
		return err
	}
	kh := keyHdr{}
	if len(keys) > 0 {
		kh = keysOf([]string{strings.Join(keys, " ")}, []string{strings.Join(keys, ",")})
	}
	return serveJSON(w, r, searchList{Items: res.Hits, Total: res.Total, Limit: pg.Limit, Offset: pg.Offset}, cc, kh)
}

// typeKeys are the surrogate keys of the view's types (public ones only
// with public), sorted.
func typeKeys(v *engine.View, public bool) []string {
	var keys []string
	for _, name := range v.TypeNames() {
		if t, _ := v.Type(name); !public || t.Config.Public {
			keys = append(keys, typeKey(v, name))
		}
	}
	return keys
}

// typeKey is the surrogate key of a type's list in the view's locale.
func typeKey(v *engine.View, name string) string {
	if v.Locale() == "" {
		return engine.TypeKey(name)
	}
	return engine.TypeKey(name) + "@" + v.Locale()
}
