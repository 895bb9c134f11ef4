package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// countingListener records the sizes of the write calls on its connections.
type countingListener struct {
	net.Listener
	mu     sync.Mutex
	writes []int
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, l: l}, nil
}

func (l *countingListener) take() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.writes
	l.writes = nil
	return w
}

type countingConn struct {
	net.Conn
	l *countingListener
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.l.mu.Lock()
	c.l.writes = append(c.l.writes, len(p))
	c.l.mu.Unlock()
	return c.Conn.Write(p)
}

// A response of known length, larger than net/http's 4 KB connection
// buffer, leaves in one write call, headers included.
func TestServe_OneWritePerResponse(t *testing.T) {
	t.Parallel()
	files := bigSite()
	// Text that compresses poorly, so that its gzip form is over 4 KB too.
	var noise strings.Builder
	sum := sha256.Sum256(nil)
	for noise.Len() < 12<<10 {
		sum = sha256.Sum256(sum[:])
		noise.WriteString(hex.EncodeToString(sum[:]) + " ")
	}
	files["pages/noise.md"] = "---\ntitle: Noise\n---\n" + noise.String() + "\n"
	repo := newRepo(t, files)
	ctx, cancel := context.WithCancel(context.Background())
	eng, err := engine.Open(ctx, engine.Config{Site: repo.bare, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := server.OpenKeys(filepath.Join(t.TempDir(), "keys.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := keys.Create("reader", []string{server.ScopeContentRead})
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Config{Engine: eng, Keys: keys})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: ln}
	done := make(chan struct{})
	go func() { srv.Serve(ctx, cl); close(done) }()
	t.Cleanup(func() { cancel(); <-done; eng.Close() })
	url := "http://" + ln.Addr().String()

	get(t, url+"/healthz", "") // connect
	cl.take()
	for _, enc := range []string{"identity", "gzip"} {
		r := get(t, url+"/api/v1/pages/noise", key, "Accept-Encoding", enc)
		if r.Status != 200 || len(r.Body) < 3<<10 {
			t.Fatalf("%s: %d, %d bytes", enc, r.Status, len(r.Body))
		}
		if w := cl.take(); len(w) != 1 || w[0] <= len(r.Body) {
			t.Errorf("%s: writes %v for a body of %d bytes, want one write with the headers", enc, w, len(r.Body))
		}
	}
	// Big list bodies too; and nothing is lost on a HEAD or a 304.
	r := get(t, url+"/api/v1/content/posts", key, "Accept-Encoding", "identity")
	if w := cl.take(); len(w) != 1 || !strings.Contains(string(r.Body), `"items"`) {
		t.Errorf("list: writes %v", w)
	}
}
