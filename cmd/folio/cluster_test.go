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
	"image/jpeg"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/folio-cms/folio/fixtures/testkit"
	"github.com/folio-cms/folio/media/s3"
	"github.com/folio-cms/folio/media/s3/s3test"
	"github.com/folio-cms/folio/server"
)

// The bounds of the cluster test. propagation is what the issue asks of a
// push or an upload reaching every box; the others bound waits for things
// that have no required speed (a process starting on a busy machine, boxes
// settling after a restart), so that a broken box fails the test rather
// than hanging it.
const (
	clusterPropagation = 2 * time.Second
	clusterSettle      = 10 * time.Second
	clusterStart       = 90 * time.Second
)

// clusterBox is one `folio serve` running as its own OS process, so that
// the test can SIGKILL it.
type clusterBox struct {
	name   string
	URL    string
	cmd    *exec.Cmd
	log    *syncBuffer // stdout and stderr
	exited chan struct{}
}

// cluster is what the boxes share: the binary, the bucket, the site and
// the keys file, and every process started, for the cleanup.
type cluster struct {
	t      *testing.T
	bin    string
	env    []string
	common []string // serve flags every box gets
	mu     sync.Mutex
	boxes  []*clusterBox

	key    string    // an API key with every scope
	work   string    // the work clone of the site's Git remote
	types  []string  // the fixture site's content types
	bucket s3.Config // the bucket every box shares

	failures []string // what the chaos scenarios reported (chaos_test.go)
}

// childEnv is the environment of the folio processes: the test's, less
// any FOLIO_* setting (a developer's FOLIO_READ_ONLY would change every
// box) and AWS_* credentials, plus the S3 server's credentials.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FOLIO_") && !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	return append(env, "AWS_ACCESS_KEY_ID="+s3test.AccessKey, "AWS_SECRET_ACCESS_KEY="+s3test.SecretKey)
}

