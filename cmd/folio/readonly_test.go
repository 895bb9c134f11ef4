package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/fixtures/testkit"
	"github.com/folio-cms/folio/server"
)

// syncBuffer collects a server's log while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// folioBox is `folio serve` running in the test process on loopback.
type folioBox struct {
	URL  string
	log  *syncBuffer
	stop func() error
}

// serveBox runs `folio serve args...` on 127.0.0.1:0 until stop is called
// or the test ends, and returns once it is serving.
func serveBox(t *testing.T, args ...string) *folioBox {
	t.Helper()
	box, err := startBox(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// startBox is serveBox returning the error of a folio that stopped
// before serving.
func startBox(t *testing.T, args ...string) (*folioBox, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	box := &folioBox{log: &syncBuffer{}}
	errc := make(chan error, 1)
	go func() {
		err := run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "warn"}, args...), pw, box.log)
		pw.Close()
		errc <- err
	}()
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "folio serving "); ok {
				urlc <- u
			}
		}
		close(urlc)
	}()
	var once sync.Once
	var stopErr error
	box.stop = func() error {
		once.Do(func() {
			cancel()
			stopErr = <-errc
		})
		return stopErr
	}
	t.Cleanup(func() { box.stop() })
	u, ok := <-urlc
	if !ok {
		return nil, fmt.Errorf("folio serve stopped before serving: %w\n%s", box.stop(), box.log.String())
	}
	box.URL = u
	return box, nil
}

type httpResult struct {
	status int
	header http.Header
	body   []byte
}

func (b *folioBox) do(t *testing.T, method, path, key, body string) httpResult {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, b.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return httpResult{res.StatusCode, res.Header, data}
}

func (r httpResult) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// wantReadOnly asserts the 405 READ_ONLY refusal in the error shape.
func (r httpResult) wantReadOnly(t *testing.T, what string) {
	t.Helper()
	var e struct{ Error, Message string }
	json.Unmarshal(r.body, &e)
	if r.status != http.StatusMethodNotAllowed || e.Error != server.CodeReadOnly || !strings.Contains(e.Message, "without --read-only") {
		t.Errorf("%s: %d %s, want 405 %s saying where writes go", what, r.status, r.body, server.CodeReadOnly)
	}
}

// siteRepo is a content repository with one page, committed with the git CLI.
func siteRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pages", "home.md"), []byte("---\ntitle: Home\nisHomepage: true\n---\nHi.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testkit.CommitSite(t, dir, nil)
	return dir
}

// pngFile writes a w×h PNG with some noise (so that its WebP derivatives
// are smaller and kept) and returns its path.
func pngFile(t *testing.T, name string, w, h int) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := uint8((x*7 + y*13) % 61)
			img.Set(x, y, color.NRGBA{R: uint8(x*191/w) + n, G: uint8(y*191/h) + n, B: 128 + n, A: 255})
		}
	}
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	return p
}

