package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// newClient returns a client for one host at up to conns concurrent
// connections, all kept alive: the load generator must measure the
// server, not TCP handshakes.
func newClient(conns int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil, // loopback only, whatever the environment says
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			MaxConnsPerHost:     conns,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
			ForceAttemptHTTP2:   false,
		},
		Timeout: 30 * time.Second,
	}
}

// loadResult is one fixed-duration run of the load generator.
type loadResult struct {
	Requests, Errors int
	Elapsed          time.Duration
	RPS              float64
	P50, P99         time.Duration
}

// maxPerWorker bounds one run even if the server answers impossibly fast.
const maxPerWorker = 2_000_000

// runLoad sends GET requests to urls (round robin per worker) from conns
// goroutines for dur, and records every latency; sorting all samples
// gives exact percentiles, which is affordable at this scale (a few
// hundred thousand samples per run).
func runLoad(client *http.Client, urls []string, key, enc string, conns int, dur time.Duration) loadResult {
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	samples := make([][]time.Duration, conns)
	errs := make([]int, conns)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range conns {
		wg.Go(func() {
			lat := make([]time.Duration, 0, 1<<14)
			reqs := make([]*http.Request, len(urls))
			for i, u := range urls {
				// Requests are built once: they carry no body, and the
				// Transport does not modify them.
				reqs[i], _ = http.NewRequest("GET", u, nil)
				if key != "" {
					reqs[i].Header.Set("Authorization", "Bearer "+key)
				}
				if enc != "" {
					reqs[i].Header.Set("Accept-Encoding", enc)
				}
			}
			for i := w; i < maxPerWorker+w && ctx.Err() == nil; i++ {
				t0 := time.Now()
				resp, err := client.Do(reqs[i%len(reqs)].WithContext(ctx))
				if err != nil {
					if ctx.Err() == nil {
						errs[w]++
					}
					continue
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				d := time.Since(t0)
				if err != nil || resp.StatusCode != http.StatusOK {
					if ctx.Err() == nil {
						errs[w]++
					}
					continue
				}
				lat = append(lat, d)
			}
			samples[w] = lat
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	all := slices.Concat(samples...)
	slices.Sort(all)
	r := loadResult{Requests: len(all), Elapsed: elapsed}
	for _, e := range errs {
		r.Errors += e
	}
	r.RPS = float64(len(all)) / elapsed.Seconds()
	r.P50, r.P99 = percentile(all, 0.50), percentile(all, 0.99)
	return r
}

// sequential sends n requests one after another (bounded by limit) and
// returns the sorted latencies: the latency a single user sees, without
// queueing behind other connections.
func sequential(client *http.Client, urls []string, key string, n int, limit time.Duration) ([]time.Duration, int) {
	deadline := time.Now().Add(limit)
	lat := make([]time.Duration, 0, n)
	errs := 0
	for i := 0; i < n && time.Now().Before(deadline); i++ {
		req, _ := http.NewRequest("GET", urls[i%len(urls)], nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			errs++
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			errs++
			continue
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	return lat, errs
}
