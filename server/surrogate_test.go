package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// wantKeys asserts the surrogate keys of a response in both headers.
func wantKeys(t testing.TB, what string, r response, keys ...string) {
	t.Helper()
	if sk, ct := r.Header.Get("Surrogate-Key"), r.Header.Get("Cache-Tag"); sk != strings.Join(keys, " ") || ct != strings.Join(keys, ",") {
		t.Errorf("%s: Surrogate-Key %q, Cache-Tag %q; want keys %q", what, sk, ct, keys)
	}
	if len(r.Header.Values("Surrogate-Key")) > 1 || len(r.Header.Values("Cache-Tag")) > 1 {
		t.Errorf("%s: repeated key headers %v", what, r.Header)
	}
}

func TestSurrogateKeysContent(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, siteFiles)
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	idOf := func(path string) string {
		t.Helper()
		id, _ := get(t, ts.URL+path, key).json(t)["id"].(string)
		if id == "" {
			t.Fatalf("%s: no id", path)
		}
		return id
	}
	home, about, install, alpha := idOf("/api/v1/pages/home"), idOf("/api/v1/pages/about"), idOf("/api/v1/pages/guides/install"), idOf("/api/v1/content/posts/a")
	tent := idOf("/api/v1/content/products/p1")

	cases := []struct {
		path, key string
		keys      []string
	}{
		{"/api/v1/pages", key, []string{"pages"}},
		{"/api/v1/pages?limit=1&offset=1", key, []string{"pages"}},
		{"/api/v1/pages/home", key, []string{"page:" + home}},
		{"/api/v1/pages/about", key, []string{"page:" + about}},
		{"/api/v1/pages/guides/install", key, []string{"page:" + install}},
		{"/api/v1/content/posts", key, []string{"type:posts"}},
		{"/api/v1/content/posts/a", key, []string{"item:posts/" + alpha, "type:posts"}},
		{"/api/v1/content/products/p1", key, []string{"item:products/" + tent, "type:products"}},
		{"/api/v1/globals", key, []string{"globals"}},
		{"/api/v1/public/collections/posts?sort=-rating", "", []string{"type:posts"}},
		{"/api/v1/public/collections/posts/a", "", []string{"item:posts/" + alpha, "type:posts"}},
	}
	for _, c := range cases {
		r := get(t, ts.URL+c.path, c.key)
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", c.path, r.Status, r.Body)
		}
		wantKeys(t, c.path, r, c.keys...)
		// A revalidation names the same keys (a CDN refreshes them).
		r2 := get(t, ts.URL+c.path, c.key, "If-None-Match", r.Header.Get("ETag"))
		if r2.Status != http.StatusNotModified {
			t.Fatalf("%s: If-None-Match gave %d", c.path, r2.Status)
		}
		wantKeys(t, c.path+" (304)", r2, c.keys...)
	}
	// Errors name nothing.
	for _, p := range []string{"/api/v1/pages/nope", "/api/v1/content/posts/nope", "/api/v1/content/nope", "/api/v1/pages?limit=x", "/api/v1/public/collections/products"} {
		r := get(t, ts.URL+p, key)
		if r.Status < 400 {
			t.Fatalf("%s: %d", p, r.Status)
		}
		wantKeys(t, p, r)
	}
	wantKeys(t, "status", get(t, ts.URL+"/api/v1/status", key))
}

func TestSurrogateKeysMedia(t *testing.T) {
	t.Parallel()
	ms := newMediaServer(t)
	ms.createFolder(t, "/blog")
	it := ms.uploadOK(t, filePart("lake.png", pngBytes(t, 500, 300)))[0]
	if len(it.Sizes) == 0 {
		t.Fatalf("no derivatives: %+v", it)
	}
	cases := []struct {
		path, key string
		keys      []string
	}{
		{"/api/v1/media", ms.read, []string{"media", "presets"}},
		{"/api/v1/media?search=lake", ms.read, []string{"media", "presets"}},
		{"/api/v1/media/folders", ms.read, []string{"media"}},
		{"/api/v1/public/media", "", []string{"media", "presets"}},
		{"/api/v1/media/" + it.ID, ms.read, []string{"media:" + it.ID, "presets"}},
		{"/api/v1/public/media/" + it.ID, "", []string{"media:" + it.ID, "presets"}},
		{it.URL, "", []string{"media:" + it.ID}},
		{it.Sizes[0].URL, "", []string{"media:" + it.ID}},
	}
	for _, c := range cases {
		r := get(t, ms.URL+c.path, c.key)
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", c.path, r.Status, r.Body)
		}
		wantKeys(t, c.path, r, c.keys...)
	}
	// A bad Range on a file is an error: no keys.
	r := get(t, ms.URL+it.URL, "", "Range", "bytes=999999999-")
	if r.Status != http.StatusRequestedRangeNotSatisfiable {
		t.Fatalf("bad range: %d", r.Status)
	}
	wantKeys(t, "416", r)
	wantKeys(t, "unknown item", get(t, ms.URL+"/api/v1/media/nope", ms.read))
	// After a delete, the files are gone and so are their keys.
	if r := do(t, http.MethodDelete, ms.URL+"/api/v1/media/"+it.ID, ms.del, nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	r = get(t, ms.URL+it.URL, "")
	if r.Status != http.StatusNotFound {
		t.Fatalf("deleted file: %d", r.Status)
	}
	wantKeys(t, "deleted file", r)
}
