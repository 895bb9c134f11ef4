package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// BenchmarkGetPage is the handler cost of GET /api/v1/pages/{slug} without
// the network: routing, key check, view lookup, headers, body.
func BenchmarkGetPage(b *testing.B) {
	benchGetPage(b)
}

// BenchmarkGetPageMetrics is BenchmarkGetPage with Prometheus metrics on
// (as `folio serve --metrics-addr` runs): the request counter and latency
// histogram are resolved when the route table is built.
func BenchmarkGetPageMetrics(b *testing.B) {
	benchGetPage(b, func(_ *engine.Config, s *server.Config) { s.Metrics = server.NewMetrics() })
}

func benchGetPage(b *testing.B, opts ...serverOpt) {
	repo := newRepo(b, siteFiles)
	ts := startServer(b, repo.bare, opts...)
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
