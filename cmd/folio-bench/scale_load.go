package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// scaleSite is one site of the throughput-only scale group: its bare
// clone, parse cache and media root (kept under -scale-keep between
// runs when set).
type scaleSite struct {
	n                    int
	label                string
	m                    manifest
	served, cache, media string
}

// scaleLoadOnly (-scale-load-only) measures only the scale group's
// throughput rows, on boxes doing nothing else. Each site is started once
// to write its parse cache (skipped when -scale-keep already holds it);
// then both are restarted and kept serving side by side (the -scale-size
// box first: one large start at a time), and, once both are idle, each
// endpoint is loaded in interleaved rounds: the two boxes in turn, by
// the same client at the same concurrency, the order alternating from one
// round to the next (A B, B A, A B, …) so that a drift of the machine's
// load favours neither. A round's ratio compares two adjacent loads; the
// figures are the medians over -runs rounds and their spread, with
// folio's CPU time per request (utime+stime of its /proc/<pid>/stat over
// the load), which other processes on the machine do not move. Each box
// is collected (forced) before each endpoint's rounds, so that no cycle
// of a 4 GB heap marks during them; the collections' share per request
// is added from those collections' CPU.
// -scale-cpuprofile adds one more load per endpoint and box while
// /debug/pprof/profile records.
func (b *bench) scaleLoadOnly() error {
	var sites []*scaleSite
	root := b.scaleKeep
	if root != "" && b.against != "" && b.cur != nil {
		root = filepath.Join(root, b.cur.name) // each binary's parse caches (-against)
	}
	if root == "" {
		tmp, err := b.scratch("scale-load")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		root = tmp
	}
	profDir := filepath.Join(filepath.Dir(b.outFile), "scale-profiles")
	if err := os.MkdirAll(profDir, 0o755); err != nil {
		return err
	}
	for _, n := range []int{b.scaleSize, b.scaleBase} {
		s, err := b.scaleKeptSite(root, n)
		if err != nil {
			return err
		}
		sites = append(sites, s)
	}
	boxes := make([]scaleStarted, len(sites))
	slugs := make([]string, len(sites))
	for i, s := range sites {
		b.logf("  %s: restart, load average %s", s.label, loadAvg())
		st, err := b.scaleStart(s.served, s.media, s.cache, filepath.Join(profDir, fmt.Sprintf("heap-load-%d.pb.gz", s.n)))
		if err != nil {
			return fmt.Errorf("%s: restart: %w", s.label, err)
		}
		defer st.s.stopWithin(time.Minute)
		// The box's log (with -scale-env GODEBUG=gctrace=1, its
		// collections) is kept beside the profiles.
		defer copyFile(filepath.Join(b.tmp, "folio-scale-"+strings.TrimSuffix(filepath.Base(s.served), ".git")+".log"),
			filepath.Join(profDir, fmt.Sprintf("folio-%d.log", s.n)))
		boxes[i] = st
		if slugs[i], err = b.scaleItem(st.s.base, s.m); err != nil {
			return fmt.Errorf("%s: %w", s.label, err)
		}
	}
	for i, st := range boxes {
		idle, err := waitIdle(st.s.pid(), 2*time.Minute)
		if err != nil {
			return err
		}
		b.logf("  %s: idle, %.1f%% of a core over the last second", sites[i].label, idle*100)
	}
	// One client for every load, with room to keep both boxes'
	// connections open between rounds.
	gen := &loadGen{wrk: b.wrk, conns: b.conns, threads: 2, tmp: b.tmp, client: newClient(2 * b.conns)}
	defer gen.client.CloseIdleConnections()
	eps := make([][]endpoint, len(boxes))
	for i, st := range boxes {
		eps[i] = scaleEndpoints(st.s.base, slugs[i])
	}
	// The forced collections' CPU (ms) and the heap in use after each
	// (MB), per box, before each endpoint's rounds (the one at ready,
	// after a start's own garbage, is reported apart).
	gcCPU, heap := make([][]float64, len(boxes)), make([][]float64, len(boxes))
	// The rows with the collections' share are made once every forced
	// collection is in.
	var shares []func()
	gogc := 100.0
	for _, e := range b.scaleEnv {
		if v, ok := strings.CutPrefix(e, "GOGC="); ok {
			if g, err := strconv.ParseFloat(v, 64); err == nil && g > 0 {
				gogc = g
			}
		}
	}
	var loads []string
	for j := range eps[0] {
		name := eps[0][j].name
		// rps[box][round] and the like.
		rps, cpu, alloc, gcs := make([][]float64, len(boxes)), make([][]float64, len(boxes)), make([][]float64, len(boxes)), make([][]float64, len(boxes))
		sizes := make([]int, len(boxes))
		for i := range boxes {
			ep := eps[i][j]
			t0 := time.Now()
			n, err := b.bodySize(ep.urls[0], ep.enc)
			if err != nil {
				return fmt.Errorf("%s, %s: first request: %w", sites[i].label, name, err)
			}
			sizes[i] = n
			b.logf("  %s, %s: first request %.0f ms, body %d bytes", sites[i].label, name, ms(time.Since(t0)), n)
			if _, err := gen.run(ep.urls, b.key, ep.enc, max(time.Second, b.dur/4)); err != nil {
				return err
			}
		}
		// A collection of each box before the rounds: at 1M files one
		// takes 8–11 s of CPU, and a cycle that the rounds' allocation
		// started would run its marking during some of them (the
		// background workers take idle cores too), which no counter of
		// completed collections shows. The rounds measure the requests;
		// the collections' share is added below from these.
		for i, st := range boxes {
			c0, err := cpuTime(st.s.pid())
			if err != nil {
				return err
			}
			h, err := b.heapInUse(st.metrics)
			if err != nil {
				return err
			}
			c1, err := cpuTime(st.s.pid())
			if err != nil {
				return err
			}
			gcCPU[i], heap[i] = append(gcCPU[i], ms(c1-c0)), append(heap[i], h/(1<<20))
			b.logf("  %s: a forced collection, %.0f ms of CPU, %.0f MB in use", sites[i].label, ms(c1-c0), h/(1<<20))
		}
		for r := range b.runs {
			order := []int{0, 1}
			if r%2 == 1 {
				order = []int{1, 0}
			}
			loads = append(loads, loadAvg())
			for _, i := range order {
				x, err := b.scaleLoadOne(gen, boxes[i], eps[i][j])
				if err != nil {
					return fmt.Errorf("%s: %w", sites[i].label, err)
				}
				b.logf("  round %d, %s, %s: %.0f req/s, %.1f µs CPU and %.0f bytes allocated per request, %.0f collections", r+1, sites[i].label, name, x.rps, x.cpuUS, x.allocB, x.gcs)
				rps[i], cpu[i] = append(rps[i], x.rps), append(cpu[i], x.cpuUS)
				alloc[i], gcs[i] = append(alloc[i], x.allocB), append(gcs[i], x.gcs)
			}
		}
		note := fmt.Sprintf("both boxes serving, %d connections over loopback for %s per load, the two boxes in turn in %d rounds (order alternating); load averages at each round: %s",
			b.conns, b.dur, b.runs, strings.Join(loads[len(loads)-b.runs:], ", "))
		for i, s := range sites {
			b.add(row{Figure: "scale: " + name + " throughput, " + s.label, Sum: summarize(rps[i]), Unit: unitRPS, Note: note})
			// Each figure names its endpoint: -against merges rows by name.
			b.add(row{Figure: "… folio CPU per request, " + name + ", " + s.label, Sum: summarize(cpu[i]), Unit: unitUS})
			b.add(row{Figure: "… bytes allocated per request, " + name + ", " + s.label, Sum: summarize(alloc[i]), Unit: unitN})
			b.add(row{Figure: "… collections during one load, " + name + ", " + s.label, Sum: summarize(gcs[i]), Unit: unitN})
			b.add(row{Figure: "… response body, " + name + ", " + s.label, Sum: one(float64(sizes[i])), Unit: unitN,
				Note: "bytes of the body as sent (the gzip form for a gzip load)"})
		}
		ratios, cpuRatios := make([]float64, b.runs), make([]float64, b.runs)
		for r := range b.runs {
			ratios[r] = rps[0][r] / rps[1][r]
			cpuRatios[r] = cpu[1][r] / cpu[0][r]
		}
		q := summarize(ratios)
		b.add(row{Figure: "scale: " + name + ", " + sites[0].label + " / " + sites[1].label, Sum: q, Unit: unitX,
			Note: "ratio of each round's two adjacent loads' throughputs"}.check("≥ 0.90×", q.Median >= 0.9))
		b.add(row{Figure: "scale: " + name + ", requests per CPU-second, " + sites[0].label + " / " + sites[1].label, Sum: summarize(cpuRatios), Unit: unitX,
			Note: "each round's CPU per request at the base size over that at the large one: the throughput ratio of a CPU-bound box"}.check("≥ 0.90×", summarize(cpuRatios).Median >= 0.9))
		shares = append(shares, func() {
			b.scaleShareRows(sites, name, gcCPU, heap, gogc, rps, cpu, alloc, gcs)
		})
	}
	for _, f := range shares {
		f()
	}
	for i, s := range sites {
		b.add(row{Figure: "scale: CPU of a full collection at ready, " + s.label, Sum: one(boxes[i].gcCPU), Unit: unitMS,
			Note: fmt.Sprintf("after the start; the heap in use after it: %.0f MB", boxes[i].heap)})
		b.add(row{Figure: "scale: CPU of a full collection, " + s.label, Sum: summarize(gcCPU[i]), Unit: unitMS,
			Note: "folio's CPU time over GET /debug/pprof/heap?gc=1 before each endpoint's rounds; the heap in use after it: " + fmt.Sprintf("%.0f MB", summarize(heap[i]).Median)})
	}
	if b.scaleCPU {
		for i, st := range boxes {
			for j, ep := range eps[i] {
				file := filepath.Join(profDir, fmt.Sprintf("cpu-%d-%d.pb.gz", sites[i].n, j))
				c0, err := cpuTime(st.s.pid())
				if err != nil {
					return err
				}
				var r loadResult
				if err := b.cpuProfileDuring(st.metrics, file, func() error {
					var err error
					r, err = gen.run(ep.urls, b.key, ep.enc, b.dur)
					return err
				}); err != nil {
					return err
				}
				c1, err := cpuTime(st.s.pid())
				if err != nil {
					return err
				}
				b.logf("  %s, %s, profiled: %d requests, %.0f req/s, %.1f µs CPU per request: %s", sites[i].label, ep.name, r.Requests, r.RPS, float64((c1-c0).Microseconds())/float64(max(1, r.Requests)), file)
			}
		}
	}
	return nil
}

