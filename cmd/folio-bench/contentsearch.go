package main

import (
	"fmt"
	"net/url"
	"path/filepath"
	"time"
)

// contentSearchWords are searched on the generated site: words of every
// selectivity (folio-gen's vocabulary is small, so most words are in most
// documents: the index's worst case), one or two at a time.
var contentSearchWords = []string{"glacier", "canyon", "summit tent", "paddle", "warranty shipping", "ultralight quilt"}

// contentSearchRequests is how many sequential searches one run sends.
const contentSearchRequests = 300

// contentSearch measures GET /api/v1/search on the generated sites of
// -sizes from 10k up: the latency of one client searching (as the media search group does), how
// long the index takes to build after the start, and the memory the index
// adds: folio started with --search=false, then with it, peak and current
// RSS once the index is built (after a first search answers).
func (b *bench) contentSearch() error {
	for _, n := range b.sizes {
		if n < b.loadSize {
			continue
		}
		if err := b.contentSearchAt(n); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) contentSearchAt(n int) error {
	dir, _, err := b.dataset(n, 0)
	if err != nil {
		return err
	}
	site := filepath.Join(dir, "site")
	media, err := b.scratch("media-empty")
	if err != nil {
		return err
	}
	cache, err := b.scratch(fmt.Sprintf("cache-csearch-%d", n))
	if err != nil {
		return err
	}
	log := filepath.Join(b.tmp, "folio-csearch.log")
	start := func(search bool) (*server, time.Duration, error) {
		s, err := b.startFolio(serveOpts{Site: site, Media: media, CacheDir: cache, Log: log,
			Args: []string{fmt.Sprintf("--search=%v", search)}})
		if err != nil {
			return nil, 0, err
		}
		d, err := s.waitReady(b.client, "/api/v1/pages", b.key, readyLimit)
		if err != nil {
			s.stop()
			return nil, 0, err
		}
		return s, d, nil
	}
	// Fill the parsed-document cache: every start below is a restart.
	s, _, err := start(false)
	if err != nil {
		return err
	}
	s.stop()

	runs := min(b.runs, 3)
	var offReady, offHWM, offRSS, onReady, onBuilt, onHWM, onRSS, p50, p99 []float64
	errs := 0
	for range runs {
		s, d, err := start(false)
		if err != nil {
			return err
		}
		hwm, err1 := procStatus(s.pid(), "VmHWM")
		rss, err2 := procStatus(s.pid(), "VmRSS")
		s.stop()
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%v %v", err1, err2)
		}
		offReady, offHWM, offRSS = append(offReady, ms(d)), append(offHWM, hwm), append(offRSS, rss)

		s, d, err = start(true)
		if err != nil {
			return err
		}
		built, err := s.waitReady(b.client, "/api/v1/search?q=trail", b.key, readyLimit)
		if err != nil {
			s.stop()
			return err
		}
		hwm, err1 = procStatus(s.pid(), "VmHWM")
		rss, err2 = procStatus(s.pid(), "VmRSS")
		if err1 != nil || err2 != nil {
			s.stop()
			return fmt.Errorf("%v %v", err1, err2)
		}
		onReady, onBuilt, onHWM, onRSS = append(onReady, ms(d)), append(onBuilt, ms(built)), append(onHWM, hwm), append(onRSS, rss)
		{
			var urls []string
			for _, w := range contentSearchWords {
				urls = append(urls, s.base+"/api/v1/search?q="+url.QueryEscape(w))
			}
			client := newClient(1)
			sequential(client, urls, b.key, 50, readyLimit) // warm-up
			lat, e := sequential(client, urls, b.key, contentSearchRequests, readyLimit)
			client.CloseIdleConnections()
			errs += e
			if len(lat) == 0 {
				s.stop()
				return fmt.Errorf("every content search failed")
			}
			p50, p99 = append(p50, ms(percentile(lat, 0.5))), append(p99, ms(percentile(lat, 0.99)))
		}
		s.stop()
	}
	label := sizeLabel(n)
	if len(p50) > 0 {
		r := row{Figure: "content search p50, " + label + " files", Sum: summarize(p50), Unit: unitMS2,
			Note: fmt.Sprintf("GET /api/v1/search?q=… (words %q, limit 20, highlighted), one connection, %d requests per run; %d failed", contentSearchWords, contentSearchRequests, errs)}
		if n == b.loadSize {
			r = r.check("≤ 5 ms", r.Sum.Median <= 5)
		}
		b.add(r)
		b.add(row{Figure: "content search p99, " + label + " files", Sum: summarize(p99), Unit: unitMS2})
	}
	b.add(row{Figure: "restart to ready, " + label + " files, --search=false", Sum: summarize(offReady), Unit: unitMS,
		Note: "exec to the first 200 of GET /api/v1/pages, warm parsed-document cache"})
	b.add(row{Figure: "restart to ready, " + label + " files, with search", Sum: summarize(onReady), Unit: unitMS})
	b.add(row{Figure: "restart to first search answered, " + label + " files", Sum: summarize(onBuilt), Unit: unitMS,
		Note: "exec to the first 200 of GET /api/v1/search?q=trail: the index is built in the background after the start, and a search waits for it"})
	b.add(row{Figure: "peak RSS, " + label + " files, --search=false", Sum: summarize(offHWM), Unit: unitMB,
		Note: "VmHWM at ready"})
	b.add(row{Figure: "peak RSS, " + label + " files, with search, index built", Sum: summarize(onHWM), Unit: unitMB,
		Note: "VmHWM when the first search answered"})
	b.add(row{Figure: "RSS, " + label + " files, --search=false", Sum: summarize(offRSS), Unit: unitMB})
	b.add(row{Figure: "RSS, " + label + " files, with search, index built", Sum: summarize(onRSS), Unit: unitMB})
	return nil
}
