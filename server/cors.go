package server

import (
	"net/http"
	"strings"
)

// setCORS opens a public route to every origin: it serves no credentials
// and nothing private.
func setCORS(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "ETag, Retry-After, Content-Length, Content-Range")
}

// preflight answers OPTIONS: a CORS preflight on the public surface, a
// plain 204 with Allow (set by the router) elsewhere. On a read-only box
// Allow leaves out the write methods the box refuses.
func (s *Server) preflight(w http.ResponseWriter, r *http.Request) {
	if s.readOnly {
		w.Header().Set("Allow", s.readOnlyAllow(r.URL.Path))
	}
	if isPublicPath(r.URL.Path) {
		h := w.Header()
		setCORS(h)
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, If-None-Match, Range")
		h.Set("Access-Control-Max-Age", "86400")
	}
	w.WriteHeader(http.StatusNoContent)
}

func isPublicPath(p string) bool {
	return strings.HasPrefix(p, "/api/v1/public/") || strings.HasPrefix(p, "/uploads/")
}