// newKey creates a key with scopes in the keys file and returns it.
func newKey(t *testing.T, keys, name, scopes string) string {
	t.Helper()
	out, stderr, err := runCLI(t, "keys", "create", "--keys", keys, "--name", name, "--scopes", scopes)
	if err != nil {
		t.Fatalf("keys create: %v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// dropWriterLeftovers removes what a writer leaves on a media root besides
// the media (its temporary folder and index cache), as on a root copied
// without them: a library opened for writing would make them again, so the
// tests that the root stays unchanged catch a box that is not read-only.
// The names are the media package's; if they change this only makes those
// tests weaker.
func dropWriterLeftovers(t *testing.T, root string) {
	t.Helper()
	for _, name := range []string{".tmp", ".index.cache"} {
		if err := os.RemoveAll(filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
}

type listed struct {
	Data []struct {
		ID, Filename, URL, Folder string
		Sizes                     []struct{ URL string }
	}
	Total   int
	Folders []string
}

// TestServeReadOnlyLocal: `folio media import` (a writer) fills a media
// root; `folio serve` with FOLIO_READ_ONLY=true serves its items and files,
// refuses writes, says readOnly in status, and leaves the root unchanged.
func TestServeReadOnlyLocal(t *testing.T) {
	site := siteRepo(t)
	root := filepath.Join(t.TempDir(), "media")
	if _, stderr, err := runCLI(t, "media", "import", "--media", root, "--folder", "/kept", "--alt", "Glacier", pngFile(t, "lake.png", 600, 400)); err != nil {
		t.Fatalf("media import: %v\n%s", err, stderr)
	}
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	key := newKey(t, keys, "all", "content:read,media:read,media:write,media:delete")
	dropWriterLeftovers(t, root)
	before := testkit.Tree(t, root)

	t.Setenv("FOLIO_READ_ONLY", "true")
	box := serveBox(t, "--site", site, "--media", root, "--keys", keys, "--cache-dir", t.TempDir())
	var st map[string]any
	box.do(t, "GET", "/api/v1/status", key, "").decode(t, &st)
	if st["readOnly"] != true {
		t.Errorf("status readOnly = %v", st["readOnly"])
	}
	var l listed
	box.do(t, "GET", "/api/v1/media", key, "").decode(t, &l)
	if l.Total != 1 || l.Data[0].Filename != "lake.png" || l.Data[0].Folder != "/kept" || len(l.Data[0].Sizes) == 0 {
		t.Fatalf("list on the read-only box: %+v", l)
	}
	for _, u := range []string{l.Data[0].URL, l.Data[0].Sizes[0].URL} {
		if r := box.do(t, "GET", u, "", ""); r.status != http.StatusOK || len(r.body) == 0 {
			t.Errorf("GET %s: %d", u, r.status)
		}
	}
	box.do(t, "POST", "/api/v1/media/folders", key, `{"path":"/new"}`).wantReadOnly(t, "POST folder")
	box.do(t, "PATCH", "/api/v1/media/"+l.Data[0].ID, key, `{"alt":"x"}`).wantReadOnly(t, "PATCH")
	box.do(t, "DELETE", "/api/v1/media/"+l.Data[0].ID, "", "").wantReadOnly(t, "DELETE without a key")
	if err := box.stop(); err != nil {
		t.Fatalf("serve: %v\n%s", err, box.log.String())
	}
	if d := testkit.DiffTrees(before, testkit.Tree(t, root)); len(d) > 0 {
		t.Errorf("the read-only box changed the media root: %v", d)
	}
}

// TestServeReadOnlyBeforeTheWriter: a read-only box on a media root no
// writer has started on (no .state) serves an empty library without
// creating anything, and serves the library a writer then makes, at its
// next poll.
func TestServeReadOnlyBeforeTheWriter(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "media")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	key := newKey(t, keys, "r", "media:read")
	box := serveBox(t, "--read-only", "--media-poll", "50ms", "--site", siteRepo(t), "--media", root, "--keys", keys, "--cache-dir", t.TempDir())
	var l listed
	box.do(t, "GET", "/api/v1/media", key, "").decode(t, &l)
	if l.Total != 0 {
		t.Fatalf("list before any writer: %+v", l)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Fatalf("the read-only box wrote to the media root: %v", ents)
	}
	if !strings.Contains(box.log.String(), "no library state yet") {
		t.Errorf("no warning about the missing state:\n%s", box.log.String())
	}
	if _, stderr, err := runCLI(t, "media", "import", "--media", root, "--folder", "/kept", pngFile(t, "lake.png", 600, 400)); err != nil {
		t.Fatalf("media import: %v\n%s", err, stderr)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		box.do(t, "GET", "/api/v1/media", key, "").decode(t, &l)
		if l.Total == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the read-only box never served the writer's import: %+v\n%s", l, box.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if l.Data[0].Filename != "lake.png" || l.Data[0].Folder != "/kept" {
		t.Errorf("item on the read-only box: %+v", l.Data[0])
	}
	if r := box.do(t, "GET", l.Data[0].URL, "", ""); r.status != http.StatusOK || len(r.body) == 0 {
		t.Errorf("GET %s: %d", l.Data[0].URL, r.status)
	}
	if err := box.stop(); err != nil {
		t.Fatalf("serve: %v\n%s", err, box.log.String())
	}
}

// TestServeReadOnlyNoMediaRoot: a read-only box whose media root does
// not exist (a content-only replica) starts, serves its content and an
// empty media library without creating the root, and serves the library
// and its files once a writer has made them. It refused to start before.
func TestServeReadOnlyNoMediaRoot(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "missing")
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	key := newKey(t, keys, "r", "media:read,content:read")
	box := serveBox(t, "--read-only", "--media-poll", "50ms", "--site", siteRepo(t), "--media", root, "--keys", keys, "--cache-dir", t.TempDir())
	var l listed
	box.do(t, "GET", "/api/v1/media", key, "").decode(t, &l)
	if l.Total != 0 {
		t.Fatalf("list before any writer: %+v", l)
	}
	if r := box.do(t, "GET", "/uploads/2024/01/none.png", "", ""); r.status != http.StatusNotFound {
		t.Errorf("GET an upload before the root exists: %d %s", r.status, r.body)
	}
	if r := box.do(t, "GET", "/api/v1/status", key, ""); r.status != http.StatusOK {
		t.Errorf("status: %d", r.status)
	}
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the read-only box created the media root: %v", err)
	}
	if !strings.Contains(box.log.String(), "media root does not exist") {
		t.Errorf("no warning about the missing media root:\n%s", box.log.String())
	}
	if _, stderr, err := runCLI(t, "media", "import", "--media", root, "--folder", "/kept", pngFile(t, "lake.png", 600, 400)); err != nil {
		t.Fatalf("media import: %v\n%s", err, stderr)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		box.do(t, "GET", "/api/v1/media", key, "").decode(t, &l)
		if l.Total == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the read-only box never served the writer's import: %+v\n%s", l, box.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := box.do(t, "GET", l.Data[0].URL, "", ""); r.status != http.StatusOK || len(r.body) == 0 {
		t.Errorf("GET %s: %d", l.Data[0].URL, r.status)
	}
	if err := box.stop(); err != nil {
		t.Fatalf("serve: %v\n%s", err, box.log.String())
	}
}
