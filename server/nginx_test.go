package server_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nginxBinary finds nginx, or skips the test (fails it in CI, where
// .ci/run installs nginx-light).
func nginxBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if fi, err := os.Stat("/usr/sbin/nginx"); err == nil && !fi.IsDir() {
		return "/usr/sbin/nginx"
	}
	if os.Getenv("CI") != "" {
		t.Fatal("nginx is not installed; .ci/run installs nginx-light")
	}
	t.Skip("nginx is not installed: apt-get install nginx-light to run the CDN test (CI installs it)")
	return ""
}

// startNginx runs nginx with proxy_cache on a free port of 127.0.0.1 in
// front of upstream (host:port). It returns nginx's base URL and the cache
// folder. The whole setup lives in a temporary folder.
func startNginx(t *testing.T, upstream string) (string, string) {
	t.Helper()
	bin := nginxBinary(t)
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	user := ""
	if os.Geteuid() == 0 {
		// Workers would run as nobody and could not enter the 0700
		// temporary folder.
		user = "user root;"
	}
	cache := filepath.Join(dir, "cache")
	conf := fmt.Sprintf(`%[1]s
worker_processes 1;
daemon off;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log info;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path %[2]s/body;
  proxy_temp_path %[2]s/proxy;
  fastcgi_temp_path %[2]s/fastcgi;
  uwsgi_temp_path %[2]s/uwsgi;
  scgi_temp_path %[2]s/scgi;
  proxy_cache_path %[3]s levels=1:2 keys_zone=folio:1m max_size=10m inactive=10m use_temp_path=off;
  server {
    listen %[4]s;
    location / {
      proxy_pass http://%[5]s;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_cache folio;
      proxy_cache_revalidate on;
      add_header X-Cache-Status $upstream_cache_status always;
    }
  }
}
`, user, dir, cache, addr, upstream)
	cfg := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", cfg, "-e", filepath.Join(dir, "error.log"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	errorLog := func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		return out.String() + string(b)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("nginx error log:\n%s", errorLog())
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("nginx exited: %v\n%s", err, errorLog())
		default:
		}
		if res, err := http.Get(base + "/healthz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return base, cache
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx did not start\n%s", errorLog())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// purge emulates a CDN's purge-by-key API on nginx's cache: it deletes
// every cached response whose stored Surrogate-Key header names one of
// keys (nginx treats a missing cache file as a miss). It returns how many
// it deleted.
func purge(t *testing.T, cache string, keys []string) int {
	t.Helper()
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	n := 0
	err := filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, rest, ok := bytes.Cut(b, []byte("\nSurrogate-Key: "))
		if !ok {
			return nil
		}
		line, _, _ := bytes.Cut(rest, []byte("\r\n"))
		for _, k := range strings.Fields(string(line)) {
			if want[k] {
				n++
				return os.Remove(p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBehindNginxCache puts a real caching proxy (nginx, proxy_cache) in
// front of folio and shows that a cache that honours folio's headers
// serves fresh content after a push: the public responses are cached
// (second request a HIT), the ones read with a key are not; after a push
// the cache still holds the old copy (max-age=60 has not run out), and
// purging the keys that --notify sent, as a CDN's purge API would, makes
// the next request fetch the new content. nginx-light has no purge
// module: the purge is emulated by deleting the cached files whose
// Surrogate-Key names a notified key. What this proves: the keys on the
// responses and in the notification match, and purging by them refreshes
// what changed and leaves other types cached. It does not exercise a real
// CDN's purge API, stale-while-revalidate or stale-if-error (nginx would
// need the 60 s max-age to run out).
func TestBehindNginxCache(t *testing.T) {
	const secret = "cdn"
	rc := newHookReceiver(t, secret)
	files := map[string]string{
		"folio.yaml":        "types:\n  posts:\n    public: true\n  news:\n    public: true\n",
		"content/news/n.md": "---\ntitle: News\ndate: 2026-01-01\n---\nN.\n",
	}
	for k, v := range siteFiles {
		if _, ok := files[k]; !ok {
			files[k] = v
		}
	}
	repo := newRepo(t, files)
	ts := startServer(t, repo.bare, withNotify(t, secret, rc.URL))
	key := ts.reader(t)
	cdn, cache := startNginx(t, strings.TrimPrefix(ts.URL, "http://"))

	fetch := func(path, key string, header ...string) (response, string) {
		t.Helper()
		r := get(t, cdn+path, key, header...)
		return r, r.Header.Get("X-Cache-Status")
	}
	title := func(r response) string {
		t.Helper()
		if r.Status != http.StatusOK {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		s, _ := r.json(t)["title"].(string)
		return s
	}
	const itemA, itemB, list = "/api/v1/public/collections/posts/a", "/api/v1/public/collections/posts/b", "/api/v1/public/collections/posts"
	const other = "/api/v1/public/collections/news/n"
	for _, p := range []string{itemA, itemB, list, other} {
		if _, st := fetch(p, ""); st != "MISS" {
			t.Fatalf("%s first: %s, want MISS", p, st)
		}
		r, st := fetch(p, "")
		if st != "HIT" {
			t.Fatalf("%s second: %s, want HIT", p, st)
		}
		if r.Header.Get("Surrogate-Key") == "" || r.Header.Get("Cache-Tag") == "" {
			t.Fatalf("%s: no surrogate keys through the cache: %v", p, r.Header)
		}
	}
	r, _ := fetch(itemA, "")
	if title(r) != "Alpha" {
		t.Fatalf("title %q", title(r))
	}
	// A client revalidating its own copy gets a 304 from the cache.
	if r2, st := fetch(itemA, "", "If-None-Match", r.Header.Get("ETag")); r2.Status != http.StatusNotModified || st != "HIT" {
		t.Fatalf("If-None-Match through the cache: %d %s", r2.Status, st)
	}
	// Responses read with a key are private: never cached.
	for i := 0; i < 2; i++ {
		if _, st := fetch("/api/v1/content/posts/a", key); st == "HIT" {
			t.Fatal("a response read with a key was served from the shared cache")
		}
	}

	repo.commit("retitle", map[string]string{"content/posts/a.md": "---\ntitle: Alpha 2\ndate: 2026-01-10\n---\nNew.\n"})
	eventually(t, "folio to serve the push", func() bool { return title(get(t, ts.URL+itemA, "")) == "Alpha 2" })
	// The cache does not know yet: within max-age it serves the old copy.
	if r, st := fetch(itemA, ""); st != "HIT" || title(r) != "Alpha" {
		t.Fatalf("before the purge: %s %q, want the cached old copy", st, title(r))
	}
	ev := rc.next(t)
	// Every item carries its type's key, so the type's key in the
	// notification purges the items of the type with its list: a, b and
	// the list; not the news item.
	if n := purge(t, cache, ev.Keys); n != 3 {
		t.Fatalf("purging %v removed %d cached responses, want 3 (posts a and b, their list)", ev.Keys, n)
	}
	if r, st := fetch(itemA, ""); st != "MISS" || title(r) != "Alpha 2" {
		t.Fatalf("after the purge: %s %q, want a MISS with the new title", st, title(r))
	}
	if r, st := fetch(itemA, ""); st != "HIT" || title(r) != "Alpha 2" {
		t.Fatalf("after the purge, again: %s %q", st, title(r))
	}
	r, st := fetch(list, "")
	if st != "MISS" || !strings.Contains(string(r.Body), "Alpha 2") {
		t.Fatalf("list after the purge: %s %s", st, r.Body)
	}
	if r, st := fetch(other, ""); st != "HIT" || title(r) != "News" {
		t.Fatalf("another type was purged too: %s %q", st, title(r))
	}
}
