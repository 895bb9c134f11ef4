package server_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/server"
)

// The fuzz targets of the HTTP layer send what a client controls (query
// strings, multipart bodies, folder paths, signed variant URLs) to a real
// server in process and hold it to the contract: never a 5xx (but a 503
// BUSY for a variant), and every 4xx in the error shape.

// fixtureSite is fixtures/site as a map of files, for newRepo.
func fixtureSite(tb testing.TB) map[string]string {
	tb.Helper()
	root := filepath.Join("..", "fixtures", "site")
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// serveFuzz serves req in process and checks the answer's status and shape.
func serveFuzz(t *testing.T, h http.Handler, req *http.Request, allow503 bool) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code >= 500 && !(allow503 && rec.Code == http.StatusServiceUnavailable) {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL, rec.Code, rec.Body.Bytes())
	}
	if rec.Code >= 400 {
		var e struct{ Error, Message string }
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" || e.Message == "" {
			t.Fatalf("%s %s: %d with a body not in the error shape: %q", req.Method, req.URL, rec.Code, rec.Body.Bytes())
		}
	}
	return rec
}

func newFuzzRequest(t *testing.T, method, path, rawQuery, key string, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.URL.RawQuery = rawQuery
	req.RemoteAddr = "127.0.0.1:1"
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return req
}

// FuzzQueries sends fields=, expand=, sort=, page and search parameters,
// encoded or as raw query strings, to every list and item route.
func FuzzQueries(f *testing.F) {
	ts := startServer(f, newRepo(f, fixtureSite(f)).bare, withSearch)
	key := ts.key(f, "fuzz", server.ScopeContentRead, server.ScopeContentDraft)
	for _, s := range [][4]string{
		{"title,slug", "", "-publishedAt", ""}, {"title,data.author", "*", "title", "page=2&limit=1"},
		{"-body", "posts", "author", "draft=true"}, {"a.b.c.d.e.f.g", "products,media", "-", "limit=0"},
		{",,", "*,*", "--title", "q=%zz"}, {"", "", "", "fields=a&fields=b"}, {"title", "nope", "price", "offset=-1&limit=1e9"},
		{"\x00", "\xff", "\u202e", "draft=maybe"}, {"sections.image", "media", "rating", "q=trail*"},
	} {
		for route := range 8 {
			f.Add(uint8(route), s[0], s[1], s[2], s[3], false)
			f.Add(uint8(route), s[0], s[1], s[2], s[3], true)
		}
	}
	routes := []string{"/api/v1/pages", "/api/v1/pages/about", "/api/v1/content/posts", "/api/v1/content/products",
		"/api/v1/content/posts/hello-world", "/api/v1/public/collections/posts", "/api/v1/globals", "/api/v1/search"}
	f.Fuzz(func(t *testing.T, route uint8, fields, expand, sort, extra string, raw bool) {
		path := routes[int(route)%len(routes)]
		var q string
		if raw {
			q = "fields=" + fields + "&expand=" + expand + "&sort=" + sort + "&" + extra
		} else {
			v, _ := url.ParseQuery(extra)
			if v == nil {
				v = url.Values{}
			}
			v.Set("fields", fields)
			v.Set("expand", expand)
			v.Set("sort", sort)
			q = v.Encode()
		}
		serveFuzz(t, ts.Handler, newFuzzRequest(t, "GET", path, q, key, nil), strings.HasPrefix(path, "/api/v1/search"))
	})
}

