package server_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
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

// BenchmarkGetPageLoopback is GET /api/v1/pages/{slug} through the whole
// server over loopback TCP: net/http's connection handling, the route's
// middleware and the handler, with a page of about 7 KB (3 KB gzipped) as
// the load test's. Parallel clients on raw keep-alive connections, which
// allocate nothing, so allocs/op are the server's.
func BenchmarkGetPageLoopback(b *testing.B) {
	benchGetPageLoopback(b)
}

// BenchmarkGetPageLoopbackLimited is BenchmarkGetPageLoopback with the
// per-IP and per-key rate limits on (as by default), too high to refuse.
func BenchmarkGetPageLoopbackLimited(b *testing.B) {
	benchGetPageLoopback(b, func(_ *engine.Config, s *server.Config) {
		s.RateIP = server.RateLimit{PerSecond: 1e9}
		s.RateKey = server.RateLimit{PerSecond: 1e9}
	})
}

func benchGetPageLoopback(b *testing.B, opts ...serverOpt) {
	var page strings.Builder
	page.WriteString("---\ntitle: Bench\npublishedAt: 2026-01-02\n---\n")
	words := strings.Fields("tent stove lake ridge alpine meadow river compass quilt boot filter forest journal glacier tundra coastal")
	for i := 0; page.Len() < 6000; i++ {
		page.WriteString(words[(i*7+i/3)%len(words)])
		if i%13 == 12 {
			page.WriteString(".\n\n")
		} else {
			page.WriteString(" ")
		}
	}
	files := map[string]string{"pages/bench.md": page.String()}
	repo := newRepo(b, files)
	ts := startServer(b, repo.bare, opts...)
	key := ts.reader(b)
	addr := strings.TrimPrefix(ts.URL, "http://")
	for _, enc := range []string{"identity", "gzip"} {
		b.Run(enc, func(b *testing.B) {
			req := []byte("GET /api/v1/pages/bench HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + key +
				"\r\nAccept-Encoding: " + enc + "\r\n\r\n")
			b.ReportAllocs()
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					b.Error(err)
					return
				}
				defer c.Close()
				buf := make([]byte, 64<<10)
				for pb.Next() {
					if _, err := c.Write(req); err != nil {
						b.Error(err)
						return
					}
					if err := readResponse(c, buf); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// readResponse reads one 200 response with a Content-Length from c.
func readResponse(c net.Conn, buf []byte) error {
	n := 0
	for {
		m, err := c.Read(buf[n:])
		if err != nil {
			return err
		}
		n += m
		end := bytes.Index(buf[:n], []byte("\r\n\r\n"))
		if end < 0 {
			continue
		}
		if !bytes.HasPrefix(buf, []byte("HTTP/1.1 200 ")) {
			return fmt.Errorf("response %q", buf[:min(n, 200)])
		}
		i := bytes.Index(buf[:end], []byte("\r\nContent-Length: "))
		if i < 0 {
			return fmt.Errorf("no Content-Length in %q", buf[:end])
		}
		size := 0
		for _, d := range buf[i+18 : end] {
			if d < '0' || d > '9' {
				break
			}
			size = size*10 + int(d-'0')
		}
		for n < end+4+size {
			m, err := c.Read(buf[n:])
			if err != nil {
				return err
			}
			n += m
		}
		return nil
	}
}
