package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// The bucket group runs folio on a real S3 server: versitygw (posix
// backend, on 127.0.0.1) with the root account below. The media library
// of -media items is moved into one bucket by `folio media migrate`; the
// bucket's directory is cached under -data like the generated data, so
// later runs skip the migration.
const (
	gwAccess = "folio-bench-access"
	gwSecret = "folio-bench-secret-key-0123456789"
	gwRegion = "us-east-1"
	// benchBucket holds the big library; xboxBucket the cross-box test's
	// few items, made afresh each run.
	benchBucket = "folio-bench"
	xboxBucket  = "folio-xbox"
	// s3Prefix is the site prefix, so the library's state is under
	// folio-state/site/ (s3.DefaultStatePrefix).
	s3Prefix = "site"
	// xboxWrites is how many PATCHes the cross-box figure is made of.
	xboxWrites = 50
	// defaultMediaPoll is folio's --media-poll default
	// (media.DefaultPollInterval); the writes are spread over it.
	defaultMediaPoll = 500 * time.Millisecond
)

// bucketInfo is what the bench records beside a populated bucket
// (bucket.json), so a later run can reuse it and still report what the
// migration took.
type bucketInfo struct {
	Items      int       `json:"items"`
	MigrateMS  float64   `json:"migrateMs"`
	MigratedAt time.Time `json:"migratedAt"`
	Folio      string    `json:"folio"`
	Output     string    `json:"output"`
	PeakRSSMB  float64   `json:"peakRssMb"`
	// Meta is where versitygw keeps object metadata: "xattr" or
	// "sidecar" (a directory of files per object).
	Meta string `json:"meta"`
}

// gateway is a running versitygw.
type gateway struct {
	*server
	endpoint string
	data     string // <data>/<bucket>/<key> is an object
}

// gatewayMeta picks where versitygw keeps object metadata for dir/data:
// in extended attributes when the file system takes user xattrs (ext4,
// xfs), else in a sidecar directory (tmpfs before Linux 6.6), which costs
// the gateway about twice the CPU per PUT and three times the disk.
func gatewayMeta(dir string) string {
	probe := filepath.Join(dir, ".xattr-probe")
	defer os.Remove(probe)
	if err := os.WriteFile(probe, nil, 0o644); err != nil {
		return "sidecar"
	}
	if err := syscall.Setxattr(probe, "user.folio-bench", []byte("1"), 0); err != nil {
		return "sidecar"
	}
	return "xattr"
}

// startGateway starts versitygw on a free loopback port, serving dir/data,
// with metadata in xattrs or (meta "sidecar") under dir/meta.
func (b *bench) startGateway(dir, metaMode string) (*gateway, error) {
	if b.versitygw == "" {
		return nil, errors.New("no versitygw binary (-versitygw; `make versitygw` builds it)")
	}
	if _, err := os.Stat(b.versitygw); err != nil {
		return nil, fmt.Errorf("versitygw: %w (`make versitygw` builds it)", err)
	}
	data, meta := filepath.Join(dir, "data"), filepath.Join(dir, "meta")
	for _, d := range []string{data, meta} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	var lastErr error
	for range 3 { // the free port may be taken before versitygw binds it
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		// Metadata go to a sidecar directory rather than to extended
		// attributes, as in media/s3/s3test. VGW_* and ROOT_* variables
		// of the environment would change the gateway's settings: they
		// are emptied.
		// --keep-alive: versitygw closes every connection after one
		// response by default, where S3 services keep them open; without
		// it each of folio's requests would pay for a new connection.
		args := []string{"--port", addr, "--access", gwAccess, "--secret", gwSecret, "--region", gwRegion,
			"--quiet", "--keep-alive", "posix"}
		if metaMode == "sidecar" {
			args = append(args, "--sidecar", meta)
		}
		args = append(args, data)
		var env []string
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "VGW_") || strings.HasPrefix(k, "ROOT_") {
				env = append(env, k+"=")
			}
		}
		s, err := startProcessEnv(b.versitygw, args, env, "http://"+addr, filepath.Join(b.tmp, "versitygw.log"))
		if err != nil {
			return nil, err
		}
		g := &gateway{server: s, endpoint: "http://" + addr, data: data}
		if lastErr = g.waitAnswering(30 * time.Second); lastErr == nil {
			return g, nil
		}
		s.stop()
	}
	return nil, lastErr
}