// waitIdle waits until the process pid uses less than 2% of a core over
// one second (a start's work in the background done), up to limit, and
// returns the share of the last second.
func waitIdle(pid int, limit time.Duration) (float64, error) {
	deadline := time.Now().Add(limit)
	for {
		c0, err := cpuTime(pid)
		if err != nil {
			return 0, err
		}
		time.Sleep(time.Second)
		c1, err := cpuTime(pid)
		if err != nil {
			return 0, err
		}
		share := (c1 - c0).Seconds()
		if share < 0.02 || time.Now().After(deadline) {
			return share, nil
		}
	}
}

// bodySize GETs url with the bench key (and Accept-Encoding enc when
// set) and returns the bytes of the body as sent.
func (b *bench) bodySize(url, enc string) (int, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+b.key)
	if enc != "" {
		req.Header.Set("Accept-Encoding", enc) // set here, the transport leaves the body coded
	}
	resp, err := b.slowClient().Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("status %d", resp.StatusCode)
	}
	if err == nil && enc != "" && resp.Header.Get("Content-Encoding") != enc {
		err = fmt.Errorf("Content-Encoding %q, want %q", resp.Header.Get("Content-Encoding"), enc)
	}
	return int(n), err
}

// scaleKeptSite returns the n-file site's bare clone, cache and media
// root under root, making the clone and writing the parse cache (a first
// start, stopped with the time it needs to write it) when absent.
func (b *bench) scaleKeptSite(root string, n int) (*scaleSite, error) {
	dir, m, err := b.dataset(n, 0)
	if err != nil {
		return nil, err
	}
	s := &scaleSite{n: n, label: sizeLabel(n) + " files", m: m,
		served: filepath.Join(root, fmt.Sprintf("site-n%d.git", n)),
		cache:  filepath.Join(root, fmt.Sprintf("cache-n%d", n)),
		media:  filepath.Join(root, fmt.Sprintf("media-n%d", n))}
	if len(m.Posts) == 0 {
		return nil, fmt.Errorf("the %s site has no posts", s.label)
	}
	if _, err := os.Stat(s.served); err != nil {
		if err := git("", "clone", "-q", "--bare", filepath.Join(dir, "site.git"), s.served); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(s.media, 0o755); err != nil {
		return nil, err
	}
	if ents, err := os.ReadDir(s.cache); err == nil && len(ents) > 0 {
		return s, nil
	}
	b.logf("  %s: first start, to write the parse cache", s.label)
	st, err := b.scaleStart(s.served, s.media, s.cache, filepath.Join(root, fmt.Sprintf("heap-first-%d.pb.gz", n)))
	if err != nil {
		return nil, fmt.Errorf("%s: first start: %w", s.label, err)
	}
	st.s.stopWithin(scaleReadyLimit)
	return s, nil
}

// scaleLoaded is one endpoint's load on one box: throughput, folio's
// CPU time and bytes allocated per request, and the collections that
// ran during the load.
type scaleLoaded struct {
	rps, cpuUS, allocB, gcs float64
}

// goMetrics reads Go runtime counters from the metrics listener.
func (b *bench) goMetrics(addr string, names ...string) ([]float64, error) {
	resp, err := b.client.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := make([]float64, len(names))
	found := 0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		for i, n := range names {
			if v, ok := strings.CutPrefix(sc.Text(), n+" "); ok {
				if out[i], err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
					return nil, err
				}
				found++
			}
		}
	}
	if found < len(names) {
		return nil, fmt.Errorf("the metrics lack one of %s", strings.Join(names, ", "))
	}
	return out, nil
}

