package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// fsearchLimit bounds the wait for a first search: a box that builds the
// index of 100k files on a busy machine takes minutes.
const fsearchLimit = 15 * time.Minute

// freshSearch measures how long a fresh box (an empty cache directory)
// takes to answer its first content search on the generated sites of
// -sizes from -load-size up: without a bucket it builds the index
// itself; with one where another box published the index, it fetches it
// (engine/search: contentsearch_remote.go), and its parse cache too
// when the release shares it (engine: parsecache_remote.go), so that the
// box starts warm. The two are interleaved,
// -runs times (at most 3).
func (b *bench) freshSearch() error {
	for _, n := range b.sizes {
		if n < b.loadSize {
			continue
		}
		if err := b.freshSearchAt(n); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) freshSearchAt(n int) error {
	dir, _, err := b.dataset(n, 0)
	if err != nil {
		return err
	}
	site := filepath.Join(dir, "site")
	gwDir, err := b.scratch("gw-fsearch")
	if err != nil {
		return err
	}
	gw, err := b.startGateway(gwDir, gatewayMeta(gwDir))
	if err != nil {
		return err
	}
	defer gw.stop()
	const bucket = "folio-fsearch"
	if err := gw.makeBucket(bucket); err != nil {
		return err
	}
	log := filepath.Join(b.tmp, "folio-fsearch.log")
	// firstSearch starts a fresh box and returns the time from its start
	// to its first search answered, and the CPU time the box used by
	// then (steadier than the wall time on a shared machine).
	firstSearch := func(bucketed bool) (*server, time.Duration, time.Duration, error) {
		cache, err := b.scratch("cache-fsearch")
		if err != nil {
			return nil, 0, 0, err
		}
		media, err := b.scratch("media-fsearch")
		if err != nil {
			return nil, 0, 0, err
		}
		o := serveOpts{Site: site, Media: media, CacheDir: cache, Log: log, Args: []string{"--search=true"}}
		if bucketed {
			o.Args, o.Env = append(o.Args, gw.s3Args(bucket)...), s3Env
		}
		s, err := b.startFolio(o)
		if err != nil {
			return nil, 0, 0, err
		}
		d, err := s.waitReady(b.client, "/api/v1/search?q=trail", b.key, fsearchLimit)
		if err != nil {
			s.stop()
			return nil, 0, 0, err
		}
		cpu, err := cpuTime(s.pid())
		if err != nil {
			s.stop()
			return nil, 0, 0, err
		}
		return s, d, cpu, nil
	}
	// The publisher: the first box on the bucket builds and publishes.
	s, built, _, err := firstSearch(true)
	if err != nil {
		return err
	}
	published := false
	for deadline := time.Now().Add(fsearchLimit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m, _ := filepath.Glob(filepath.Join(gw.data, bucket, "folio-state", s3Prefix, "search", "*", "latest")); len(m) > 0 {
			published = true
			break
		}
	}
	// A release that shares its parse cache (--share-parse-cache)
	// publishes it too, a few seconds after its first load: the fresh
	// boxes then start warm.
	sharesParse := b.cur == nil || b.cur.flags == nil || b.cur.flags["share-parse-cache"]
	parsePublished := false
	for deadline := time.Now().Add(fsearchLimit); published && sharesParse && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m, _ := filepath.Glob(filepath.Join(gw.data, bucket, "folio-state", s3Prefix, "parsecache", "*", "latest")); len(m) > 0 {
			parsePublished = true
			break
		}
	}
	s.stop()
	if !published {
		return fmt.Errorf("the first box on the bucket did not publish its search index (log: %s)", log)
	}
	if sharesParse && !parsePublished {
		return fmt.Errorf("the first box on the bucket did not publish its parse cache (log: %s)", log)
	}
	var size int64
	snaps, _ := filepath.Glob(filepath.Join(gw.data, bucket, "folio-state", s3Prefix, "search", "*", "*"))
	for _, f := range snaps {
		if fi, err := os.Stat(f); err == nil && filepath.Base(f) != "latest" {
			size = fi.Size()
		}
	}
	var parseSize int64
	caches, _ := filepath.Glob(filepath.Join(gw.data, bucket, "folio-state", s3Prefix, "parsecache", "*", "*"))
	for _, f := range caches {
		if fi, err := os.Stat(f); err == nil && filepath.Base(f) != "latest" {
			parseSize = fi.Size()
		}
	}
	b.logf("fresh search %d: publisher's first search %.0f ms, snapshot %.1f MB, parse cache %.1f MB", n, ms(built), float64(size)/1e6, float64(parseSize)/1e6)
	var local, fetched, localCPU, fetchedCPU []float64
	for range min(b.runs, 3) {
		for _, bucketed := range []bool{false, true} {
			load := loadAvg()
			s, d, cpu, err := firstSearch(bucketed)
			if err != nil {
				return err
			}
			s.stop()
			b.logf("fresh search %d, bucket %v: first search %.0f ms, %.0f ms of CPU, load average %s", n, bucketed, ms(d), ms(cpu), load)
			if bucketed {
				fetched, fetchedCPU = append(fetched, ms(d)), append(fetchedCPU, ms(cpu))
			} else {
				local, localCPU = append(local, ms(d)), append(localCPU, ms(cpu))
			}
		}
	}
	label := sizeLabel(n)
	b.add(row{Figure: "fresh box to first search, " + label + " files, index built", Sum: summarize(local), Unit: unitMS,
		Note: "exec to the first 200 of GET /api/v1/search?q=trail, empty cache directory, local media: the box builds the index"})
	r := row{Figure: "fresh box to first search, " + label + " files, index from the bucket", Sum: summarize(fetched), Unit: unitMS,
		Note: fmt.Sprintf("the same on --storage s3 (versitygw on loopback) where another box published the index (a %.1f MB object), and its parse cache when the release shares it (%.1f MB): the box fetches them", float64(size)/1e6, float64(parseSize)/1e6)}
	b.add(r.check("≤ 10000 ms", r.Sum.Median <= 10000))
	b.add(row{Figure: "fresh box to first search, " + label + " files, index built, CPU time", Sum: summarize(localCPU), Unit: unitMS,
		Note: "/proc/<pid>/stat utime+stime of the box once its first search is answered (10 ms ticks): steadier than wall time on a shared machine"})
	b.add(row{Figure: "fresh box to first search, " + label + " files, index from the bucket, CPU time", Sum: summarize(fetchedCPU), Unit: unitMS,
		Note: "as above, the box that fetches the index"})
	return nil
}
