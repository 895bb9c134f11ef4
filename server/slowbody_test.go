package server_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// slowRequest opens a connection to ts, sends head (the request line and
// headers, without the blank line) and the start of a body, then trickles
// one byte of the body every tick until stopped. It returns the
// connection and a function stopping the trickle.
func slowRequest(t *testing.T, url, head, start string, tick time.Duration) (net.Conn, func()) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, head+"\r\n\r\n"+start); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tk := time.NewTicker(tick)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	t.Cleanup(func() { c.Close() })
	return c, func() { close(stop); <-done }
}

// readAnswer reads one response from c within d and then waits, within d
// again, for the server to close the connection.
func readAnswer(t *testing.T, c net.Conn, d time.Duration) (status int, body string, closed bool) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(d))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer within %s: %v", d, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err = br.ReadByte()
	var ne net.Error
	closed = err != nil && !(errors.As(err, &ne) && ne.Timeout())
	return resp.StatusCode, string(b), closed
}

// A request with a body that trickles in, without a key, is answered 401
// at once and its connection closed: the server does not wait for the
// body it would ignore. Before, no answer came until the body was whole.
func TestSlowBodyWithoutKeyAnsweredAtOnce(t *testing.T) {
	ms := newMediaServer(t)
	for _, tc := range []struct{ name, head string }{
		{"no key", "POST /api/v1/media/folders HTTP/1.1\r\nHost: folio\r\nContent-Type: application/json\r\nContent-Length: 100000"},
		{"bad key", "POST /api/v1/media/folders HTTP/1.1\r\nHost: folio\r\nAuthorization: Bearer nope\r\nContent-Type: application/json\r\nContent-Length: 100000"},
		{"upload", "POST /api/v1/media HTTP/1.1\r\nHost: folio\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 100000"},
		{"chunked", "PATCH /api/v1/media/abc HTTP/1.1\r\nHost: folio\r\nTransfer-Encoding: chunked\r\n\r\n1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, stop := slowRequest(t, ms.URL, tc.head, "{", 200*time.Millisecond)
			defer stop()
			status, body, closed := readAnswer(t, c, 5*time.Second)
			if status != http.StatusUnauthorized || !strings.Contains(body, `"UNAUTHORIZED"`) {
				t.Fatalf("answer %d %s, want 401 UNAUTHORIZED", status, body)
			}
			if !closed {
				t.Fatal("the connection of a refused slow body stays open")
			}
		})
	}
	t.Run("scope lacking", func(t *testing.T) {
		c, stop := slowRequest(t, ms.URL, "POST /api/v1/media/folders HTTP/1.1\r\nHost: folio\r\nAuthorization: Bearer "+ms.read+"\r\nContent-Length: 100000", "{", 200*time.Millisecond)
		defer stop()
		if status, body, closed := readAnswer(t, c, 5*time.Second); status != http.StatusForbidden || !closed {
			t.Fatalf("answer %d %s closed %v, want 403 and closed", status, body, closed)
		}
	})
	// The server keeps serving, and a refused small body keeps its
	// promise of a clean answer.
	wantError(t, do(t, http.MethodPost, ms.URL+"/api/v1/media/folders", "", strings.NewReader(`{"path":"/a"}`), "Content-Type", "application/json"), 401, "UNAUTHORIZED")
}

// A body that a keyed request sends slower than the body deadline allows
// is cut off with 408 and its connection closed; nothing is written.
func TestSlowBodyWithKeyTimesOut(t *testing.T) {
	ms := startMediaServerWith(t, func(_ *engine.Config, s *server.Config) {
		s.BodyTimeout = time.Second
		s.BodyMinRate = 1000
	})
	c, stop := slowRequest(t, ms.URL, "POST /api/v1/media/folders HTTP/1.1\r\nHost: folio\r\nAuthorization: Bearer "+ms.write+"\r\nContent-Type: application/json\r\nContent-Length: 100000", `{"path":"/slow`, 500*time.Millisecond)
	defer stop()
	status, body, closed := readAnswer(t, c, 10*time.Second)
	if status != http.StatusRequestTimeout || !strings.Contains(body, `"REQUEST_TIMEOUT"`) {
		t.Fatalf("answer %d %s, want 408 REQUEST_TIMEOUT", status, body)
	}
	if !closed {
		t.Fatal("the connection of a timed-out body stays open")
	}
	if r := get(t, ms.URL+"/api/v1/media/folders", ms.read); strings.Contains(string(r.Body), "slow") {
		t.Fatalf("a timed-out request wrote: %s", r.Body)
	}
}

