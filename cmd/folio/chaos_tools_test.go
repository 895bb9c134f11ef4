//go:build chaos || soak

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-cms/folio/fixtures/testkit"
)

// The tools of the chaos tests (make chaos): toxiproxy, a front that
// answers S3's 503 SlowDown, a Git remote over HTTP, a load of reads that
// counts every answer, and the figures each scenario reports.

// toxiproxy is one toxiproxy server process, driven through its HTTP API.
type toxiproxy struct {
	api string
	log *syncBuffer
}

func startToxiproxy(t *testing.T) *toxiproxy {
	t.Helper()
	bin := os.Getenv("FOLIO_TOXIPROXY")
	if bin == "" {
		bin = filepath.Join(testkit.ModuleRoot(t), ".bin", "toxiproxy-server")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no toxiproxy server at %s: run `make toxiproxy` (or set FOLIO_TOXIPROXY)", bin)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	x := &toxiproxy{api: "http://127.0.0.1:" + port, log: &syncBuffer{}}
	cmd := exec.Command(bin, "-host", "127.0.0.1", "-port", port)
	cmd.Stdout, cmd.Stderr = x.log, x.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(clusterStart)
	for {
		res, err := http.Get(x.api + "/version")
		if err == nil {
			res.Body.Close()
			return x
		}
		if time.Now().After(deadline) {
			t.Fatalf("toxiproxy not answering: %v\n%s", err, x.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (x *toxiproxy) call(t *testing.T, method, path string, body any) []byte {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, x.api+path, rd)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("toxiproxy %s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		t.Fatalf("toxiproxy %s %s: %d %s", method, path, res.StatusCode, out)
	}
	return out
}

// proxy makes a proxy to upstream on a fresh loopback port and returns
// the port's address.
func (x *toxiproxy) proxy(t *testing.T, name, upstream string) string {
	t.Helper()
	out := x.call(t, "POST", "/proxies", map[string]any{"name": name, "listen": "127.0.0.1:0", "upstream": upstream, "enabled": true})
	var p struct{ Listen string }
	if err := json.Unmarshal(out, &p); err != nil || strings.HasSuffix(p.Listen, ":0") {
		t.Fatalf("toxiproxy proxy %s: %s", name, out)
	}
	return p.Listen
}

// toxic adds a toxic of typ to stream ("upstream": to the server,
// "downstream": to the client) of proxy, on a toxicity share of its
// connections.
func (x *toxiproxy) toxic(t *testing.T, proxy, name, typ, stream string, toxicity float64, attrs map[string]any) {
	t.Helper()
	x.call(t, "POST", "/proxies/"+proxy+"/toxics", map[string]any{"name": name, "type": typ, "stream": stream, "toxicity": toxicity, "attributes": attrs})
}

// clear removes every toxic of proxy and enables it.
func (x *toxiproxy) clear(t *testing.T, proxy string) {
	t.Helper()
	var p struct{ Toxics []struct{ Name string } }
	json.Unmarshal(x.call(t, "GET", "/proxies/"+proxy, nil), &p)
	for _, tx := range p.Toxics {
		x.call(t, "DELETE", "/proxies/"+proxy+"/toxics/"+tx.Name, nil)
	}
	x.enable(t, proxy, true)
}

// enable turns proxy on or off: off, it refuses connections and drops
// the open ones, as an unreachable host does.
func (x *toxiproxy) enable(t *testing.T, proxy string, on bool) {
	t.Helper()
	x.call(t, "POST", "/proxies/"+proxy, map[string]any{"enabled": on})
}

// slowDown is an HTTP front of an S3 server that answers a share of the
// requests with S3's 503 SlowDown, as a throttling bucket does, and
// passes the others on. (A TCP toxic cannot forge an HTTP answer.)
type slowDown struct {
	URL      string
	percent  atomic.Int64 // share of requests refused, 0-100
	n        atomic.Int64
	refused  atomic.Int64
	upstream string
}

func newSlowDown(t *testing.T, upstream string) *slowDown {
	t.Helper()
	f := &slowDown{upstream: upstream}
	u, _ := url.Parse("http://" + upstream)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = nil
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) { w.WriteHeader(http.StatusBadGateway) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := f.n.Add(1)
		if p := f.percent.Load(); p > 0 && n%100 < p {
			f.refused.Add(1)
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/xml")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
				`<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><Resource>%s</Resource><RequestId>chaos-%d</RequestId></Error>`, r.URL.Path, n)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// gitHTTP serves the bare repositories under root over Git's smart HTTP
// protocol: git http-backend behind net/http/cgi.
func gitHTTP(t *testing.T, root string) *httptest.Server {
	t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	h := &cgi.Handler{Path: gitBin, Args: []string{"http-backend"}, Dir: root,
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + root}}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// tally counts the answers of a load by status; a transport error (no
// answer) counts under status 0.
type tally struct {
	mu       sync.Mutex
	byStatus map[int]int
	codes    map[string]int // error codes of 5xx answers
	last     map[int]string // the last body or error per status
}

func newTally() *tally {
	return &tally{byStatus: map[int]int{}, codes: map[string]int{}, last: map[int]string{}}
}

func (tl *tally) add(r httpResult, err error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if err != nil {
		tl.byStatus[0]++
		tl.last[0] = err.Error()
		return
	}
	tl.byStatus[r.status]++
	if r.status >= 400 {
		var e struct{ Error string }
		json.Unmarshal(r.body, &e)
		tl.codes[fmt.Sprintf("%d %s", r.status, e.Error)]++
		tl.last[r.status] = string(r.body)
	}
}

func (tl *tally) total() int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	n := 0
	for _, c := range tl.byStatus {
		n += c
	}
	return n
}

// failed counts the answers that are not 2xx or 304.
func (tl *tally) failed() int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	n := 0
	for s, c := range tl.byStatus {
		if s/100 != 2 && s != http.StatusNotModified {
			n += c
		}
	}
	return n
}

func (tl *tally) count(status int) int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.byStatus[status]
}

func (tl *tally) String() string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var ss []int
	for s := range tl.byStatus {
		ss = append(ss, s)
	}
	slices.Sort(ss)
	var parts []string
	for _, s := range ss {
		name := fmt.Sprint(s)
		if s == 0 {
			name = "no answer"
		}
		parts = append(parts, fmt.Sprintf("%s×%d", name, tl.byStatus[s]))
	}
	var codes []string
	for c, n := range tl.codes {
		codes = append(codes, fmt.Sprintf("%s×%d", c, n))
	}
	slices.Sort(codes)
	if len(parts) == 0 {
		return "none"
	}
	s := strings.Join(parts, " ")
	if len(codes) > 0 {
		s += " (" + strings.Join(codes, ", ") + ")"
	}
	return s
}

// readLoad GETs paths round-robin on boxes, one request every every,
// until ctx is done, counting the answers in tl.
func readLoad(ctx context.Context, boxes []*clusterBox, key string, paths []string, every time.Duration, tl *tally) *sync.WaitGroup {
	var wg sync.WaitGroup
	for _, b := range boxes {
		wg.Go(func() {
			t := time.NewTicker(every)
			defer t.Stop()
			for i := 0; ; i++ {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				tl.add(b.call("GET", paths[i%len(paths)], key, nil))
			}
		})
	}
	return &wg
}

// slowClient is for writes under faults: they may take long before they
// succeed or fail, and the test wants their answer, not its own timeout.
var slowClient = &http.Client{Timeout: 3 * time.Minute}

// callSlow is clusterBox.call with slowClient.
func (b *clusterBox) callSlow(method, path, key string, body io.Reader, header ...string) (httpResult, error) {
	return b.callWith(slowClient, method, path, key, body, header...)
}

// figures is one scenario's record: what the closing note reports.
type figures struct {
	scenario string
	took     time.Duration
	reads    *tally
	writes   *tally
	lost     int
	notes    []string
}

func (f *figures) log(t *testing.T) {
	t.Helper()
	t.Logf("figures | %s | %v | reads: %d, %s | writes: %d, %s | lost: %d | %s", f.scenario, f.took.Round(time.Second),
		f.reads.total(), f.reads, f.writes.total(), f.writes, f.lost, strings.Join(f.notes, "; "))
}
