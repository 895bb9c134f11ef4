package transport

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/folio-cms/folio/content/fault"
)

// Request bodies are read under a deadline: a client has BodyTimeout to
// send a body, plus one second for every BodyMinRate bytes it has sent,
// counting only the time a handler waits for it (not the time the handler
// spends storing what it read). A body that falls behind is cut off with
// 408 and the connection closed. A request answered before its body was
// read (401, 403, 404, …) closes its connection after a short grace, so
// that a client cannot hold it by trickling the rest of the body.

// Defaults of Config.BodyTimeout and Config.BodyMinRate.
const (
	DefaultBodyTimeout = 30 * time.Second
	DefaultBodyMinRate = 16 << 10 // bytes a second
)

// unreadGrace is how long a connection whose request was answered before
// its body was read keeps reading that body (to end the exchange cleanly
// when the rest is already on its way) before it is closed.
const unreadGrace = time.Second

var errBodyTooSlow = fault.New(fault.Timeout, "the request body arrived too slowly: the connection is closed")

// bodyGuard is the request body of a request that has one.
type bodyGuard struct {
	body    io.ReadCloser
	rc      *http.ResponseController
	base    time.Duration
	minRate float64

	read     int64
	waited   time.Duration
	eof      bool
	timedOut bool
}

// Guard wraps r's body (r.ContentLength != 0) in a bodyGuard and sets
// the first read deadline. A GET or HEAD with a body is served but its
// connection is not kept: no handler reads such a body.
func Guard(w http.ResponseWriter, r *http.Request, base time.Duration, minRate int64) {
	rc := http.NewResponseController(w)
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		w.Header().Set("Connection", "close")
		_ = rc.SetReadDeadline(time.Now().Add(unreadGrace))
		return
	}
	g := &bodyGuard{body: r.Body, rc: rc, base: base, minRate: float64(minRate)}
	_ = rc.SetReadDeadline(time.Now().Add(g.base))
	r.Body = g
}

// allowance is how long, in all, the guard waits for the body so far.
func (g *bodyGuard) allowance() time.Duration {
	return g.base + time.Duration(float64(g.read)/g.minRate*float64(time.Second))
}

func (g *bodyGuard) Read(p []byte) (int, error) {
	if g.timedOut {
		return 0, errBodyTooSlow
	}
	if g.eof {
		return 0, io.EOF
	}
	left := g.allowance() - g.waited
	if left <= 0 {
		g.timedOut = true
		return 0, errBodyTooSlow
	}
	start := time.Now()
	_ = g.rc.SetReadDeadline(start.Add(left))
	n, err := g.body.Read(p)
	g.waited += time.Since(start)
	g.read += int64(n)
	switch {
	case err == io.EOF:
		// Whole: net/http now reads in the background to notice a
		// client that goes away, which must not time out while the
		// handler works.
		g.eof = true
		_ = g.rc.SetReadDeadline(time.Time{})
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		g.timedOut = true
		err = errBodyTooSlow
	}
	return n, err
}

func (g *bodyGuard) Close() error { return g.body.Close() }

// CloseUnread is called before an error response: if the request's body
// was not read to its end, the connection is closed after the response
// (rather than net/http reading the rest of the body first, without a
// deadline, to keep the connection) and the body gets unreadGrace more
// time at most. It returns the error to send instead of err, if any.
func CloseUnread(w http.ResponseWriter, r *http.Request) error {
	g, ok := r.Body.(*bodyGuard)
	if !ok || g.eof {
		return nil
	}
	w.Header().Set("Connection", "close")
	if g.timedOut {
		return errBodyTooSlow
	}
	_ = g.rc.SetReadDeadline(time.Now().Add(unreadGrace))
	return nil
}

// maxLinger bounds what LingerUnread discards.
const maxLinger = 8 << 20

// LingerUnread, after an error response to a request whose body was not
// read to its end, sends the response on its way and reads (and drops)
// the rest of the body for unreadGrace at most, as nginx's lingering
// close does: a client still writing its body then reads the answer
// instead of a connection reset that takes it away (the kernel resets a
// connection closed with unread data, and a reset discards what the
// client had not read yet). The connection closes after, whatever is left.
func LingerUnread(w http.ResponseWriter, r *http.Request) {
	g, ok := r.Body.(*bodyGuard)
	if !ok || g.eof || g.timedOut {
		return
	}
	_ = g.rc.Flush()
	_ = g.rc.SetReadDeadline(time.Now().Add(unreadGrace))
	_, _ = io.Copy(io.Discard, io.LimitReader(g.body, maxLinger))
}
