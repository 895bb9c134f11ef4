package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/folio-cms/folio/server"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// The OpenAPI document is checked two ways: TestOpenAPI_CoversRouteTable
// holds it against the route table, and every request the server tests
// send through send() (or apiClient) is validated with its response
// against it by specTransport, so neither the document nor the server can
// drift without a test failing.

var spec struct {
	once  sync.Once
	doc   *openapi3.T
	table []server.TableRoute
	err   error
}

// loadSpec loads and validates the document the server serves (kin-openapi
// loads OpenAPI 3.1 and validates with JSON Schema 2020-12 for it).
func loadSpec(t testing.TB) (*openapi3.T, []server.TableRoute) {
	t.Helper()
	spec.once.Do(func() {
		b, err := server.OpenAPI()
		if err != nil {
			spec.err = err
			return
		}
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(b)
		if err != nil {
			spec.err = err
			return
		}
		if err := doc.Validate(loader.Context); err != nil {
			spec.err = err
			return
		}
		spec.doc = doc
		spec.table = server.New(server.Config{}).Table()
	})
	if spec.err != nil {
		t.Fatalf("openapi document: %v", spec.err)
	}
	return spec.doc, spec.table
}

// specPath writes a route table pattern as an OpenAPI path:
// /api/v1/pages/*slug → /api/v1/pages/{slug}.
func specPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if len(s) > 1 && (s[0] == ':' || s[0] == '*') {
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}

func TestOpenAPI_CoversRouteTable(t *testing.T) {
	t.Parallel()
	doc, table := loadSpec(t)
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}
	inTable := map[string]bool{}
	for _, rt := range table {
		name := rt.Method + " " + specPath(rt.Path)
		inTable[name] = true
		item := doc.Paths.Find(specPath(rt.Path))
		if item == nil || item.GetOperation(rt.Method) == nil {
			t.Errorf("%s is in the route table but not in the OpenAPI document", name)
			continue
		}
		op := item.GetOperation(rt.Method)
		var scopes []string
		if raw, ok := op.Extensions["x-scopes"]; ok {
			for _, s := range raw.([]any) {
				scopes = append(scopes, s.(string))
			}
		} else {
			t.Errorf("%s: no x-scopes", name)
		}
		want := rt.Scopes
		if !slices.Equal(scopes, want) && !(len(scopes) == 0 && len(want) == 0) {
			t.Errorf("%s: x-scopes %v, the route table needs %v", name, scopes, want)
		}
		if op.Security == nil {
			t.Errorf("%s: no security requirement (write [] for none)", name)
			continue
		}
		keyOptional := len(*op.Security) == 0
		var bearer []string
		for _, req := range *op.Security {
			if len(req) == 0 {
				keyOptional = true
			}
			if s, ok := req["bearerAuth"]; ok && len(s) > 0 {
				bearer = s
			}
		}
		if keyOptional == rt.KeyRequired {
			t.Errorf("%s: the document says a key is optional: %v; the table: %v", name, keyOptional, !rt.KeyRequired)
		}
		if rt.KeyRequired && !slices.Equal(bearer, want) && !(len(bearer) == 0 && len(want) == 0) {
			t.Errorf("%s: security scopes %v, the route table needs %v", name, bearer, want)
		}
		// Any route may be rate limited or fail, and a key sent is
		// checked on every route, so an invalid one is 401 anywhere.
		for _, st := range []string{"401", "429", "500"} {
			if op.Responses.Value(st) == nil {
				t.Errorf("%s: no %s response", name, st)
			}
		}
		if rt.Writes && op.Responses.Value("405") == nil {
			t.Errorf("%s: a write route documents no 405 READ_ONLY", name)
		}
	}
	for p, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			name := method + " " + p
			for _, sub := range server.SubResources {
				if parent, ok := strings.CutSuffix(p, sub); ok && strings.HasSuffix(parent, "{slug}") && inTable[method+" "+parent] {
					name = method + " " + parent // served by the catch-all route
				}
			}
			if !inTable[name] {
				t.Errorf("%s is in the OpenAPI document but not in the route table", name)
			}
		}
	}
}

func TestOpenAPI_Served(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, siteFiles)
	ts := startServer(t, repo.bare)
	r := get(t, ts.URL+"/api/v1/openapi.json", "")
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	want, err := server.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Body, want) {
		t.Error("served document differs from server.OpenAPI()")
	}
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil || doc.OpenAPI != "3.1.0" || len(doc.Paths) == 0 {
		t.Fatalf("document: %v, openapi %q, %d paths", err, doc.OpenAPI, len(doc.Paths))
	}
	etag := r.Header.Get("ETag")
	if etag == "" || r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("headers: %v", r.Header)
	}
	if r := get(t, ts.URL+"/api/v1/openapi.json", "", "If-None-Match", etag); r.Status != http.StatusNotModified {
		t.Fatalf("If-None-Match: status %d", r.Status)
	}
}

