package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// readyLimit bounds one start; 100k files with an empty cache is the
// slowest case.
const readyLimit = 5 * time.Minute

// searchBuiltLimit bounds the wait for the content search index after a
// start: at 100k files on a loaded 2-core machine the build took 4
// minutes.
const searchBuiltLimit = 15 * time.Minute

// coldStart measures, per site size, the time from exec to the first 200
// of GET /api/v1/pages and the peak RSS at that moment: first with an
// empty parsed-document cache (a new --cache-dir each run), then restarts
// on the cache the first run left. The OS page cache is warm in both (the
// files were just generated or read); dropping it would need root and would
// disturb everyone else on the machine.
func (b *bench) coldStart() error {
	media, err := b.scratch("media-empty")
	if err != nil {
		return err
	}
	for _, n := range b.sizes {
		dir, _, err := b.dataset(n, 0)
		if err != nil {
			return err
		}
		site := filepath.Join(dir, "site")
		var firstT, firstRSS, firstCPU, warmT, warmRSS, warmCPU, warmAnon, warmHeap []float64
		var warmCache string
		for i := range b.runs {
			cache, err := b.scratch(fmt.Sprintf("cache-%d", n))
			if err != nil {
				return err
			}
			if i == 0 {
				warmCache = cache
			}
			st, err := b.startOnce(site, media, cache)
			if err != nil {
				return fmt.Errorf("%d files, first start: %w", n, err)
			}
			firstT, firstRSS, firstCPU = append(firstT, st.ready), append(firstRSS, st.peak), append(firstCPU, st.cpu)
			if i > 0 {
				os.RemoveAll(cache) // only the first is reused; 100k caches are large
			}
		}
		for range b.runs {
			st, err := b.startOnce(site, media, warmCache)
			if err != nil {
				return fmt.Errorf("%d files, restart: %w", n, err)
			}
			warmT, warmRSS, warmCPU = append(warmT, st.ready), append(warmRSS, st.peak), append(warmCPU, st.cpu)
			warmAnon, warmHeap = append(warmAnon, st.anon), append(warmHeap, st.heap)
		}
		label := sizeLabel(n)
		first := row{Figure: "cold start " + label + " files, first start (empty cache)", Sum: summarize(firstT), Unit: unitMS}
		warm := row{Figure: "cold start " + label + " files, restart (warm cache)", Sum: summarize(warmT), Unit: unitMS}
		if n == 10000 {
			first = first.check("≤ 1000 ms", first.Sum.Median <= 1000)
			warm = warm.check("≤ 1000 ms", warm.Sum.Median <= 1000)
		}
		first.Note = "exec of `folio serve` to the first 200 of GET /api/v1/pages (polled every 1 ms), work-tree repository, empty media library"
		b.add(first)
		b.add(warm)
		b.add(row{Figure: "… CPU time to ready, " + label + " files, first start", Sum: summarize(firstCPU), Unit: unitMS,
			Note: "user and system time of the folio process (all threads) when it first answered, from /proc: what the machine's other load does not stretch"})
		b.add(row{Figure: "… CPU time to ready, " + label + " files, restart", Sum: summarize(warmCPU), Unit: unitMS})
		b.add(row{Figure: "peak RSS at ready, " + label + " files, first start", Sum: summarize(firstRSS), Unit: unitMB,
			Note: "VmHWM of the folio process when it first answered"})
		b.add(row{Figure: "peak RSS at ready, " + label + " files, restart", Sum: summarize(warmRSS), Unit: unitMB})
		b.add(row{Figure: "anonymous RSS at ready, " + label + " files, restart", Sum: summarize(warmAnon), Unit: unitMB,
			Note: "RssAnon of the folio process when it first answered: its heap and stacks, not the binary's pages (which move with how the kernel mapped the file)"})
		b.add(row{Figure: "Go heap in use at ready, " + label + " files, restart", Sum: summarize(warmHeap), Unit: unitMB1,
			Note: "go_memstats_heap_inuse_bytes after a forced collection (/debug/pprof/heap?gc=1 of --metrics-addr), read right after the first answer and the figures above"})
		if !b.coldSearch {
			continue
		}

		// The content search index is built in the background after
		// ready: the peak RSS at ready does not include it. Once more
		// each, a first start and a restart that wait for it.
		cache, err := b.scratch(fmt.Sprintf("cache-built-%d", n))
		if err != nil {
			return err
		}
		for _, first := range []bool{true, false} {
			t, rss, err := b.startSearched(site, media, cache)
			if err != nil {
				return fmt.Errorf("%d files, start until the search index is built: %w", n, err)
			}
			kind := "restart"
			if first {
				kind = "first start"
			}
			b.add(row{Figure: "peak RSS, " + label + " files, " + kind + ", search index built", Sum: summarize([]float64{rss}), Unit: unitMB,
				Note: "VmHWM once GET /api/v1/search first answered (the index is built in the background after ready; a search waits for it), one run"})
			b.add(row{Figure: "… " + kind + " to the first search answered", Sum: summarize([]float64{t}), Unit: unitMS})
		}
		os.RemoveAll(cache)
	}
	return nil
}

// startSearched starts folio, waits until a content search answers (the
// index is built), and returns that time in ms and VmHWM in MB.
func (b *bench) startSearched(site, media, cache string) (float64, float64, error) {
	s, err := b.startFolio(serveOpts{Site: site, Media: media, CacheDir: cache, Log: filepath.Join(b.tmp, "folio-cold.log")})
	if err != nil {
		return 0, 0, err
	}
	defer s.stop()
	if _, err := s.waitReady(b.client, "/api/v1/pages", b.key, readyLimit); err != nil {
		return 0, 0, err
	}
	d, err := s.waitReady(b.client, "/api/v1/search?q=trail", b.key, searchBuiltLimit)
	if err != nil {
		return 0, 0, err
	}
	rss, err := procStatus(s.pid(), "VmHWM")
	if err != nil {
		return 0, 0, err
	}
	return ms(d), rss, nil
}

// started is what one start measured at ready.
type started struct {
	ready, cpu float64 // ms from exec; CPU time (all threads) until then
	peak, anon float64 // VmHWM, RssAnon in MB
	heap       float64 // Go heap in use after a forced collection, MB
}

// startOnce starts folio, waits until it serves, and reads at once the
// time to ready, the CPU time it used until then and its RSS, then (a
// forced collection) its heap in use.
func (b *bench) startOnce(site, media, cache string) (started, error) {
	port, err := freePort()
	if err != nil {
		return started{}, err
	}
	metrics := "127.0.0.1:" + strconv.Itoa(port)
	s, err := b.startFolio(serveOpts{Site: site, Media: media, CacheDir: cache, Log: filepath.Join(b.tmp, "folio-cold.log"),
		Args: []string{"--metrics-addr", metrics}})
	if err != nil {
		return started{}, err
	}
	defer s.stopWithin(readyLimit) // a first start's cache is the restarts'`
	d, err := s.waitReady(b.client, "/api/v1/pages", b.key, readyLimit)
	if err != nil {
		return started{}, err
	}
	cpu, err1 := cpuTime(s.pid())
	peak, err2 := procStatus(s.pid(), "VmHWM")
	anon, err3 := procStatus(s.pid(), "RssAnon")
	heap, err4 := b.heapInUse(metrics)
	if err := firstErr(err1, err2, err3, err4); err != nil {
		return started{}, err
	}
	return started{ready: ms(d), cpu: ms(cpu), peak: peak, anon: anon, heap: heap / 1e6}, nil
}

func sizeLabel(n int) string {
	switch {
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	default:
		return fmt.Sprint(n)
	}
}
