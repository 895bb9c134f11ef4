//go:build chaos || soak

package main

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/folio-cms/folio/fixtures/testkit"
	"github.com/folio-cms/folio/media/s3"
	"github.com/folio-cms/folio/media/s3/s3test"
	"github.com/folio-cms/folio/server"
)

// TestChaos runs folio as real processes against a bucket and a Git
// remote that misbehave: toxiproxy between folio and versitygw (latency,
// bandwidth, resets mid-body, timeouts, an outage), a front answering
// 503 SlowDown, toxiproxy between folio and a Git remote over HTTP, and
// a media root and cache directory on a small tmpfs that fills up. Each
// scenario logs a "figures" line: the requests served during the fault,
// the errors by status, and the acknowledged writes lost (always 0).
//
// Run with make chaos; FOLIO_CHAOS_OUTAGE sets how long the bucket is
// unreachable (default 20s; the figure is 60s).
func TestChaos(t *testing.T) {
	bin := buildFolio(t)
	t.Run("s3 faults", func(t *testing.T) { chaosS3Faults(t, bin) })
	t.Run("bucket outage", func(t *testing.T) { chaosBucketOutage(t, bin) })
	t.Run("git remote", func(t *testing.T) { chaosGitRemote(t, bin) })
	t.Run("disk full", func(t *testing.T) { chaosDiskFull(t, bin) })
}

// chaosOutage is how long the bucket stays unreachable.
func chaosOutage(t *testing.T) time.Duration {
	if v := os.Getenv("FOLIO_CHAOS_OUTAGE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("FOLIO_CHAOS_OUTAGE: %v", err)
		}
		return d
	}
	return 20 * time.Second
}

// gitRemote is a bare repository holding the fixture site, in a root
// directory (to serve over HTTP), with a work clone that pushes to it.
type gitRemote struct {
	root, bare, work string
	types            []string
}

func newGitRemote(t *testing.T) *gitRemote {
	t.Helper()
	root := t.TempDir()
	r := &gitRemote{root: root, bare: filepath.Join(root, "site.git"), work: filepath.Join(t.TempDir(), "work")}
	testkit.Git(t, root, "init", "-q", "--bare", r.bare)
	testkit.Git(t, root, "init", "-q", r.work)
	fixtures := filepath.Join(testkit.ModuleRoot(t), "fixtures", "site")
	if err := os.CopyFS(r.work, os.DirFS(fixtures)); err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, r.work, "remote", "add", "origin", r.bare)
	testkit.Git(t, r.work, "add", "-A")
	testkit.Git(t, r.work, "commit", "-qm", "fixture site")
	testkit.Git(t, r.work, "push", "-q", "origin", "HEAD:main")
	entries, _ := os.ReadDir(filepath.Join(fixtures, "content"))
	for _, e := range entries {
		if e.IsDir() {
			r.types = append(r.types, e.Name())
		}
	}
	return r
}

// retitle commits a new title of the about page and pushes it.
func (r *gitRemote) retitle(t *testing.T, title string) {
	t.Helper()
	p := filepath.Join(r.work, "pages", "about.md")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "title: ") {
			lines[i] = "title: " + title
			break
		}
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, r.work, "commit", "-qam", "retitle: "+title)
	testkit.Git(t, r.work, "push", "-q", "origin", "HEAD:main")
}

// aboutTitle is the title box serves for the about page.
func aboutTitle(b *clusterBox, key string) (string, error) {
	r, err := b.call("GET", "/api/v1/pages/about", key, nil)
	if err != nil {
		return "", err
	}
	var p struct{ Title string }
	if r.status != http.StatusOK || json.Unmarshal(r.body, &p) != nil {
		return "", fmt.Errorf("GET /api/v1/pages/about: %d %.200s", r.status, r.body)
	}
	return p.Title, nil
}

// newChaosCluster is a cluster serving site with a keys file of one key
// of every scope; common are the serve flags every box gets besides.
func newChaosCluster(t *testing.T, bin, site string, common ...string) *cluster {
	t.Helper()
	keysFile := filepath.Join(t.TempDir(), "keys.yaml")
	keysCmd := exec.Command(bin, "keys", "create", "--keys", keysFile, "--name", "all",
		"--scopes", "content:read,content:draft,media:read,media:write,media:delete")
	keysCmd.Env = childEnv()
	out, err := keysCmd.Output()
	if err != nil {
		t.Fatalf("folio keys create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	c := &cluster{t: t, bin: bin, env: childEnv(), key: lines[len(lines)-1], common: append([]string{
		"--site", site, "--keys", keysFile, "--addr", "127.0.0.1:0", "--rate-ip", "0", "--rate-key", "0",
	}, common...)}
	t.Cleanup(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, b := range c.boxes {
			b.kill()
		}
		for _, b := range c.boxes {
			if t.Failed() || strings.Contains(b.log.String(), "panic") {
				t.Logf("--- log of %s (%s):\n%s", b.name, b.URL, b.log.String())
			}
			if strings.Contains(b.log.String(), "panic:") {
				t.Errorf("%s panicked", b.name)
			}
		}
		// The logs are long: say again, last, why the scenario failed,
		// so that the end of the output (all CI shows) has it.
		switch {
		case len(c.failures) > 0:
			t.Logf("--- %s failed:\n%s", t.Name(), strings.Join(c.failures, "\n"))
		case t.Failed():
			t.Logf("--- %s failed in a helper: its error is above the box logs", t.Name())
		}
	})
	return c
}

