package server

import (
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/folio-cms/folio/server/repr"
	"github.com/julienschmidt/httprouter"
)

// maxSitePath is the longest path GET /api/v1/resolve takes.
const maxSitePath = 2048

// resolve serves the page or item whose path on the site is ?path= (its
// `path` field): a front end's catch-all route asks for the URL it was
// given. A path without its trailing slash finds the document too
// (/2019/01/01/report is /2019/01/01/report/).
func (s *contentHandlers) resolve(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	q := query(r)
	p := q.Get("path")
	switch {
	case p == "":
		return badRequest("path is required: the document's path on the site, /2019/01/01/report/")
	case !strings.HasPrefix(p, "/"), len(p) > maxSitePath, !utf8.ValidString(p), strings.ContainsAny(p, "\x00?#"):
		return badRequest("path: want a path on the site beginning with '/', at most %d bytes, without '?' or '#'", maxSitePath)
	}
	v, cc, err := s.view(w, r)
	if err != nil {
		return err
	}
	found, ok := v.Resolve(p)
	if !ok && !strings.HasSuffix(p, "/") && path.Ext(p) == "" {
		found, ok = v.Resolve(p + "/")
	}
	if !ok {
		return notFound("no page or item with path %q", p)
	}
	allowed := repr.PageFields
	if found.Type != "" {
		allowed = repr.ItemFields
	}
	f, err := fieldsParam(r, allowed)
	if err != nil {
		return err
	}
	e, err := expandParam(r, v, false)
	if err != nil {
		return err
	}
	return s.serveOne(w, r, v, found.Res, f, e, cc)
}