var scaleGoMetrics = []string{"go_memstats_alloc_bytes_total", "go_gc_duration_seconds_count"}

// scaleLoadOne loads one endpoint of st by gen once for -duration and returns
// the throughput, folio's CPU time and bytes allocated per request and
// the collections that ran.
func (b *bench) scaleLoadOne(gen *loadGen, st scaleStarted, ep endpoint) (scaleLoaded, error) {
	c0, err := cpuTime(st.s.pid())
	if err != nil {
		return scaleLoaded{}, err
	}
	g0, err := b.goMetrics(st.metrics, scaleGoMetrics...)
	if err != nil {
		return scaleLoaded{}, err
	}
	r, err := gen.run(ep.urls, b.key, ep.enc, b.dur)
	if err != nil {
		return scaleLoaded{}, err
	}
	c1, err := cpuTime(st.s.pid())
	if err != nil {
		return scaleLoaded{}, err
	}
	g1, err := b.goMetrics(st.metrics, scaleGoMetrics...)
	if err != nil {
		return scaleLoaded{}, err
	}
	if r.Errors > 0 || r.Requests == 0 {
		return scaleLoaded{}, fmt.Errorf("%s: %d failed requests of %d", ep.name, r.Errors, r.Requests)
	}
	return scaleLoaded{rps: r.RPS, cpuUS: float64((c1 - c0).Microseconds()) / float64(r.Requests),
		allocB: (g1[0] - g0[0]) / float64(r.Requests), gcs: g1[1] - g0[1]}, nil
}

