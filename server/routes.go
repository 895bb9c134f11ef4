package server

import (
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/server/signin"
	"github.com/folio-cms/folio/server/transport"
	"github.com/julienschmidt/httprouter"
)

// handler is a route's handler: it writes a response or returns an error,
// which the router turns into the contract's error shape.
type handler func(w http.ResponseWriter, r *http.Request, p httprouter.Params) error

// route is one row of the route table.
type route struct {
	method string
	path   string
	access access
	cors   bool // the public surface: CORS for any origin
	h      handler
}

// table is every route of the API, in one place.
func (s *Server) table() []route {
	return []route{
		{"GET", "/healthz", noKey, false, s.healthz},
		{"GET", "/api/v1/status", anyKey, false, s.status},
		{"GET", "/api/v1/openapi.json", noKey, true, s.content.openapi},
		{"POST", hookPath, noKey, false, s.gitHook},

		{"GET", "/api/v1/pages", needsKey(ScopeContentRead), false, s.content.listPages},
		{"GET", "/api/v1/pages/*slug", needsKey(ScopeContentRead), false, s.content.getPage},
		{"GET", "/api/v1/content/:type", needsKey(ScopeContentRead), false, s.content.listItems},
		{"GET", "/api/v1/content/:type/*slug", needsKey(ScopeContentRead), false, s.content.getItem},
		{"GET", "/api/v1/resolve", needsKey(ScopeContentRead), false, s.content.resolve},
		{"GET", "/api/v1/globals", needsKey(ScopeContentRead), false, s.content.globals},
		{"PUT", "/api/v1/globals", needsKey(ScopeContentWrite), false, s.write.writeRoute(write.KindGlobals, wReplace)},
		{"PATCH", "/api/v1/globals", needsKey(ScopeContentWrite), false, s.write.writeRoute(write.KindGlobals, wPatch)},
		{"POST", "/api/v1/publish", needsKey(ScopeContentWrite, ScopeContentDraft), false, s.write.publish},
		{"POST", "/api/v1/pages", needsKey(ScopeContentWrite), false, s.write.writeRoute(write.KindPage, wCreate)},
		{"PUT", "/api/v1/pages/*slug", needsKey(ScopeContentWrite), false, s.write.writeRoute(write.KindPage, wReplace)},
		{"PATCH", "/api/v1/pages/*slug", needsKey(ScopeContentWrite), false, s.write.writeRoute(write.KindPage, wPatch)},
		{"DELETE", "/api/v1/pages/*slug", needsKey(ScopeContentWrite), false, s.write.writeRoute(write.KindPage, wDelete)},
		{"POST", "/api/v1/content/:type", needsKey(ScopeContentWrite), false, s.write.writeRoute(write.KindItem, wCreate)},
		{"PUT", "/api/v1/content/:type/*slug", needsKey(ScopeContentWrite), false, s.write.writeRoute(write.KindItem, wReplace)},
		{"PATCH", "/api/v1/content/:type/*slug", needsKey(ScopeContentWrite), false, s.write.writeRoute(write.KindItem, wPatch)},
		{"DELETE", "/api/v1/content/:type/*slug", needsKey(ScopeContentWrite), false, s.write.writeRoute(write.KindItem, wDelete)},
		{"GET", "/api/v1/globals/history", needsKey(ScopeContentRead), false, s.content.globalsHistory},
		{"GET", "/api/v1/locales", needsKey(ScopeContentRead), false, s.content.listLocales},
		{"GET", "/api/v1/refs", needsKey(ScopeContentPreview), false, s.content.listRefs},
		{"POST", previewsPath, needsKey(ScopeContentPreview), false, s.content.createPreview},
		{"GET", "/api/v1/changes", needsKey(ScopeContentRead), false, s.content.changes},
		{"GET", "/api/v1/schemas", needsKey(ScopeContentRead), false, s.content.listSchemas},
		{"GET", "/api/v1/schemas/:type", needsKey(ScopeContentRead), false, s.content.getSchema},
		{"GET", "/api/v1/search", needsKey(ScopeContentRead), false, s.content.searchContent},
		{"GET", "/api/v1/public/search", noKey, true, s.content.searchPublic},
		{"GET", "/api/v1/public/collections/:type", noKey, true, s.content.listPublicItems},
		{"GET", "/api/v1/public/collections/:type/*slug", noKey, true, s.content.getPublicItem},

		{"GET", "/api/v1/public/media", noKey, true, s.mediaAPI.listPublicMedia},
		{"GET", "/api/v1/public/media/:id", noKey, true, s.mediaAPI.getPublicMedia},
		{"GET", "/api/v1/media", needsKey(ScopeMediaRead), false, s.mediaAPI.listMedia},
		{"POST", "/api/v1/media", needsKey(ScopeMediaWrite), false, s.mediaAPI.upload},
		{"GET", "/api/v1/media/folders", needsKey(ScopeMediaRead), false, s.mediaAPI.listFolders},
		{"POST", "/api/v1/media/folders", needsKey(ScopeMediaWrite), false, s.mediaAPI.createFolder},
		{"DELETE", "/api/v1/media/folders", needsKey(ScopeMediaDelete), false, s.mediaAPI.deleteFolder},
		{"POST", "/api/v1/media/presign", needsKey(ScopeMediaWrite), false, s.mediaAPI.presign},
		{"POST", "/api/v1/media/confirm", needsKey(ScopeMediaWrite), false, s.mediaAPI.confirm},
		{"GET", "/api/v1/media/:id", needsKey(ScopeMediaRead), false, s.mediaAPI.getMedia},
		{"GET", "/api/v1/media/:id/referrers", needsKey(ScopeMediaRead, ScopeContentRead), false, s.mediaReferrers},
		{"PATCH", "/api/v1/media/:id", needsKey(ScopeMediaWrite), false, s.mediaAPI.patchMedia},
		{"DELETE", "/api/v1/media/:id", needsKey(ScopeMediaDelete), false, s.mediaAPI.deleteMedia},

		{"GET", "/uploads/*key", noKey, true, s.mediaAPI.serveUpload},

		{"POST", decapPath, needsKey(ScopeContentWrite), false, s.decap.decapRPC},

		{"GET", signin.LoginPath, noKey, false, s.auth.authLogin},
		{"GET", signin.CallbackPath, noKey, false, s.auth.authCallback},
		{"GET", signin.SessionPath, noKey, false, s.auth.authSession},
		{"GET", signin.ProvidersPath, noKey, false, s.auth.authProviders},
		{"GET", signin.ListPath, noKey, false, s.auth.authEditors},
		{"POST", signin.LogoutPath, noKey, false, s.auth.authLogout},

		{"GET", "/admin", noKey, false, s.admin.adminRedirect},
		{"GET", "/admin/*file", noKey, false, s.admin.adminFile},
	}
}

