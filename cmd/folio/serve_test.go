package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/fixtures/testkit"
	"github.com/folio-cms/folio/server/notify"
)

func TestNotifyFlags(t *testing.T) {
	parse := func(args ...string) (urlList, error) {
		var l urlList
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(&l, "notify", "")
		err := parseFlags(fs, args)
		return l, err
	}
	l, err := parse("--notify", "http://127.0.0.1:1/a", "--notify", "https://127.0.0.1:2/b")
	if err != nil || !slices.Equal(l, urlList{"http://127.0.0.1:1/a", "https://127.0.0.1:2/b"}) {
		t.Fatalf("repeated flag: %v %v", l, err)
	}
	t.Setenv("FOLIO_NOTIFY", "http://127.0.0.1:1/a, http://127.0.0.1:3/c")
	if l, err := parse(); err != nil || !slices.Equal(l, urlList{"http://127.0.0.1:1/a", "http://127.0.0.1:3/c"}) {
		t.Fatalf("FOLIO_NOTIFY: %v %v", l, err)
	}
	if l, err := parse("--notify", "http://127.0.0.1:9/x"); err != nil || !slices.Equal(l, urlList{"http://127.0.0.1:9/x"}) {
		t.Fatalf("the flag wins over the environment: %v %v", l, err)
	}
	for _, bad := range []string{"ftp://127.0.0.1/", "127.0.0.1:8080", "http://"} {
		if _, err := parse("--notify", bad); err == nil {
			t.Errorf("--notify %q accepted", bad)
		}
	}
}

// TestServeNotify runs `folio serve --notify URL --notify-secret S` and
// commits to the site: the receiver gets the signed content event, and the
// server stops cleanly.
func TestServeNotify(t *testing.T) {
	t.Parallel()
	events := make(chan []byte, 10)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if got := r.Header.Get(notify.SignatureHeader); got != notify.Sign("s3", body) {
			t.Errorf("signature %q", got)
		}
		select {
		case events <- body:
		case <-r.Context().Done():
		}
	}))
	defer rc.Close()

	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pages/home.md", "---\ntitle: Home\nisHomepage: true\n---\nHi.\n")
	testkit.Git(t, dir, "init", "-q")
	testkit.Git(t, dir, "add", "-A")
	testkit.Git(t, dir, "commit", "-qm", "one")

	box := serveBox(t, "--site", dir, "--cache-dir", t.TempDir(),
		"--keys", filepath.Join(t.TempDir(), "keys.yaml"), "--media", t.TempDir(), "--log-level", "error",
		"--notify", rc.URL, "--notify-secret", "s3")
	write("pages/home.md", "---\ntitle: Home 2\nisHomepage: true\n---\nHi.\n")
	testkit.Git(t, dir, "commit", "-qam", "two")
	commit := testkit.Git(t, dir, "rev-parse", "HEAD")
	var ev notify.Event
	select {
	case body := <-events:
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no notification")
	}
	if ev.Event != "content" || ev.Commit != commit || len(ev.Keys) != 2 || ev.Keys[1] != "pages" || !strings.HasPrefix(ev.Keys[0], "page:") {
		t.Fatalf("event %+v, want content %s [page:<id> pages]", ev, commit)
	}
	if err := box.stop(); err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// TestServePublicURLAndCORS runs `folio serve --public-url … --cors-origins