// cpuProfileDuring takes a CPU profile from the metrics listener while
// load runs, and writes it to file.
func (b *bench) cpuProfileDuring(metrics, file string, load func() error) error {
	secs := max(1, int(b.dur/time.Second))
	done := make(chan error, 1)
	go func() {
		done <- b.saveProfile(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", metrics, secs), file)
	}()
	time.Sleep(100 * time.Millisecond)
	lerr := load()
	if err := <-done; err != nil {
		return err
	}
	return lerr
}

// scaleEnvList splits -scale-env.
func scaleEnvList(s string) []string {
	return slices.DeleteFunc(strings.Fields(s), func(x string) bool { return !strings.Contains(x, "=") })
}

// copyFile copies src to dst, best effort (a log kept for reading).
func copyFile(src, dst string) {
	if data, err := os.ReadFile(src); err == nil {
		os.WriteFile(dst, data, 0o644)
	}
}

// scaleShareRows adds, for one endpoint, each box's CPU per request with
// its share of collections and their ratio, from the forced collections'
// CPU and heap (gcCPU, heap: per box) and the rounds' figures (per box,
// per round).
func (b *bench) scaleShareRows(sites []*scaleSite, name string, gcCPU, heap [][]float64, gogc float64, rps, cpu, alloc, gcs [][]float64) {
	withGC := make([]float64, len(sites))
	for i, s := range sites {
		// A load of a few seconds may see no collection at 1M files
		// (the next one is GOGC% of a 4 GB heap away): its share per
		// request is the collection's CPU over the requests that
		// allocate the headroom. The collections a load did see (at
		// 10k files, several) are in its CPU already: they are taken
		// out, and the share put in their place, at both sizes alike.
		full := summarize(gcCPU[i]).Median * 1000 // µs
		gc := full * summarize(alloc[i]).Median / (summarize(heap[i]).Median * (1 << 20) * gogc / 100)
		seen := make([]float64, len(gcs[i]))
		for r := range seen {
			seen[r] = gcs[i][r] * full / (rps[i][r] * b.dur.Seconds())
		}
		withGC[i] = summarize(cpu[i]).Median - summarize(seen).Median + gc
		b.add(row{Figure: "scale: " + name + " CPU per request with its share of collections, " + s.label, Sum: one(withGC[i]), Unit: unitUS,
			Note: fmt.Sprintf("median CPU per request under load, less the %.1f µs of the collections the load saw, plus %.1f µs: a full collection's CPU × bytes allocated per request ÷ (heap in use × GOGC %.0f%%)", summarize(seen).Median, gc, gogc)})
	}
	q := withGC[1] / withGC[0]
	b.add(row{Figure: "scale: " + name + ", requests per CPU-second with collections, " + sites[0].label + " / " + sites[1].label, Sum: one(q), Unit: unitX,
		Note: "the throughput ratio of a CPU-bound box in steady state"}.check("≥ 0.90×", q >= 0.9))
}
