package server_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
	"github.com/getkin/kin-openapi/openapi3"
)

// loadTyped loads and validates the document a server serves to key.
func loadTyped(t *testing.T, url, key string) *openapi3.T {
	t.Helper()
	res := get(t, url+"/api/v1/openapi.json", key)
	if res.Status != http.StatusOK {
		t.Fatalf("openapi.json: %d", res.Status)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("typed document does not validate: %v", err)
	}
	return doc
}

// typedGet is get validated against doc (the per-type paths).
func typedGet(t *testing.T, doc *openapi3.T, url, key string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := typedClient(t, doc).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: b}
}

// TestOpenAPI_TypedPaths: each modelled type has its own paths in the
// typed document (a private type's only for a key with content:read),
// and the server's real answers on them validate against them: typed
// items and lists, the typed filter (either spelling of a field), and the
// site's locales.
func TestOpenAPI_TypedPaths(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, fixtureSite(t))
	ts := startServer(t, repo.bare)
	key := ts.reader(t)

	anon := loadTyped(t, ts.URL, "")
	full := loadTyped(t, ts.URL, key)
	for _, tc := range []struct {
		doc  *openapi3.T
		path string
		want bool
	}{
		{anon, "/api/v1/content/posts/{slug}", true},
		{anon, "/api/v1/public/collections/posts", true},
		{anon, "/api/v1/content/products", false}, // private: hidden without a key
		{full, "/api/v1/content/products", true},
		{full, "/api/v1/content/products/{slug}", true},
		{full, "/api/v1/public/collections/products", false}, // not public
		{full, "/api/v1/content/{type}/{slug}", true},        // the generic paths stay
	} {
		if got := tc.doc.Paths.Value(tc.path) != nil; got != tc.want {
			t.Errorf("%s in the document: %v, want %v", tc.path, got, tc.want)
		}
	}
	op := full.Paths.Value("/api/v1/content/posts/{slug}").Get
	if op == nil || op.OperationID != "getItem_posts" ||
		op.Responses.Value("200").Value.Content["application/json"].Schema.Ref != "#/components/schemas/Item_posts" {
		t.Fatalf("GET /api/v1/content/posts/{slug}: %+v", op)
	}
	for _, p := range op.Parameters {
		if p.Value.Name == "type" {
			t.Errorf("the per-type path takes a type parameter")
		}
	}

	for _, u := range []struct{ url, key string }{
		{"/api/v1/content/posts", key},
		{"/api/v1/content/posts/hello-world", key},
		{"/api/v1/content/posts/hello-world?expand=*", key},
		{"/api/v1/content/products?filter[price][gt]=1", key},
		{"/api/v1/content/products?filter[data.rating][gte]=0&sort=-price", key},
		{"/api/v1/content/products?filter[data.colors][in]=red,blue", key},
		{"/api/v1/public/collections/posts", ""},
		{"/api/v1/public/collections/posts/hello-world", ""},
		{"/api/v1/public/collections/posts?filter[author][eq]=nobody", ""},
	} {
		doc := full
		if u.key == "" {
			doc = anon
		}
		if r := typedGet(t, doc, ts.URL+u.url, u.key); r.Status != http.StatusOK {
			t.Errorf("%s: %d %s", u.url, r.Status, r.Body)
		}
	}
	// A wrong field type is caught on the per-type path (and only there:
	// the generic Item does not type data).
	post := typedGet(t, full, ts.URL+"/api/v1/content/posts/hello-world", key)
	bad := bytes.Replace(post.Body, []byte(`"author":"`), []byte(`"author":7,"x":"`), 1)
	if bytes.Equal(bad, post.Body) {
		t.Fatalf("no author in %s", post.Body)
	}
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/v1/content/posts/hello-world", nil)
	res := &http.Response{StatusCode: 200, Header: post.Header}
	if msg := checkExchange(t, full, req, nil, true, false, res, bad); msg == "" {
		t.Errorf("a post with a numeric author validates against the typed path")
	}
	if msg := checkExchange(t, nil, req, nil, true, false, res, bad); msg != "" {
		t.Errorf("against the generic path: %s", msg)
	}
}