// waitAnswering polls until the gateway answers HTTP at all (an unsigned
// request is refused with 403).
func (g *gateway) waitAnswering(limit time.Duration) error {
	client := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: time.Second}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case err := <-g.done:
			g.done <- err
			return fmt.Errorf("versitygw exited: %v (log: %s)", err, g.logf.Name())
		default:
		}
		if resp, err := client.Get(g.endpoint + "/"); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("versitygw not answering after %s (log: %s)", limit, g.logf.Name())
}

// makeBucket creates bucket unless it exists.
func (g *gateway) makeBucket(bucket string) error {
	u, _ := url.Parse(g.endpoint)
	c, err := minio.New(u.Host, &minio.Options{Creds: credentials.NewStaticV4(gwAccess, gwSecret, ""), Region: gwRegion,
		Transport: &http.Transport{Proxy: nil}})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ok, err := c.BucketExists(ctx, bucket)
	if err != nil || ok {
		return err
	}
	return c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{Region: gwRegion})
}

// s3Args are folio's flags for bucket on g; s3Env its credentials.
func (g *gateway) s3Args(bucket string) []string {
	return []string{"--storage", "s3", "--s3-endpoint", g.endpoint, "--s3-bucket", bucket, "--s3-region", gwRegion, "--s3-prefix", s3Prefix}
}

var s3Env = []string{"AWS_ACCESS_KEY_ID=" + gwAccess, "AWS_SECRET_ACCESS_KEY=" + gwSecret}

// checkpointed reports whether bucket, in versitygw's data directory,
// holds a checkpoint of the library (what a fresh box starts from).
func checkpointed(data, bucket string) bool {
	m, _ := filepath.Glob(filepath.Join(data, bucket, "folio-state", s3Prefix, "checkpoints", "*.gob.gz"))
	return len(m) > 0
}