// FuzzVariantURL asks /uploads/ for variants of an uploaded image with any
// query, signed with the right secret or not.
func FuzzVariantURL(f *testing.F) {
	ms := startMediaServerWith(f, withTransforms(1, time.Second))
	it := ms.uploadOK(f, filePart("spot.png", spottedPNG(f, 64, 48, 10, 10, 6)))[0]
	key := strings.TrimPrefix(it.URL, "/uploads/")
	for _, q := range []string{"w=20", "w=20&h=20&fit=cover&fm=webp&q=50", "preset=card", "w=0", "w=-1", "w=99999999",
		"h=10&fit=contain&fm=avif", "fm=gif", "q=101", "w=20&v=abc", "w=1&h=1&fit=fill", "w=%zz", "s=00", "w=20&w=30"} {
		f.Add(key, q, true)
		f.Add(key, q, false)
	}
	f.Add("../keys.yaml", "w=10", true)
	f.Add(key+"/..", "w=10", true)
	f.Fuzz(func(t *testing.T, k, rawQuery string, signed bool) {
		path := "/uploads/" + k
		u, err := url.Parse(path)
		if err != nil || u.RawQuery != "" || u.Fragment != "" {
			return // not a path a client can send as such
		}
		if signed {
			q, _ := url.ParseQuery(rawQuery)
			if q != nil {
				rawQuery += "&s=" + server.SignVariantPath(variantSecret, u.EscapedPath(), q)
			}
		}
		req := newFuzzRequest(t, "GET", "/", rawQuery, "", nil)
		req.URL.Path, req.URL.RawPath = u.Path, u.RawPath
		rec := serveFuzz(t, ms.Handler, req, true)
		if rec.Code == http.StatusServiceUnavailable {
			var e struct{ Error string }
			if json.Unmarshal(rec.Body.Bytes(), &e); e.Error != server.CodeBusy {
				t.Fatalf("503 %s", rec.Body.Bytes())
			}
		}
	})
}

// FuzzUploadBody posts any multipart body (and boundary) to the upload
// route, and any folder path to the folders route: a 4xx or a success,
// and the library lists only items whose files are there.
func FuzzUploadBody(f *testing.F) {
	ms := startMediaServerWith(f)
	png := spottedPNG(f, 16, 16, 4, 4, 2)
	for _, parts := range [][]part{
		{filePart("a.png", png)},
		{fieldPart("folder", "/x"), fieldPart("alt", "hi"), filePart("a.png", png)},
		{filePart("a.png", png), fieldPart("folder", "/late")},
		{filePart("../../a.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="x()"/>`))},
		{filePart("a.exe", []byte("MZ\x90\x00"))},
		{{field: "files", disp: `form-data; name="files"; filename*=UTF-8''%e2%80%ae.png`, data: png}},
		{fieldPart("folder", "/\u202eevil"), filePart("a.png", png[:40])},
	} {
		body, ct := multipartBody(parts...)
		_, params, _ := strings.Cut(ct, "boundary=")
		f.Add(body, params, "/a/b")
	}
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"files\"; filename=\"x\"\r\n\r\n"), "b", "/")
	f.Add([]byte{}, "", "")
	f.Fuzz(func(t *testing.T, body []byte, boundary, folder string) {
		req := newFuzzRequest(t, "POST", "/api/v1/media", "", ms.all, body)
		req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
		serveFuzz(t, ms.Handler, req, false)

		fb, _ := json.Marshal(map[string]string{"path": folder})
		req = newFuzzRequest(t, "POST", "/api/v1/media/folders", "", ms.all, fb)
		req.Header.Set("Content-Type", "application/json")
		serveFuzz(t, ms.Handler, req, false)

		rec := serveFuzz(t, ms.Handler, newFuzzRequest(t, "GET", "/api/v1/media", "limit=100&sort=createdAt&order=desc", ms.read, nil), false)
		var list listRes
		if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
			t.Fatal(err)
		}
		for _, it := range list.Data[:min(len(list.Data), 3)] {
			if _, err := os.Stat(ms.fileOf(t, it.URL)); err != nil {
				t.Fatalf("listed item %s has no file: %v", it.ID, err)
			}
		}
	})
}

