package main

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// cropSecret signs the crop URLs (folio serve --url-secret), so that the
// group runs on any site, with or without imagePresets.
const cropSecret = "folio-bench-crop"

// cropHits is how many cached requests one run times.
const cropHits = 50

// crop measures an image variant made on request: the first GET of a
// 1200×675 cover crop (WebP, q 80) of a 12 MP JPEG, which decodes the
// original, crops, resizes, encodes and stores it, and then cached hits
// of it; against vipsthumbnail making the same crop from the same file in
// the same run, interleaved (folio, vips, folio, vips…). Each run moves
// the focal point first (PATCH), which gives the variant a new key, so
// every run's first request makes it anew.
func (b *bench) crop() error {
	photo, err := b.photo()
	if err != nil {
		return err
	}
	vips, _ := exec.LookPath("vipsthumbnail")
	dir, _, err := b.dataset(1000, 0)
	if err != nil {
		return err
	}
	media, err := b.scratch("crop-media")
	if err != nil {
		return err
	}
	s, err := b.startFolio(serveOpts{Site: filepath.Join(dir, "site"), Media: media,
		CacheDir: filepath.Join(b.tmp, "cache-upload"), Log: filepath.Join(b.tmp, "folio-crop.log"),
		Args: []string{"--url-secret", cropSecret}})
	if err != nil {
		return err
	}
	defer s.stop()
	if _, err := s.waitReady(b.client, "/api/v1/media", b.key, readyLimit); err != nil {
		return err
	}
	f, err := os.Open(photo)
	if err != nil {
		return err
	}
	status, body, _, err := b.upload(s.base, "photo-12mp.jpg", bufio.NewReader(f))
	f.Close()
	if err := firstErr(err, uploadOK(status, body)); err != nil {
		return err
	}
	var up struct {
		Data []struct{ ID, URL string } `json:"data"`
	}
	if err := json.Unmarshal(body, &up); err != nil {
		return err
	}
	it := up.Data[0]
	q := url.Values{"w": {"1200"}, "h": {"675"}, "fit": {"cover"}, "fm": {"webp"}, "q": {"80"}}
	mac := hmac.New(sha256.New, []byte(cropSecret))
	mac.Write([]byte(it.URL + "?" + q.Encode()))
	q.Set("s", hex.EncodeToString(mac.Sum(nil)))
	cropURL := s.base + it.URL + "?" + q.Encode()
	vipsOut := filepath.Join(b.tmp, "vips-crop.webp")

	var first, firstCPU, hit, vwall, vcpu, ratio, cpuRatio []float64
	for i := range b.runs {
		// A focal point near the centre, new in each run: a new variant
		// key.
		patch := fmt.Sprintf(`{"focalX":%g,"focalY":50}`, 50+float64(i+1)/64)
		if err := b.patchMedia(s.base, it.ID, patch); err != nil {
			return err
		}
		c0, err := cpuTime(s.pid())
		if err != nil {
			return err
		}
		d, n, err := timedGet(b.client, cropURL)
		if err != nil {
			return err
		}
		c1, err := cpuTime(s.pid())
		if err != nil {
			return err
		}
		if n < 1000 {
			return fmt.Errorf("crop of %d bytes", n)
		}
		first, firstCPU = append(first, ms(d)), append(firstCPU, ms(c1-c0))
		var hits []time.Duration
		for range cropHits {
			d, _, err := timedGet(b.client, cropURL)
			if err != nil {
				return err
			}
			hits = append(hits, d)
		}
		slices.Sort(hits)
		hit = append(hit, ms(percentile(hits, 0.5)))
		if vips == "" {
			continue
		}
		// The same crop: 1200×675 cover, centred, WebP q 80.
		cmd := exec.Command(vips, photo, "-s", "1200x675", "-m", "centre", "-o", vipsOut+"[Q=80]")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		t0 := time.Now()
		err = cmd.Run()
		vd := time.Since(t0)
		if err != nil {
			return fmt.Errorf("vipsthumbnail: %v: %s", err, out.String())
		}
		vc := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		vwall, vcpu = append(vwall, ms(vd)), append(vcpu, ms(vc))
		ratio, cpuRatio = append(ratio, ms(d)/ms(vd)), append(cpuRatio, ms(c1-c0)/max(ms(vc), 0.01))
	}
	b.add(row{Figure: "1200×675 cover crop of a 12 MP JPEG, first request: wall time", Sum: summarize(first), Unit: unitMS,
		Note: "GET /uploads/<key>?w=1200&h=675&fit=cover&fm=webp&q=80&s=… (signed) after a focal-point PATCH, so the variant is made from the original (decode, crop, resize, WebP, store); 4000×3000 JPEG uploaded once; one process for every run"})
	b.add(row{Figure: "… folio CPU time per first request", Sum: summarize(firstCPU), Unit: unitMS,
		Note: "/proc/<pid>/stat utime+stime around the request (10 ms ticks)"})
	b.add(row{Figure: "1200×675 cover crop, cached hit: wall time", Sum: summarize(hit), Unit: unitMS2,
		Note: fmt.Sprintf("median of %d sequential GETs of the stored variant per run, one connection", cropHits)})
	if vips == "" {
		b.notes = append(b.notes, "crop: vipsthumbnail not installed (Debian libvips-tools), the comparison is skipped")
		return nil
	}
	b.add(row{Figure: "… vipsthumbnail, same crop: wall time", Sum: summarize(vwall), Unit: unitMS,
		Note: "`vipsthumbnail photo.jpg -s 1200x675 -m centre -o out.webp[Q=80]`, a process per run (its start-up included), interleaved with folio's runs: " + vipsVersion(vips)})
	b.add(row{Figure: "… vipsthumbnail CPU time", Sum: summarize(vcpu), Unit: unitMS})
	r := row{Figure: "first crop request / vipsthumbnail, wall time", Sum: summarize(ratio), Unit: unitX,
		Note: "per run, folio's first request over vipsthumbnail's run just after it"}
	b.add(r.check("≤ 1.0×", r.Sum.Median <= 1.0))
	b.add(row{Figure: "first crop request / vipsthumbnail, CPU time", Sum: summarize(cpuRatio), Unit: unitX})
	return nil
}

func vipsVersion(bin string) string {
	out, err := exec.Command(bin, "--vips-version").CombinedOutput()
	if err != nil {
		return "version unknown"
	}
	return strings.TrimSpace(string(out))
}

func timedGet(client *http.Client, u string) (time.Duration, int64, error) {
	t0 := time.Now()
	resp, err := client.Get(u)
	if err != nil {
		return 0, 0, err
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := time.Since(t0)
	if err != nil {
		return 0, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("GET %s: %d", u, resp.StatusCode)
	}
	return d, n, nil
}

func (b *bench) patchMedia(base, id, body string) error {
	req, err := http.NewRequest(http.MethodPatch, base+"/api/v1/media/"+id, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+b.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.client.Do(req)
	if err != nil {
		return err
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("PATCH: %d %s", resp.StatusCode, msg)
	}
	return nil
}
