package server

import (
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// BenchmarkRouteMetrics is what metrics add to a request: the status
// writer from its pool, the histogram and the counter (the machine's load
// moves BenchmarkGetPage by more than this).
func BenchmarkRouteMetrics(b *testing.B) {
	rm := NewMetrics().forRoute("/api/v1/pages/{slug}", http.MethodGet)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		sw := statusWriters.Get().(*statusWriter)
		sw.ResponseWriter, sw.status = nil, 0
		sw.status = http.StatusOK
		rm.observe(sw.status, time.Since(start))
		sw.ResponseWriter = nil
		statusWriters.Put(sw)
	}
}

func TestRouteMetrics_StatusOutsideThePreResolvedOnes(t *testing.T) {
	m := NewMetrics()
	rm := m.forRoute("/x", http.MethodGet)
	rm.observe(418, time.Millisecond)
	rm.observe(999, time.Millisecond)
	rm.observe(200, time.Millisecond)
	for _, st := range []string{"418", "999", "200"} {
		if got := testutil.ToFloat64(m.requests.WithLabelValues("/x", "GET", st)); got != 1 {
			t.Errorf("status %s counted %v times, want 1", st, got)
		}
	}
	if got := testutil.ToFloat64(m.requests.WithLabelValues("/x", "GET", "404")); got != 0 {
		t.Errorf("status 404 counted %v times", got)
	}
}
