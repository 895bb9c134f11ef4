package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// fullServer returns folio on the load-test site (warm parsed-document
// cache) and the big media library, ready. It is started once and shared
// by the load and search groups (b.stopFull ends it): with 100k media
// items a start takes tens of seconds.
func (b *bench) fullServer() (*server, manifest, manifest, error) {
	dir, sm, err := b.dataset(b.loadSize, 0)
	if err != nil {
		return nil, sm, manifest{}, err
	}
	mdir, mm, err := b.dataset(0, b.mediaN)
	if err != nil {
		return nil, sm, mm, err
	}
	if b.full != nil {
		return b.full, sm, mm, nil
	}
	cache := filepath.Join(b.tmp, fmt.Sprintf("cache-full-%d", b.loadSize))
	s, err := b.startFolio(serveOpts{Site: filepath.Join(dir, "site"), Media: filepath.Join(mdir, "media"),
		CacheDir: cache, Log: filepath.Join(b.tmp, "folio-full.log")})
	if err != nil {
		return nil, sm, mm, err
	}
	if _, err := s.waitReady(b.client, "/api/v1/media", b.key, readyLimit); err != nil {
		s.stop()
		return nil, sm, mm, err
	}
	b.full = s
	return s, sm, mm, nil
}

func (b *bench) stopFull() {
	if b.full != nil {
		b.full.stop()
		b.full = nil
	}
}

// pageSlug picks a top-level published page.
func pageSlug(m manifest) (string, error) {
	for _, p := range m.Pages {
		if !strings.Contains(p, "/") && p != "home" {
			return p, nil
		}
	}
	return "", fmt.Errorf("the generated site has no top-level page")
}

// endpoint is one URL set under load.
type endpoint struct {
	name string
	urls []string
	key  string
	// enc is the Accept-Encoding sent ("" sends none).
	enc string
	// note is said of the endpoint's throughput row.
	note string
	// nginx names the endpoint compared with nginx serving the same
	// file ("" for none): "nginx" for the page as a static file, "nginx
	// gzip_static" for its gzip file.
	nginx string
}

