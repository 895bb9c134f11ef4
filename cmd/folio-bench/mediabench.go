package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// searchRequests is how many sequential searches one run sends.
const searchRequests = 300

// search measures the latency of one client searching the big library:
// requests one after another, so that the figure is the search itself
// and not queueing behind 63 other connections (the load run reports
// that). The uncached figures send searches that are all distinct (see
// searchMix), a new set each run; the cached ones cycle over the
// manifest's few words, answered from the result cache after their first
// time.
func (b *bench) search() error {
	s, _, mm, err := b.fullServer()
	if err != nil {
		return err
	}
	vocab, err := mediaVocabulary(b.client, s.base, b.key)
	if err != nil {
		return err
	}
	mix, mixNote := searchMix(vocab, searchRequests*(b.runs+1))
	distinct := searchURLs(s.base, mix)
	cached := searchURLs(s.base, mm.SearchWords)
	client := newClient(1)
	defer client.CloseIdleConnections()
	sequential(client, cached, b.key, 50, readyLimit) // warm-up
	var p50, p99, cp50, cp99 []float64
	errs := 0
	for k := range b.runs {
		lat, e := sequential(client, distinct[k*searchRequests:(k+1)*searchRequests], b.key, searchRequests, readyLimit)
		errs += e
		clat, ce := sequential(client, cached, b.key, searchRequests, readyLimit)
		errs += ce
		if len(lat) == 0 || len(clat) == 0 {
			return fmt.Errorf("every search failed")
		}
		p50, p99 = append(p50, ms(percentile(lat, 0.5))), append(p99, ms(percentile(lat, 0.99)))
		cp50, cp99 = append(cp50, ms(percentile(clat, 0.5))), append(cp99, ms(percentile(clat, 0.99)))
	}
	label := sizeLabel(b.mediaN)
	r := row{Figure: "media search p50, " + label + " items, uncached", Sum: summarize(p50), Unit: unitMS2,
		Note: fmt.Sprintf("GET /api/v1/media?search=…, one connection, %d requests per run, all distinct (%s); %d failed", searchRequests, mixNote, errs)}
	b.add(r.check("≤ 2 ms", r.Sum.Median <= 2))
	b.add(row{Figure: "media search p99, " + label + " items, uncached", Sum: summarize(p99), Unit: unitMS2})
	b.add(row{Figure: "media search p50, " + label + " items, cached", Sum: summarize(cp50), Unit: unitMS2,
		Note: fmt.Sprintf("the same with the words %q over and over: answers from the result cache", mm.SearchWords)})
	b.add(row{Figure: "media search p99, " + label + " items, cached", Sum: summarize(cp99), Unit: unitMS2})
	return nil
}

// mediaStart times start-up with the big library: exec to the first 200
// of GET /api/v1/media, first without a checkpoint (every sidecar of the
// state parsed), then restarts on the checkpoint that start's shutdown
// wrote. The site
// is the 1k one on a warm cache, so the figure is mostly the library
// (sidecars, search index).
func (b *bench) mediaStart() error {
	dir, _, err := b.dataset(1000, 0)
	if err != nil {
		return err
	}
	mdir, _, err := b.dataset(0, b.mediaN)
	if err != nil {
		return err
	}
	cache, err := b.scratch("cache-media-start")
	if err != nil {
		return err
	}
	mediaRoot := filepath.Join(mdir, "media")
	once := func(dropIndex bool) (float64, float64, float64, error) {
		if dropIndex {
			// The checkpoints the last shutdown wrote (media/shared.go).
			if err := os.RemoveAll(filepath.Join(mediaRoot, ".state", "checkpoints")); err != nil {
				return 0, 0, 0, err
			}
		}
		s, err := b.startFolio(serveOpts{Site: filepath.Join(dir, "site"), Media: mediaRoot,
			CacheDir: cache, Log: filepath.Join(b.tmp, "folio-media-start.log")})
		if err != nil {
			return 0, 0, 0, err
		}
		defer s.stop()
		d, err := s.waitReady(b.client, "/api/v1/media", b.key, readyLimit)
		if err != nil {
			return 0, 0, 0, err
		}
		used, err := cpuTime(s.pid())
		if err != nil {
			return 0, 0, 0, err
		}
		hwm, err := procStatus(s.pid(), "VmHWM")
		return ms(d), ms(used), hwm, err
	}
	// Fill the site's parsed-document cache with a start on an empty
	// library (seconds, where one on the big library takes tens).
	empty, err := b.scratch("media-empty")
	if err != nil {
		return err
	}
	warm, err := b.startFolio(serveOpts{Site: filepath.Join(dir, "site"), Media: empty, CacheDir: cache, Log: filepath.Join(b.tmp, "folio-media-start.log")})
	if err != nil {
		return err
	}
	_, err = warm.waitReady(b.client, "/api/v1/media", b.key, readyLimit)
	warm.stop()
	if err != nil {
		return err
	}
	// Three runs each, not b.runs: at 100k items one start takes tens of
	// seconds, and the whole bench must stay within about 25 minutes.
	runs := min(b.runs, 3)
	var ft, fcpu, frss, wt, wcpu, wrss []float64
	for range runs {
		t, cpu, rss, err := once(true)
		if err != nil {
			return err
		}
		ft, fcpu, frss = append(ft, t), append(fcpu, cpu), append(frss, rss)
	}
	for range runs {
		t, cpu, rss, err := once(false)
		if err != nil {
			return err
		}
		wt, wcpu, wrss = append(wt, t), append(wcpu, cpu), append(wrss, rss)
	}
	label := sizeLabel(b.mediaN)
	b.add(row{Figure: "start-up with " + label + " media items, no checkpoint", Sum: summarize(ft), Unit: unitMS,
		Note: "exec to the first 200 of GET /api/v1/media; 1k-file site on a warm cache; sidecars in the OS page cache; the state's checkpoints removed before each run"})
	b.add(row{Figure: "start-up with " + label + " media items, restart", Sum: summarize(wt), Unit: unitMS})
	b.add(row{Figure: "… CPU time until ready, no checkpoint", Sum: summarize(fcpu), Unit: unitMS,
		Note: "user + system time of the folio process (/proc/<pid>/stat) at its first 200: what the start costs whatever else runs on the machine"})
	b.add(row{Figure: "… CPU time until ready, restart", Sum: summarize(wcpu), Unit: unitMS})
	b.add(row{Figure: "peak RSS at ready, " + label + " media items, no checkpoint", Sum: summarize(frss), Unit: unitMB})
	b.add(row{Figure: "peak RSS at ready, " + label + " media items, restart", Sum: summarize(wrss), Unit: unitMB})
	return nil
}