// errorf is t.Errorf, remembered to be said again after the box logs.
func (c *cluster) errorf(t *testing.T, format string, args ...any) {
	t.Helper()
	c.remember(format, args...)
	t.Errorf(format, args...)
}

// fatalf is t.Fatalf, remembered to be said again after the box logs.
func (c *cluster) fatalf(t *testing.T, format string, args ...any) {
	t.Helper()
	c.remember(format, args...)
	t.Fatalf(format, args...)
}

func (c *cluster) remember(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failures = append(c.failures, fmt.Sprintf(format, args...))
}

func s3Flags(cfg s3.Config, endpoint string) []string {
	return []string{"--storage", "s3", "--s3-endpoint", endpoint, "--s3-bucket", cfg.Bucket,
		"--s3-region", cfg.Region, "--s3-prefix", "site"}
}

// chaosJPEG is a JPEG of about 100-200 KB, different for each n.
func chaosJPEG(t *testing.T, n int) string {
	return jpegFile(t, fmt.Sprintf("chaos-%d.jpg", n), 640+n%7*16, 480+n%5*16)
}

// ledger is what the clients were told: every acknowledged upload, and
// the alt texts of one item, acknowledged or only attempted since.
type ledger struct {
	acked    map[string]bool // item ids answered 201
	altID    string
	altAcked string   // the last alt answered 200
	altSince []string // alts attempted after it (a 503 may still have landed)
}

// write uploads file to box and PATCHes the alt of the ledger's item,
// counting the answers in tl: 2xx, or 503 STORAGE_UNAVAILABLE, and
// nothing else.
func (l *ledger) write(t *testing.T, box *clusterBox, key, file string, n int, tl *tally) {
	t.Helper()
	body, ct := multipartUpload(t, file, "image/jpeg", "")
	r, err := box.callSlow("POST", "/api/v1/media", key, body, "Content-Type", ct)
	tl.add(r, err)
	checkWriteAnswer(t, "upload", r, err)
	if err == nil && r.status == http.StatusCreated {
		var res struct{ Data []clusterItem }
		r.decode(t, &res)
		for _, it := range res.Data {
			l.acked[it.ID] = true
		}
	}
	if l.altID == "" {
		return
	}
	alt := fmt.Sprintf("alt %d", n)
	patch, _ := json.Marshal(map[string]string{"alt": alt})
	r, err = box.callSlow("PATCH", "/api/v1/media/"+l.altID, key, bytes.NewReader(patch), "Content-Type", "application/json")
	tl.add(r, err)
	checkWriteAnswer(t, "PATCH", r, err)
	if err == nil && r.status == http.StatusOK {
		l.altAcked, l.altSince = alt, nil
	} else {
		l.altSince = append(l.altSince, alt)
	}
}

// checkWriteAnswer: a write under a fault succeeds or fails with a clear
// 503 STORAGE_UNAVAILABLE; no 500, no other 5xx, no hang.
func checkWriteAnswer(t *testing.T, what string, r httpResult, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: no answer: %v", what, err)
		return
	}
	if r.status < 500 {
		if r.status >= 300 {
			t.Errorf("%s: %d %s", what, r.status, r.body)
		}
		return
	}
	var e struct{ Error, Message string }
	json.Unmarshal(r.body, &e)
	if r.status != http.StatusServiceUnavailable || e.Error != server.CodeUnavailable || e.Message == "" {
		t.Errorf("%s: %d %s, want 2xx or 503 %s", what, r.status, r.body, server.CodeUnavailable)
	}
}

