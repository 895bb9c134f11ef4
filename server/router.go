package server

import (
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// httprouter (the design card's router) v1.3 cannot hold a static segment
// beside a parameter in one folder: /api/v1/media/folders next to
// /api/v1/media/:id panics at registration. foldStaticSiblings is the one
// place that works around it: such a static route becomes a named case of
// its parameter sibling, which dispatches on the parameter's value, so
// the route table can list both as the contract does.

// routeHandle is one route for the router: method, pattern, handle.
type routeHandle struct {
	method, path string
	h            httprouter.Handle
}

// foldStaticSiblings returns routes with every static route that has a
// parameter route in its folder (/a/b beside /a/:id) folded into that
// parameter route, for each method: the parameter route's handle serves
// the static one when the parameter's value is its name, else its own
// handle, else notAllowed (a method only the static route answers). The
// order of the result follows the input's.
func foldStaticSiblings(routes []routeHandle, notAllowed httprouter.Handle) []routeHandle {
	type key struct{ method, path string }
	paramRoute := map[string]string{} // folder -> the parameter route in it
	for _, rt := range routes {
		if dir, last := path.Split(rt.path); strings.HasPrefix(last, ":") {
			paramRoute[dir] = rt.path
		}
	}
	var order []key
	handles := map[key]httprouter.Handle{}
	named := map[key]map[string]httprouter.Handle{}
	for _, rt := range routes {
		k := key{rt.method, rt.path}
		dir, last := path.Split(rt.path)
		if pr, ok := paramRoute[dir]; ok && pr != rt.path {
			k = key{rt.method, pr}
			if named[k] == nil {
				named[k] = map[string]httprouter.Handle{}
			}
			named[k][last] = rt.h
		} else {
			handles[k] = rt.h
		}
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	for k, names := range named {
		param := strings.TrimPrefix(path.Base(k.path), ":")
		fallback := handles[k]
		if fallback == nil {
			fallback = notAllowed
		}
		handles[k] = func(w http.ResponseWriter, r *http.Request, p httprouter.Params) {
			if h, ok := names[p.ByName(param)]; ok {
				h(w, r, p)
				return
			}
			fallback(w, r, p)
		}
	}
	out := make([]routeHandle, 0, len(order))
	for _, k := range order {
		out = append(out, routeHandle{k.method, k.path, handles[k]})
	}
	return out
}
