package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkGetPage is the handler cost of GET /api/v1/pages/{slug} without
// the network: routing, key check, view lookup, headers, body.
func BenchmarkGetPage(b *testing.B) {
	repo := newRepo(b, siteFiles)
	ts := startServer(b, repo.bare)
	key := ts.reader(b)
	h := ts.Handler
	req := httptest.NewRequest("GET", "/api/v1/pages/home", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}
