package server

import (
	"net/http"
	"net/url"
	"strconv"
)

// query returns the request's query parameters, read-only. A request
// without a query string, the common case on the hot paths, gets nil
// (which reads as empty) rather than a fresh map on every call of
// URL.Query; a GET or HEAD gets the map parseQuery kept in r.Form, parsed
// once for the whole request (a filtered list asked for it five times:
// 2.4 KB of its 8 KB allocated per request, issue 34).
func query(r *http.Request) url.Values {
	if r.URL.RawQuery == "" {
		return nil
	}
	if r.Form != nil && readOnlyMethod(r.Method) {
		return r.Form
	}
	return r.URL.Query()
}

// parseQuery parses a GET or HEAD request's query once, into r.Form: for
// these methods what Request.ParseForm would put there (the URL's query
// alone), so that a later FormValue agrees. Other methods are left
// alone: their r.Form would hold a form body as well.
func parseQuery(r *http.Request) {
	if r.URL.RawQuery != "" && r.Form == nil && readOnlyMethod(r.Method) {
		r.Form = r.URL.Query()
	}
}

func readOnlyMethod(m string) bool { return m == http.MethodGet || m == http.MethodHead }

// page is a parsed limit/offset pair.
type page struct{ Limit, Offset int }

// maxOffset bounds offset so arithmetic on it never overflows.
const maxOffset = 1 << 30

// parsePage reads limit and offset: a missing limit is def, one above max is
// clamped to max (and echoed as such); a non-numeric, negative or zero limit
// and a non-numeric or negative offset are 400.
func parsePage(q url.Values, def, max int) (page, error) {
	p := page{Limit: def}
	if s, ok := q["limit"]; ok {
		n, err := strconv.Atoi(s[0])
		if err != nil && !isHugeNumber(s[0]) {
			return p, badRequest("limit must be a positive integer")
		}
		if err == nil && n < 1 {
			return p, badRequest("limit must be a positive integer")
		}
		if err != nil || n > max {
			n = max
		}
		p.Limit = n
	}
	if s, ok := q["offset"]; ok {
		n, err := strconv.Atoi(s[0])
		if err != nil && !isHugeNumber(s[0]) {
			return p, badRequest("offset must be a non-negative integer")
		}
		if err == nil && n < 0 {
			return p, badRequest("offset must be a non-negative integer")
		}
		if err != nil || n > maxOffset {
			n = maxOffset
		}
		p.Offset = n
	}
	return p, nil
}

// isHugeNumber tells a positive decimal too large for int (clamped, not an
// error) from garbage.
func isHugeNumber(s string) bool {
	if s == "" || len(s) > 1000 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// window returns the [from, to) bounds of a page over total items.
func (p page) window(total int) (int, int) {
	from := min(p.Offset, total)
	to := min(from+p.Limit, total)
	return from, to
}

// parseBool reads an optional boolean query parameter.
func parseBool(q url.Values, name string) (bool, error) {
	s, ok := q[name]
	if !ok {
		return false, nil
	}
	switch s[0] {
	case "true", "1":
		return true, nil
	case "false", "0", "":
		return false, nil
	}
	return false, badRequest("%s must be true or false", name)
}
