package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkGetItem is GET /api/v1/content/{type}/{slug} through the
// handler, as BenchmarkGetPage reads a page: the item route's lookups
// (the view's type, its slug map) and the stored response.
func BenchmarkGetItem(b *testing.B) {
	repo := newRepo(b, siteFiles)
	ts := startServer(b, repo.bare)
	key := ts.reader(b)
	h := ts.Handler
	req := httptest.NewRequest("GET", "/api/v1/content/posts/a", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}