// throughput loads each endpoint at b.conns connections for b.dur, b.runs
// times, after a short warm-up. The page endpoint alternates runs with
// nginx serving the same bytes, so that load from others on the machine
// hits both alike.
func (b *bench) throughput() error {
	s, sm, mm, err := b.fullServer()
	if err != nil {
		return err
	}
	slug, err := pageSlug(sm)
	if err != nil {
		return err
	}
	pagePath := "/api/v1/pages/" + slug
	var mediaURLs []string
	for _, id := range mm.MediaIDs {
		mediaURLs = append(mediaURLs, s.base+"/api/v1/public/media/"+id)
	}
	vocab, err := mediaVocabulary(b.client, s.base, b.key)
	if err != nil {
		return err
	}
	mix, mixNote := searchMix(vocab, uncachedSearchN)
	eps := []endpoint{
		{name: "GET /pages/{slug}", urls: []string{s.base + pagePath}, key: b.key, nginx: "nginx"},
		{name: "GET /pages/{slug} gzip", urls: []string{s.base + pagePath}, key: b.key, enc: "gzip", nginx: "nginx gzip_static"},
		{name: "GET /content/posts?limit=20", urls: []string{s.base + "/api/v1/content/posts?limit=20"}, key: b.key},
		{name: "GET /content/posts?filter[data.category][eq]=…&sort=-publishedAt&limit=20",
			urls: []string{s.base + "/api/v1/content/posts?filter%5Bdata.category%5D%5Beq%5D=gear&sort=-publishedAt&limit=20"}, key: b.key,
			note: "one of 8 categories (an eighth of the posts), from the list's index; compare with the unfiltered list above (issue 20: at least 0.5× its throughput)"},
		{name: "GET /public/media/{id}", urls: mediaURLs},
		{name: "GET /media?search=… uncached", urls: searchURLs(s.base, mix), key: b.key,
			note: mixNote + ", each sent once per cycle: none is answered from the result cache"},
		{name: "GET /media?search=… cached", urls: searchURLs(s.base, mm.SearchWords), key: b.key,
			note: fmt.Sprintf("the same %d searches (%q) over and over: answers from the result cache", len(mm.SearchWords), mm.SearchWords)},
	}

	var ngx, floor *server
	if b.nginx != "" {
		body, gz, err := b.pageBodies(s.base + pagePath)
		if err == nil {
			ngx, err = b.startNginx(body, gz, pagePath)
		}
		if err != nil {
			b.notes = append(b.notes, "nginx comparison skipped: "+err.Error())
			ngx = nil
		} else {
			defer ngx.stop()
			if floor, err = b.startFloor(body, gz, pagePath); err != nil {
				b.notes = append(b.notes, "net/http floor skipped: "+err.Error())
				floor = nil
			} else {
				defer floor.stop()
			}
		}
	} else {
		b.notes = append(b.notes, "nginx comparison skipped: no nginx binary")
	}

	gen := &loadGen{wrk: b.wrk, conns: b.conns, threads: 2, tmp: b.tmp, client: newClient(b.conns)}
	defer gen.client.CloseIdleConnections()
	for _, ep := range eps {
		// Warm-up: connections, caches, the Go runtime's heap. A slow
		// endpoint may complete nothing in it; the runs say so.
		if _, err := gen.run(ep.urls, ep.key, ep.enc, max(time.Second, b.dur/4)); err != nil {
			return err
		}
		var rps, p50, p99, nrps, np50, np99, cpu, ncpu []float64
		var frps, fp99, fratio, fcpu []float64
		errs, nerrs, ferrs, empty := 0, 0, 0, 0
		for range b.runs {
			c0, _ := cpuTime(s.pid())
			r, err := gen.run(ep.urls, ep.key, ep.enc, b.dur)
			if err != nil {
				return err
			}
			if c1, err := cpuTime(s.pid()); err == nil && r.Requests > 0 {
				cpu = append(cpu, float64((c1-c0).Microseconds())/float64(r.Requests))
			}
			rps = append(rps, r.RPS)
			if r.Requests > 0 { // no latency to report from a run in which nothing completed
				p50, p99 = append(p50, ms(r.P50)), append(p99, ms(r.P99))
			} else {
				empty++
			}
			errs += r.Errors
			if ep.nginx != "" && ngx != nil {
				c0, _ := cpuTime(ngx.pid())
				n, err := gen.run([]string{ngx.base + pagePath}, ep.key, ep.enc, b.dur)
				if err != nil {
					return err
				}
				if c1, err := cpuTime(ngx.pid()); err == nil && n.Requests > 0 {
					ncpu = append(ncpu, float64((c1-c0).Microseconds())/float64(n.Requests))
				}
				nrps, np50, np99 = append(nrps, n.RPS), append(np50, ms(n.P50)), append(np99, ms(n.P99))
				nerrs += n.Errors
				if floor != nil {
					c0, _ := cpuTime(floor.pid())
					f, err := gen.run([]string{floor.base + pagePath}, "", ep.enc, b.dur)
					if err != nil {
						return err
					}
					if c1, err := cpuTime(floor.pid()); err == nil && f.Requests > 0 {
						fcpu = append(fcpu, float64((c1-c0).Microseconds())/float64(f.Requests))
					}
					frps, fp99 = append(frps, f.RPS), append(fp99, ms(f.P99))
					fratio = append(fratio, ms(f.P99)/ms(n.P99))
					ferrs += f.Errors
				}
			}
		}
		rr := row{Figure: ep.name + " throughput", Sum: summarize(rps), Unit: unitRPS,
			Note: fmt.Sprintf("%d connections over loopback, %s per run, %s on the same 2 cores; %d failed requests in all runs", b.conns, b.dur, gen.name(), errs)}
		if ep.note != "" {
			rr.Note = ep.note + "; " + rr.Note
		}
		if empty > 0 {
			rr.Note += fmt.Sprintf("; %d of %d runs completed no request (latencies are of the others)", empty, b.runs)
		}
		p99r := row{Figure: ep.name + " p99 latency", Sum: summarize(p99), Unit: unitMS2}
		if ep.nginx == "nginx" {
			p99r = p99r.check("≤ 5 ms", p99r.Sum.Median <= 5)
		}
		b.add(rr)
		b.add(row{Figure: ep.name + " p50 latency", Sum: summarize(p50), Unit: unitMS2})
		b.add(p99r)
		if ep.nginx != "" && ngx != nil {
			what := "same page JSON as a static file"
			if ep.enc != "" {
				what = "the same page's gzip file (gzip_static on), Accept-Encoding: " + ep.enc
			}
			ns := summarize(nrps)
			b.add(row{Figure: ep.nginx + ", " + what + ": throughput", Sum: ns, Unit: unitRPS,
				Note: fmt.Sprintf("nginx %s, worker_processes 2, access_log off, same load generator and URL; runs alternate with folio's; %d failed requests", nginxVersion(b.nginx), nerrs)})
			b.add(row{Figure: ep.nginx + " p50 latency", Sum: summarize(np50), Unit: unitMS2})
			b.add(row{Figure: ep.nginx + " p99 latency", Sum: summarize(np99), Unit: unitMS2})
			ratio := make([]float64, len(rps))
			for i := range rps {
				ratio[i] = rps[i] / nrps[i]
			}
			rt := row{Figure: ep.name + ": folio / " + ep.nginx + " throughput", Sum: summarize(ratio), Unit: unitX,
				Note: "ratio of each folio run to the nginx run right after it"}
			b.add(rt.check("≥ 0.80×", rt.Sum.Median >= 0.8))
			// CPU time per request hardly depends on what else the
			// machine runs, unlike throughput and latency.
			if len(cpu) > 0 && len(ncpu) > 0 {
				b.add(row{Figure: ep.name + ": folio CPU per request", Sum: summarize(cpu), Unit: unitUS,
					Note: "folio's user and system CPU time during a run over the requests it answered"})
				b.add(row{Figure: ep.name + ": " + ep.nginx + " CPU per request", Sum: summarize(ncpu), Unit: unitUS})
			}
			if len(p99) == len(np99) {
				pr := make([]float64, len(p99))
				for i := range p99 {
					pr[i] = p99[i] / np99[i]
				}
				rp := row{Figure: ep.name + ": folio / " + ep.nginx + " p99 latency", Sum: summarize(pr), Unit: unitX}
				b.add(rp.check("≤ 1.50×", rp.Sum.Median <= 1.5))
			}
			if len(frps) > 0 {
				fl := "net/http floor" + strings.TrimPrefix(ep.name, "GET /pages/{slug}")
				b.add(row{Figure: fl + ": throughput", Sum: summarize(frps), Unit: unitRPS,
					Note: fmt.Sprintf("a bare Go net/http handler writing the same bytes (folio-bench %s), its own process, runs right after nginx's; %d failed requests", floorArg, ferrs)})
				b.add(row{Figure: fl + " p99 latency", Sum: summarize(fp99), Unit: unitMS2})
				b.add(row{Figure: fl + " / " + ep.nginx + " p99 latency", Sum: summarize(fratio), Unit: unitX,
					Note: "what net/http and the Go runtime alone cost in the tail on this machine"})
				if len(fcpu) > 0 {
					b.add(row{Figure: fl + " CPU per request", Sum: summarize(fcpu), Unit: unitUS})
				}
			}
		}
	}
	return nil
}