// bucket measures folio on a bucket: how long `folio media migrate` takes
// to move the big local library into it, how long a fresh box (empty
// media root) takes to serve lists and search from it, and how long a
// write on one box takes to show on a read-only box of the same bucket.
func (b *bench) bucket() error {
	mdir, mm, err := b.dataset(0, b.mediaN)
	if err != nil {
		return err
	}
	site, _, err := b.dataset(1000, 0)
	if err != nil {
		return err
	}
	gwDir := filepath.Join(b.dataDir, fmt.Sprintf("bucket-m%d-s%d", b.mediaN, b.seed))
	infoFile := filepath.Join(gwDir, "bucket.json")
	var info bucketInfo
	cached := false
	if data, err := os.ReadFile(infoFile); err == nil && json.Unmarshal(data, &info) == nil && info.Items == b.mediaN && info.Meta != "" {
		cached = checkpointed(filepath.Join(gwDir, "data"), benchBucket)
		if !cached {
			b.logf("cached bucket %s has no checkpoint: migrating again", gwDir)
		}
	}
	if b.rebuildBucket || !cached {
		if err := os.RemoveAll(gwDir); err != nil {
			return err
		}
		if err := os.MkdirAll(gwDir, 0o755); err != nil {
			return err
		}
		cached, info.Meta = false, gatewayMeta(gwDir)
	}
	// The cross-box test's bucket is made afresh.
	for _, d := range []string{filepath.Join(gwDir, "data", xboxBucket), filepath.Join(gwDir, "meta", xboxBucket)} {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	gw, err := b.startGateway(gwDir, info.Meta)
	if err != nil {
		return err
	}
	defer gw.stop()
	label := sizeLabel(b.mediaN)
	if !cached {
		meta := info.Meta
		if info, err = b.migrateBucket(gw, filepath.Join(mdir, "media")); err != nil {
			return err
		}
		info.Meta = meta
		data, _ := json.MarshalIndent(info, "", "  ")
		if err := os.WriteFile(infoFile, data, 0o644); err != nil {
			return err
		}
	}
	note := fmt.Sprintf("`folio media migrate` of the folio-gen library (sidecars on a local media root, hard-linked copy) into an empty bucket on versitygw (posix backend, metadata in %s, keep-alive, on this machine, sharing its cores), then its checkpoint; exec to exit; one run (%s). Output: %s",
		info.Meta, info.MigratedAt.UTC().Format(time.RFC3339), strings.TrimSpace(info.Output))
	if cached {
		note += fmt.Sprintf(". This run reused the bucket cached under %s: the figure is the one measured when it was made (%s); -rebuild-bucket measures it again", filepath.Base(gwDir), info.Folio)
	}
	b.add(row{Figure: "migrate " + label + "-item local library into the bucket", Sum: summarize([]float64{info.MigrateMS / 1000}), Unit: unitS, Note: note})
	b.add(row{Figure: "migrate " + label + "-item library: peak RSS", Sum: summarize([]float64{info.PeakRSSMB}), Unit: unitMB})

	if err := b.freshBox(gw, site, mm); err != nil {
		return err
	}
	return b.crossBox(gw, site)
}

// migrateBucket moves the local library at root into benchBucket with
// `folio media migrate` and times it. The library is copied first (hard
// links): migration writes a marker and a grants file into its media root,
// and the generated library is shared with other groups.
func (b *bench) migrateBucket(gw *gateway, root string) (bucketInfo, error) {
	if err := gw.makeBucket(benchBucket); err != nil {
		return bucketInfo{}, fmt.Errorf("make bucket: %w", err)
	}
	scratch, err := b.scratch("migrate")
	if err != nil {
		return bucketInfo{}, err
	}
	cp := filepath.Join(scratch, "media")
	if out, err := exec.Command("cp", "-al", root, cp).CombinedOutput(); err != nil {
		return bucketInfo{}, fmt.Errorf("cp -al %s: %v: %s", root, err, out)
	}
	b.logf("migrating %d items into the bucket", b.mediaN)
	args := append([]string{"media", "migrate", "--media", cp}, gw.s3Args(benchBucket)...)
	cmd := exec.Command(b.folio, args...)
	cmd.Env = append(os.Environ(), s3Env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return bucketInfo{}, fmt.Errorf("folio media migrate: %v: %s", err, lastLines(out.String(), 10))
	}
	d := time.Since(t0)
	os.RemoveAll(scratch)
	info := bucketInfo{Items: b.mediaN, MigrateMS: ms(d), MigratedAt: t0, Folio: folioVersion(b.folio), Output: lastLines(out.String(), 2)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		info.PeakRSSMB = float64(ru.Maxrss) / 1024 // kB on Linux
	}
	if !checkpointed(gw.data, benchBucket) {
		return bucketInfo{}, errors.New("folio media migrate wrote no checkpoint")
	}
	b.logf("  migrated in %s: %s", d.Round(time.Millisecond), strings.TrimSpace(info.Output))
	return info, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// freshBox times exec of `folio serve` on the big bucket with an empty
// media root to the first 200 of a list, and on to the first search that
// answers with hits (the search index is built in the background after
// start; a search waits for it).
func (b *bench) freshBox(gw *gateway, site string, mm manifest) error {
	cache, err := b.warmSiteCache(site, "bucket")
	if err != nil {
		return err
	}
	if len(mm.SearchWords) == 0 {
		return errors.New("the media manifest has no search words")
	}
	word := mm.SearchWords[0]
	searchPath := "/api/v1/media?search=" + url.QueryEscape(word)
	slow := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: readyLimit}
	defer slow.CloseIdleConnections()
	var tl, ts, rss, cpu []float64
	hits := 0
	for i := range b.runs {
		empty, err := b.scratch("bucket-box")
		if err != nil {
			return err
		}
		s, err := b.startFolio(serveOpts{Site: filepath.Join(site, "site"), Media: empty, CacheDir: cache,
			Log: filepath.Join(b.tmp, "folio-bucket-box.log"), Args: gw.s3Args(benchBucket), Env: s3Env})
		if err != nil {
			return err
		}
		list, err := s.waitReady(b.client, "/api/v1/media?limit=24", b.key, readyLimit)
		if err != nil {
			s.stop()
			return err
		}
		var found mediaListBody
		search, err := s.waitFor(slow, searchPath, b.key, readyLimit, func(body []byte) bool {
			return json.Unmarshal(body, &found) == nil && len(found.Data) > 0
		})
		if err != nil {
			s.stop()
			return err
		}
		hwm, err := procStatus(s.pid(), "VmHWM")
		if err != nil {
			s.stop()
			return err
		}
		used, err := cpuTime(s.pid())
		if err != nil {
			s.stop()
			return err
		}
		// The library must be all there: a box that loaded less (a
		// checkpoint it could not read) would be fast for the wrong reason.
		var all mediaListBody
		code, body, err := get(b.client, s.base+"/api/v1/media?limit=1", b.key)
		s.stop()
		if err != nil || code != http.StatusOK || json.Unmarshal(body, &all) != nil || all.Total != b.mediaN {
			return fmt.Errorf("fresh box serves %d items, want %d (status %d, %v)", all.Total, b.mediaN, code, err)
		}
		os.RemoveAll(empty)
		hits = found.Total
		tl, ts, rss, cpu = append(tl, ms(list)), append(ts, ms(search)), append(rss, hwm), append(cpu, ms(used))
		b.logf("  run %d: list %.0f ms, search %.0f ms, CPU %.0f ms, %.0f MB", i+1, ms(list), ms(search), ms(used), hwm)
	}
	label := sizeLabel(b.mediaN)
	r := row{Figure: "fresh box on a " + label + "-item bucket: lists and search", Sum: summarize(ts), Unit: unitMS,
		Note: fmt.Sprintf("`folio serve --storage s3` on the migrated bucket (versitygw on 127.0.0.1, its files in the OS page cache) with a new empty --media dir and the 1k-file site on a warm content cache: exec to the first 200 of GET /api/v1/media?limit=24, then on to the first GET /api/v1/media?search=%s that answers 200 with hits (%d); the row is the later of the two", word, hits)}
	b.add(r.check("≤ 3000 ms", r.Sum.Median <= 3000))
	b.add(row{Figure: "… of which to the first list", Sum: summarize(tl), Unit: unitMS})
	b.add(row{Figure: "… CPU time folio used until search answered", Sum: summarize(cpu), Unit: unitMS,
		Note: "user + system time of the folio process (/proc/<pid>/stat) when search first answered: what the start costs whatever else runs on the machine; on this machine's 2 cores the wall time cannot be below half of it"})
	b.add(row{Figure: "peak RSS at ready, fresh box on a " + label + "-item bucket", Sum: summarize(rss), Unit: unitMB,
		Note: "VmHWM once search answers"})
	return nil
}

// warmSiteCache returns a content cache of the 1k-file site filled by one
// start (on an empty local media library), as mediaStart does.
func (b *bench) warmSiteCache(site, name string) (string, error) {
	cache, err := b.scratch("cache-" + name)
	if err != nil {
		return "", err
	}
	empty, err := b.scratch(name + "-warm-media")
	if err != nil {
		return "", err
	}
	warm, err := b.startFolio(serveOpts{Site: filepath.Join(site, "site"), Media: empty, CacheDir: cache, Log: filepath.Join(b.tmp, "folio-"+name+"-warm.log")})
	if err != nil {
		return "", err
	}
	_, err = warm.waitReady(b.client, "/api/v1/media", b.key, readyLimit)
	warm.stop()
	return cache, err
}

type mediaListBody struct {
	Data  []json.RawMessage `json:"data"`
	Total int               `json:"total"`
}

// waitFor polls GET base+path until it answers 200 with a body that ok
// accepts, and returns the time since the process was started. A request
// may wait long (a search waits for the index): client bounds it.
func (s *server) waitFor(client *http.Client, path, key string, limit time.Duration, ok func([]byte) bool) (time.Duration, error) {
	deadline := time.Now().Add(limit)
	last := ""
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err
			return 0, fmt.Errorf("process exited: %v (log: %s)", err, s.logf.Name())
		default:
		}
		code, body, err := get(client, s.base+path, key)
		if err == nil && code == http.StatusOK && ok(body) {
			return time.Since(s.started), nil
		}
		last = fmt.Sprintf("status %d, %v, %.200s", code, err, body)
		time.Sleep(time.Millisecond)
	}
	return 0, fmt.Errorf("GET %s not answered as wanted after %s: %s (log: %s)", path, limit, last, s.logf.Name())
}