// start runs `folio serve` with the common flags, args, and an empty media
// root and cache directory of its own, and returns once /healthz answers.
func (c *cluster) start(name string, args ...string) *clusterBox {
	t := c.t
	t.Helper()
	dir := t.TempDir()
	all := append([]string{"serve"}, c.common...)
	all = append(all, "--media", filepath.Join(dir, "media"), "--cache-dir", filepath.Join(dir, "cache"))
	all = append(all, args...)
	b := &clusterBox{name: name, log: &syncBuffer{}, exited: make(chan struct{})}
	b.cmd = exec.Command(c.bin, all...)
	b.cmd.Env = c.env
	b.cmd.Stderr = b.log
	pr, pw := io.Pipe()
	b.cmd.Stdout = pw
	// Git processes that folio starts may hold the output open a little
	// after folio dies.
	b.cmd.WaitDelay = 5 * time.Second
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(b.log, line)
			if u, ok := strings.CutPrefix(line, "folio serving "); ok {
				select {
				case urlc <- u:
				default:
				}
			}
		}
		io.Copy(io.Discard, pr)
	}()
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		b.cmd.Wait()
		pw.Close()
		close(b.exited)
	}()
	c.mu.Lock()
	c.boxes = append(c.boxes, b)
	c.mu.Unlock()
	// Registered after dir, so it runs before dir is removed.
	t.Cleanup(b.kill)

	timeout := time.After(clusterStart)
	select {
	case b.URL = <-urlc:
	case <-b.exited:
		t.Fatalf("%s exited before serving: %v\n%s", name, b.cmd.ProcessState, b.log.String())
	case <-timeout:
		t.Fatalf("%s not serving after %v\n%s", name, clusterStart, b.log.String())
	}
	for {
		res, err := httpClient.Get(b.URL + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return b
			}
		}
		select {
		case <-b.exited:
			t.Fatalf("%s exited before /healthz answered: %v\n%s", name, b.cmd.ProcessState, b.log.String())
		case <-timeout:
			t.Fatalf("%s: /healthz not OK after %v: %v\n%s", name, clusterStart, err, b.log.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (b *clusterBox) kill() {
	b.cmd.Process.Kill()
	<-b.exited
}

var httpClient = &http.Client{Timeout: 15 * time.Second}

// call sends one request; key "" sends none. It does not fail the test,
// so that pollers and concurrent callers can use it.
func (b *clusterBox) call(method, path, key string, body io.Reader, header ...string) (httpResult, error) {
	return b.callWith(httpClient, method, path, key, body, header...)
}

// callWith is call with client c.
func (b *clusterBox) callWith(c *http.Client, method, path, key string, body io.Reader, header ...string) (httpResult, error) {
	req, err := http.NewRequest(method, b.URL+path, body)
	if err != nil {
		return httpResult{}, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		return httpResult{}, fmt.Errorf("%s %s on %s: %w", method, path, b.name, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return httpResult{}, fmt.Errorf("%s %s on %s: %w", method, path, b.name, err)
	}
	return httpResult{res.StatusCode, res.Header, data}, nil
}

func (b *clusterBox) must(t *testing.T, method, path, key string, body io.Reader, header ...string) httpResult {
	t.Helper()
	r, err := b.call(method, path, key, body, header...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// waitAll polls check on every box at once until it holds on each, and
// returns how long each took; it fails the test when one does not hold
// within bound, with check's last complaint.
func waitAll(t *testing.T, what string, since time.Time, bound time.Duration, boxes []*clusterBox, check func(b *clusterBox) error) map[string]time.Duration {
	t.Helper()
	took := map[string]time.Duration{}
	failed := map[string]error{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, b := range boxes {
		wg.Go(func() {
			for {
				err := check(b)
				now := time.Now()
				if err == nil {
					mu.Lock()
					took[b.name] = now.Sub(since)
					mu.Unlock()
					return
				}
				if now.Sub(since) > bound {
					mu.Lock()
					failed[b.name] = err
					mu.Unlock()
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	for _, b := range boxes {
		if err := failed[b.name]; err != nil {
			t.Errorf("%s: %s not done within %v: %v", what, b.name, bound, err)
		}
	}
	if len(failed) > 0 {
		t.FailNow()
	}
	t.Logf("%s: %v", what, took)
	return took
}

// jpegFile writes a w×h JPEG and returns its path.
func jpegFile(t *testing.T, name string, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := uint8((x*11 + y*5) % 53)
			img.Set(x, y, color.RGBA{R: 40 + n, G: uint8(y*200/h) + n, B: uint8(x * 200 / w), A: 255})
		}
	}
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := jpeg.Encode(f, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	return p
}

// multipartUpload is the body and content type of a POST /api/v1/media
// sending file (as mimeType) into folder.
func multipartUpload(t *testing.T, file, mimeType, folder string) (*bytes.Buffer, string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if folder != "" {
		mw.WriteField("folder", folder)
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="files"; filename=%q`, filepath.Base(file)))
	h.Set("Content-Type", mimeType)
	pw, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	pw.Write(data)
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf, mw.FormDataContentType()
}

type clusterItem struct {
	ID, Filename, URL, Folder, Alt string
	Width, Height, Version         int
	Sizes                          []struct {
		Width int
		URL   string
	}
}

// upload posts file to box and returns the stored item.
func upload(t *testing.T, box *clusterBox, key, file, mimeType, folder string) clusterItem {
	t.Helper()
	body, ct := multipartUpload(t, file, mimeType, folder)
	r := box.must(t, "POST", "/api/v1/media", key, body, "Content-Type", ct)
	var res struct {
		Data   []clusterItem
		Errors []any
	}
	if r.status != http.StatusCreated {
		t.Fatalf("upload %s to %s: %d %s", filepath.Base(file), box.name, r.status, r.body)
	}
	r.decode(t, &res)
	if len(res.Data) != 1 || len(res.Errors) != 0 {
		t.Fatalf("upload %s to %s: %s", filepath.Base(file), box.name, r.body)
	}
	return res.Data[0]
}

func sizeURLs(it clusterItem) []string {
	var out []string
	for _, s := range it.Sizes {
		out = append(out, s.URL)
	}
	return out
}

// newCluster starts the S3 server with a bucket, builds folio, makes the
// Git remote with the fixture site and a work clone, and a keys file with
// one key of every scope. The boxes it starts are killed when the test
// ends, and their logs written to the test's log if it failed.
func newCluster(t *testing.T) *cluster {
	t.Helper()
	s3srv := s3test.NewServer(t) // fails or skips (FOLIO_SKIP_S3=1) without versitygw
	bucket := s3srv.NewBucket(t)
	bin := buildFolio(t)

	// The Git remote, and a work clone holding the fixture site.
	gitDir := t.TempDir()
	bare, work := filepath.Join(gitDir, "site.git"), filepath.Join(gitDir, "work")
	testkit.Git(t, gitDir, "init", "-q", "--bare", bare)
	testkit.Git(t, gitDir, "init", "-q", work)
	fixtures := filepath.Join(testkit.ModuleRoot(t), "fixtures", "site")
	if err := os.CopyFS(work, os.DirFS(fixtures)); err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, work, "remote", "add", "origin", bare)
	testkit.Git(t, work, "add", "-A")
	testkit.Git(t, work, "commit", "-qm", "fixture site")
	testkit.Git(t, work, "push", "-q", "origin", "HEAD:main")
	entries, err := os.ReadDir(filepath.Join(fixtures, "content"))
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range entries {
		if e.IsDir() {
			types = append(types, e.Name())
		}
	}
	if len(types) == 0 {
		t.Fatal("the fixture site has no content types")
	}

	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	var stderr bytes.Buffer
	keysCmd := exec.Command(bin, "keys", "create", "--keys", keysFile, "--name", "all",
		"--scopes", "content:read,content:draft,media:read,media:write,media:delete")
	keysCmd.Env, keysCmd.Stderr = childEnv(), &stderr
	out, err := keysCmd.Output()
	if err != nil {
		t.Fatalf("folio keys create: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	key := lines[len(lines)-1]

	c := &cluster{t: t, bin: bin, env: childEnv(), key: key, work: work, types: types, bucket: bucket, common: []string{
		"--site", bare, "--keys", keysFile, "--addr", "127.0.0.1:0", "--rate-ip", "0", "--rate-key", "0",
		"--storage", "s3", "--s3-endpoint", bucket.Endpoint, "--s3-bucket", bucket.Bucket,
		"--s3-region", bucket.Region, "--s3-prefix", "site",
	}}
	t.Cleanup(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, b := range c.boxes {
			b.kill()
		}
		if t.Failed() {
			for _, b := range c.boxes {
				t.Logf("--- log of %s (%s):\n%s", b.name, b.URL, b.log.String())
			}
			t.Logf("--- versitygw log:\n%s", s3srv.Log())
		}
	})
	return c
}

// push commits everything in the work clone and pushes it; it returns
// when the push started.
func (c *cluster) push(msg string) time.Time {
	t := c.t
	t.Helper()
	testkit.Git(t, c.work, "add", "-A")
	testkit.Git(t, c.work, "commit", "-qm", msg)
	at := time.Now()
	testkit.Git(t, c.work, "push", "-q", "origin", "HEAD:main")
	t.Logf("git push took %v", time.Since(at).Round(time.Millisecond))
	return at
}

// TestCluster runs folio as a cluster behind a CDN would: one Git remote,
// one S3 bucket, a writing box and two --read-only replicas (and later a
// second writer), each its own OS process with an empty media root and
// cache directory. A push and an upload reach every box within 2 s; two
// writers racing on one If-Match both see the bucket decide (one 200, one
// 412), and every box converges on the winner; a replica killed with
// SIGKILL and restarted on empty directories catches up, and then every box
// answers every list with the same bytes and ETag.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts versitygw and four folio processes")
	}
	c := newCluster(t)
	key, work, types, bucket := c.key, c.work, c.types, c.bucket
	ctx := context.Background()

	writer := c.start("writer")
	replica1 := c.start("replica1", "--read-only")
	replica2 := c.start("replica2", "--read-only")
	boxes := []*clusterBox{writer, replica1, replica2}

	// 1. A push is served by every box within 2 s.
	const pagePath = "pages/about.md"
	src, err := os.ReadFile(filepath.Join(work, pagePath))
	if err != nil {
		t.Fatal(err)
	}
	title := fmt.Sprintf("About us, pushed at %d", time.Now().UnixNano())
	edited := strings.Replace(string(src), "title: About us\n", "title: "+title+"\n", 1)
	if edited == string(src) {
		t.Fatalf("%s has no 'title: About us' line to change", pagePath)
	}
	if err := os.WriteFile(filepath.Join(work, pagePath), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	pageTitle := func(b *clusterBox) error {
		r, err := b.call("GET", "/api/v1/pages/about", key, nil)
		if err != nil {
			return err
		}
		var p struct{ Title string }
		if r.status != http.StatusOK || json.Unmarshal(r.body, &p) != nil {
			return fmt.Errorf("GET /api/v1/pages/about: %d %.300s", r.status, r.body)
		}
		if p.Title != title {
			return fmt.Errorf("title %q, want %q", p.Title, title)
		}
		return nil
	}
	pushed := c.push("retitle the about page")
	waitAll(t, "push served (since git push started)", pushed, clusterPropagation, boxes, pageTitle)

	// 2. An upload on the writer reaches the replicas, derivatives and all,
	// within 2 s.
	img := pngFile(t, "cluster.png", 1300, 900)
	up := upload(t, writer, key, img, "image/png", "")
	uploaded := time.Now()
	r := writer.must(t, "GET", "/api/v1/media/"+up.ID, key, nil)
	var want clusterItem
	if r.status != http.StatusOK {
		t.Fatalf("GET the upload on the writer: %d %s", r.status, r.body)
	}
	r.decode(t, &want)
	if want.Width != 1300 || want.Height != 900 || len(want.Sizes) == 0 {
		t.Fatalf("the uploaded item on the writer: %s", r.body)
	}
	wantBody, wantETag := r.body, r.header.Get("ETag")
	waitAll(t, "upload served with its derivatives (since the upload answered)", uploaded, clusterPropagation, boxes[1:], func(b *clusterBox) error {
		r, err := b.call("GET", "/api/v1/media/"+up.ID, key, nil)
		if err != nil {
			return err
		}
		var got clusterItem
		if r.status != http.StatusOK || json.Unmarshal(r.body, &got) != nil {
			return fmt.Errorf("GET /api/v1/media/%s: %d %.300s", up.ID, r.status, r.body)
		}
		if !slices.Equal(sizeURLs(got), sizeURLs(want)) {
			return fmt.Errorf("sizes %v, want %v", sizeURLs(got), sizeURLs(want))
		}
		if !bytes.Equal(r.body, wantBody) || r.header.Get("ETag") != wantETag {
			return fmt.Errorf("ETag %s body\n%s\nwant ETag %s body\n%s", r.header.Get("ETag"), r.body, wantETag, wantBody)
		}
		return nil
	})
	// The URLs name objects in the bucket.
	s3c := s3Client(t, bucket.Endpoint, s3test.AccessKey, s3test.SecretKey)
	base := bucket.Endpoint + "/" + bucket.Bucket + "/"
	for _, u := range append([]string{want.URL}, sizeURLs(want)...) {
		k, ok := strings.CutPrefix(u, base)
		if !ok {
			t.Fatalf("URL %s is not in the bucket %s", u, base)
		}
		if _, err := s3c.StatObject(ctx, bucket.Bucket, k, minio.StatObjectOptions{}); err != nil {
			t.Errorf("the object of %s: %v", u, err)
		}
	}

	// A write on a replica is refused.
	body, ct := multipartUpload(t, img, "image/png", "")
	replica1.must(t, "POST", "/api/v1/media", key, body, "Content-Type", ct).wantReadOnly(t, "upload on a replica")
	replica2.must(t, "PATCH", "/api/v1/media/"+up.ID, key, strings.NewReader(`{"alt":"no"}`), "Content-Type", "application/json").wantReadOnly(t, "PATCH on a replica")
	replica1.must(t, "POST", "/api/v1/media/folders", key, strings.NewReader(`{"path":"/no"}`), "Content-Type", "application/json").wantReadOnly(t, "folder on a replica")

	// 3. Two writers PATCH one item with the same If-Match at once: the
	// bucket lets exactly one win, and every box ends with its alt text.
	writer2 := c.start("writer2")
	boxes = append(boxes, writer2)
	waitAll(t, "second writer serves the upload (since it started)", time.Now(), clusterSettle, []*clusterBox{writer2}, func(b *clusterBox) error {
		r, err := b.call("GET", "/api/v1/media/"+up.ID, key, nil)
		if err != nil {
			return err
		}
		if r.status != http.StatusOK || !bytes.Equal(r.body, wantBody) {
			return fmt.Errorf("GET /api/v1/media/%s: %d %s", up.ID, r.status, r.body)
		}
		return nil
	})
	writers := []*clusterBox{writer, writer2}
	for round := range 3 {
		r := writer.must(t, "GET", "/api/v1/media/"+up.ID, key, nil)
		etag := r.header.Get("ETag")
		if r2 := writer2.must(t, "GET", "/api/v1/media/"+up.ID, key, nil); r2.header.Get("ETag") != etag {
			t.Fatalf("round %d: the writers disagree before the race: ETag %s on %s, %s on %s", round, etag, writer.name, r2.header.Get("ETag"), writer2.name)
		}
		var results [2]httpResult
		var errs [2]error
		alts := [2]string{}
		begin := make(chan struct{})
		var wg sync.WaitGroup
		for i, w := range writers {
			alts[i] = fmt.Sprintf("alt of round %d from %s", round, w.name)
			patch, _ := json.Marshal(map[string]string{"alt": alts[i]})
			wg.Go(func() {
				<-begin
				results[i], errs[i] = w.call("PATCH", "/api/v1/media/"+up.ID, key, bytes.NewReader(patch),
					"Content-Type", "application/json", "If-Match", etag)
			})
		}
		close(begin)
		wg.Wait()
		if err := errors.Join(errs[:]...); err != nil {
			t.Fatal(err)
		}
		winner := -1
		for i, res := range results {
			switch res.status {
			case http.StatusOK:
				if winner >= 0 {
					t.Fatalf("round %d: both writers' PATCH with If-Match %s got 200:\n%s: %s\n%s: %s", round, etag,
						writers[0].name, results[0].body, writers[1].name, results[1].body)
				}
				winner = i
			case http.StatusPreconditionFailed:
				var e struct{ Error string }
				json.Unmarshal(res.body, &e)
				if e.Error != server.CodePreconditionFailed {
					t.Errorf("round %d: %s answered 412 with %s, want error %s", round, writers[i].name, res.body, server.CodePreconditionFailed)
				}
			default:
				t.Fatalf("round %d: PATCH on %s: %d %s, want 200 or 412", round, writers[i].name, res.status, res.body)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: neither PATCH with If-Match %s won:\n%s: %s\n%s: %s", round, etag,
				writers[0].name, results[0].body, writers[1].name, results[1].body)
		}
		var won clusterItem
		results[winner].decode(t, &won)
		winETag := results[winner].header.Get("ETag")
		if won.Alt != alts[winner] || winETag == etag {
			t.Fatalf("round %d: the winner %s answered ETag %s %s", round, writers[winner].name, winETag, results[winner].body)
		}
		t.Logf("round %d: %s won, %s got 412", round, writers[winner].name, writers[1-winner].name)
		waitAll(t, fmt.Sprintf("round %d: every box has the winner's alt (since the PATCHes answered)", round), time.Now(), clusterSettle, boxes, func(b *clusterBox) error {
			r, err := b.call("GET", "/api/v1/media/"+up.ID, key, nil)
			if err != nil {
				return err
			}
			var got clusterItem
			if r.status != http.StatusOK || json.Unmarshal(r.body, &got) != nil {
				return fmt.Errorf("GET /api/v1/media/%s: %d %.300s", up.ID, r.status, r.body)
			}
			if got.Alt != alts[winner] || r.header.Get("ETag") != winETag {
				return fmt.Errorf("alt %q ETag %s, want %q %s", got.Alt, r.header.Get("ETag"), alts[winner], winETag)
			}
			return nil
		})
	}

	// 4. A replica killed with SIGKILL misses writes, comes back on an
	// empty media root and cache directory, and catches up: then every box
	// answers every list with the same bytes and ETag.
	replica2.kill()
	replica2.name += " (killed)"
	if r := writer2.must(t, "POST", "/api/v1/media/folders", key, strings.NewReader(`{"path":"/e2e"}`), "Content-Type", "application/json"); r.status/100 != 2 {
		t.Fatalf("create folder on %s: %d %s", writer2.name, r.status, r.body)
	}
	second := upload(t, writer, key, jpegFile(t, "cluster.jpg", 900, 700), "image/jpeg", "/e2e")
	if len(second.Sizes) == 0 {
		t.Errorf("the JPEG upload has no derivatives: %+v", second)
	}
	if r := writer2.must(t, "PATCH", "/api/v1/media/"+up.ID, key, strings.NewReader(`{"alt":"after the kill","focalX":30,"focalY":60}`), "Content-Type", "application/json"); r.status != http.StatusOK {
		t.Fatalf("PATCH on %s: %d %s", writer2.name, r.status, r.body)
	}
	if err := os.WriteFile(filepath.Join(work, "content", types[0], "cluster-e2e.md"),
		[]byte("---\ntitle: Written while a replica was down\npublishedAt: 2026-02-01\n---\nCaught up.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.push("a new item while a replica is down")
	replica3 := c.start("replica2 (restarted)", "--read-only")
	restarted := time.Now()
	boxes = []*clusterBox{writer, replica1, replica3, writer2}

	paths := []string{"/api/v1/pages", "/api/v1/globals", "/api/v1/media", "/api/v1/media/folders", "/api/v1/public/media",
		"/api/v1/media/" + up.ID, "/api/v1/media/" + second.ID, "/api/v1/public/media/" + up.ID}
	for _, typ := range types {
		paths = append(paths, "/api/v1/content/"+typ)
	}
	if slices.Contains(types, "posts") { // public: true in the fixture's folio.yaml
		paths = append(paths, "/api/v1/public/collections/posts")
	}
	type answer struct {
		status int
		etag   string
		body   []byte
	}
	var last map[string][]answer
	same := func() error {
		last = map[string][]answer{}
		var diffs []string
		for _, p := range paths {
			for _, b := range boxes {
				r, err := b.call("GET", p, key, nil)
				if err != nil {
					return err
				}
				last[p] = append(last[p], answer{r.status, r.header.Get("ETag"), r.body})
			}
			a := last[p]
			for i := range a {
				if a[i].status != http.StatusOK || a[i].etag == "" {
					diffs = append(diffs, fmt.Sprintf("%s on %s: %d, ETag %q", p, boxes[i].name, a[i].status, a[i].etag))
				} else if i > 0 && (a[i].etag != a[0].etag || !bytes.Equal(a[i].body, a[0].body)) {
					diffs = append(diffs, fmt.Sprintf("%s: %s differs from %s", p, boxes[i].name, boxes[0].name))
				}
			}
		}
		if len(diffs) > 0 {
			return errors.New(strings.Join(diffs, "; "))
		}
		return nil
	}
	var err4 error
	for {
		if err4 = same(); err4 == nil || time.Since(restarted) > clusterSettle {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err4 != nil {
		for _, p := range paths {
			for i, a := range last[p] {
				t.Logf("%s on %s: %d ETag %s\n%s", p, boxes[i].name, a.status, a.etag, a.body)
			}
		}
		t.Fatalf("the boxes still disagree %v after the restart: %v", clusterSettle, err4)
	}
	t.Logf("every box answers %d GETs the same %v after the restart", len(paths), time.Since(restarted).Round(time.Millisecond))
	// What they agree on is what was written.
	var lst struct {
		Data    []clusterItem
		Total   int
		Folders []string
	}
	if err := json.Unmarshal(last["/api/v1/media"][0].body, &lst); err != nil {
		t.Fatal(err)
	}
	if lst.Total != 2 || !slices.Contains(lst.Folders, "/e2e") {
		t.Errorf("media list: %s", last["/api/v1/media"][0].body)
	}
	for _, it := range lst.Data {
		if it.ID == up.ID && it.Alt != "after the kill" {
			t.Errorf("the item patched while the replica was down has alt %q", it.Alt)
		}
	}
	if !bytes.Contains(last["/api/v1/content/"+types[0]][0].body, []byte("cluster-e2e")) {
		t.Errorf("the item pushed while the replica was down is not listed: %s", last["/api/v1/content/"+types[0]][0].body)
	}
	if err := pageTitle(replica3); err != nil {
		t.Errorf("restarted replica: %v", err)
	}
}
