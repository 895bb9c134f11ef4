package server

import (
	"github.com/folio-cms/folio/server/signin"
	"net/http"
	"sort"
	"strings"

	"github.com/folio-cms/folio/content/fault"
)

// hookPath is the webhook route. It is a POST but not a write: it only
// makes the box fetch the content repository, which a read-only box must
// keep doing to serve new commits.
const hookPath = "/api/v1/hooks/git"

// errReadOnly answers a write on a box started with --read-only.
var errReadOnly = errorf(fault.ReadOnly,
	"this folio is read-only: send writes (uploads, metadata changes, deletes, folders, presign and confirm) to a box started without --read-only")

// writes tells whether a route changes state the box owns. It is decided
// by the method alone, so a write route added to the table later is
// refused on a read-only box without anyone remembering to: everything but
// GET (and the HEAD and OPTIONS the router adds) is a write, except the
// webhook, which only triggers a fetch of content.
func (rte route) writes() bool {
	switch rte.method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	// The webhook only triggers a fetch; a preview token is signed, not
	// stored, signing out clears a cookie: none writes anything.
	return rte.path != hookPath && rte.path != previewsPath && rte.path != signin.LogoutPath
}

// refuseWrite answers a write route on a read-only box: 405 READ_ONLY with
// Allow naming the methods this box does serve at the path.
func (s *Server) refuseWrite(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Allow", s.readOnlyAllow(r.URL.Path))
	return errReadOnly
}

// readOnlyAllow lists the methods a read-only box serves at path p, as the
// router would write them in Allow: sorted, HEAD beside GET, OPTIONS when
// anything is allowed, "" when nothing is.
func (s *Server) readOnlyAllow(p string) string {
	return allowList(s.readRoutes, func(rte route) bool { return matchPattern(rte.path, p) })
}

// allowList formats the methods of the routes that keep selects as an
// Allow header does: sorted, HEAD beside GET, OPTIONS when anything is
// allowed, "" when nothing is.
func allowList(routes []route, keep func(route) bool) string {
	set := map[string]bool{}
	for _, rte := range routes {
		if !keep(rte) {
			continue
		}
		set[rte.method] = true
		if rte.method == http.MethodGet {
			set[http.MethodHead] = true
		}
	}
	if len(set) == 0 {
		return ""
	}
	set[http.MethodOptions] = true
	methods := make([]string, 0, len(set))
	for m := range set {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	return strings.Join(methods, ", ")
}

// matchPattern reports whether the path p matches the route pattern of the
// table: ":name" matches one non-empty segment, "*name" the rest of the
// path (possibly empty), as in httprouter.
func matchPattern(pattern, p string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(p, "/")
	for i, seg := range ps {
		if strings.HasPrefix(seg, "*") {
			return i < len(xs)
		}
		if i >= len(xs) {
			return false
		}
		if strings.HasPrefix(seg, ":") {
			if xs[i] == "" {
				return false
			}
			continue
		}
		if seg != xs[i] {
			return false
		}
	}
	return len(ps) == len(xs)
}