// pageBodies fetches the page at src as folio sends it, plain and gzip.
// The gzip body is folio's own when folio sends one, so that every server
// compared sends the same bytes; else (a folio without compression) the
// page compressed at the same level folio uses.
func (b *bench) pageBodies(src string) (body, gz []byte, err error) {
	body, _, err = b.fetch(src, "")
	if err != nil {
		return nil, nil, err
	}
	gz, ce, err := b.fetch(src, "gzip")
	if err != nil {
		return nil, nil, err
	}
	if ce != "gzip" {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, 6)
		zw.Write(body)
		zw.Close()
		gz = buf.Bytes()
	}
	return body, gz, nil
}

// startNginx writes body and gz to files at urlPath under a temp web root
// and serves them with nginx on a free loopback port.
func (b *bench) startNginx(body, gz []byte, urlPath string) (*server, error) {
	dir, err := b.scratch("nginx")
	if err != nil {
		return nil, err
	}
	// nginx started as root runs its workers as an unprivileged user, who
	// must be able to reach the file through the 0700 temp dirs.
	for _, d := range []string{b.tmp, dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			return nil, err
		}
	}
	www := filepath.Join(dir, "www")
	file := filepath.Join(www, filepath.FromSlash(urlPath))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(file, body, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(file+".gz", gz, 0o644); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	// Temp paths are set because the packaged defaults under /var/lib/nginx
	// may not be writable; keepalive_requests is raised because the
	// default (1000) would make the client reconnect, which folio's server
	// never asks for. open_file_cache is left off, nginx's default: nginx
	// then opens, stats and closes the file for every request, and with
	// it on its CPU time per request falls by about a third (docs/performance.md),
	// a harder baseline than this one.
	conf := fmt.Sprintf(`worker_processes 2;
daemon off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 10000000;
    keepalive_timeout 65;
    client_body_temp_path %[1]s/body;
    default_type application/json;
    server {
        listen 127.0.0.1:%[2]d;
        root %[3]s;
        location / { gzip_static on; try_files $uri =404; }
    }
}
`, dir, port, www)
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	return b.startServing(b.nginx, []string{"-p", dir, "-c", confPath, "-e", filepath.Join(dir, "error.log")},
		"http://127.0.0.1:"+strconv.Itoa(port), filepath.Join(dir, "stdout.log"), urlPath)
}

// fetch GETs src with the bench's key and Accept-Encoding enc (when set)
// and returns the body as sent and its Content-Encoding.
func (b *bench) fetch(src, enc string) ([]byte, string, error) {
	req, _ := http.NewRequest("GET", src, nil)
	req.Header.Set("Authorization", "Bearer "+b.key)
	if enc != "" {
		req.Header.Set("Accept-Encoding", enc)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("GET %s: %d %v", src, resp.StatusCode, err)
	}
	return body, resp.Header.Get("Content-Encoding"), nil
}

func nginxVersion(bin string) string {
	out, _ := execOutput(bin, "-v")
	return strings.TrimPrefix(strings.TrimSpace(out), "nginx version: ")
}
