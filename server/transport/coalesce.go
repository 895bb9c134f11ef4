package transport

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
)

// net/http writes a response through a 4 KB connection buffer: a body
// larger than what is left of it after the headers goes out in two write
// calls (the full buffer, then the rest), and on loopback each wakes the
// reader. nginx sends headers and file in one. A connection of
// CoalescingListener can hold its writes for the length of one response
// of known size, so that headers and body leave in one write (see
// WriteOnce).

// CoalescingListener wraps each accepted connection in a coalescingConn.
type CoalescingListener struct{ net.Listener }

func (l CoalescingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &coalescingConn{Conn: c}, nil
}

// coalescingConn passes writes through, except between hold and release,
// when it gathers them into one buffer, taken from a pool so that idle
// keep-alive connections hold none.
type coalescingConn struct {
	net.Conn
	mu      sync.Mutex
	holding bool
	buf     *[]byte
}

var holdBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

func (c *coalescingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holding {
		*c.buf = append(*c.buf, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

func (c *coalescingConn) hold(size int) {
	c.mu.Lock()
	c.holding = true
	c.buf = holdBufs.Get().(*[]byte)
	if cap(*c.buf) < size {
		*c.buf = make([]byte, 0, size)
	}
	c.mu.Unlock()
}

// release writes what was held in one call.
func (c *coalescingConn) release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holding = false
	b := c.buf
	c.buf = nil
	var err error
	if len(*b) > 0 {
		_, err = c.Conn.Write(*b)
	}
	if cap(*b) <= 1<<20 { // let a rare huge one go
		*b = (*b)[:0]
		holdBufs.Put(b)
	}
	return err
}

// ReadFrom keeps the TCP connection's sendfile path for /uploads/ files.
func (c *coalescingConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// CloseWrite lets net/http half-close the TCP connection as it would
// without the wrapper.
func (c *coalescingConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

type connKey struct{}

// ConnContext is the http.Server's ConnContext: it lets handlers find
// their connection.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if cc, ok := c.(*coalescingConn); ok {
		return context.WithValue(ctx, connKey{}, cc)
	}
	return ctx
}

// coalesceMin is the smallest body worth holding for: smaller ones fit
// the connection buffer with their headers anyway.
const coalesceMin = 3 << 10

// WriteOnce writes body (its Content-Length set) so that the headers
// and the body leave in one write call when the connection allows it.
func WriteOnce(w http.ResponseWriter, r *http.Request, body []byte) error {
	cc, ok := r.Context().Value(connKey{}).(*coalescingConn)
	if !ok || len(body) < coalesceMin {
		_, err := w.Write(body)
		return err
	}
	cc.hold(len(body) + 1024)
	_, err := w.Write(body)
	if err == nil {
		err = http.NewResponseController(w).Flush()
	}
	if rerr := cc.release(); err == nil {
		err = rerr
	}
	return err
}

// WriteOnceParts is WriteOnce of the concatenation of parts (size bytes
// in all, the Content-Length set), without making it: a list of
// pre-encoded items goes out from their own bytes, through the
// connection's pooled buffer, instead of being copied into a new body
// first (a 20-item list is 100–200 KB a request of garbage otherwise).
func WriteOnceParts(w http.ResponseWriter, r *http.Request, size int, parts [][]byte) error {
	cc, ok := r.Context().Value(connKey{}).(*coalescingConn)
	if ok && size >= coalesceMin {
		cc.hold(size + 1024)
	} else {
		ok = false
	}
	var err error
	for _, p := range parts {
		if _, err = w.Write(p); err != nil {
			break
		}
	}
	if !ok {
		return err
	}
	if err == nil {
		err = http.NewResponseController(w).Flush()
	}
	if rerr := cc.release(); err == nil {
		err = rerr
	}
	return err
}