// converge waits until every box answers the media list, the folders and
// every item of the ledger with the same bytes, and checks that what they
// agree on holds every acknowledged write; it returns the writes lost.
func (l *ledger) converge(t *testing.T, boxes []*clusterBox, key string) int {
	t.Helper()
	paths := []string{"/api/v1/media", "/api/v1/media/folders", "/api/v1/public/media"}
	var agreed []byte
	var last error
	deadline := time.Now().Add(30 * time.Second)
	for {
		last = nil
		agreed = nil
		for _, p := range paths {
			var first []byte
			for i, b := range boxes {
				body, err := allPages(b, p, key)
				if err != nil {
					last = err
					break
				}
				if i == 0 {
					first = body
				} else if !bytes.Equal(body, first) {
					at := 0
					for at < min(len(body), len(first)) && body[at] == first[at] {
						at++
					}
					last = fmt.Errorf("%s: %s differs from %s at byte %d: %q vs %q", p, b.name, boxes[0].name, at,
						body[max(0, at-150):min(len(body), at+150)], first[max(0, at-150):min(len(first), at+150)])
				}
			}
			if p == paths[0] {
				agreed = first
			}
		}
		if last == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if last != nil {
		t.Errorf("the boxes do not converge: %v", last)
		if os.Getenv("FOLIO_CHAOS_DEBUG") != "" {
			for _, p := range paths {
				for _, b := range boxes {
					body, _ := allPages(b, p, key)
					t.Logf("DEBUG %s on %s:\n%s", p, b.name, body)
				}
			}
		}
	}
	have := map[string]clusterItem{}
	for _, it := range itemsOf(agreed) {
		have[it.ID] = it
	}
	lost := 0
	for id := range l.acked {
		if _, ok := have[id]; !ok {
			lost++
			t.Errorf("acknowledged upload %s is not listed", id)
		}
	}
	if l.altID != "" {
		got := have[l.altID].Alt
		if got != l.altAcked && !slices.Contains(l.altSince, got) {
			lost++
			t.Errorf("item %s has alt %q; acknowledged %q (attempted since: %q)", l.altID, got, l.altAcked, l.altSince)
		}
	}
	return lost
}

// bucketProblems looks at the bucket's files as versitygw keeps them:
// every listed item's original and derivatives exist, and every sidecar
// in the state area belongs to a listed item. It returns the objects
// under the site's prefix that no item names (uploads that failed half
// way), which are not an error but a figure.
func bucketProblems(t *testing.T, srv *s3test.Server, cfg s3.Config, box *clusterBox, key string) (orphans, orphanClaims int) {
	t.Helper()
	body, err := allPages(box, "/api/v1/media", key)
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Data []clusterItem }
	list.Data = itemsOf(body)
	root := filepath.Join(srv.Dir(), cfg.Bucket)
	named := map[string]bool{}
	base := "/" + cfg.Bucket + "/"
	for _, it := range list.Data {
		for _, u := range append([]string{it.URL}, sizeURLs(it)...) {
			i := strings.Index(u, base)
			if i < 0 {
				t.Errorf("item %s: URL %s is not in the bucket", it.ID, u)
				continue
			}
			k := u[i+len(base):]
			named[k] = true
			if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(k))); err != nil || fi.Size() == 0 {
				t.Errorf("item %s: object %s: %v", it.ID, k, err)
			}
		}
	}
	listed := map[string]bool{}
	for _, it := range list.Data {
		listed[it.ID] = true
	}
	sidecars, _ := filepath.Glob(filepath.Join(root, s3.DefaultStatePrefix("site"), "items", "*.yaml"))
	for _, sc := range sidecars {
		id := strings.TrimSuffix(filepath.Base(sc), ".yaml")
		if !listed[id] {
			t.Errorf("sidecar of %s in the bucket, but no box lists the item", id)
		}
	}
	// A claim whose owner is no listed item (nor a pending presigned
	// upload) is left by a write that failed half way: the writers'
	// sweep removes it once it is claimStale old. Counted, not an error.
	claims, _ := filepath.Glob(filepath.Join(root, s3.DefaultStatePrefix("site"), "claims", "*"))
	for _, cl := range claims {
		b, err := os.ReadFile(cl)
		if err != nil {
			continue
		}
		owner, _, _ := strings.Cut(string(b), "\n")
		if !listed[owner] && !strings.HasPrefix(owner, "presign") {
			orphanClaims++
		}
	}
	if t.Failed() {
		dumpLog(t, filepath.Join(root, s3.DefaultStatePrefix("site"), "log"))
	}
	filepath.WalkDir(filepath.Join(root, "site"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			if !named[filepath.ToSlash(rel)] {
				orphans++
			}
		}
		return nil
	})
	return orphans, orphanClaims
}