// FuzzKeysFile reads any keys.yaml: an error, or a store that verifies
// tokens without panicking and accepts none that it was not given.
func FuzzKeysFile(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "good.yaml")
	ks, err := server.OpenKeys(good)
	if err != nil {
		f.Fatal(err)
	}
	tok, err := ks.Create("k", []string{server.ScopeContentRead})
	if err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, tok)
	f.Add(data, "folio_"+strings.Repeat("0", 40))
	f.Add([]byte("keys:\n- name: a\n  hash: zz\n"), tok)
	f.Add([]byte("keys: [{name: a, hash: "+strings.Repeat("ab", 32)+", scopes: [x], expires: yesterday}]\n"), "")
	f.Add([]byte("keys: {a: 1}\n"), tok)
	f.Add([]byte("\x00\xff"), tok)
	n := 0
	f.Fuzz(func(t *testing.T, file []byte, token string) {
		n++
		p := filepath.Join(dir, "keys.yaml")
		if err := os.WriteFile(p, file, 0o600); err != nil {
			t.Fatal(err)
		}
		ks, err := server.OpenKeys(p)
		if err != nil {
			return
		}
		k, ok := ks.Verify(token)
		if ok && (k == nil || bytes.Equal(file, data) && token != tok) {
			t.Fatalf("Verify(%q) accepted with %s", token, file)
		}
		if _, err := ks.List(); err != nil {
			t.Fatalf("List: %v", err)
		}
	})
}

// FuzzMediaPatch sends any JSON body and `locale` to PATCH an item: a 4xx
// changes nothing (the item reads the same, in every locale), a 200
// answers what a GET then reads.
func FuzzMediaPatch(f *testing.F) {
	ms := startMediaServerWith(f)
	it := ms.uploadOK(f, filePart("a.png", spottedPNG(f, 16, 16, 4, 4, 2)))[0]
	for _, s := range [][2]string{
		{`{"alt":"plain"}`, ""}, {`{"alt":{"fr":"un chat","de":null}}`, "fr-CA"}, {`{"title":{"EN-us":"x","en-US":"y"}}`, ""},
		{`{"description":{"und":"x"}}`, "en"}, {`{"alt":{"fr":5}}`, ""}, {`{"alt":["x"]}`, "*"}, {`{"alt":{"fr":"x"},"alt":"y"}`, ""},
		{`{"alt":{"x-bad!":"x"},"title":"t"}`, ""}, {`{"alt":{}}`, "zh-Hant-TW"}, {`{"focalX":20,"alt":{"fr":""}}`, "en_US"},
	} {
		f.Add(s[0], s[1])
	}
	read := func(t *testing.T) string {
		rec := serveFuzz(t, ms.Handler, newFuzzRequest(t, "GET", "/api/v1/media/"+it.ID, "", ms.read, nil), false)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET: %d %s", rec.Code, rec.Body.Bytes())
		}
		return rec.Body.String()
	}
	f.Fuzz(func(t *testing.T, body, locale string) {
		before := read(t)
		req := newFuzzRequest(t, "PATCH", "/api/v1/media/"+it.ID, url.Values{"locale": {locale}}.Encode(), ms.write, []byte(body))
		req.Header.Set("Content-Type", "application/json")
		rec := serveFuzz(t, ms.Handler, req, false)
		after := read(t)
		if rec.Code >= 400 && after != before {
			t.Fatalf("PATCH %q (locale %q) was refused (%d) but changed the item:\n%s\n→\n%s", body, locale, rec.Code, before, after)
		}
		if rec.Code == http.StatusOK {
			want := newFuzzRequest(t, "GET", "/api/v1/media/"+it.ID, url.Values{"locale": {locale}}.Encode(), ms.read, nil)
			if got := serveFuzz(t, ms.Handler, want, false); strings.TrimSpace(got.Body.String()) != strings.TrimSpace(rec.Body.String()) {
				t.Fatalf("PATCH answered\n%s\nGET reads\n%s", rec.Body.Bytes(), got.Body.Bytes())
			}
		}
	})
}
