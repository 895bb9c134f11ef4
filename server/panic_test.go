package server

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestPanic: a panicking handler answers 500 INTERNAL_ERROR in the error
// shape, without the panic's detail.
func TestPanic(t *testing.T) {
	ks, err := OpenKeys(filepath.Join(t.TempDir(), "keys.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics()
	s := New(Config{Keys: ks, Metrics: m})
	rt, ok := s.handler.(*httprouter.Router)
	if !ok || rt.PanicHandler == nil {
		t.Fatal("the router has no panic handler")
	}
	rt.GET("/boom", s.handle(route{access: noKey, h: func(http.ResponseWriter, *http.Request, httprouter.Params) error {
		panic("secret detail /etc/passwd")
	}}))
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, httptest.NewRequest("GET", "/boom", nil))
	if rec.Code != 500 {
		t.Fatalf("status %d", rec.Code)
	}
	body := rec.Body.String()
	if !strings.Contains(body, `"error":"INTERNAL_ERROR"`) || strings.Contains(body, "secret") {
		t.Fatalf("body %s", body)
	}
	if n := testutil.ToFloat64(m.panics); n != 1 {
		t.Fatalf("folio_http_panics_total = %v, want 1", n)
	}
}

func TestHTTPServerTimeouts(t *testing.T) {
	ks, _ := OpenKeys(filepath.Join(t.TempDir(), "keys.yaml"))
	hs := New(Config{Keys: ks}).HTTPServer("127.0.0.1:0")
	if hs.ReadHeaderTimeout == 0 || hs.IdleTimeout == 0 || hs.MaxHeaderBytes == 0 {
		t.Fatalf("timeouts not set: %+v", hs)
	}
}
