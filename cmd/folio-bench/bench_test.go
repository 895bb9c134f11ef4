package main

import (
	"bytes"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestParseWrk(t *testing.T) {
	out := `Running 3s test @ http://127.0.0.1:18099/
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     4.22ms    8.42ms  97.18ms   92.80%
    Req/Sec    15.34k     8.39k   30.18k    53.33%
  Latency Distribution
     50%  812.00us
     75%    4.16ms
     90%    9.63ms
     99%    1.02s
  92338 requests in 3.10s, 735.57MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 7
Requests/sec:  29786.90
Transfer/sec:    237.28MB
`
	got, err := parseWrk(out)
	if err != nil {
		t.Fatal(err)
	}
	want := loadResult{Requests: 92338, Errors: 12, RPS: 29786.90, P50: 812 * time.Microsecond, P99: 1020 * time.Millisecond}
	if got != want {
		t.Errorf("parseWrk = %+v, want %+v", got, want)
	}
}

func TestSummarize(t *testing.T) {
	got := summarize([]float64{5, 1, 3, 2})
	if want := (summary{Median: 2.5, Min: 1, Max: 5, N: 4}); got != want {
		t.Errorf("summarize = %+v, want %+v", got, want)
	}
	if got := percentile([]time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.5); got != 6 {
		t.Errorf("p50 = %v, want 6 (nearest rank, rounding up)", got)
	}
}

func TestPDFStream(t *testing.T) {
	data, err := io.ReadAll(newPDFStream(200_000, 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 200_000 || !bytes.HasPrefix(data, []byte("%PDF-")) {
		t.Errorf("got %d bytes starting %q", len(data), data[:8])
	}
}

func TestFloorHandler(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: floorHandler([]byte(`{"a":1}`), []byte("gz-bytes"))}
	go srv.Serve(ln)
	defer srv.Close()
	// The transport's own gzip handling is off, so the bytes arrive as sent.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, c := range []struct{ enc, body, ce string }{{"", `{"a":1}`, ""}, {"gzip", "gz-bytes", "gzip"}, {"br, gzip", "gz-bytes", "gzip"}} {
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/api/v1/pages/x", nil)
		if c.enc != "" {
			req.Header.Set("Accept-Encoding", c.enc)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != c.body || resp.Header.Get("Content-Encoding") != c.ce || resp.Header.Get("Content-Type") != "application/json" ||
			resp.ContentLength != int64(len(c.body)) {
			t.Errorf("Accept-Encoding %q: %q, encoding %q, type %q, length %d", c.enc, got, resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Type"), resp.ContentLength)
		}
	}
}

// TestBlackPNG: the worst-case files are real PNGs of the size they claim.
func TestBlackPNG(t *testing.T) {
	for _, c := range worstCases {
		if c.w*c.h > 5_000_000 {
			continue // seconds of deflate: made by the bench itself, which checks the answer
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(blackPNG(c.w, c.h, c.colorType, c.depth)))
		if err != nil || cfg.Width != c.w || cfg.Height != c.h {
			t.Errorf("%s: %dx%d, %v", c.name, cfg.Width, cfg.Height, err)
		}
	}
	m, err := png.Decode(bytes.NewReader(blackPNG(300, 20, 6, 16)))
	if err != nil || m.Bounds().Dx() != 300 || m.Bounds().Dy() != 20 {
		t.Fatalf("16-bit RGBA: %v", err)
	}
}

func TestListTotal(t *testing.T) {
	for body, want := range map[string]int{
		`{"items":[{"total":3}],"total":1234,"limit":20,"offset":0}`: 1234,
		`{"items":[],"total":0}`:                                     0,
		`{"error":"x"}`:                                              0,
	} {
		if got := listTotal(body); got != want {
			t.Errorf("listTotal(%s) = %d, want %d", body, got, want)
		}
	}
}

// TestCommitOne: the scale group's fast-import commits change the one
// post on main (twice in a row) and on a new branch made from main.
func TestCommitOne(t *testing.T) {
	dir := t.TempDir()
	work, bare := dir+"/work", dir+"/site.git"
	for _, args := range [][]string{{"init", "-q", "-b", "main", work}} {
		if err := git("", args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(work+"/content/posts", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(work+"/content/posts/a.md", []byte("---\ntitle: Old\n---\nBody.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "a"}, {"clone", "-q", "--bare", ".", bare}} {
		if err := git(work, args...); err != nil {
			t.Fatal(err)
		}
	}
	show := func(rev string) string {
		out, err := exec.Command("git", "-C", bare, "show", rev).Output()
		if err != nil {
			t.Fatalf("git show %s: %v", rev, err)
		}
		return string(out)
	}
	for _, title := range []string{"First", "Second"} {
		if err := commitOne(bare, "main", "a", title); err != nil {
			t.Fatal(err)
		}
		if got := show("main:content/posts/a.md"); got != "---\ntitle: \""+title+"\"\n---\nBody.\n" {
			t.Fatalf("main after %s: %q", title, got)
		}
	}
	if err := commitOne(bare, "ahead", "a", "Ahead"); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(show("ahead^:content/posts/a.md")); !strings.Contains(got, "Second") {
		t.Fatalf("the branch's parent is not main: %q", got)
	}
	if got := show("ahead:content/posts/a.md"); !strings.Contains(got, `title: "Ahead"`) {
		t.Fatalf("branch: %q", got)
	}
}
