package main

import (
	"bufio"
	"fmt"
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
// throughput rows, on boxes doing nothing else: each site is started once
// to write its parse cache (skipped when -scale-keep already holds it),
// then in each of -runs rounds the -scale-size and -scale-base sites are
// restarted in turn (the order alternating), each warmed by its
// endpoints' first requests and a short load, then loaded once per
// endpoint, with folio's CPU time per request. No push, branch or
// background save runs before a load. -scale-cpuprofile adds one more
// load per endpoint while /debug/pprof/profile records.
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
	eps := scaleEndpoints("", "")
	// rps[site][endpoint], cpu[site][endpoint]: one value per round.
	rps := make([][][]float64, len(sites))
	cpu := make([][][]float64, len(sites))
	alloc := make([][][]float64, len(sites))
	gcs := make([][][]float64, len(sites))
	for i := range sites {
		rps[i], cpu[i], alloc[i], gcs[i] = make([][]float64, len(eps)), make([][]float64, len(eps)), make([][]float64, len(eps)), make([][]float64, len(eps))
	}
	gcCPU := make([][]float64, len(sites)) // ms, per round
	heap := make([][]float64, len(sites))  // MB in use after the forced collection
	var loads []string
	for r := range b.runs {
		order := []int{0, 1}
		if r%2 == 1 {
			order = []int{1, 0}
		}
		for _, i := range order {
			s := sites[i]
			loads = append(loads, loadAvg())
			b.logf("  round %d, %s: load average %s", r+1, s.label, loads[len(loads)-1])
			st, err := b.scaleStart(s.served, s.media, s.cache, filepath.Join(profDir, fmt.Sprintf("heap-load-%d-%d.pb.gz", s.n, r)))
			if err != nil {
				return fmt.Errorf("%s: restart: %w", s.label, err)
			}
			gcCPU[i], heap[i] = append(gcCPU[i], st.gcCPU), append(heap[i], st.heap)
			prof := ""
			if b.scaleCPU && r == b.runs-1 {
				prof = filepath.Join(profDir, fmt.Sprintf("cpu-%d", s.n))
			}
			res, err := b.scaleLoadOnce(st, s.m, prof)
			st.s.stopWithin(time.Minute)
			if err != nil {
				return fmt.Errorf("%s: %w", s.label, err)
			}
			for j, x := range res {
				rps[i][j] = append(rps[i][j], x.rps)
				cpu[i][j] = append(cpu[i][j], x.cpuUS)
				alloc[i][j] = append(alloc[i][j], x.allocB)
				gcs[i][j] = append(gcs[i][j], x.gcs)
			}
		}
	}
	note := fmt.Sprintf("restart, warm, then %d connections over loopback for %s, one site at a time, %d rounds (sizes alternating first); load averages at each start: %s",
		b.conns, b.dur, b.runs, strings.Join(loads, ", "))
	gogc := 100.0
	for _, e := range b.scaleEnv {
		if v, ok := strings.CutPrefix(e, "GOGC="); ok {
			if g, err := strconv.ParseFloat(v, 64); err == nil && g > 0 {
				gogc = g
			}
		}
	}
	for i, s := range sites {
		b.add(row{Figure: "scale: CPU of a full collection at ready, " + s.label, Sum: summarize(gcCPU[i]), Unit: unitMS,
			Note: "folio's CPU time over GET /debug/pprof/heap?gc=1 right after ready; the heap in use after it: " + fmt.Sprintf("%.0f MB", summarize(heap[i]).Median)})
	}
	for j, ep := range eps {
		withGC := make([]float64, len(sites))
		for i, s := range sites {
			// A load of a few seconds may see no collection at 1M files
			// (the next one is GOGC% of a 4 GB heap away): its share per
			// request is the collection's CPU over the requests that
			// allocate the headroom.
			// The collections a load did see (at 10k files, several) are
			// in its CPU already: they are taken out, and the share put
			// in their place, at both sizes alike.
			full := summarize(gcCPU[i]).Median * 1000 // µs
			gc := full * summarize(alloc[i][j]).Median / (summarize(heap[i]).Median * (1 << 20) * gogc / 100)
			seen := make([]float64, len(gcs[i][j]))
			for r := range seen {
				seen[r] = gcs[i][j][r] * full / (rps[i][j][r] * b.dur.Seconds())
			}
			withGC[i] = summarize(cpu[i][j]).Median - summarize(seen).Median + gc
			b.add(row{Figure: "scale: " + ep.name + " CPU per request with its share of collections, " + s.label, Sum: one(withGC[i]), Unit: unitUS,
				Note: fmt.Sprintf("median CPU per request under load, less the %.1f µs of the collections the load saw, plus %.1f µs: a full collection's CPU × bytes allocated per request ÷ (heap in use × GOGC %.0f%%)", summarize(seen).Median, gc, gogc)})
		}
		q := withGC[1] / withGC[0]
		b.add(row{Figure: "scale: " + ep.name + ", requests per CPU-second with collections, " + sites[0].label + " / " + sites[1].label, Sum: one(q), Unit: unitX,
			Note: "the throughput ratio of a CPU-bound box in steady state"}.check("≥ 0.90×", q >= 0.9))
	}
	for j, ep := range eps {
		for i, s := range sites {
			b.add(row{Figure: "scale: " + ep.name + " throughput, " + s.label, Sum: summarize(rps[i][j]), Unit: unitRPS, Note: note})
			// Each figure names its endpoint: -against merges rows by name.
			b.add(row{Figure: "… folio CPU per request, " + ep.name + ", " + s.label, Sum: summarize(cpu[i][j]), Unit: unitUS})
			b.add(row{Figure: "… bytes allocated per request, " + ep.name + ", " + s.label, Sum: summarize(alloc[i][j]), Unit: unitN})
			b.add(row{Figure: "… collections during one load, " + ep.name + ", " + s.label, Sum: summarize(gcs[i][j]), Unit: unitN})
		}
		ratios := make([]float64, b.runs)
		for r := range b.runs {
			ratios[r] = rps[0][j][r] / rps[1][j][r]
		}
		q := summarize(ratios)
		b.add(row{Figure: "scale: " + ep.name + ", " + sites[0].label + " / " + sites[1].label, Sum: q, Unit: unitX,
			Note: "ratio of each round's throughputs"}.check("≥ 0.90×", q.Median >= 0.9))
	}
	return nil
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

// scaleLoadOnce warms each scale endpoint on st (its first request, then
// a short load), loads it once for -duration and returns the throughput
// and folio's CPU time per request. With prof set, one more load runs
// while a CPU profile is taken, written to prof-<endpoint>.pb.gz.
func (b *bench) scaleLoadOnce(st scaleStarted, m manifest, prof string) ([]scaleLoaded, error) {
	gen := &loadGen{wrk: b.wrk, conns: b.conns, threads: 2, tmp: b.tmp, client: newClient(b.conns)}
	defer gen.client.CloseIdleConnections()
	slug, err := b.scaleItem(st.s.base, m)
	if err != nil {
		return nil, err
	}
	var out []scaleLoaded
	for k, ep := range scaleEndpoints(st.s.base, slug) {
		t0 := time.Now()
		if _, status, err := b.getKeyedWith(b.slowClient(), ep.urls[0]); err != nil || status != 200 {
			return nil, fmt.Errorf("%s: first request: %d %v", ep.name, status, err)
		}
		b.logf("  %s: first request %.0f ms", ep.name, ms(time.Since(t0)))
		if _, err := gen.run(ep.urls, b.key, ep.enc, max(time.Second, b.dur/4)); err != nil {
			return nil, err
		}
		c0, err := cpuTime(st.s.pid())
		if err != nil {
			return nil, err
		}
		g0, err := b.goMetrics(st.metrics, scaleGoMetrics...)
		if err != nil {
			return nil, err
		}
		r, err := gen.run(ep.urls, b.key, ep.enc, b.dur)
		if err != nil {
			return nil, err
		}
		c1, err := cpuTime(st.s.pid())
		if err != nil {
			return nil, err
		}
		g1, err := b.goMetrics(st.metrics, scaleGoMetrics...)
		if err != nil {
			return nil, err
		}
		if r.Errors > 0 || r.Requests == 0 {
			return nil, fmt.Errorf("%s: %d failed requests of %d", ep.name, r.Errors, r.Requests)
		}
		x := scaleLoaded{rps: r.RPS, cpuUS: float64((c1 - c0).Microseconds()) / float64(r.Requests),
			allocB: (g1[0] - g0[0]) / float64(r.Requests), gcs: g1[1] - g0[1]}
		b.logf("  %s: %.0f req/s, %.1f µs CPU and %.0f bytes allocated per request, %.0f collections", ep.name, x.rps, x.cpuUS, x.allocB, x.gcs)
		out = append(out, x)
		if prof != "" {
			if err := b.cpuProfileDuring(st.metrics, fmt.Sprintf("%s-%d.pb.gz", prof, k), func() error {
				_, err := gen.run(ep.urls, b.key, ep.enc, b.dur)
				return err
			}); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
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