// TestOpenAPI_TypedPathsLocales: on a site with locales the per-type
// paths' locale parameter lists them, and answers in each validate.
func TestOpenAPI_TypedPathsLocales(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":            "locales: [en, fr]\ndefaultLocale: en\nlayout: folder\ntypes:\n  posts:\n    public: true\n    fields:\n      title: {kind: string, required: true}\n      mood: {kind: enum, values: [calm, busy]}\n",
		"content/en/posts/a.md": "---\ntitle: A\nmood: calm\n---\nA\n",
		"content/fr/posts/a.md": "---\ntitle: Un\nmood: busy\n---\nUn\n",
	})
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	doc := loadTyped(t, ts.URL, key)
	var enum []any
	for _, p := range doc.Paths.Value("/api/v1/content/posts").Get.Parameters {
		if p.Value.Name == "locale" {
			enum = p.Value.Schema.Value.Enum
		}
	}
	if len(enum) != 2 || enum[0] != "en" || enum[1] != "fr" {
		t.Fatalf("locale enum = %v", enum)
	}
	for _, u := range []string{"/api/v1/content/posts?locale=fr", "/api/v1/content/posts/a?locale=fr", "/api/v1/public/collections/posts/a", "/api/v1/public/collections/posts?locale=en"} {
		r := typedGet(t, doc, ts.URL+u, key)
		if r.Status != http.StatusOK {
			t.Errorf("%s: %d %s", u, r.Status, r.Body)
		}
		if strings.Contains(u, "fr") && !strings.Contains(string(r.Body), "busy") {
			t.Errorf("%s: %s", u, r.Body)
		}
	}
	// A locale the site does not have is refused by the document and
	// by the server alike.
	if r := typedGet(t, doc, ts.URL+"/api/v1/content/posts?locale=de", key); r.Status != http.StatusBadRequest {
		t.Errorf("locale=de: %d", r.Status)
	}
}

// BenchmarkTypedOpenAPI builds the typed document of a site of 100
// modelled types of 8 fields each, every one public (the largest
// document: each type's content and public paths), and reports its size.
func BenchmarkTypedOpenAPI(b *testing.B) {
	var model strings.Builder
	model.WriteString("types:\n")
	site := map[string]string{}
	for i := range 100 {
		fmt.Fprintf(&model, "  type%03d:\n    public: true\n    fields:\n      title: {kind: string, required: true}\n", i)
		for f := range 8 {
			kind := []string{"string", "number", "boolean", "date", "text", "integer", "url", "markdown"}[f]
			fmt.Fprintf(&model, "      f%d: %s\n", f, kind)
		}
		site[fmt.Sprintf("content/type%03d/a.md", i)] = "---\ntitle: A\n---\nA\n"
	}
	site["folio.yaml"] = model.String()
	ts := startServer(b, newRepo(b, site).bare)
	srv := ts.Handler.(*server.Server)
	size := 0
	b.ResetTimer()
	for b.Loop() {
		size = srv.BuildTypedOpenAPI(true)
	}
	b.ReportMetric(float64(size), "bytes/doc")
}

// TestOpenAPI_TypedPathsWrites: the writes of a modelled type, described
// on its own paths too, validate against them (request and answer).
func TestOpenAPI_TypedPathsWrites(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	ts := startWriter(t, "file://"+repo.bare)
	key := ts.key(t, "editor", server.ScopeContentRead, server.ScopeContentWrite)
	doc := loadTyped(t, ts.URL, key)
	if op := doc.Paths.Value("/api/v1/content/posts/{slug}").Patch; op == nil || op.OperationID != "patchItem_posts" {
		t.Fatalf("no PATCH on the per-type path: %+v", op)
	}
	send := func(method, path, body string) response {
		t.Helper()
		req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := typedClient(t, doc).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return response{Status: res.StatusCode, Header: res.Header, Body: b}
	}
	if r := send(http.MethodPost, "/api/v1/content/posts", `{"title": "New post", "rating": 4}`); r.Status != http.StatusCreated {
		t.Fatalf("POST: %d %s", r.Status, r.Body)
	}
	if r := send(http.MethodPatch, "/api/v1/content/posts/hello", `{"rating": 5}`); r.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	if r := send(http.MethodDelete, "/api/v1/content/posts/new-post", ``); r.Status != http.StatusOK && r.Status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.Status, r.Body)
	}
}
