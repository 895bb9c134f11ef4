//go:build soak

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/fixtures/testkit"
)

// TestSoak (make soak; not in CI) runs one writer and two read-only boxes
// on versitygw for FOLIO_SOAK_DURATION (default 30m) of mixed load: reads
// at a fixed rate on every box, an upload every few seconds, PATCHes,
// pushes, image variant requests. Every 10 s it samples each box's RSS
// (from /proc) and goroutines (from its metrics). At the end: no 5xx, no
// failed read, RSS and goroutines of the last two-thirds not growing
// beyond noise, every box's lists byte-identical, every acknowledged
// write present. The figures go to the test log (docs/soak.md).
// soakPosts is how many posts the soak's pushes edit in turn.
const soakPosts = 20

func TestSoak(t *testing.T) {
	dur := 30 * time.Minute
	if v := os.Getenv("FOLIO_SOAK_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("FOLIO_SOAK_DURATION: %v", err)
		}
		dur = d
	}
	readRate := 150.0 // requests a second, over all boxes
	if v := os.Getenv("FOLIO_SOAK_READ_RATE"); v != "" {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("FOLIO_SOAK_READ_RATE: %v", err)
		}
		readRate = r
	}
	c := newCluster(t)
	writer := c.start("writer", "--metrics-addr", "127.0.0.1:0")
	replica1 := c.start("replica1", "--read-only", "--metrics-addr", "127.0.0.1:0")
	replica2 := c.start("replica2", "--read-only", "--metrics-addr", "127.0.0.1:0")
	boxes := []*clusterBox{writer, replica1, replica2}

	l := &ledger{acked: map[string]bool{}}
	first := upload(t, writer, c.key, chaosJPEG(t, 0), "image/jpeg", "")
	l.acked[first.ID], l.altID = true, first.ID
	l.converge(t, boxes, c.key)

	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	reads, writes := newTally(), newTally()
	var mu sync.Mutex // guards the ledger and items
	// What the reads pick from: items and variant URLs, each with when it
	// was acknowledged, so that a replica is asked for it only once the
	// 2 s the cluster has to propagate a write have passed.
	type known struct {
		path string
		at   time.Time
	}
	items := []known{{"/api/v1/media/" + first.ID, time.Now()}}
	var variants []known
	pick := func(ks []known, fallback string) string {
		ready := 0
		for ready < len(ks) && time.Since(ks[ready].at) > clusterPropagation {
			ready++
		}
		if ready == 0 {
			return fallback
		}
		return ks[rand.IntN(ready)].path
	}
	var wg sync.WaitGroup

	// Reads at a fixed rate, spread over the boxes.
	paths := []string{"/api/v1/pages", "/api/v1/pages/about", "/api/v1/globals", "/api/v1/media", "/api/v1/media/folders",
		"/api/v1/public/media", "/api/v1/search?q=trail"}
	for _, typ := range c.types {
		paths = append(paths, "/api/v1/content/"+typ)
	}
	wg.Go(func() {
		tick := time.NewTicker(time.Duration(float64(time.Second) / readRate))
		defer tick.Stop()
		sem := make(chan struct{}, 32)
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				for range cap(sem) {
					sem <- struct{}{}
				}
				return
			case <-tick.C:
			}
			b := boxes[i%len(boxes)]
			mu.Lock()
			p := paths[i%len(paths)]
			switch i % 10 {
			case 7:
				p = pick(items, p)
			case 8:
				p = pick(variants, p)
			}
			mu.Unlock()
			select {
			case sem <- struct{}{}:
			default:
				reads.add(httpResult{}, fmt.Errorf("%s: more than %d reads outstanding", b.name, cap(sem)))
				continue
			}
			go func() {
				defer func() { <-sem }()
				reads.add(b.call("GET", p, c.key, nil))
			}()
		}
	})
	// An upload every 5 s, a PATCH every 2 s, on the writer.
	wg.Go(func() {
		for n := 1; ctx.Err() == nil; n++ {
			file := chaosJPEG(t, n)
			mu.Lock()
			before := len(l.acked)
			l.write(t, writer, c.key, file, n, writes)
			if len(l.acked) > before {
				var list struct {
					Data []struct {
						ID      string
						Presets map[string]string
					}
				}
				if r, err := writer.call("GET", "/api/v1/media?limit=1&sort=createdAt&order=desc", c.key, nil); err == nil && r.status == http.StatusOK {
					r.decode(t, &list)
					for _, it := range list.Data {
						items = append(items, known{"/api/v1/media/" + it.ID, time.Now()})
						for _, u := range it.Presets {
							variants = append(variants, known{u, time.Now()})
						}
					}
				}
			}
			mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Second):
			}
		}
	})
	// A push every 5 s, editing one of soakPosts posts in turn: the content
	// keeps its size, so that growth over the run is a leak, not more
	// documents (the media library does grow, by an upload every 5 s).
	pushes := 0
	wg.Go(func() {
		for n := 1; ctx.Err() == nil; n++ {
			if err := os.WriteFile(filepath.Join(c.work, "content", c.types[0], fmt.Sprintf("soak-%d.md", n%soakPosts)),
				[]byte(fmt.Sprintf("---\ntitle: Soak %d\npublishedAt: 2026-01-01\n---\nPushed by the soak.\n", n)), 0o644); err != nil {
				t.Error(err)
				return
			}
			testkit.Git(t, c.work, "add", "-A")
			testkit.Git(t, c.work, "commit", "-qm", fmt.Sprintf("soak %d", n))
			testkit.Git(t, c.work, "push", "-q", "origin", "HEAD:main")
			pushes++
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Second):
			}
		}
	})
	// Samples of RSS and goroutines every 10 s.
	type sample struct {
		at         time.Duration
		rss        map[string]int64 // KB
		heap       map[string]int64 // KB of Go heap in use
		goroutines map[string]int
	}
	var samples []sample
	start := time.Now()
	wg.Go(func() {
		tick := time.NewTicker(10 * time.Second)
		defer tick.Stop()
		for {
			s := sample{at: time.Since(start), rss: map[string]int64{}, heap: map[string]int64{}, goroutines: map[string]int{}}
			for _, b := range boxes {
				s.rss[b.name] = rssKB(b.cmd.Process.Pid)
				m := metricsOf(b)
				s.heap[b.name] = int64(m["go_memstats_heap_inuse_bytes"] / 1024)
				s.goroutines[b.name] = int(m["go_goroutines"])
			}
			samples = append(samples, s)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
	wg.Wait()
	took := time.Since(start)

	for s := range 600 {
		if reads.count(s) > 0 && (s >= 500 || s == 0) {
			t.Errorf("%d reads answered %d: %s", reads.count(s), s, reads.last[s])
		}
	}
	if f := reads.failed(); f > 0 {
		t.Errorf("%d reads failed: %s", f, reads)
	}
	for s := 500; s < 600; s++ {
		if writes.count(s) > 0 {
			t.Errorf("%d writes answered %d: %s", writes.count(s), s, writes.last[s])
		}
	}
	lost := l.converge(t, boxes, c.key)
	// Content too: every box serves the last push (asked by its slug: a
	// long soak pushes more posts than one page of the list holds).
	waitAll(t, "the last push on every box", time.Now(), clusterSettle, boxes, func(b *clusterBox) error {
		r, err := b.call("GET", fmt.Sprintf("/api/v1/content/%s/soak-%d", c.types[0], pushes%soakPosts), c.key, nil)
		if err != nil {
			return err
		}
		if !strings.Contains(string(r.body), fmt.Sprintf("Soak %d\"", pushes)) {
			return fmt.Errorf("no Soak %d in %.200s", pushes, r.body)
		}
		return nil
	})
	for _, p := range append(paths[:6], "/api/v1/content/"+c.types[0]+"?limit=100") {
		var first []byte
		for i, b := range boxes {
			r := b.must(t, "GET", p, c.key, nil)
			if i == 0 {
				first = r.body
			} else if string(r.body) != string(first) {
				t.Errorf("%s: %s differs from %s", p, b.name, boxes[0].name)
			}
		}
	}

	// Growth over the last two-thirds: the median of the last sixth of
	// the run against that of the sixth after warm-up.
	n := len(samples)
	if n < 12 {
		t.Logf("only %d samples: too short a run to judge growth", n)
	}
	window := func(from, to int) []sample {
		from = min(from, n-1)
		return samples[from:min(n, max(from+1, to))]
	}
	early, late := window(n/3, n/2), window(n-n/6, n)
	for _, b := range boxes {
		med := func(ss []sample, f func(sample) float64) float64 {
			v := make([]float64, len(ss))
			for i, s := range ss {
				v[i] = f(s)
			}
			slices.Sort(v)
			return v[len(v)/2]
		}
		rss := func(s sample) float64 { return float64(s.rss[b.name]) }
		gor := func(s sample) float64 { return float64(s.goroutines[b.name]) }
		heap := func(s sample) float64 { return float64(s.heap[b.name]) }
		r0, r1 := med(early, rss), med(late, rss)
		h0, h1 := med(early, heap), med(late, heap)
		g0, g1 := med(early, gor), med(late, gor)
		maxRSS := 0.0
		for _, s := range samples {
			maxRSS = max(maxRSS, rss(s))
		}
		t.Logf("figures | soak %s | RSS %0.f MB after warm-up, %0.f MB at the end (max %0.f MB) | Go heap in use %.0f → %.0f MB | goroutines %0.f → %0.f",
			b.name, r0/1024, r1/1024, maxRSS/1024, h0/1024, h1/1024, g0, g1)
		if n >= 12 && r1 > r0*1.25+20*1024 {
			t.Errorf("%s: RSS grows from %.0f MB to %.0f MB over the last two-thirds", b.name, r0/1024, r1/1024)
		}
		if n >= 12 && g1 > g0*1.2+20 {
			t.Errorf("%s: goroutines grow from %.0f to %.0f over the last two-thirds", b.name, g0, g1)
		}
	}
	var curve []string
	for i, s := range samples {
		if i%max(1, n/12) == 0 || i == n-1 {
			curve = append(curve, fmt.Sprintf("%v: RSS %d/%d/%d MB, heap %d/%d/%d MB, %d/%d/%d goroutines", s.at.Round(time.Second),
				s.rss[writer.name]/1024, s.rss[replica1.name]/1024, s.rss[replica2.name]/1024,
				s.heap[writer.name]/1024, s.heap[replica1.name]/1024, s.heap[replica2.name]/1024,
				s.goroutines[writer.name], s.goroutines[replica1.name], s.goroutines[replica2.name]))
		}
	}
	t.Logf("figures | soak samples (writer/replica1/replica2) | %s", strings.Join(curve, " | "))
	t.Logf("figures | soak %v | reads: %d (%.0f/s), %s | writes: %d, %s | pushes: %d | lost: %d | %d uploads acknowledged",
		took.Round(time.Second), reads.total(), float64(reads.total())/took.Seconds(), reads, writes.total(), writes, pushes, lost, len(l.acked))
}

// rssKB is the resident set of process pid in KB, from /proc.
func rssKB(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// metricsOf reads the box's metrics listener (its address is on its
// stdout): every unlabelled sample by name; empty when it cannot.
func metricsOf(b *clusterBox) map[string]float64 {
	out := map[string]float64{}
	var addr string
	for _, line := range strings.Split(b.log.String(), "\n") {
		if u, ok := strings.CutPrefix(line, "folio metrics "); ok {
			addr = strings.TrimSpace(u)
			break
		}
	}
	if addr == "" {
		return out
	}
	res, err := httpClient.Get(addr)
	if err != nil {
		return out
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(data), "\n") {
		name, v, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
			continue
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			out[name] = f
		}
	}
	return out
}