func chaosS3Faults(t *testing.T, bin string) {
	s3srv := s3test.NewServer(t)
	bucket := s3srv.NewBucket(t)
	x := startToxiproxy(t)
	front := newSlowDown(t, strings.TrimPrefix(bucket.Endpoint, "http://"))
	endpoint := "http://" + x.proxy(t, "s3", strings.TrimPrefix(front.URL, "http://"))
	remote := newGitRemote(t)
	c := newChaosCluster(t, bin, remote.bare, s3Flags(bucket, endpoint)...)
	writer := c.start("writer")
	replica := c.start("replica", "--read-only")
	boxes := []*clusterBox{writer, replica}

	l := &ledger{acked: map[string]bool{}}
	first := upload(t, writer, c.key, chaosJPEG(t, 0), "image/jpeg", "")
	l.acked[first.ID], l.altID = true, first.ID
	l.converge(t, boxes, c.key) // the replica has the item before the faults begin
	reads := []string{"/api/v1/pages", "/api/v1/pages/about", "/api/v1/content/posts", "/api/v1/globals",
		"/api/v1/media", "/api/v1/media/" + first.ID, "/api/v1/public/media", "/api/v1/public/media/" + first.ID}
	// An image variant made before the faults is cached on each box's disk.
	var withPresets struct{ Presets map[string]string }
	writer.must(t, "GET", "/api/v1/media/"+first.ID, c.key, nil).decode(t, &withPresets)
	thumb := withPresets.Presets["thumb"]
	if thumb == "" {
		c.fatalf(t, "the item has no thumb preset URL")
	}
	for _, b := range boxes {
		if r := b.must(t, "GET", thumb, "", nil); r.status != http.StatusOK {
			c.fatalf(t, "GET %s on %s: %d %s", thumb, b.name, r.status, r.body)
		}
	}
	// On S3 storage the variant is stored in the bucket and read from
	// there on every request (folio keeps no copy on disk), so it fails
	// with the bucket: counted apart, and only 503 STORAGE_UNAVAILABLE is
	// allowed (docs/chaos.md).
	variantReads := []string{thumb}

	faults := []struct {
		name  string
		apply func()
	}{
		{"S3 latency 2 s", func() {
			x.toxic(t, "s3", "latency", "latency", "downstream", 1, map[string]any{"latency": 2000})
		}},
		{"S3 bandwidth 50 KB/s", func() {
			x.toxic(t, "s3", "bw-down", "bandwidth", "downstream", 1, map[string]any{"rate": 50})
			x.toxic(t, "s3", "bw-up", "bandwidth", "upstream", 1, map[string]any{"rate": 50})
		}},
		{"S3 connections reset mid-body", func() {
			// Half the connections are cut after 32 KB sent to the
			// bucket (in the middle of an original), a third reset.
			x.toxic(t, "s3", "cut", "limit_data", "upstream", 0.5, map[string]any{"bytes": 32 << 10})
			x.toxic(t, "s3", "reset", "reset_peer", "downstream", 0.3, map[string]any{"timeout": 20})
		}},
		{"S3 timeouts", func() {
			// Half the connections stop answering, and close after 4 s.
			x.toxic(t, "s3", "timeout", "timeout", "downstream", 0.5, map[string]any{"timeout": 4000})
		}},
		{"S3 503 SlowDown (half the requests)", func() { front.percent.Store(50) }},
	}
	const faultFor = 10 * time.Second
	n := 1
	only, err := regexp.Compile(os.Getenv("FOLIO_CHAOS_FAULTS")) // to run some of them
	if err != nil {
		c.fatalf(t, "FOLIO_CHAOS_FAULTS: %v", err)
	}
	for _, f := range faults {
		if !only.MatchString(f.name) {
			continue
		}
		fg := &figures{scenario: f.name, reads: newTally(), writes: newTally()}
		refusedBefore := front.refused.Load()
		f.apply()
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), faultFor)
		wg := readLoad(ctx, boxes, c.key, reads, 40*time.Millisecond, fg.reads)
		variants := newTally()
		wgv := readLoad(ctx, boxes, c.key, variantReads, 200*time.Millisecond, variants)
		for ctx.Err() == nil {
			l.write(t, writer, c.key, chaosJPEG(t, n), n, fg.writes)
			n++
		}
		cancel()
		wg.Wait()
		wgv.Wait()
		for st := range 600 {
			if st != http.StatusOK && st != http.StatusServiceUnavailable && variants.count(st) > 0 {
				c.errorf(t, "%s: a stored image variant answered %d: %s", f.name, st, variants.last[st])
			}
		}
		if variants.count(http.StatusServiceUnavailable) > 0 && !strings.Contains(variants.last[http.StatusServiceUnavailable], server.CodeUnavailable) {
			c.errorf(t, "%s: a stored image variant answered 503 %s", f.name, variants.last[http.StatusServiceUnavailable])
		}
		fg.notes = append(fg.notes, "stored variant reads: "+variants.String())
		fg.took = time.Since(start)
		x.clear(t, "s3")
		front.percent.Store(0)
		if fg.reads.failed() > 0 {
			c.errorf(t, "%s: %d reads failed: %s", f.name, fg.reads.failed(), fg.reads)
		}
		// Once the fault is gone, a write goes through again.
		l.write(t, writer, c.key, chaosJPEG(t, n), n, newTally())
		n++
		fg.lost = l.converge(t, boxes, c.key)
		orphans, claims := bucketProblems(t, s3srv, bucket, writer, c.key)
		fg.notes = append(fg.notes, fmt.Sprintf("%d uploads acknowledged so far", len(l.acked)),
			fmt.Sprintf("%d objects in the bucket and %d claims that no item owns", orphans, claims))
		if d := front.refused.Load() - refusedBefore; d > 0 {
			fg.notes = append(fg.notes, fmt.Sprintf("%d S3 requests answered SlowDown", d))
		}
		fg.log(t)
	}

	// A presigned upload whose confirm fails on a reset is confirmed by the
	// client's retry, exactly once.
	fg := &figures{scenario: "presign confirm retried after a reset", reads: newTally(), writes: newTally()}
	data, err := os.ReadFile(chaosJPEG(t, 999))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		UploadURL, StorageKey string
		Headers               map[string]string
	}
	pr := writer.must(t, "POST", "/api/v1/media/presign", c.key,
		strings.NewReader(fmt.Sprintf(`{"filename":"presigned.jpg","mimeType":"image/jpeg","size":%d}`, len(data))), "Content-Type", "application/json")
	if pr.status != http.StatusOK && pr.status != http.StatusCreated {
		c.fatalf(t, "presign: %d %s", pr.status, pr.body)
	}
	pr.decode(t, &g)
	put, _ := http.NewRequest("PUT", g.UploadURL, bytes.NewReader(data))
	for k, v := range g.Headers {
		put.Header.Set(k, v)
	}
	res, err := slowClient.Do(put)
	if err != nil || res.StatusCode != http.StatusOK {
		c.fatalf(t, "PUT to the upload URL: %v %v", err, res)
	}
	res.Body.Close()
	confirm := fmt.Sprintf(`{"storageKey":%q,"filename":"presigned.jpg","mimeType":"image/jpeg","size":%d}`, g.StorageKey, len(data))
	x.toxic(t, "s3", "reset-all", "reset_peer", "downstream", 1, map[string]any{"timeout": 0})
	r, err := writer.callSlow("POST", "/api/v1/media/confirm", c.key, strings.NewReader(confirm), "Content-Type", "application/json")
	fg.writes.add(r, err)
	checkWriteAnswer(t, "confirm under resets", r, err)
	x.clear(t, "s3")
	created := 0
	if err == nil && r.status == http.StatusCreated {
		created++
	}
	for range 3 { // the client retries, and retries again
		r, err := writer.callSlow("POST", "/api/v1/media/confirm", c.key, strings.NewReader(confirm), "Content-Type", "application/json")
		fg.writes.add(r, err)
		switch {
		case err != nil:
			c.errorf(t, "confirm retry: %v", err)
		case r.status == http.StatusCreated:
			created++
			var cr struct{ Data clusterItem }
			r.decode(t, &cr)
			l.acked[cr.Data.ID] = true
		case r.status == http.StatusConflict:
		default:
			c.errorf(t, "confirm retry: %d %s", r.status, r.body)
		}
	}
	if created != 1 {
		c.errorf(t, "the confirm succeeded %d times, want exactly once", created)
	}
	fg.lost = l.converge(t, boxes, c.key)
	var list struct{ Data []clusterItem }
	writer.must(t, "GET", "/api/v1/media?limit=100", c.key, nil).decode(t, &list)
	same := 0
	for _, it := range list.Data {
		if strings.HasPrefix(it.Filename, "presigned") {
			same++
		}
	}
	if same != 1 {
		c.errorf(t, "%d items of the presigned upload, want 1", same)
	}
	fg.notes = append(fg.notes, fmt.Sprintf("%d confirm answered 201, %d item", created, same))
	fg.log(t)
}

