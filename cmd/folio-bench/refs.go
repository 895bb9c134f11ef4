package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// refBranches is the number of branches the refs group serves at once.
const refBranches = 10

// refsGroup measures the Git features on each size of -push-sizes: the
// first request on a branch that differs from main by one file, later
// requests on it against main, the heap that ten such branches cost, and
// history and changes on a site of 1,000 documents with 1,000 commits.
func (b *bench) refsGroup() error {
	var errs []error
	if err := b.eachPushSize(b.refsAt); err != nil {
		errs = append(errs, err)
	}
	if err := b.historyBench(); err != nil {
		errs = append(errs, fmt.Errorf("history: %w", err))
	}
	return errors.Join(errs...)
}

func (b *bench) refsAt(n int) error {
	dir, m, err := b.dataset(n, 0)
	if err != nil {
		return err
	}
	if len(m.Posts) < refBranches+1 {
		return fmt.Errorf("the generated site has %d posts, want %d", len(m.Posts), refBranches+1)
	}
	tmp, bare, work, err := b.scratchClone(dir, "refs", true)
	if err != nil {
		return err
	}
	// Branch i changes post i's title: one file each.
	for i := range refBranches {
		br := fmt.Sprintf("bench-%d", i)
		if err := git(work, "checkout", "-q", "-b", br, "origin/main"); err != nil {
			return err
		}
		file := filepath.Join(work, "content", "posts", m.Posts[i]+".md")
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		if err := os.WriteFile(file, titleLine.ReplaceAll(data, []byte(`title: "On `+br+`"`)), 0o644); err != nil {
			return err
		}
		if err := git(work, "commit", "-q", "-a", "-m", br); err != nil {
			return err
		}
		if err := git(work, "push", "-q", "origin", br); err != nil {
			return err
		}
	}
	cache, err := b.scratch("refs-cache")
	if err != nil {
		return err
	}
	media, err := b.scratch("refs-media")
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	metrics := "127.0.0.1:" + strconv.Itoa(port)
	s, err := b.startFolio(serveOpts{Site: bare, Media: media, CacheDir: cache, Log: filepath.Join(tmp, "folio.log"),
		Args: []string{"--metrics-addr", metrics, "--search=false"}})
	if err != nil {
		return err
	}
	defer s.stop()
	if _, err := s.waitReady(b.client, "/api/v1/pages", b.key, readyLimit); err != nil {
		return err
	}
	label := sizeLabel(n) + " files"
	heap0, err := b.heapInUse(metrics)
	if err != nil {
		return err
	}
	var first []float64
	for i := range refBranches {
		url := fmt.Sprintf("%s/api/v1/content/posts/%s?ref=bench-%d", s.base, m.Posts[i], i)
		t0 := time.Now()
		body, status, err := b.getKeyed(url)
		if err != nil {
			return err
		}
		if status != http.StatusOK || !strings.Contains(body, fmt.Sprintf("On bench-%d", i)) {
			return fmt.Errorf("?ref=bench-%d: %d %.200s", i, status, body)
		}
		first = append(first, ms(time.Since(t0)))
	}
	heap10, err := b.heapInUse(metrics)
	if err != nil {
		return err
	}
	r := row{Figure: "first request on a branch differing by one file, " + label, Sum: summarize(first), Unit: unitMS,
		Note: fmt.Sprintf("GET /api/v1/content/posts/{slug}?ref=<branch> on %d branches in turn, each one commit ahead of main changing one post; the snapshot of the branch is built on that request", refBranches)}
	switch n {
	case 10000:
		r = r.check("≤ 50 ms", r.Sum.Median <= 50)
	case 100000:
		r = r.check("≤ 300 ms", r.Sum.Median <= 300)
	}
	b.add(r)
	ratio := heap10 / heap0
	b.add(row{Figure: fmt.Sprintf("heap with %d branch snapshots / with none, %s", refBranches, label),
		Sum: summary{Median: ratio, Min: ratio, Max: ratio, N: 1}, Unit: unitX,
		Note: "go_memstats_heap_inuse_bytes after a forced collection (/debug/pprof/heap?gc=1), before and after the branches' first requests"}.
		check("≤ 1.5×", ratio <= 1.5))
	// Later requests: a branch against main, alternating.
	var onRef, onMain []float64
	for i := range 400 {
		url := s.base + "/api/v1/content/posts/" + m.Posts[refBranches]
		if i%2 == 0 {
			url += "?ref=bench-0"
		}
		t0 := time.Now()
		if _, status, err := b.getKeyed(url); err != nil || status != http.StatusOK {
			return fmt.Errorf("GET %s: %d %v", url, status, err)
		}
		if i%2 == 0 {
			onRef = append(onRef, ms(time.Since(t0)))
		} else {
			onMain = append(onMain, ms(time.Since(t0)))
		}
	}
	ref, main := summarize(onRef), summarize(onMain)
	q := ref.Median / main.Median
	b.add(row{Figure: "later requests on a branch / on main (one item, p50), " + label,
		Sum: summary{Median: q, Min: q, Max: q, N: 1}, Unit: unitX,
		Note: fmt.Sprintf("200 sequential GETs of one item with ?ref=<branch> interleaved with 200 without: p50 %.3f ms against %.3f ms", ref.Median, main.Median)})
	return nil
}

// getKeyed GETs url with the bench key.
func (b *bench) getKeyed(url string) (string, int, error) {
	return b.getKeyedWith(b.client, url)
}