// …`: media URLs are absolute under the public URL, the admin pages' CSP
// lets images come from it, and a listed origin may call keyed routes.
func TestServePublicURLAndCORS(t *testing.T) {
	t.Parallel()
	site := t.TempDir()
	os.MkdirAll(filepath.Join(site, "pages"), 0o755)
	os.WriteFile(filepath.Join(site, "pages", "home.md"), []byte("---\ntitle: Home\nisHomepage: true\n---\nHi.\n"), 0o644)
	testkit.Git(t, site, "init", "-q")
	testkit.Git(t, site, "add", "-A")
	testkit.Git(t, site, "commit", "-qm", "one")
	mediaDir := t.TempDir()
	if _, stderr, err := runCLI(t, "media", "import", "--media", mediaDir, filepath.Join("..", "..", "fixtures", "media", "alpine-lake.jpg")); err != nil {
		t.Fatalf("media import: %v\n%s", err, stderr)
	}
	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	stdout, _, err := runCLI(t, "keys", "create", "--keys", keysFile, "--name", "k", "--scopes", "content:read,media:read")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	key := lines[len(lines)-1]

	// The public URL names the port before folio listens on it: a port
	// found free may be taken by a test running alongside before folio
	// binds it, so try another then.
	var public string
	var box *folioBox
	for attempt := 1; ; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		public = "http://" + addr
		box, err = startBox(t, "--site", site, "--addr", addr, "--cache-dir", t.TempDir(), "--keys", keysFile,
			"--media", mediaDir, "--log-level", "error", "--public-url", public+"/", "--cors-origins", "https://www.example.com")
		if err == nil {
			break
		}
		if attempt == 5 || !strings.Contains(err.Error(), "address already in use") {
			t.Fatal(err)
		}
	}

	res, err := http.Get(public + "/api/v1/public/media")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Data []struct{ URL string } }
	json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if len(list.Data) != 1 || !strings.HasPrefix(list.Data[0].URL, public+"/uploads/") {
		t.Fatalf("public media %+v, want one URL under %s/uploads/", list, public)
	}
	if res, err := http.Get(list.Data[0].URL); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %v %v", list.Data[0].URL, res, err)
	} else {
		res.Body.Close()
	}

	res, err = http.Get(public + "/admin/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self' data: blob: "+public+";") {
		t.Errorf("admin CSP %q, want %s in img-src", csp, public)
	}

	req, _ := http.NewRequest(http.MethodGet, public+"/api/v1/pages", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Origin", "https://www.example.com")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Access-Control-Allow-Origin") != "https://www.example.com" {
		t.Errorf("GET /pages from a listed origin: %d, Access-Control-Allow-Origin %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
	if err := box.stop(); err != nil {
		t.Fatalf("serve: %v", err)
	}

	for _, bad := range [][]string{
		{"--cors-origins", "*"},
		{"--cors-origins", "https://example.com/app"},
		{"--public-url", "example.com"},
		{"--public-url", "http://127.0.0.1:1", "--storage", "s3", "--s3-endpoint", "http://127.0.0.1:1", "--s3-bucket", "b"},
	} {
		a := append([]string{"serve", "--site", site, "--addr", "127.0.0.1:0", "--cache-dir", t.TempDir(), "--keys", keysFile, "--media", t.TempDir(), "--log-level", "error"}, bad...)
		if err := run(context.Background(), a, io.Discard, io.Discard); err == nil {
			t.Errorf("serve %v: no error", bad)
		}
	}
}

// TestServeMetrics runs `folio serve --metrics-addr 127.0.0.1:0
// --log-format text`: /metrics on its own listener counts a request by
// its route and names the served commit, and the log is slog's text.
func TestServeMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.CommitSite(t, dir, map[string]string{"pages/home.md": "---\ntitle: Home\n---\nHi.\n"})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, logs syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--site", dir, "--addr", "127.0.0.1:0", "--cache-dir", t.TempDir(),
			"--keys", filepath.Join(t.TempDir(), "keys.yaml"), "--media", t.TempDir(),
			"--metrics-addr", "127.0.0.1:0", "--log-format", "text"}, &out, &logs)
	}()
	var api, metrics string
	deadline := time.Now().Add(30 * time.Second)
	for api == "" || metrics == "" {
		for _, line := range strings.Split(out.String(), "\n") {
			if u, ok := strings.CutPrefix(line, "folio serving "); ok {
				api = u
			}
			if u, ok := strings.CutPrefix(line, "folio metrics "); ok {
				metrics = u
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s", out.String())
		}
		select {
		case err := <-done:
			t.Fatalf("serve stopped: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	get := func(url string) string {
		t.Helper()
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", url, res.StatusCode, b)
		}
		return string(b)
	}
	get(api + "/healthz")
	text := get(metrics)
	for _, want := range []string{
		`folio_http_requests_total{method="GET",route="/healthz",status="200"} 1`,
		`folio_content_commit_info{branch="main",commit="`,
		`folio_media_items 0`,
		`go_goroutines`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// Go's profiles, on the same private listener; not on the API's.
	metricsBase := strings.TrimSuffix(metrics, "/metrics")
	if idx := get(metricsBase + "/debug/pprof/"); !strings.Contains(idx, "goroutine") {
		t.Errorf("pprof index: %.200s", idx)
	}
	if heap := get(metricsBase + "/debug/pprof/heap"); len(heap) == 0 {
		t.Error("empty heap profile")
	}
	if res, err := http.Get(api + "/debug/pprof/"); err != nil {
		t.Fatal(err)
	} else if res.Body.Close(); res.StatusCode != http.StatusNotFound {
		t.Errorf("pprof on the API listener: %d", res.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if l := logs.String(); !strings.Contains(l, "level=INFO msg=serving") || strings.Contains(l, `{"time"`) {
		t.Errorf("--log-format text: %s", l)
	}

	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"serve", "--site", dir, "--log-format", "xml"}, io.Discard, &stderr); err == nil || !strings.Contains(err.Error(), "--log-format") {
		t.Errorf("--log-format xml: %v", err)
	}
}

// TestServeMissingKeysFile: a box whose --keys file does not exist says so
// at start and answers keyed routes 503 NO_KEYS_FILE (public routes
// work) unless started with --allow-missing-keys; once the file is
// created, keys work. A media root that does not exist is created with a
// warning, not silently. Before, the box started silently, answered 401
// to every key and made ./media in the working directory.
func TestServeMissingKeysFile(t *testing.T) {
	t.Parallel()
	site := t.TempDir()
	os.MkdirAll(filepath.Join(site, "pages"), 0o755)
	os.WriteFile(filepath.Join(site, "pages", "home.md"), []byte("---\ntitle: Home\nisHomepage: true\n---\nHi.\n"), 0o644)
	testkit.Git(t, site, "init", "-q")
	testkit.Git(t, site, "add", "-A")
	testkit.Git(t, site, "commit", "-qm", "one")
	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	mediaDir := filepath.Join(t.TempDir(), "media")
	status := func(url, key string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	box := serveBox(t, "--site", site, "--cache-dir", t.TempDir(), "--keys", keysFile, "--media", mediaDir)
	if log := box.log.String(); !strings.Contains(log, "the keys file does not exist") || !strings.Contains(log, "created the media root") {
		t.Errorf("no warning at start:\n%s", log)
	}
	if st, body := status(box.URL+"/api/v1/pages", "whatever"); st != http.StatusServiceUnavailable || !strings.Contains(body, `"NO_KEYS_FILE"`) {
		t.Errorf("keyed route without a keys file: %d %s", st, body)
	}
	if st, body := status(box.URL+"/api/v1/pages", ""); st != http.StatusServiceUnavailable {
		t.Errorf("keyed route without a key nor a keys file: %d %s", st, body)
	}
	if st, _ := status(box.URL+"/healthz", ""); st != http.StatusOK {
		t.Errorf("healthz: %d", st)
	}
	stdout, _, err := runCLI(t, "keys", "create", "--keys", keysFile, "--name", "k", "--scopes", "content:read")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	key := lines[len(lines)-1]
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, body := status(box.URL+"/api/v1/pages", key)
		if st == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("keys file created, key still refused: %d %s", st, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := box.stop(); err != nil {
		t.Fatal(err)
	}

	other := filepath.Join(t.TempDir(), "none.yaml")
	box = serveBox(t, "--site", site, "--cache-dir", t.TempDir(), "--keys", other, "--media", mediaDir, "--allow-missing-keys")
	if st, body := status(box.URL+"/api/v1/pages", "whatever"); st != http.StatusUnauthorized {
		t.Errorf("--allow-missing-keys: %d %s, want 401", st, body)
	}
	if log := box.log.String(); strings.Contains(log, "created the media root") {
		t.Errorf("an existing media root reported created:\n%s", log)
	}
}
