package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// setCORS opens a public route to every origin: it serves no credentials
// and nothing private.
func setCORS(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", corsExposed)
}

const (
	corsExposed = "ETag, Retry-After, Content-Length, Content-Range, Location, X-Folio-Commit"
	// corsKeyedHeaders are the request headers a front end on a listed
	// origin may send to a keyed route.
	corsKeyedHeaders = "Authorization, Content-Type, If-Match, If-None-Match"
)

// Origins is the set of exact origins (scheme://host[:port]) that may
// call the keyed routes from a browser.
type Origins map[string]bool

// ParseOrigins reads a comma-separated list of origins. Each must be an
// exact http(s) origin: no path, query, user, or wildcard; "*" is refused,
// since a keyed response must name the one origin it is for.
func ParseOrigins(list string) (Origins, error) {
	o := Origins{}
	for _, raw := range strings.Split(list, ",") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Contains(u.Host, "*") ||
			u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("CORS origin %q: want scheme://host[:port], exactly as a browser sends it in Origin", raw)
		}
		o[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	return o, nil
}

// allows reports whether the request's Origin is listed. Browsers send
// the origin lower case, as ParseOrigins keeps it.
func (o Origins) allows(origin string) bool { return origin != "" && o[origin] }

// setKeyedCORS answers a keyed route for a listed origin: that origin, never
// "*", and Vary: Origin whenever origins are configured, so that a shared
// cache never hands one origin's answer to another.
func (s *Server) setKeyedCORS(h http.Header, origin string) {
	if len(s.corsOrigins) == 0 {
		return
	}
	h.Add("Vary", "Origin")
	if s.corsOrigins.allows(origin) {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", corsExposed)
	}
}

// preflight answers OPTIONS: a CORS preflight on the public surface for any
// origin, on a keyed route for an origin of --cors-origins (with the
// methods the route serves), and a plain 204 with Allow (set by the
// router) elsewhere. On a read-only box Allow leaves out the write methods
// the box refuses.
func (s *Server) preflight(w http.ResponseWriter, r *http.Request) {
	if s.readOnly {
		w.Header().Set("Allow", s.readOnlyAllow(r.URL.Path))
	}
	h := w.Header()
	switch {
	case isPublicPath(r.URL.Path):
		setCORS(h)
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, If-None-Match, Range")
		h.Set("Access-Control-Max-Age", "86400")
	case len(s.corsOrigins) > 0:
		h.Add("Vary", "Origin")
		methods := s.keyedMethods(r.URL.Path)
		if methods == "" || !s.corsOrigins.allows(r.Header.Get("Origin")) {
			break
		}
		h.Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
		h.Set("Access-Control-Allow-Methods", methods)
		h.Set("Access-Control-Allow-Headers", corsKeyedHeaders)
		h.Set("Access-Control-Expose-Headers", corsExposed)
		h.Set("Access-Control-Max-Age", "600")
	}
	w.WriteHeader(http.StatusNoContent)
}

// keyedMethods lists the methods of the keyed routes at path p, as
// Access-Control-Allow-Methods: "" when p is no keyed route. A static
// route hides the parameter routes beside it, as in the router
// (/api/v1/media/folders is no /api/v1/media/:id). A read-only box leaves
// out the writes it refuses.
func (s *Server) keyedMethods(p string) string {
	exact := false
	for _, rte := range s.keyedRoutes {
		exact = exact || rte.path == p
	}
	return allowList(s.keyedRoutes, func(rte route) bool {
		return (!exact || rte.path == p) && matchPattern(rte.path, p) && !(s.readOnly && rte.writes())
	})
}

func isPublicPath(p string) bool {
	return strings.HasPrefix(p, "/api/v1/public/") || strings.HasPrefix(p, "/uploads/")
}
