package server

import (
	"net/http"
	"strings"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/media"
	"github.com/julienschmidt/httprouter"
)

// subReferrers is the sub-resource of a page or item that lists the
// documents referring to it: GET …/{slug}/referrers.
const subReferrers = "/referrers"

// Page sizes of referrer lists.
const (
	referrersDefaultLimit = 20
	referrersMaxLimit     = 100
)

// referrersBody is the answer of a referrers route.
type referrersBody struct {
	Items  []engine.Referrer `json:"items"`
	Total  int               `json:"total"`
	Limit  int               `json:"limit"`
	Offset int               `json:"offset"`
}

// serveReferrers answers the documents of v that refer to q's target,
// a page of them. Drafts are in v only with draft=true (content:draft).
func serveReferrers(w http.ResponseWriter, r *http.Request, v *engine.View, q engine.ReferrersQuery, cc string) error {
	pg, err := parsePage(query(r), referrersDefaultLimit, referrersMaxLimit)
	if err != nil {
		return err
	}
	all := v.Referrers(q)
	from, to := pg.window(len(all))
	items := all[from:to]
	if items == nil {
		items = []engine.Referrer{}
	}
	return serveJSON(w, r, referrersBody{Items: items, Total: len(all), Limit: pg.Limit, Offset: pg.Offset}, cc, keyHdr{})
}

// mediaReferrers answers GET /api/v1/media/{id}/referrers: the documents
// that refer to the media item as media:<id>, by the /uploads/ path of
// its original or of a derivative, or by their absolute public URL. It
// needs content:read besides media:read (it lists documents: the route
// table says so), and content:draft for draft=true.
func (s *Server) mediaReferrers(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	it, err := s.mediaAPI.item(p)
	if err != nil {
		return err
	}
	v, cc, err := s.content.view(w, r)
	if err != nil {
		return err
	}
	q := engine.ReferrersQuery{MediaID: it.ID, MediaKeys: []string{it.Key}}
	for _, sz := range it.Sizes {
		q.MediaKeys = append(q.MediaKeys, sz.Key)
	}
	return serveReferrers(w, r, v, q, cc)
}

// MediaBases are the absolute URL bases of the library's files (the
// --public-url form of local storage, the S3 public URL), for
// engine.Config.MediaBases: content that refers to a file by its
// absolute URL refers to its media item. None for site-relative
// /uploads/ URLs (those are read as such already).
func MediaBases(st media.Storage) []string {
	base := st.URL("")
	if !strings.HasPrefix(base, "https://") && !strings.HasPrefix(base, "http://") {
		return nil
	}
	return []string{base}
}