func chaosBucketOutage(t *testing.T, bin string) {
	outage := chaosOutage(t)
	s3srv := s3test.NewServer(t)
	bucket := s3srv.NewBucket(t)
	x := startToxiproxy(t)
	endpoint := "http://" + x.proxy(t, "s3", strings.TrimPrefix(bucket.Endpoint, "http://"))
	remote := newGitRemote(t)
	c := newChaosCluster(t, bin, remote.bare, s3Flags(bucket, endpoint)...)
	writer := c.start("writer")
	replica := c.start("replica", "--read-only")
	boxes := []*clusterBox{writer, replica}

	l := &ledger{acked: map[string]bool{}}
	for i := range 3 {
		it := upload(t, writer, c.key, chaosJPEG(t, i), "image/jpeg", "")
		l.acked[it.ID] = true
		l.altID = it.ID
	}
	l.write(t, writer, c.key, chaosJPEG(t, 3), 3, newTally())
	if r := writer.must(t, "POST", "/api/v1/media/folders", c.key, strings.NewReader(`{"path":"/before-outage"}`), "Content-Type", "application/json"); r.status/100 != 2 {
		c.fatalf(t, "create folder: %d %s", r.status, r.body)
	}
	l.converge(t, boxes, c.key)

	fg := &figures{scenario: fmt.Sprintf("bucket unreachable for %v", outage), reads: newTally(), writes: newTally()}
	reads := []string{"/api/v1/pages", "/api/v1/pages/about", "/api/v1/content/posts", "/api/v1/media", "/api/v1/media/" + l.altID,
		"/api/v1/public/media", "/api/v1/media/folders"}
	x.enable(t, "s3", false)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), outage)
	wg := readLoad(ctx, boxes, c.key, reads, 40*time.Millisecond, fg.reads)
	n := 10
	for ctx.Err() == nil {
		l.write(t, writer, c.key, chaosJPEG(t, n), n, fg.writes)
		n++
		time.Sleep(500 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	x.enable(t, "s3", true)
	back := time.Now()
	fg.took = back.Sub(start)
	if fg.reads.failed() > 0 {
		c.errorf(t, "%d reads failed during the outage: %s", fg.reads.failed(), fg.reads)
	}
	// The first write after the bucket is back, retried as a client would.
	var recovered time.Duration
	for {
		tl := newTally()
		l.write(t, writer, c.key, chaosJPEG(t, n), n, tl)
		n++
		if tl.count(http.StatusCreated) > 0 {
			recovered = time.Since(back)
			break
		}
		if time.Since(back) > 30*time.Second {
			c.fatalf(t, "no write succeeds 30 s after the bucket is back: %s", tl)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Boxes that were cut off catch up with the log; a box started now
	// agrees with them.
	fresh := c.start("replica (started after)", "--read-only")
	fg.lost = l.converge(t, append(boxes, fresh), c.key)
	orphans, claims := bucketProblems(t, s3srv, bucket, writer, c.key)
	fg.notes = append(fg.notes, fmt.Sprintf("first write accepted %v after the bucket was back", recovered.Round(time.Millisecond)),
		fmt.Sprintf("%d uploads acknowledged", len(l.acked)), fmt.Sprintf("%d objects and %d claims that no item owns", orphans, claims))
	fg.log(t)
}

// gitStatus is what the Git remote faults read of GET /api/v1/status.
type gitStatus struct {
	LastFetch *time.Time
	LastError *struct {
		At      time.Time
		Message string
	}
}

func chaosGitRemote(t *testing.T, bin string) {
	remote := newGitRemote(t)
	srv := gitHTTP(t, remote.root)
	x := startToxiproxy(t)
	addr := x.proxy(t, "git", strings.TrimPrefix(srv.URL, "http://"))
	const poll, fetchTimeout = time.Second, 5 * time.Second
	c := newChaosCluster(t, bin, "http://"+addr+"/site.git", "--poll", poll.String(), "--fetch-timeout", fetchTimeout.String())
	box := c.start("box")
	reads := []string{"/api/v1/pages", "/api/v1/pages/about", "/api/v1/content/posts", "/api/v1/globals", "/api/v1/content/products"}

	faults := []struct {
		name   string
		apply  func()
		failed bool // whether fetches fail during it (a slow one may succeed)
	}{
		{"Git remote unreachable", func() { x.enable(t, "git", false) }, true},
		{"Git remote slow (1 s latency, 4 KB/s)", func() {
			x.toxic(t, "git", "latency", "latency", "downstream", 1, map[string]any{"latency": 1000})
			x.toxic(t, "git", "bw", "bandwidth", "downstream", 1, map[string]any{"rate": 4})
		}, false},
		{"Git remote resetting during a fetch", func() {
			x.toxic(t, "git", "cut", "limit_data", "downstream", 1, map[string]any{"bytes": 600})
		}, true},
		{"Git remote hanging mid-fetch", func() {
			x.toxic(t, "git", "hang", "timeout", "downstream", 1, map[string]any{"timeout": 0})
		}, true},
	}
	for i, f := range faults {
		fg := &figures{scenario: f.name, reads: newTally(), writes: newTally()}
		before, err := aboutTitle(box, c.key)
		if err != nil {
			t.Fatal(err)
		}
		f.apply()
		start := time.Now()
		ctx, cancel := context.WithCancel(context.Background())
		wg := readLoad(ctx, []*clusterBox{box}, c.key, reads, 20*time.Millisecond, fg.reads)
		title := fmt.Sprintf("About, pushed during fault %d", i)
		remote.retitle(t, title)
		time.Sleep(fetchTimeout + 2*poll)
		if f.failed {
			// A fetch that hangs fails only at the fetch timeout, which
			// a loaded machine may pass late: wait (a while) for the
			// status to record a failure since the fault began. The
			// newest fetch must have failed: lastFetch is before it (a
			// fetch under way when the fault began may have succeeded).
			var st gitStatus
			var r httpResult
			for wait := time.Now(); ; time.Sleep(100 * time.Millisecond) {
				r = box.must(t, "GET", "/api/v1/status", c.key, nil)
				st = gitStatus{}
				r.decode(t, &st)
				if st.LastError != nil && st.LastError.At.After(start) || time.Since(wait) > 10*time.Second {
					break
				}
			}
			if got, _ := aboutTitle(box, c.key); got != before {
				c.errorf(t, "%s: served %q, want the last good %q", f.name, got, before)
			}
			if st.LastFetch == nil || st.LastError == nil || !st.LastError.At.After(start) || !st.LastFetch.Before(st.LastError.At) {
				c.errorf(t, "%s: status does not say the site is stale: %s", f.name, r.body)
			} else {
				fg.notes = append(fg.notes, fmt.Sprintf("status: lastFetch %v old, lastError %q", time.Since(*st.LastFetch).Round(time.Second), st.LastError.Message))
			}
		}
		x.clear(t, "git")
		cleared := time.Now()
		for {
			got, err := aboutTitle(box, c.key)
			if err == nil && got == title {
				break
			}
			if time.Since(cleared) > fetchTimeout+poll+5*time.Second {
				c.fatalf(t, "%s: the push is not served %v after the remote is back: %q %v", f.name, time.Since(cleared), got, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		served := time.Since(cleared)
		cancel()
		wg.Wait()
		fg.took = time.Since(start)
		if fg.reads.failed() > 0 {
			c.errorf(t, "%s: %d reads failed: %s", f.name, fg.reads.failed(), fg.reads)
		}
		fg.notes = append(fg.notes, fmt.Sprintf("push served %v after the remote was back (poll %v, fetch timeout %v)", served.Round(time.Millisecond), poll, fetchTimeout))
		fg.log(t)
	}
}

func chaosDiskFull(t *testing.T, bin string) {
	disk := filepath.Join(t.TempDir(), "disk")
	if err := os.MkdirAll(disk, 0o755); err != nil {
		t.Fatal(err)
	}
	const size = 3 << 20
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot mount a tmpfs (CI must allow it): %v", err)
		}
		t.Skipf("cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): %v", err)
	}
	// Registered before the boxes start: it runs after they are killed.
	t.Cleanup(func() {
		if err := syscall.Unmount(disk, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", disk, err)
		}
	})
	remote := newGitRemote(t)
	c := newChaosCluster(t, bin, remote.bare)
	dirs := []string{"--media", filepath.Join(disk, "media"), "--cache-dir", filepath.Join(disk, "cache")}
	box := c.start("box", dirs...)
	time.Sleep(3 * time.Second) // the parse cache is written 2 s after start

	fg := &figures{scenario: fmt.Sprintf("media and cache on a full %d MB tmpfs", size>>20), reads: newTally(), writes: newTally()}
	start := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	wg := readLoad(ctx, []*clusterBox{box}, c.key, []string{"/api/v1/pages", "/api/v1/content/posts", "/api/v1/media", "/api/v1/search?q=trail"}, 40*time.Millisecond, fg.reads)
	acked := map[string]clusterItem{}
	full := 0
	for n := 0; n < 60 && full < 3; n++ {
		body, ct := multipartUpload(t, chaosJPEG(t, n), "image/jpeg", "")
		r, err := box.callSlow("POST", "/api/v1/media", c.key, body, "Content-Type", ct)
		fg.writes.add(r, err)
		switch {
		case err != nil:
			c.fatalf(t, "upload %d: %v", n, err)
		case r.status == http.StatusCreated:
			var res struct{ Data []clusterItem }
			r.decode(t, &res)
			for _, it := range res.Data {
				acked[it.ID] = it
			}
		case r.status == http.StatusInsufficientStorage || r.status == http.StatusServiceUnavailable:
			var e struct{ Error, Message string }
			if json.Unmarshal(r.body, &e) != nil || e.Error == "" || e.Message == "" {
				c.errorf(t, "upload on a full disk: %d %s, not in the error shape", r.status, r.body)
			}
			full++
		default:
			c.errorf(t, "upload on a full disk: %d %s, want 201, 507 or 503", r.status, r.body)
			full++
		}
	}
	if full == 0 {
		c.errorf(t, "the disk never filled up: %d uploads fit in %d MB", len(acked), size>>20)
	}
	// A push while the disk is full: the parse cache and the search index
	// cannot be written.
	remote.retitle(t, "About, pushed on a full disk")
	waitAll(t, "push served on a full disk", time.Now(), clusterSettle, []*clusterBox{box}, func(b *clusterBox) error {
		got, err := aboutTitle(b, c.key)
		if err == nil && got != "About, pushed on a full disk" {
			err = fmt.Errorf("title %q", got)
		}
		return err
	})
	time.Sleep(time.Second)
	cancel()
	wg.Wait()
	fg.took = time.Since(start)
	if fg.reads.failed() > 0 {
		c.errorf(t, "%d reads failed on a full disk: %s", fg.reads.failed(), fg.reads)
	}
	checkItems := func(b *clusterBox) {
		t.Helper()
		for id, it := range acked {
			r := b.must(t, "GET", "/api/v1/media/"+id, c.key, nil)
			if r.status != http.StatusOK {
				c.errorf(t, "acknowledged upload %s: %d %s", id, r.status, r.body)
				fg.lost++
				continue
			}
			for _, u := range append([]string{it.URL}, sizeURLs(it)...) {
				f := b.must(t, "GET", u, "", nil)
				if f.status != http.StatusOK || len(f.body) == 0 {
					c.errorf(t, "%s of %s: %d, %d bytes", u, id, f.status, len(f.body))
				}
			}
		}
	}
	checkItems(box)
	listBefore := box.must(t, "GET", "/api/v1/media?limit=100", c.key, nil).body

	// Killed and started again on the same full disk, the box serves the
	// same library, the same content, and finds its parse cache intact.
	box.kill()
	box2 := c.start("box (restarted on the full disk)", dirs...)
	if lb := box2.must(t, "GET", "/api/v1/media?limit=100", c.key, nil).body; !bytes.Equal(lb, listBefore) {
		c.errorf(t, "the media list differs after the restart:\n%s\nwas\n%s", lb, listBefore)
	}
	checkItems(box2)
	if got, err := aboutTitle(box2, c.key); err != nil || got != "About, pushed on a full disk" {
		c.errorf(t, "after the restart: title %q, %v", got, err)
	}
	for _, bad := range []string{"ignoring parsed-document cache", "corrupt"} {
		if strings.Contains(box2.log.String(), bad) {
			c.errorf(t, "the restarted box logs %q: a cache was left half-written", bad)
		}
	}
	r := box2.must(t, "GET", "/api/v1/search?q=about", c.key, nil)
	if r.status != http.StatusOK && r.status != http.StatusServiceUnavailable {
		c.errorf(t, "search after the restart: %d %s", r.status, r.body)
	}
	var tmps []string
	filepath.WalkDir(disk, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.Contains(d.Name(), ".tmp") || strings.HasPrefix(d.Name(), "tmp")) {
			tmps = append(tmps, p)
		}
		return nil
	})
	fg.notes = append(fg.notes, fmt.Sprintf("%d uploads fitted, %d refused", len(acked), full), fmt.Sprintf("%d temporary files left after the restart", len(tmps)))
	fg.log(t)
}

// dumpLog logs the media change log's entries, decoded into the fields a
// reader of a failure needs (gob matches fields by name).
func dumpLog(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var le struct {
			Op   string
			Item *struct {
				ID, Alt, Filename string
				Version           int
			}
			ETag, Box string
			At        time.Time
		}
		if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&le); err != nil {
			t.Logf("log %s: %v", e.Name(), err)
			continue
		}
		if le.Item == nil {
			t.Logf("log %s: %s %s box %s", e.Name(), le.At.Format(time.StampMilli), le.Op, le.Box)
			continue
		}
		t.Logf("log %s: %s %s %s v%d %q alt %q box %s etag %s", e.Name(), le.At.Format(time.StampMilli), le.Op, le.Item.ID, le.Item.Version, le.Item.Filename, le.Item.Alt, le.Box, le.ETag)
	}
}

// allPages GETs every page of a list (100 items a page) and returns the
// bodies, one a line; a path that is not paged is one page.
func allPages(b *clusterBox, path, key string) ([]byte, error) {
	var out [][]byte
	for offset := 0; ; offset += 100 {
		p := path
		if strings.HasSuffix(path, "/media") {
			p = fmt.Sprintf("%s?limit=100&offset=%d", path, offset)
		}
		r, err := b.call("GET", p, key, nil)
		if err != nil {
			return nil, err
		}
		if r.status != http.StatusOK {
			return nil, fmt.Errorf("%s on %s: %d %.200s", p, b.name, r.status, r.body)
		}
		out = append(out, r.body)
		var page struct {
			Data  []json.RawMessage
			Total int
		}
		if json.Unmarshal(r.body, &page) != nil || p == path || offset+100 >= page.Total {
			return bytes.Join(out, []byte("\n")), nil
		}
	}
}

// itemsOf decodes the items of the pages allPages returned.
func itemsOf(pages []byte) []clusterItem {
	var all []clusterItem
	for _, line := range bytes.Split(pages, []byte("\n")) {
		var page struct{ Data []clusterItem }
		json.Unmarshal(line, &page)
		all = append(all, page.Data...)
	}
	return all
}