// folioHosts are the host:port of the folio servers the tests started:
// specTransport validates their traffic and no one else's (S3, nginx,
// notify receivers). A test's servers leave it when the test ends: with
// tests in parallel, a port a finished test's folio had is soon another
// test's S3 server, whose answers are no folio's. Counted: a test's
// cleanup may run after its server closed and another's took the port.
var folioHosts = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

func registerFolio(t testing.TB, hostport string) {
	folioHosts.Lock()
	folioHosts.n[hostport]++
	folioHosts.Unlock()
	t.Cleanup(func() {
		folioHosts.Lock()
		defer folioHosts.Unlock()
		if folioHosts.n[hostport]--; folioHosts.n[hostport] <= 0 {
			delete(folioHosts.n, hostport)
		}
	})
}

func isFolio(hostport string) bool {
	folioHosts.Lock()
	defer folioHosts.Unlock()
	return folioHosts.n[hostport] > 0
}

// apiClient is an HTTP client whose every exchange with a folio server is
// validated against the OpenAPI document.
func apiClient(t testing.TB) *http.Client {
	return &http.Client{Transport: &specTransport{t: t, base: http.DefaultTransport}}
}

// specTransport validates each request to a folio server and its response
// against the document: the response must be documented for the
// operation (status, content type, body schema, required headers); a
// request the document calls invalid must be refused (4xx). Failures are
// reported with t.Errorf (safe from any goroutine).
type specTransport struct {
	t    testing.TB
	base http.RoundTripper
	// doc, when set, is the document to validate against in place of
	// the static one: the typed document a server serves for its site
	// (typedClient).
	doc *openapi3.T
}

// typedClient is apiClient validating against doc, the typed document a
// server serves (its per-type paths as well as the generic ones).
func typedClient(t testing.TB, doc *openapi3.T) *http.Client {
	return &http.Client{Transport: &specTransport{t: t, base: http.DefaultTransport, doc: doc}}
}

// outsideSpec is a request header (never sent: specTransport drops it)
// by which a test says that it sends, on purpose, a request the document
// does not allow and that the server accepts all the same (a limit above
// the maximum is clamped; encoding/json matches field names in any case).
// The response is still validated.
const outsideSpec = "X-Test-Outside-Spec"

// maxValidatedBody bounds the request bodies that are copied to be
// validated; larger ones (big uploads) are sent unchecked.
const maxValidatedBody = 1 << 20

