package server_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server"
)

// syncBuffer is a log destination the server and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// withLog sends the engine's and the server's logs to buf.
func withLog(buf *syncBuffer) serverOpt {
	return func(ec *engine.Config, sc *server.Config) {
		l := slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		ec.Logger, sc.Logger = l, l
	}
}

// TestResource_BodyGone: an item whose Markdown body cannot be read from
// the repository any more (its blob is gone: a force push and a git gc)
// is a 500 in the error shape, never a cacheable 200; the failure is
// logged with the file's path, and the next request tries again.
func TestResource_BodyGone(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":            "types:\n  posts:\n    public: true\n",
		"content/posts/gone.md": "---\ntitle: Gone\ndate: 2026-01-01\n---\nThe *body* of a post whose blob goes away.\n",
		"content/posts/kept.md": "---\ntitle: Kept\ndate: 2026-01-01\n---\nStill here.\n",
	})
	blob := git(t, repo.work, "rev-parse", "HEAD:content/posts/gone.md")
	obj := filepath.Join(repo.bare, "objects", blob[:2], blob[2:])
	if _, err := os.Stat(obj); err != nil {
		t.Fatalf("the blob is not a loose object of the bare repository: %v", err)
	}
	var logs syncBuffer
	ts := startServer(t, repo.bare, withLog(&logs))
	key := ts.reader(t)

	if err := os.Rename(obj, obj+".away"); err != nil {
		t.Fatal(err)
	}
	for _, route := range []struct{ url, key string }{
		{ts.URL + "/api/v1/public/collections/posts/gone", ""},
		{ts.URL + "/api/v1/content/posts/gone", key},
		{ts.URL + "/api/v1/content/posts/gone", key}, // again: not cached
	} {
		for _, enc := range []string{"identity", "gzip"} {
			r := get(t, route.url, route.key, "Accept-Encoding", enc)
			wantError(t, r, 500, "INTERNAL_ERROR")
			if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("%s (%s): Cache-Control %q, want no-store", route.url, enc, cc)
			}
			if r.Header.Get("ETag") != "" || r.Header.Get("Surrogate-Key") != "" {
				t.Errorf("%s (%s): an error carries ETag %q, Surrogate-Key %q", route.url, enc, r.Header.Get("ETag"), r.Header.Get("Surrogate-Key"))
			}
		}
	}
	if r := get(t, ts.URL+"/api/v1/content/posts/kept", key); r.Status != 200 {
		t.Fatalf("another post: %d %s", r.Status, r.Body)
	}
	if l := logs.String(); !strings.Contains(l, "content/posts/gone.md") || !strings.Contains(l, "level=ERROR") {
		t.Errorf("the failure is not logged at error level with the file's path:\n%s", l)
	}

	if err := os.Rename(obj+".away", obj); err != nil {
		t.Fatal(err)
	}
	r := get(t, ts.URL+"/api/v1/content/posts/gone", key)
	if r.Status != 200 || !strings.Contains(string(r.Body), "<em>body</em>") {
		t.Fatalf("with the blob back: %d %s", r.Status, r.Body)
	}
}
