package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// spray measures the per-IP rate limit under a spray of client
// addresses: folio behind a trusted proxy (--trusted-proxies 127.0.0.1)
// at --rate-ip 5, each request naming in X-Forwarded-For an IPv6 address
// of a /64 of its own, so that every request is a new client of the
// limit (a new bucket). Against the same load from one client with the
// limit off, in the same run. A second load sprays fresh addresses of one
// /64: all but the burst must be refused (429), since folio counts an IPv6
// client by its /64.
func (b *bench) spray() error {
	dir, _, err := b.dataset(1000, 0)
	if err != nil {
		return err
	}
	media, err := b.scratch("spray-media")
	if err != nil {
		return err
	}
	start := func(rate string) (*server, error) {
		s, err := b.startFolio(serveOpts{Site: filepath.Join(dir, "site"), Media: media,
			CacheDir: filepath.Join(b.tmp, "cache-spray"), Log: filepath.Join(b.tmp, "folio-spray.log"),
			Args: []string{"--rate-ip", rate, "--trusted-proxies", "127.0.0.1", "--max-conns-per-client", "0"}})
		if err != nil {
			return nil, err
		}
		if _, err := s.waitReady(b.client, "/healthz", "", readyLimit); err != nil {
			s.stop()
			return nil, err
		}
		return s, nil
	}
	limited, err := start("5")
	if err != nil {
		return err
	}
	defer limited.stop()
	open, err := start("0")
	if err != nil {
		return err
	}
	defer open.stop()
	client := newClient(b.conns)
	var next atomic.Uint64
	distinct := func(n uint64) string { // a /64 of its own
		return netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n), 15: 1}).String()
	}
	oneNet := func(n uint64) string { // a fresh address of one /64
		return netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 8: byte(n >> 56), byte(n >> 48), byte(n >> 40), byte(n >> 32), byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}).String()
	}
	fixed := func(uint64) string { return "2001:db8:ffff::1" }
	// Warm-up: connections, the runtime's heap, the limiter's table.
	sprayLoad(client, limited.base, distinct, &next, b.conns, b.dur/2)
	sprayLoad(client, open.base, fixed, &next, b.conns, b.dur/2)
	var sprayRPS, openRPS, ratio []float64
	var sprayRefused, netOK, netAll, errs int
	for range b.runs {
		s := sprayLoad(client, limited.base, distinct, &next, b.conns, b.dur)
		o := sprayLoad(client, open.base, fixed, &next, b.conns, b.dur)
		sprayRPS, openRPS = append(sprayRPS, s.RPS), append(openRPS, o.RPS)
		ratio = append(ratio, s.RPS/o.RPS)
		sprayRefused += s.Refused
		errs += s.Errors + o.Errors
		n := sprayLoad(client, limited.base, oneNet, &next, b.conns, b.dur/4)
		netOK += n.OK
		netAll += n.OK + n.Refused
	}
	b.add(row{Figure: "per-IP limit, spray of distinct /64s: throughput", Sum: summarize(sprayRPS), Unit: unitRPS,
		Note: fmt.Sprintf("GET /healthz, --rate-ip 5 behind --trusted-proxies, each request from an IPv6 address of a /64 of its own (a new bucket); %d connections, %s per run; %d refused (must be 0), %d failed requests in all runs", b.conns, b.dur, sprayRefused, errs)})
	b.add(row{Figure: "same load from one client, limit off: throughput", Sum: summarize(openRPS), Unit: unitRPS})
	b.add(row{Figure: "spray / one client", Sum: summarize(ratio), Unit: unitX}.check("≥ 0.5", summarize(ratio).Median >= 0.5))
	b.notes = append(b.notes, fmt.Sprintf("Spray of fresh addresses of one /64 at --rate-ip 5: %d of %d requests served (the burst of 10 per run, plus 5/s).", netOK, netAll))
	return nil
}

type sprayResult struct {
	OK, Refused, Errors int
	RPS                 float64
}

// sprayLoad sends GET base/healthz from conns goroutines for dur, each
// request with X-Forwarded-For addr(n) for a fresh n.
func sprayLoad(client *http.Client, base string, addr func(uint64) string, next *atomic.Uint64, conns int, dur time.Duration) sprayResult {
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var ok, refused, failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range conns {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, "GET", base+"/healthz", nil)
				req.Header.Set("X-Forwarded-For", addr(next.Add(1)))
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						failed.Add(1)
					}
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusTooManyRequests:
					refused.Add(1)
				default:
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	el := time.Since(start)
	return sprayResult{OK: int(ok.Load()), Refused: int(refused.Load()), Errors: int(failed.Load()),
		RPS: float64(ok.Load()+refused.Load()) / el.Seconds()}
}