func get(client *http.Client, u, key string) (int, []byte, error) {
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		return 0, nil, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// crossBox starts a writing box and a read-only box on a new bucket, with
// folio's default --media-poll, uploads one item, then xboxWrites times
// changes its alt on the writer and polls the reader until the new alt
// shows. Each write comes after a random pause of up to one poll interval,
// so the writes fall at random points of the reader's polling cycle.
func (b *bench) crossBox(gw *gateway, site string) error {
	if err := gw.makeBucket(xboxBucket); err != nil {
		return fmt.Errorf("make bucket: %w", err)
	}
	cache, err := b.warmSiteCache(site, "xbox")
	if err != nil {
		return err
	}
	start := func(name string, extra ...string) (*server, error) {
		media, err := b.scratch(name + "-media")
		if err != nil {
			return nil, err
		}
		// Each box its own content cache: two processes do not share one.
		c := filepath.Join(b.tmp, "cache-"+name)
		if out, err := exec.Command("cp", "-a", cache, c).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("cp: %v: %s", err, out)
		}
		s, err := b.startFolio(serveOpts{Site: filepath.Join(site, "site"), Media: media, CacheDir: c,
			Log: filepath.Join(b.tmp, "folio-"+name+".log"), Args: append(gw.s3Args(xboxBucket), extra...), Env: s3Env})
		if err != nil {
			return nil, err
		}
		if _, err := s.waitReady(b.client, "/api/v1/media", b.key, readyLimit); err != nil {
			s.stop()
			return nil, err
		}
		return s, nil
	}
	writer, err := start("xbox-writer")
	if err != nil {
		return err
	}
	defer writer.stop()
	reader, err := start("xbox-reader", "--read-only")
	if err != nil {
		return err
	}
	defer reader.stop()

	img := image.NewRGBA(image.Rect(0, 0, 32, 24))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	img.Set(0, 0, color.RGBA{1, 2, 3, 255})
	var pngData bytes.Buffer
	if err := png.Encode(&pngData, img); err != nil {
		return err
	}
	code, body, _, err := b.upload(writer.base, "cross-box.png", &pngData)
	if err != nil {
		return err
	}
	if err := uploadOK(code, body); err != nil {
		return err
	}
	var up struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &up); err != nil || len(up.Data) != 1 {
		return fmt.Errorf("upload answered %s", body)
	}
	id := up.Data[0].ID
	client := newClient(2)
	defer client.CloseIdleConnections()
	showsAlt := func(alt string) func([]byte) bool {
		return func(body []byte) bool {
			var it struct {
				Alt string `json:"alt"`
			}
			return json.Unmarshal(body, &it) == nil && it.Alt == alt
		}
	}
	if _, err := reader.waitFor(client, "/api/v1/media/"+id, b.key, time.Minute, func([]byte) bool { return true }); err != nil {
		return fmt.Errorf("the upload never reached the read-only box: %w", err)
	}
	r := rand.New(rand.NewPCG(b.seed, 0x8b0c5))
	var visible, patchLat []time.Duration
	for i := range xboxWrites {
		time.Sleep(time.Duration(r.Int64N(int64(defaultMediaPoll))))
		alt := fmt.Sprintf("cross-box write %d", i+1)
		t0 := time.Now()
		if err := patchAlt(client, writer.base, id, b.key, alt); err != nil {
			return err
		}
		patchLat = append(patchLat, time.Since(t0))
		ok := showsAlt(alt)
		deadline := t0.Add(30 * time.Second)
		for {
			code, body, err := get(client, reader.base+"/api/v1/media/"+id, b.key)
			if err == nil && code == http.StatusOK && ok(body) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("write %d not visible on the read-only box after 30 s (status %d, %v)", i+1, code, err)
			}
			time.Sleep(2 * time.Millisecond)
		}
		visible = append(visible, time.Since(t0))
	}
	slices.Sort(visible)
	slices.Sort(patchLat)
	p50, p95 := ms(percentile(visible, 0.5)), ms(percentile(visible, 0.95))
	b.add(row{Figure: "write on one box to visible on a read-only box, p50", Sum: summarize([]float64{p50}), Unit: unitMS,
		Note: fmt.Sprintf("a writing box and a --read-only box on one bucket (versitygw on 127.0.0.1), default --media-poll (%s); %d PATCHes of an item's alt on the writer, each after a random pause of up to one poll interval; from sending the PATCH to the first GET /api/v1/media/{id} on the read-only box (polled every 2 ms) that shows the new alt; max %.1f ms", defaultMediaPoll, xboxWrites, ms(visible[len(visible)-1]))})
	r95 := row{Figure: "write on one box to visible on a read-only box, p95", Sum: summarize([]float64{p95}), Unit: unitMS}
	b.add(r95.check("≤ 2000 ms", p95 <= 2000))
	b.add(row{Figure: "… of which the PATCH on the writer, p50", Sum: summarize([]float64{ms(percentile(patchLat, 0.5))}), Unit: unitMS})
	return nil
}

func patchAlt(client *http.Client, base, id, key, alt string) error {
	body, _ := json.Marshal(map[string]string{"alt": alt})
	req, err := http.NewRequest("PATCH", base+"/api/v1/media/"+id, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("PATCH /api/v1/media/%s: %d %s", id, resp.StatusCode, data)
	}
	return nil
}
