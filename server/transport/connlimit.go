package transport

import (
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// connLimiter bounds the connections open at once: in all (beyond the
// bound, Accept waits and new connections queue in the kernel's listen
// backlog, holding no file descriptor of folio's) and per client address
// (beyond it, a new connection gets a 503 and is closed). Trusted proxies
// are not bounded per client: every client of a CDN comes from its edges.
type connLimiter struct {
	net.Listener
	slots     chan struct{} // nil: no bound in all
	perClient int
	proxies   Proxies
	v6Prefix  int

	closeOnce sync.Once
	closed    chan struct{}

	mu   sync.Mutex
	open map[string]int
}

// LimitConns wraps ln in connection bounds (maxConns at once, perClient
// of one client), if there are any.
func LimitConns(ln net.Listener, maxConns, perClient int, proxies Proxies, v6Prefix int) net.Listener {
	if maxConns <= 0 && perClient <= 0 {
		return ln
	}
	l := &connLimiter{Listener: ln, perClient: perClient, proxies: proxies, v6Prefix: v6Prefix,
		closed: make(chan struct{}), open: map[string]int{}}
	if maxConns > 0 {
		l.slots = make(chan struct{}, maxConns)
	}
	return l
}

// tooMany is what a client over its connection bound reads.
var tooMany = func() string {
	body := `{"error":"BUSY","message":"too many connections from this client: reuse one"}` + "\n"
	return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body
}()

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		if l.slots != nil {
			select {
			case l.slots <- struct{}{}:
			case <-l.closed:
				return nil, net.ErrClosed
			}
		}
		c, err := l.Listener.Accept()
		if err != nil {
			l.release()
			return nil, err
		}
		key := l.key(c.RemoteAddr())
		if key != "" {
			l.mu.Lock()
			n := l.open[key]
			if n >= l.perClient {
				l.mu.Unlock()
				_ = c.SetWriteDeadline(time.Now().Add(time.Second))
				_, _ = io.WriteString(c, tooMany)
				c.Close()
				l.release()
				continue
			}
			l.open[key] = n + 1
			l.mu.Unlock()
		}
		return &limitedConn{Conn: c, l: l, key: key}, nil
	}
}

// key is the name a connection from addr is counted by, "" when it is not
// counted per client.
func (l *connLimiter) key(addr net.Addr) string {
	if l.perClient <= 0 {
		return ""
	}
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return ""
	}
	if len(l.proxies) > 0 && l.proxies.Trusts(ap.Addr()) {
		return ""
	}
	return ClientKey(ap.Addr().Unmap().WithZone("").String(), l.v6Prefix)
}

func (l *connLimiter) release() {
	if l.slots != nil {
		<-l.slots
	}
}

func (l *connLimiter) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// limitedConn gives its slots back when closed.
type limitedConn struct {
	net.Conn
	l    *connLimiter
	key  string
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		if c.key != "" {
			c.l.mu.Lock()
			if n := c.l.open[c.key]; n <= 1 {
				delete(c.l.open, c.key)
			} else {
				c.l.open[c.key] = n - 1
			}
			c.l.mu.Unlock()
		}
		c.l.release()
	})
	return err
}

// ReadFrom keeps the TCP connection's sendfile path.
func (c *limitedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// CloseWrite lets net/http half-close the TCP connection.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