// getKeyedWith GETs url with the bench key by client c.
func (b *bench) getKeyedWith(c *http.Client, url string) (string, int, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return "", 0, err
	}
	req.Header.Set("Authorization", "Bearer "+b.key)
	resp, err := c.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), resp.StatusCode, err
}

// slowClient is the bench's client with a 10-minute limit instead of 30 s:
// a forced collection of a million files' heap, writing its profile, or
// the first request on a branch of a million files can take longer than
// that on a busy 2-core machine, and a request given up on leaves folio
// working under the next figure's load.
func (b *bench) slowClient() *http.Client {
	c := *b.client
	c.Timeout = 10 * time.Minute
	return &c
}

// heapInUse forces a collection in the folio process and reads its heap
// in use (bytes) from its metrics.
func (b *bench) heapInUse(metricsAddr string) (float64, error) {
	resp, err := b.slowClient().Get("http://" + metricsAddr + "/debug/pprof/heap?gc=1")
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	resp, err = b.client.Get("http://" + metricsAddr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_memstats_heap_inuse_bytes "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, errors.New("no go_memstats_heap_inuse_bytes in the metrics")
}

// historyBench builds a site of 1,000 documents and 1,000 commits (each
// changing one document) with git fast-import, and times history and
// changes requests once the history index has caught up.
func (b *bench) historyBench() error {
	const docs, commits = 1000, 1000
	tmp, err := b.scratch("history")
	if err != nil {
		return err
	}
	repo := filepath.Join(tmp, "site.git")
	if err := git("", "init", "-q", "--bare", "-b", "main", repo); err != nil {
		return err
	}
	var in strings.Builder
	data := func(s string) { fmt.Fprintf(&in, "data %d\n%s\n", len(s), s) }
	var hashes []string
	for c := range commits {
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter Bench <bench@localhost> %d +0000\n", c+1, 1700000000+c*60)
		data(fmt.Sprintf("edit %d", c))
		if c == 0 {
			for d := range docs {
				fmt.Fprintf(&in, "M 644 inline content/posts/p%04d.md\n", d)
				data(fmt.Sprintf("---\ntitle: Post %d\ndate: 2024-01-01\n---\nVersion 0 of post %d.\n", d, d))
			}
			continue
		}
		d := (c * 7919) % docs
		fmt.Fprintf(&in, "M 644 inline content/posts/p%04d.md\n", d)
		data(fmt.Sprintf("---\ntitle: Post %d\ndate: 2024-01-01\n---\nVersion %d of post %d.\n", d, c, d))
	}
	cmd := exec.Command("git", "fast-import", "--quiet", "--export-marks="+filepath.Join(tmp, "marks"))
	cmd.Dir = repo
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("fast-import: %v: %s", err, out)
	}
	marks, err := os.ReadFile(filepath.Join(tmp, "marks"))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(marks)), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			hashes = append(hashes, f[1])
		}
	}
	cache, err := b.scratch("history-cache")
	if err != nil {
		return err
	}
	media, err := b.scratch("history-media")
	if err != nil {
		return err
	}
	s, err := b.startFolio(serveOpts{Site: repo, Media: media, CacheDir: cache, Log: filepath.Join(tmp, "folio.log"), Args: []string{"--search=false"}})
	if err != nil {
		return err
	}
	defer s.stop()
	if _, err := s.waitReady(b.client, "/api/v1/pages", b.key, readyLimit); err != nil {
		return err
	}
	ready := time.Now()
	for {
		_, status, err := b.getKeyed(s.base + "/api/v1/content/posts/p0000/history")
		if err != nil {
			return err
		}
		if status == http.StatusOK {
			break
		}
		if time.Since(ready) > time.Minute {
			return fmt.Errorf("history not ready after a minute: %d", status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	built := ms(time.Since(ready))
	var hist, changes []float64
	for i := range 200 {
		t0 := time.Now()
		body, status, err := b.getKeyed(fmt.Sprintf("%s/api/v1/content/posts/p%04d/history", s.base, (i*37)%docs))
		if err != nil || status != http.StatusOK || !strings.Contains(body, `"total"`) {
			return fmt.Errorf("history: %d %v %.200s", status, err, body)
		}
		hist = append(hist, ms(time.Since(t0)))
	}
	for i := range 50 {
		since := hashes[len(hashes)-2-(i*13)%(len(hashes)-1)]
		t0 := time.Now()
		body, status, err := b.getKeyed(s.base + "/api/v1/changes?since=" + since)
		if err != nil || status != http.StatusOK {
			return fmt.Errorf("changes: %d %v %.200s", status, err, body)
		}
		changes = append(changes, ms(time.Since(t0)))
	}
	slices.Sort(hist)
	b.add(row{Figure: "document history (1,000 documents, 1,000 commits), p50", Sum: summarize(hist), Unit: unitMS,
		Note: fmt.Sprintf("GET /api/v1/content/posts/{slug}/history over loopback, 200 documents in turn, after the index caught up (%.0f ms after ready)", built)}.
		check("≤ 5 ms", summarize(hist).Median <= 5))
	b.add(row{Figure: "changes since a commit (same site), p50", Sum: summarize(changes), Unit: unitMS,
		Note: "GET /api/v1/changes?since=<commit> for 50 commits 1 to 999 back; includes building the older commit's snapshot on its first use"}.
		check("≤ 5 ms", summarize(changes).Median <= 5))
	return nil
}
