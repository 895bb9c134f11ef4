package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// scaleReadyLimit bounds one start of the scale group: a first start at
// 1M files took 77 s on an idle machine, several times that on a loaded
// one.
const scaleReadyLimit = 20 * time.Minute

// scalePushes is the number of one-file pushes timed at scale.
const scalePushes = 10

// scaleBranches is the number of branches, each one file ahead of main,
// whose first request is timed.
const scaleBranches = 3

// scaleFilter is the filtered list of the load group (issue 20): an
// eighth of the posts, newest first.
const scaleFilter = "/api/v1/content/posts?filter%5Bdata.category%5D%5Beq%5D=gear&sort=-publishedAt&limit=20"

// scaleGroup (issue 34, `make bench-scale`, never part of a plain run)
// serves the site of -scale-size files (1M by default; generated once
// and cached under -data like every site) from a bare repository with
// --search=false, as one box would: first starts and restarts to ready
// with their CPU and peak RSS, a heap profile at ready, a 20-item list
// at growing offsets, push to serve of one file, the first request on a
// branch one file ahead, and the throughput of one item and of a
// filtered list against the same on the -scale-base site (10k). One
// folio runs at a time: at 1M files one takes several GB.
func (b *bench) scaleGroup() error {
	if b.scaleLoadOnlyFlag {
		return b.scaleLoadOnly()
	}
	if b.scalePushOnlyFlag {
		return b.scalePushOnly()
	}
	n := b.scaleSize
	dir, m, err := b.dataset(n, 0)
	if err != nil {
		return err
	}
	if len(m.Posts) < scalePushes+scaleBranches+2 {
		return fmt.Errorf("the generated site has %d posts, want %d", len(m.Posts), scalePushes+scaleBranches+2)
	}
	label := sizeLabel(n) + " files"
	tmp, served, _, err := b.scratchClone(dir, "scale", false)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// The pushes come from a second bare clone: commits are made in it
	// with git fast-import (a work tree of 1M files would take minutes
	// to check out) and pushed to the served one.
	src := filepath.Join(tmp, "src.git")
	if err := git("", "clone", "-q", "--bare", served, src); err != nil {
		return err
	}
	media, err := b.scratch("scale-media")
	if err != nil {
		return err
	}
	cache := filepath.Join(tmp, "cache")
	profDir := filepath.Join(filepath.Dir(b.outFile), "scale-profiles")
	if err := os.MkdirAll(profDir, 0o755); err != nil {
		return err
	}

	// First starts: each on an empty cache; the first run's cache is
	// kept for the restarts.
	var firstT, firstCPU, firstRSS, firstHeap []float64
	for i := range b.runs {
		c := cache
		if i > 0 {
			c = filepath.Join(tmp, fmt.Sprintf("cache-%d", i))
		}
		st, err := b.scaleStart(served, media, c, fmt.Sprintf("%s/heap-first-%d.pb.gz", profDir, i))
		if err != nil {
			return fmt.Errorf("%s, first start: %w", label, err)
		}
		// A first start writes its parse cache when it stops (or in the
		// background after ready): at 1M that takes longer than stop's 5 s
		// grace, and a start killed before it leaves the restarts a
		// first start again (108 s of CPU instead of ~30 s).
		st.s.stopWithin(scaleReadyLimit)
		if i > 0 {
			os.RemoveAll(c)
		}
		firstT, firstCPU, firstRSS, firstHeap = append(firstT, st.ready), append(firstCPU, st.cpu), append(firstRSS, st.rss), append(firstHeap, st.heap)
	}
	var warmT, warmCPU, warmRSS, warmHeap []float64
	var live scaleStarted
	for i := range b.runs {
		st, err := b.scaleStart(served, media, cache, fmt.Sprintf("%s/heap-restart-%d.pb.gz", profDir, i))
		if err != nil {
			return fmt.Errorf("%s, restart: %w", label, err)
		}
		warmT, warmCPU, warmRSS, warmHeap = append(warmT, st.ready), append(warmCPU, st.cpu), append(warmRSS, st.rss), append(warmHeap, st.heap)
		if i < b.runs-1 {
			st.s.stopWithin(scaleReadyLimit)
		} else {
			live = st
		}
	}
	defer live.s.stop()
	first := row{Figure: "scale: first start (empty cache), " + label, Sum: summarize(firstT), Unit: unitMS,
		Note: "exec of `folio serve --search=false` on a bare repository to the first 200 of GET /api/v1/pages (polled every 1 ms), empty media library"}
	b.add(first.check("≤ 60000 ms", first.Sum.Median <= 60000))
	b.add(row{Figure: "… CPU time to ready, first start, " + label, Sum: summarize(firstCPU), Unit: unitMS})
	rss := row{Figure: "… peak RSS at ready, first start, " + label, Sum: summarize(firstRSS), Unit: unitMB,
		Note: "VmHWM when it first answered"}
	b.add(rss.check("≤ 4096 MB", rss.Sum.Median <= 4096))
	b.add(row{Figure: "… heap in use at ready, first start, " + label, Sum: summarize(firstHeap), Unit: unitMB,
		Note: "go_memstats_heap_inuse_bytes after a forced collection at ready; the heap profile of each start is written to " + profDir})
	warm := row{Figure: "scale: restart (warm cache), " + label, Sum: summarize(warmT), Unit: unitMS}
	b.add(warm.check("≤ 8000 ms", warm.Sum.Median <= 8000))
	b.add(row{Figure: "… CPU time to ready, restart, " + label, Sum: summarize(warmCPU), Unit: unitMS})
	wrss := row{Figure: "… peak RSS at ready, restart, " + label, Sum: summarize(warmRSS), Unit: unitMB}
	b.add(wrss.check("≤ 4096 MB", wrss.Sum.Median <= 4096))
	b.add(row{Figure: "… heap in use at ready, restart, " + label, Sum: summarize(warmHeap), Unit: unitMB})

	var errs []string
	if err := b.scaleOffsets(live.s, label); err != nil {
		errs = append(errs, "offsets: "+err.Error())
	}
	if err := b.scalePush(live.s, src, m, label); err != nil {
		errs = append(errs, "push: "+err.Error())
	}
	if err := b.scaleBranch(live.s, src, m, label); err != nil {
		errs = append(errs, "branch: "+err.Error())
	}
	big, err := b.scaleLoad(live.s, m)
	if err != nil {
		errs = append(errs, "load: "+err.Error())
	}
	live.s.stop()
	if err == nil {
		if err := b.scaleCompare(big, label); err != nil {
			errs = append(errs, "load at the base size: "+err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// scaleStarted is one start of the scale group, still running.
type scaleStarted struct {
	s                     *server
	metrics               string
	ready, cpu, rss, heap float64 // ms, ms, MB, MB
	gcCPU                 float64 // ms of CPU of the forced collection (and reading the metrics) after ready
}

// scaleStart starts folio on site with a metrics listener, waits until
// it serves, reads its CPU time and peak RSS, then writes a heap profile
// (after a forced collection) to prof.
func (b *bench) scaleStart(site, media, cache, prof string) (scaleStarted, error) {
	port, err := freePort()
	if err != nil {
		return scaleStarted{}, err
	}
	metrics := "127.0.0.1:" + strconv.Itoa(port)
	s, err := b.startFolio(serveOpts{Site: site, Media: media, CacheDir: cache, Log: filepath.Join(b.tmp, "folio-scale-"+strings.TrimSuffix(filepath.Base(site), ".git")+".log"),
		Args: []string{"--metrics-addr", metrics, "--search=false"}, Env: b.scaleEnv})
	if err != nil {
		return scaleStarted{}, err
	}
	d, err := s.waitReady(b.client, "/api/v1/pages", b.key, scaleReadyLimit)
	if err != nil {
		s.stop()
		return scaleStarted{}, err
	}
	st := scaleStarted{s: s, metrics: metrics, ready: ms(d)}
	cpu, err := cpuTime(s.pid())
	if err == nil {
		st.rss, err = procStatus(s.pid(), "VmHWM")
	}
	if err == nil {
		st.heap, err = b.heapInUse(metrics)
	}
	if err == nil {
		// The CPU of one full collection of the heap at ready: what each
		// collection under load costs, about (scale_load.go).
		var after time.Duration
		if after, err = cpuTime(s.pid()); err == nil {
			st.gcCPU = ms(after - cpu)
		}
	}
	if err == nil {
		err = b.saveProfile("http://"+metrics+"/debug/pprof/heap", prof)
	}
	if err != nil {
		s.stop()
		return scaleStarted{}, err
	}
	st.cpu, st.heap = ms(cpu), st.heap/(1<<20)
	b.logf("  start: ready %.0f ms, CPU %.0f ms, peak RSS %.0f MB, heap %.0f MB, a forced collection %.0f ms of CPU", st.ready, st.cpu, st.rss, st.heap, st.gcCPU)
	return st, nil
}

// saveProfile writes the body of GET url to file.
func (b *bench) saveProfile(url, file string) error {
	resp, err := b.slowClient().Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	return os.WriteFile(file, buf.Bytes(), 0o644)
}

// scaleOffsets times a 20-item list at offsets from 0 to the end of the
// list, for the unfiltered posts list, the filtered one and the pages,
// each the median of 5 requests (the first of each offset included: a
// deep page is rarely asked twice).
func (b *bench) scaleOffsets(s *server, label string) error {
	lists := []struct{ name, path string }{
		{"GET /content/posts?limit=20&offset=…", "/api/v1/content/posts?limit=20"},
		{"GET /content/posts?filter…&limit=20&offset=…", scaleFilter},
		{"GET /pages?limit=20&offset=…", "/api/v1/pages?limit=20"},
	}
	for _, l := range lists {
		body, status, err := b.getKeyed(s.base + l.path)
		if err != nil || status != http.StatusOK {
			return fmt.Errorf("GET %s: %d %v", l.path, status, err)
		}
		total := listTotal(body)
		var worst, all []float64
		var per []string
		for _, frac := range []float64{0, 0.01, 0.1, 0.5, 0.99} {
			off := int(frac * float64(total))
			var t []float64
			for range 5 {
				t0 := time.Now()
				_, status, err := b.getKeyed(fmt.Sprintf("%s%s&offset=%d", s.base, l.path, off))
				if err != nil || status != http.StatusOK {
					return fmt.Errorf("GET %s offset %d: %d %v", l.path, off, status, err)
				}
				t = append(t, ms(time.Since(t0)))
			}
			med := summarize(t).Median
			worst, all = append(worst, med), append(all, t...)
			per = append(per, fmt.Sprintf("%d: %.2f ms", off, med))
		}
		b.add(row{Figure: "scale: " + l.name + ", " + label, Sum: summarize(worst), Unit: unitMS2,
			Note: fmt.Sprintf("one request at a time over loopback, 5 at each of the offsets 0, 1%%, 10%%, 50%%, 99%% of %d; medians by offset: %s", total, strings.Join(per, ", "))})
	}
	return nil
}

// listTotal reads "total" of a list body; 0 if absent.
func listTotal(body string) int {
	i := strings.LastIndex(body, `"total":`)
	if i < 0 {
		return 0
	}
	rest := body[i+len(`"total":`):]
	j := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if j < 0 {
		j = len(rest)
	}
	n, _ := strconv.Atoi(rest[:j])
	return n
}

// commitOne commits, in the bare repository repo, a new version of the
// post slug on branch (created from main when it does not exist) with
// its title set to title, using git fast-import.
func commitOne(repo, branch, slug, title string) error {
	path := "content/posts/" + slug + ".md"
	cmd := exec.Command("git", "cat-file", "blob", "main:"+path)
	cmd.Dir = repo
	data, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git cat-file %s: %w", path, err)
	}
	data = titleLine.ReplaceAll(data, []byte(`title: "`+title+`"`))
	from := "refs/heads/main^0"
	if exec.Command("git", "-C", repo, "rev-parse", "-q", "--verify", "refs/heads/"+branch).Run() == nil {
		from = "refs/heads/" + branch + "^0"
	}
	var in bytes.Buffer
	fmt.Fprintf(&in, "commit refs/heads/%s\ncommitter Bench <bench@localhost> %d +0000\ndata %d\n%s\nfrom %s\nM 100644 inline %s\ndata %d\n%s\n",
		branch, time.Now().Unix(), len(title), title, from, path, len(data), data)
	imp := exec.Command("git", "fast-import", "--quiet")
	imp.Dir = repo
	imp.Env = append(os.Environ(), gitEnv...)
	imp.Stdin = &in
	if out, err := imp.CombinedOutput(); err != nil {
		return fmt.Errorf("git fast-import: %v: %s", err, out)
	}
	return nil
}

// scalePush times one-file pushes to the served repository, from the
// start of `git push` to the first GET that shows the change.
func (b *bench) scalePush(s *server, src string, m manifest, label string) error {
	slug := m.Posts[0]
	url := s.base + "/api/v1/content/posts/" + slug
	var toServe, pushOnly, after []float64
	for i := range scalePushes {
		marker := fmt.Sprintf("Scale edit %d %d", i, time.Now().UnixNano())
		if err := commitOne(src, "main", slug, marker); err != nil {
			return err
		}
		t0 := time.Now()
		if err := git(src, "push", "-q", "origin", "main"); err != nil {
			return err
		}
		pushed := time.Since(t0)
		seen, err := b.pollFor(url, marker, t0, 2*time.Minute)
		if err != nil {
			return fmt.Errorf("push %d: %w", i, err)
		}
		toServe, pushOnly, after = append(toServe, ms(seen)), append(pushOnly, ms(pushed)), append(after, ms(seen-pushed))
	}
	p50 := row{Figure: "scale: push to serve, " + label + ", p50", Sum: summarize(toServe), Unit: unitMS,
		Note: fmt.Sprintf("start of `git push` of a one-file commit (made with git fast-import in another bare clone) to the first GET /api/v1/content/posts/{slug} showing it, %d pushes", scalePushes)}
	b.add(p50.check("≤ 500 ms", p50.Sum.Median <= 500))
	b.add(row{Figure: "… of which `git push` itself", Sum: summarize(pushOnly), Unit: unitMS})
	part := row{Figure: "… of which folio's (after `git push` returned: watch, load, swap)", Sum: summarize(after), Unit: unitMS}
	b.add(part.check("≤ 50 ms", part.Sum.Median <= 50))
	return nil
}

// scaleBranch pushes branches each one file ahead of main and times the
// first request on each.
func (b *bench) scaleBranch(s *server, src string, m manifest, label string) error {
	var first []float64
	for i := range scaleBranches {
		br := fmt.Sprintf("scale-ahead-%d-%d", i, time.Now().UnixNano())
		slug := m.Posts[1+i]
		title := "On " + br
		if err := commitOne(src, br, slug, title); err != nil {
			return err
		}
		if err := git(src, "push", "-q", "origin", br); err != nil {
			return err
		}
		t0 := time.Now()
		body, status, err := b.getKeyedWith(b.slowClient(), fmt.Sprintf("%s/api/v1/content/posts/%s?ref=%s", s.base, slug, br))
		if err != nil {
			return err
		}
		if status != http.StatusOK || !strings.Contains(body, title) {
			return fmt.Errorf("?ref=%s: %d %.200s", br, status, body)
		}
		first = append(first, ms(time.Since(t0)))
	}
	r := row{Figure: "scale: first request on a branch one file ahead, " + label, Sum: summarize(first), Unit: unitMS,
		Note: fmt.Sprintf("GET /api/v1/content/posts/{slug}?ref=<branch> right after pushing the branch, %d branches in turn", scaleBranches)}
	b.add(r.check("≤ 1000 ms", r.Sum.Median <= 1000))
	return nil
}

// scaleEndpoints are the loads compared between the sizes; slug is the
// item loaded (scaleItem).
func scaleEndpoints(base, slug string) []endpoint {
	return []endpoint{
		{name: "GET /content/posts/{slug}", urls: []string{base + "/api/v1/content/posts/" + slug}},
		{name: "GET /content/posts?filter…&limit=20", urls: []string{base + scaleFilter}},
		{name: "GET /content/posts?filter…&limit=20 gzip", urls: []string{base + scaleFilter}, enc: "gzip"},
	}
}

// scaleLoad loads each endpoint on s and returns the median throughput
// of each.
func (b *bench) scaleLoad(s *server, m manifest) ([]float64, error) {
	gen := &loadGen{wrk: b.wrk, conns: b.conns, threads: 2, tmp: b.tmp, client: newClient(b.conns)}
	defer gen.client.CloseIdleConnections()
	var out []float64
	slug, err := b.scaleItem(s.base, m)
	if err != nil {
		return nil, err
	}
	for _, ep := range scaleEndpoints(s.base, slug) {
		// The first request builds what the endpoint needs (a filtered
		// list's index and sort): let it finish before the load, or the
		// load measures the build (at 1M the warm-up was over before it).
		t0 := time.Now()
		if _, status, err := b.getKeyedWith(b.slowClient(), ep.urls[0]); err != nil || status != http.StatusOK {
			return nil, fmt.Errorf("%s: first request: %d %v", ep.name, status, err)
		}
		b.logf("  %s: first request %.0f ms", ep.name, ms(time.Since(t0)))
		if _, err := gen.run(ep.urls, b.key, ep.enc, max(time.Second, b.dur/4)); err != nil {
			return nil, err
		}
		var rps []float64
		for range b.runs {
			r, err := gen.run(ep.urls, b.key, ep.enc, b.dur)
			if err != nil {
				return nil, err
			}
			if r.Errors > 0 {
				return nil, fmt.Errorf("%s: %d failed requests", ep.name, r.Errors)
			}
			rps = append(rps, r.RPS)
		}
		out = append(out, summarize(rps).Median)
	}
	return out, nil
}

// scaleCompare serves the -scale-base site the same way and loads the
// same endpoints, and adds the rows of both sizes and their ratio.
func (b *bench) scaleCompare(big []float64, label string) error {
	dir, m, err := b.dataset(b.scaleBase, 0)
	if err != nil {
		return err
	}
	tmp, served, _, err := b.scratchClone(dir, "scale-base", false)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	media, err := b.scratch("scale-base-media")
	if err != nil {
		return err
	}
	st, err := b.scaleStart(served, media, filepath.Join(tmp, "cache"), filepath.Join(tmp, "heap.pb.gz"))
	if err != nil {
		return err
	}
	defer st.s.stop()
	small, err := b.scaleLoad(st.s, m)
	if err != nil {
		return err
	}
	baseLabel := sizeLabel(b.scaleBase) + " files"
	for i, ep := range scaleEndpoints("", "") {
		b.add(row{Figure: "scale: " + ep.name + " throughput, " + label, Sum: one(big[i]), Unit: unitRPS,
			Note: fmt.Sprintf("%d connections over loopback, %s per run, median of %d runs", b.conns, b.dur, b.runs)})
		b.add(row{Figure: "scale: " + ep.name + " throughput, " + baseLabel, Sum: one(small[i]), Unit: unitRPS})
		q := big[i] / small[i]
		b.add(row{Figure: "scale: " + ep.name + ", " + label + " / " + baseLabel, Sum: one(q), Unit: unitX}.check("≥ 0.90×", q >= 0.9))
	}
	return nil
}

// scaleItem is the post of the manifest's sample whose JSON is of the
// median size: the sites' items differ in length (the last sampled post
// was 13.1 KB at 1M files, 6.9 KB at 10k), and the one-item load
// compares sizes of site, not of item.
func (b *bench) scaleItem(base string, m manifest) (string, error) {
	type sized struct {
		slug string
		n    int
	}
	var all []sized
	for _, slug := range m.Posts {
		body, status, err := b.getKeyed(base + "/api/v1/content/posts/" + slug)
		if err != nil {
			return "", err
		}
		if status == http.StatusOK {
			all = append(all, sized{slug, len(body)})
		}
	}
	if len(all) == 0 {
		return "", fmt.Errorf("none of the %d sampled posts is served", len(m.Posts))
	}
	slices.SortFunc(all, func(a, b sized) int { return a.n - b.n })
	mid := all[len(all)/2]
	b.logf("  item loaded: %s (%d bytes, the median of %d sampled posts)", mid.slug, mid.n, len(all))
	return mid.slug, nil
}

func one(v float64) summary { return summary{Median: v, Min: v, Max: v, N: 1} }