// routes builds the router from the table (httprouter's one limit is
// worked around in router.go).
func (s *Server) routes() http.Handler {
	rt := httprouter.New()
	rt.RedirectTrailingSlash = false
	rt.RedirectFixedPath = false
	rt.HandleMethodNotAllowed = true
	rt.NotFound = s.errorHandler(notFound("no such route"))
	notAllowed := s.errorHandler(errorf(fault.NotAllowed, "method not allowed on this route"))
	rt.MethodNotAllowed = notAllowed
	if s.readOnly {
		// The router's Allow names the write methods too; this box refuses them.
		rt.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", s.readOnlyAllow(r.URL.Path))
			notAllowed.ServeHTTP(w, r)
		})
	}
	rt.PanicHandler = s.panicked
	rt.GlobalOPTIONS = http.HandlerFunc(s.preflight)

	table := s.table()
	for _, rte := range table {
		if !rte.writes() {
			s.readRoutes = append(s.readRoutes, route{method: rte.method, path: rte.path})
		}
		if rte.access.required {
			s.keyedRoutes = append(s.keyedRoutes, route{method: rte.method, path: rte.path})
		}
	}
	handles := make([]routeHandle, len(table))
	for i, rte := range table {
		handles[i] = routeHandle{rte.method, rte.path, s.handle(rte)}
	}
	notAllowedHandle := func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		rt.MethodNotAllowed.ServeHTTP(w, r)
	}
	for _, h := range foldStaticSiblings(handles, notAllowedHandle) {
		rt.Handle(h.method, h.path, h.h)
		if h.method == http.MethodGet {
			rt.Handle(http.MethodHead, h.path, h.h)
		}
	}
	return rt
}