// A body that takes longer than the base timeout but keeps the minimum
// rate is read whole: large uploads over slow links still work.
func TestSlowBodyAtMinimumRateAccepted(t *testing.T) {
	ms := startMediaServerWith(t, func(_ *engine.Config, s *server.Config) {
		s.BodyTimeout = time.Second
		s.BodyMinRate = 32 << 10
	})
	data := bytes.Repeat([]byte{0}, 120<<10) // 1 s + 3.75 s allowed
	copy(data, fixture(t, "gear-care-guide.pdf"))
	body, ct := multipartBody(filePart("guide.pdf", data))
	pr, pw := io.Pipe()
	go func() {
		// ~1.6 s in all, above the base second, at ~75 KB/s.
		for i := 0; i < len(body); i += 6000 {
			if _, err := pw.Write(body[i:min(i+6000, len(body))]); err != nil {
				return
			}
			time.Sleep(80 * time.Millisecond)
		}
		pw.Close()
	}()
	req, err := http.NewRequest(http.MethodPost, ms.URL+"/api/v1/media", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+ms.write)
	if r := send(t, req); r.Status != http.StatusCreated {
		t.Fatalf("upload at the minimum rate: %d %s", r.Status, r.Body)
	}
}

// The webhook refuses an unsigned delivery before reading its body.
func TestSlowWebhookBody(t *testing.T) {
	ts := startServer(t, newRepo(t, siteFiles).bare, func(e *engine.Config, s *server.Config) {
		e.Poll = 0
		s.WebhookSecret = "s3cret"
		s.BodyTimeout = time.Second
	})
	c, stop := slowRequest(t, ts.URL, "POST /api/v1/hooks/git HTTP/1.1\r\nHost: folio\r\nContent-Length: 100000", "{", 200*time.Millisecond)
	defer stop()
	if status, body, closed := readAnswer(t, c, 5*time.Second); status != http.StatusUnauthorized || !closed {
		t.Fatalf("unsigned slow webhook: %d %s closed %v", status, body, closed)
	}
	sig := "sha256=" + strings.Repeat("ab", 32)
	c2, stop2 := slowRequest(t, ts.URL, "POST /api/v1/hooks/git HTTP/1.1\r\nHost: folio\r\nX-Hub-Signature-256: "+sig+"\r\nContent-Length: 100000", "{", 400*time.Millisecond)
	defer stop2()
	if status, body, closed := readAnswer(t, c2, 10*time.Second); status != http.StatusRequestTimeout || !closed {
		t.Fatalf("signed slow webhook: %d %s closed %v", status, body, closed)
	}
}

// A GET with a body (which no route reads) is answered, and its
// connection closed rather than kept reading the body.
func TestSlowBodyOnGet(t *testing.T) {
	ts := startServer(t, newRepo(t, siteFiles).bare)
	c, stop := slowRequest(t, ts.URL, "GET /healthz HTTP/1.1\r\nHost: folio\r\nContent-Length: 100000", "x", 200*time.Millisecond)
	defer stop()
	if status, body, closed := readAnswer(t, c, 5*time.Second); status != http.StatusOK || !closed {
		t.Fatalf("GET with a slow body: %d %s closed %v", status, body, closed)
	}
}

// Connections beyond the per-client bound get 503 and are closed; those
// beyond the bound in all wait until a slot frees.
func TestConnectionBounds(t *testing.T) {
	site := newRepo(t, siteFiles).bare
	t.Run("per client", func(t *testing.T) {
		testConnectionBounds(t, startServer(t, site, func(_ *engine.Config, s *server.Config) { s.MaxConnsPerClient = 3 }), true)
	})
	t.Run("in all", func(t *testing.T) {
		testConnectionBounds(t, startServer(t, site, func(_ *engine.Config, s *server.Config) { s.MaxConns = 3 }), false)
	})
}

func testConnectionBounds(t *testing.T, ts *testServer, perClient bool) {
	addr := strings.TrimPrefix(ts.URL, "http://")
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	ask := func(c net.Conn, d time.Duration) (int, error) {
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: folio\r\n\r\n"); err != nil {
			return 0, err
		}
		_ = c.SetReadDeadline(time.Now().Add(d))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	var held []net.Conn
	for i := range 3 {
		c := dial()
		if st, err := ask(c, 5*time.Second); err != nil || st != 200 {
			t.Fatalf("connection %d: %d %v", i, st, err)
		}
		held = append(held, c)
	}
	if perClient {
		if st, err := ask(dial(), 5*time.Second); err != nil || st != http.StatusServiceUnavailable {
			t.Fatalf("connection over the per-client bound: %d %v, want 503", st, err)
		}
		held[0].Close()
		eventually(t, "a freed per-client slot", func() bool {
			st, err := ask(dial(), 5*time.Second)
			return err == nil && st == 200
		})
		return
	}
	// Over the bound in all: the connection is made (the kernel's
	// backlog) but not served until one closes.
	c := dial()
	if st, err := ask(c, 300*time.Millisecond); err == nil {
		t.Fatalf("connection over the bound in all served at once: %d", st)
	}
	held[0].Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("waiting connection once a slot freed: %v %v", resp, err)
	}
}