// mediaMigrate times the first start on a media library an earlier
// release wrote (-legacy-media: sidecars beside the files), which moves
// it into <media>/.state (one synced sidecar and one claim per file),
// and the restart after it: exec to the first 200 of GET /api/v1/media,
// on a fresh copy each run (the copy is not timed).
func (b *bench) mediaMigrate() error {
	if b.legacyMedia == "" {
		b.notes = append(b.notes, "mediamigrate skipped: no -legacy-media (a media root of an earlier release)")
		return nil
	}
	dir, _, err := b.dataset(1000, 0)
	if err != nil {
		return err
	}
	cache, err := b.warmSiteCache(dir, "media-migrate")
	if err != nil {
		return err
	}
	n := 0
	var first, again []float64
	var cpus [2][]float64
	for range min(b.runs, 3) {
		tmp, err := b.scratch("media-migrate")
		if err != nil {
			return err
		}
		root := filepath.Join(tmp, "media")
		if out, err := execOutput("cp", "-a", b.legacyMedia, root); err != nil {
			return fmt.Errorf("copying %s: %v: %s", b.legacyMedia, err, out)
		}
		for i, dst := range []*[]float64{&first, &again} {
			s, err := b.startFolio(serveOpts{Site: filepath.Join(dir, "site"), Media: root, CacheDir: cache,
				Log: filepath.Join(b.tmp, "folio-media-migrate.log")})
			if err != nil {
				return err
			}
			d, err := s.waitReady(b.client, "/api/v1/media", b.key, readyLimit)
			var used time.Duration
			if err == nil {
				used, err = cpuTime(s.pid())
			}
			var all mediaListBody
			if err == nil {
				var code int
				var body []byte
				code, body, err = get(b.client, s.base+"/api/v1/media?limit=1", b.key)
				if err == nil && (code != http.StatusOK || json.Unmarshal(body, &all) != nil || all.Total == 0 || (n != 0 && all.Total != n)) {
					err = fmt.Errorf("serves %d items (status %d), want %d", all.Total, code, n)
				}
			}
			s.stop()
			if err != nil {
				return err
			}
			n = all.Total
			*dst = append(*dst, ms(d))
			cpus[i] = append(cpus[i], ms(used))
		}
		os.RemoveAll(tmp)
	}
	label := sizeLabel(n)
	b.add(row{Figure: "first start on an earlier release's library, " + label + " media items (migration)", Sum: summarize(first), Unit: unitMS,
		Note: "exec to the first 200 of GET /api/v1/media on a fresh copy of -legacy-media: every sidecar moved into <media>/.state (a synced sidecar and a claim per file); 1k-file site on a warm cache"})
	b.add(row{Figure: "… CPU time until ready, migration", Sum: summarize(cpus[0]), Unit: unitMS,
		Note: "user + system time of the folio process at its first 200"})
	b.add(row{Figure: "restart after the migration, " + label + " media items", Sum: summarize(again), Unit: unitMS})
	b.add(row{Figure: "… CPU time until ready, restart after the migration", Sum: summarize(cpus[1]), Unit: unitMS})
	return nil
}

func execOutput(bin string, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