// handle applies, in order: CORS headers (any origin on the public
// surface, the --cors-origins on keyed routes), the per-IP rate limit, the
// read-only refusal of write routes, the key check, the per-key rate limit,
// and the error mapping of the handler.
func (s *Server) handle(rte route) httprouter.Handle {
	label := routeLabel(rte.path)
	rm := s.metrics.forRoute(label, rte.method)
	var rmHead *routeMetrics
	if rte.method == http.MethodGet {
		rmHead = s.metrics.forRoute(label, http.MethodHead)
	}
	return func(w http.ResponseWriter, r *http.Request, p httprouter.Params) {
		// Checked first: building the log record's arguments allocates
		// even when the level is off, on every request.
		debug := s.log.Enabled(r.Context(), slog.LevelDebug)
		var start time.Time
		if rm != nil || debug {
			start = time.Now()
		}
		if rm == nil {
			if err := s.serve(w, r, rte, p); err != nil {
				s.writeError(w, r, err)
			}
		} else {
			sw := statusWriters.Get().(*statusWriter)
			sw.ResponseWriter, sw.status = w, 0
			if err := s.serve(sw, r, rte, p); err != nil {
				s.writeError(sw, r, err)
			}
			obs := rm
			if r.Method == http.MethodHead && rmHead != nil {
				obs = rmHead
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			obs.observe(status, time.Since(start))
			sw.ResponseWriter = nil
			statusWriters.Put(sw)
		}
		if debug {
			s.log.Debug("request", "method", r.Method, "path", r.URL.Path, "took", time.Since(start))
		}
	}
}

// errorHandler answers every request with err (unknown routes, methods).
func (s *Server) errorHandler(err *fault.Error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := s.ipLimit.Allow(s.clientIP(r)); !ok {
			s.metrics.rateLimited("ip")
			s.metrics.unmatched(r.Method, http.StatusTooManyRequests)
			s.writeError(w, r, rateLimited(w, wait))
			return
		}
		s.metrics.unmatched(r.Method, statusOf(err))
		s.writeError(w, r, err)
	})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, rte route, p httprouter.Params) error {
	if rte.cors {
		setCORS(w.Header())
	} else if rte.access.required {
		s.setKeyedCORS(w.Header(), r.Header.Get("Origin"))
	}
	if ok, wait := s.ipLimit.Allow(s.clientIP(r)); !ok {
		s.metrics.rateLimited("ip")
		return rateLimited(w, wait)
	}
	// Before the key check: the refusal depends on the route alone, so it
	// tells a caller without a key nothing it could not read in the docs,
	// and it spares the key lookup.
	if s.readOnly && rte.writes() {
		return s.refuseWrite(w, r)
	}
	r, acc, err := s.withPreview(r, rte)
	if err != nil {
		return err
	}
	// The public surface (cacheable by CDNs) never reads a session.
	r, err = s.authenticate(r, acc, !rte.cors)
	if err != nil {
		return err
	}
	if pr := principalFrom(r.Context()); pr != nil {
		s.signin.Touch(w, r, pr)
	}
	if k := keyFrom(r.Context()); k != nil {
		if ok, wait := s.keyLimit.Allow(k.Name); !ok {
			s.metrics.rateLimited("key")
			return rateLimited(w, wait)
		}
	}
	parseQuery(r)
	return rte.h(w, r, p)
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if r.ContentLength != 0 {
		if slow := transport.CloseUnread(w, r); slow != nil {
			err = slow
		}
	}
	e, known := asError(err)
	switch {
	case known && e.Status == http.StatusServiceUnavailable && e.Code == CodeUnavailable:
		// The client sees a generic message; the cause is for the logs.
		s.log.Warn("storage unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
	case known:
	case r.Context().Err() != nil:
		// The client went away (it will not read the answer): not a fault.
		s.log.Debug("request abandoned by the client", "method", r.Method, "path", r.URL.Path, "err", err)
	default:
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	w.Header().Del("ETag")
	w.Header().Del("Content-Length")
	w.Header().Del("Surrogate-Key")
	w.Header().Del("Cache-Tag")
	w.Header().Del("Content-Encoding")
	w.Header().Set("Cache-Control", "no-store")
	if e.RetryAfter > 0 {
		// E.g. a write that waited its turn too long behind a push to a
		// slow remote: when to come back.
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
	}
	body := errorBody{Error: e.Code, Message: e.Message, Fields: e.Fields}
	_ = writeJSON(w, e.Status, body)
	if r.ContentLength != 0 {
		transport.LingerUnread(w, r)
	}
}

func (s *Server) panicked(w http.ResponseWriter, r *http.Request, v any) {
	s.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
	s.metrics.panicked()
	s.writeError(w, r, errInternal)
}
