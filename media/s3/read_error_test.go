package s3_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/s3"
	"github.com/folio-cms/folio/media/s3/s3test"
)

// TestOpenReadThrottled: a bucket that answers the body's GET with 503
// SlowDown (after the HEAD of Open went through) gives a read error that
// is ErrUnavailable, so the HTTP layer answers 503, not 500 (make chaos
// found a 500 for a stored image variant under SlowDown).
func TestOpenReadThrottled(t *testing.T) {
	cfg, _ := s3test.Start(t)
	st, err := s3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.Put(ctx, "a.txt", strings.NewReader("hello"), 5, "text/plain"); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(cfg.Endpoint)
	rp := httputil.NewSingleHostReverseProxy(u)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	defer front.Close()
	cfg.Endpoint = front.URL
	throttled, err := s3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := throttled.Open(ctx, "a.txt")
	if err == nil {
		_, err = io.ReadAll(rc)
		rc.Close()
	}
	if !errors.Is(err, media.ErrUnavailable) {
		t.Fatalf("reading through a throttling bucket: %v, want ErrUnavailable", err)
	}
}