func (st *specTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !isFolio(req.URL.Host) || req.Method == http.MethodOptions {
		return st.base.RoundTrip(req)
	}
	lenient := req.Header.Get(outsideSpec) != ""
	if lenient {
		req = req.Clone(req.Context())
		req.Header.Del(outsideSpec)
	}
	var reqBody []byte
	bodyKnown := req.Body == nil || req.Body == http.NoBody
	if !bodyKnown && req.GetBody != nil && req.ContentLength >= 0 && req.ContentLength <= maxValidatedBody {
		if rc, err := req.GetBody(); err == nil {
			reqBody, err = io.ReadAll(rc)
			rc.Close()
			bodyKnown = err == nil
		}
	}
	res, err := st.base.RoundTrip(req)
	if err != nil {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		// Cut off (a server killed under the request): nothing to check.
		res.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		return res, nil
	}
	if msg := checkExchange(st.t, st.doc, req, reqBody, bodyKnown, lenient, res, body); msg != "" {
		st.t.Errorf("OpenAPI: %s %s → %d: %s\nresponse: %.500s", req.Method, req.URL.RequestURI(), res.StatusCode, msg, body)
	}
	return res, nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// matchRoute finds the table route of a request path, static segments
// first (the router serves /media/folders before /media/:id).
func matchRoute(table []server.TableRoute, method, path string) (server.TableRoute, map[string]string, bool) {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	segs := strings.Split(path, "/")
	best, bestStatic := -1, -1
	var bestParams map[string]string
	for i, rt := range table {
		if rt.Method != method {
			continue
		}
		params, static, ok := matchPattern(strings.Split(rt.Path, "/"), segs)
		if ok && static > bestStatic {
			best, bestStatic, bestParams = i, static, params
		}
	}
	if best < 0 {
		return server.TableRoute{}, nil, false
	}
	return table[best], bestParams, true
}

func matchPattern(pat, segs []string) (map[string]string, int, bool) {
	params := map[string]string{}
	static := 0
	for i, p := range pat {
		if strings.HasPrefix(p, "*") {
			if i >= len(segs) {
				return nil, 0, false
			}
			params[p[1:]] = strings.Join(segs[i:], "/")
			return params, static, true
		}
		if i >= len(segs) {
			return nil, 0, false
		}
		switch {
		case strings.HasPrefix(p, ":"):
			if segs[i] == "" {
				return nil, 0, false
			}
			params[p[1:]] = segs[i]
		case p == segs[i]:
			static++
		default:
			return nil, 0, false
		}
	}
	return params, static, len(pat) == len(segs)
}

func checkExchange(t testing.TB, typed *openapi3.T, req *http.Request, reqBody []byte, bodyKnown, lenient bool, res *http.Response, body []byte) string {
	doc, table := loadSpec(t)
	if typed != nil {
		doc = typed
	}
	ctx := context.Background()
	rt, params, ok := matchRoute(table, req.Method, req.URL.Path)
	if !ok {
		// No route (404), no such method (405), or a rate limit before
		// routing: the error shape only.
		switch res.StatusCode {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusTooManyRequests:
		default:
			return "a request matching no route answered " + res.Status
		}
		return checkErrorBody(doc, body)
	}
	if rt.Path == "/admin/*file" && params["file"] == "" {
		// /admin/ serves the page itself, index.html; an OpenAPI path
		// parameter cannot be empty, so it is checked under that name.
		params["file"] = "index.html"
	}
	path := specPath(rt.Path)
	if strings.HasSuffix(rt.Path, "/*slug") && res.StatusCode != http.StatusNotFound {
		// A sub-resource of a document (…/{slug}/history): its own
		// operation in the document.
		for _, sub := range server.SubResources {
			if base, ok := strings.CutSuffix(params["slug"], sub); ok && base != "" {
				path, params["slug"] = path+sub, base
				break
			}
		}
	}
	if typ, ok := params["type"]; ok {
		// A type with its own paths in a typed document: those describe
		// it (a concrete path matches before a templated one).
		concrete := strings.Replace(path, "{type}", typ, 1)
		if doc.Paths.Value(concrete) != nil {
			path = concrete
			delete(params, "type")
		}
	}
	item := doc.Paths.Find(path)
	if item == nil || item.GetOperation(rt.Method) == nil {
		return "no operation " + rt.Method + " " + path + " in the document"
	}
	opts := &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		MultiError:            true,
	}
	clone := req.Clone(ctx)
	clone.Method = rt.Method
	clone.Body = io.NopCloser(bytes.NewReader(reqBody))
	if !bodyKnown {
		// Bodies too large to copy (over maxValidatedBody, or streamed)
		// are not checked; their responses are.
		opts.ExcludeRequestBody = true
	}
	in := &openapi3filter.RequestValidationInput{
		Request:    clone,
		PathParams: params,
		Route: &routers.Route{Spec: doc, Path: path, PathItem: item, Method: rt.Method,
			Operation: item.GetOperation(rt.Method)},
		Options: opts,
	}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil && res.StatusCode < 400 && !lenient {
		return "the document refuses this request, the server answered " + res.Status + ": " + err.Error()
	}
	// Bodies of types documented without a schema (/uploads/ files) are
	// not decoded; their content type must still be documented. kin
	// skips HEAD responses and 304s.
	ropts := *opts
	switch enc := res.Header.Get("Content-Encoding"); {
	case req.Method == http.MethodHead || res.StatusCode == http.StatusNotModified:
	case enc == "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return "Content-Encoding gzip, but the body is not: " + err.Error()
		}
		if body, err = io.ReadAll(zr); err != nil {
			return "Content-Encoding gzip, but the body is not: " + err.Error()
		}
	case enc == "br":
		var err error
		if body, err = io.ReadAll(brotli.NewReader(bytes.NewReader(body))); err != nil {
			return "Content-Encoding br, but the body is not: " + err.Error()
		}
	}
	switch {
	case req.Method == http.MethodHead:
		// No body to hold against the schema; status and headers are.
		ropts.ExcludeResponseBody = true
	case req.URL.Query().Has("fields"):
		// A projection: the fields asked for of the documented object.
		ropts.ExcludeResponseBody = true
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 res.StatusCode,
		Header:                 res.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &ropts,
	}
	if res.StatusCode == http.StatusNotModified && res.Header.Get("ETag") == "" {
		// kin-openapi does not look at 304s.
		return "a 304 without its ETag"
	}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		return err.Error()
	}
	return ""
}

func checkErrorBody(doc *openapi3.T, body []byte) string {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return "error body is not JSON: " + err.Error()
	}
	if err := doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		return "error body: " + err.Error()
	}
	return ""
}
