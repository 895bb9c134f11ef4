package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/fixtures/testkit"
	"github.com/folio-cms/folio/server"
)

// gitRepo is a bare repository that the server reads, and a work clone that
// the test commits in and pushes from, with the real git CLI.
type gitRepo struct {
	t          testing.TB
	bare, work string
	date       string // commit date of the next commits; "" for now
}

// git and gitEnv run the real git CLI (testkit.Git).
var (
	git    = testkit.Git
	gitEnv = testkit.GitEnv
)

// newRepo makes a bare repository holding one commit of files on main.
func newRepo(t testing.TB, files map[string]string) *gitRepo {
	t.Helper()
	return newRepoAt(t, "", files)
}

// newRepoAt is newRepo with commits dated date (RFC 3339; "" for now).
func newRepoAt(t testing.TB, date string, files map[string]string) *gitRepo {
	t.Helper()
	root := t.TempDir()
	r := &gitRepo{t: t, bare: filepath.Join(root, "site.git"), work: filepath.Join(root, "work"), date: date}
	git(t, root, "init", "-q", "--bare", r.bare)
	git(t, root, "init", "-q", r.work)
	git(t, r.work, "remote", "add", "origin", r.bare)
	r.commit("initial", files)
	return r
}

// commit writes files (an empty content deletes the file), commits and pushes.
func (r *gitRepo) commit(msg string, files map[string]string) string {
	r.t.Helper()
	r.write(files)
	git(r.t, r.work, "add", "-A")
	var env []string
	if r.date != "" {
		env = []string{"GIT_AUTHOR_DATE=" + r.date, "GIT_COMMITTER_DATE=" + r.date}
	}
	gitEnv(r.t, r.work, env, "commit", "-q", "--allow-empty", "-m", msg)
	git(r.t, r.work, "push", "-q", "origin", "HEAD:main")
	return git(r.t, r.work, "rev-parse", "HEAD")
}

func (r *gitRepo) write(files map[string]string) {
	r.t.Helper()
	for name, body := range files {
		p := filepath.Join(r.work, filepath.FromSlash(name))
		if body == "" {
			os.Remove(p)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// testServer is folio serving a repository over loopback.
type testServer struct {
	URL      string
	Handler  http.Handler
	Engine   *engine.Engine
	keys     *server.KeyStore
	keysFile string
	secret   map[string]string
}

type serverOpt func(*engine.Config, *server.Config)

func startServer(t testing.TB, site string, opts ...serverOpt) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return startServerOn(t, ln, site, opts...)
}

// startServerOn is startServer on a listener the test opened first (to
// know the server's address before configuring it).
func startServerOn(t testing.TB, ln net.Listener, site string, opts ...serverOpt) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ecfg := engine.Config{Site: site, CacheDir: t.TempDir()}
	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	keys, err := server.OpenKeys(keysFile)
	if err != nil {
		t.Fatal(err)
	}
	// Tests make their keys as they need them: until then the file is
	// missing, which a real box refuses without --allow-missing-keys.
	scfg := server.Config{Keys: keys, AllowMissingKeys: true}
	for _, o := range opts {
		o(&ecfg, &scfg)
	}
	eng, err := engine.Open(ctx, ecfg)
	if err != nil {
		cancel()
		ln.Close()
		t.Fatalf("engine.Open: %v", err)
	}
	scfg.Engine = eng
	srv := server.New(scfg)
	registerFolio(t, ln.Addr().String())
	done := make(chan struct{}, 2)
	go func() { eng.Run(ctx); done <- struct{}{} }()
	go func() { srv.Serve(ctx, ln); done <- struct{}{} }()
	t.Cleanup(func() {
		cancel()
		<-done
		<-done
		eng.Close()
	})
	ts := &testServer{URL: "http://" + ln.Addr().String(), Handler: srv, Engine: eng, keys: keys, keysFile: keysFile, secret: map[string]string{}}
	return ts
}

// key creates (once) a key named name with scopes and returns its secret.
func (ts *testServer) key(t testing.TB, name string, scopes ...string) string {
	t.Helper()
	if s, ok := ts.secret[name]; ok {
		return s
	}
	s, err := ts.keys.Create(name, scopes)
	if err != nil {
		t.Fatal(err)
	}
	ts.secret[name] = s
	return s
}

// reader is a key with content:read.
func (ts *testServer) reader(t testing.TB) string {
	return ts.key(t, "reader", server.ScopeContentRead)
}

type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v\n%s", err, r.Body)
	}
	return m
}

// do sends a request; key "" sends no Authorization header.
func do(t testing.TB, method, url, key string, body io.Reader, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return send(t, req)
}

// send sends req and reads the whole response.
func send(t testing.TB, req *http.Request) response {
	t.Helper()
	res, err := apiClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{Status: res.StatusCode, Header: res.Header, Body: b}
}

func get(t testing.TB, url, key string, header ...string) response {
	t.Helper()
	return do(t, http.MethodGet, url, key, nil, header...)
}

// wantError asserts an error response in the contract's shape.
func wantError(t testing.TB, r response, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
	var e struct{ Error, Message string }
	if err := json.Unmarshal(r.Body, &e); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, r.Body)
	}
	if e.Error != code || e.Message == "" {
		t.Fatalf("error body = %s, want code %s and a message", r.Body, code)
	}
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// clock is a Now the test sets or moves by hand, with timers on it
// (After) that fire when it moves past their instant.
type clock struct {
	ns atomic.Int64

	mu     sync.Mutex
	timers map[*clockTimer]bool
}

type clockTimer struct {
	at time.Time
	c  chan time.Time
}

func newClock(t time.Time) *clock { c := &clock{}; c.Set(t); return c }

func (c *clock) Now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Set(t time.Time)     { c.ns.Store(t.UnixNano()); c.fire() }
func (c *clock) Add(d time.Duration) { c.ns.Add(int64(d)); c.fire() }

// After is engine.Config.After on the clock: the channel receives once
// the test has moved the clock by d or more.
func (c *clock) After(d time.Duration) (<-chan time.Time, func() bool) {
	tm := &clockTimer{at: c.Now().Add(d), c: make(chan time.Time, 1)}
	c.mu.Lock()
	if c.timers == nil {
		c.timers = map[*clockTimer]bool{}
	}
	c.timers[tm] = true
	c.mu.Unlock()
	c.fire()
	return tm.c, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		pending := c.timers[tm]
		delete(c.timers, tm)
		return pending
	}
}

// timersAt are the instants the clock's pending timers wait for.
func (c *clock) timersAt() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	var at []time.Time
	for tm := range c.timers {
		at = append(at, tm.at)
	}
	return at
}

func (c *clock) fire() {
	now := c.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for tm := range c.timers {
		if !tm.at.After(now) {
			delete(c.timers, tm)
			tm.c <- now
		}
	}
}

// withClock runs the server and its engine, scheduler included, on c.
func withClock(c *clock) serverOpt {
	return func(e *engine.Config, s *server.Config) {
		e.Now, e.After, s.Now = c.Now, c.After, c.Now
	}
}
