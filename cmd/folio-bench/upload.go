package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"io/fs"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// uploadServer starts folio on the 1k site (shared warm cache) with an
// empty media library of its own, and waits until the content search index
// is built: that background start-up work (tens of MB) is not the upload's
// memory or time.
func (b *bench) uploadServer(name string) (*server, string, error) {
	dir, _, err := b.dataset(1000, 0)
	if err != nil {
		return nil, "", err
	}
	media, err := b.scratch(name + "-media")
	if err != nil {
		return nil, "", err
	}
	s, err := b.startFolio(serveOpts{Site: filepath.Join(dir, "site"), Media: media,
		CacheDir: filepath.Join(b.tmp, "cache-upload-"+b.cur.name), Log: filepath.Join(b.tmp, name+".log")})
	if err != nil {
		return nil, "", err
	}
	if _, err := s.waitReady(b.client, "/api/v1/media", b.key, readyLimit); err != nil {
		s.stop()
		return nil, "", err
	}
	if _, err := s.waitReady(b.client, "/api/v1/search?q=trail", b.key, searchBuiltLimit); err != nil {
		s.stop()
		return nil, "", err
	}
	return s, media, nil
}

// upload POSTs one file as multipart/form-data. The body is produced by a
// goroutine into a pipe while the request is sent, so the client never
// holds the file in memory either.
func (b *bench) upload(base, filename string, src io.Reader) (int, []byte, time.Duration, error) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		part, err := mw.CreateFormFile("files", filename)
		if err == nil {
			_, err = io.Copy(part, src)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequest("POST", base+"/api/v1/media", pr)
	if err != nil {
		return 0, nil, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+b.key)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	client := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 5 * time.Minute}
	defer client.CloseIdleConnections()
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		pr.CloseWithError(err)
		return 0, nil, 0, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, body, time.Since(t0), err
}

// uploadOK checks a 201 with one item and no errors.
func uploadOK(status int, body []byte) error {
	var r struct {
		Data   []json.RawMessage `json:"data"`
		Errors []json.RawMessage `json:"errors"`
	}
	if status != http.StatusCreated {
		return fmt.Errorf("status %d: %.300s", status, body)
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return err
	}
	if len(r.Data) != 1 || len(r.Errors) != 0 {
		return fmt.Errorf("want one item and no errors: %.300s", body)
	}
	return nil
}

// derivatives uploads a 12-megapixel JPEG and times the request: the
// upload response comes after every derivative is written. Each run has a
// fresh process, so its peak RSS belongs to this upload alone.
func (b *bench) derivatives() error {
	photo, err := b.photo()
	if err != nil {
		return err
	}
	fi, err := os.Stat(photo)
	if err != nil {
		return err
	}
	var wall, cpu, peak, growth []float64
	for i := range b.runs {
		s, media, err := b.uploadServer(fmt.Sprintf("folio-derive-%d", i))
		if err != nil {
			return err
		}
		before, err1 := procStatus(s.pid(), "VmRSS")
		err2 := resetPeak(s.pid())
		f, err3 := os.Open(photo)
		c0, err4 := cpuTime(s.pid())
		if err := firstErr(err1, err2, err3, err4); err != nil {
			s.stop()
			return err
		}
		status, body, d, err := b.upload(s.base, "photo-12mp.jpg", bufio.NewReader(f))
		f.Close()
		c1, cerr := cpuTime(s.pid())
		hwm, herr := procStatus(s.pid(), "VmHWM")
		s.stop()
		if err := firstErr(err, uploadOK(status, body), cerr, herr); err != nil {
			return err
		}
		if n := countWebP(media); n != 4 {
			return fmt.Errorf("%d WebP derivatives on disk after the upload, want 4", n)
		}
		wall, cpu, peak, growth = append(wall, ms(d)), append(cpu, ms(c1-c0)), append(peak, hwm), append(growth, hwm-before)
	}
	b.add(row{Figure: "12 MP JPEG upload with 4 WebP derivatives: wall time", Sum: summarize(wall), Unit: unitMS,
		Note: fmt.Sprintf("4000×3000 JPEG (%.1f MB) POSTed as multipart over loopback; the 201 comes after the derivatives (150, 400, 800, 1200 px) are stored; fresh process per run", float64(fi.Size())/1e6)})
	b.add(row{Figure: "… folio CPU time per upload", Sum: summarize(cpu), Unit: unitMS,
		Note: "/proc/<pid>/stat utime+stime around the upload (10 ms ticks): steadier than wall time on a shared machine"})
	b.add(row{Figure: "12 MP JPEG upload: peak RSS (VmHWM)", Sum: summarize(peak), Unit: unitMB})
	b.add(row{Figure: "12 MP JPEG upload: RSS growth", Sum: summarize(growth), Unit: unitMB,
		Note: "VmHWM after the upload minus VmRSS before it (peak reset before the upload)"})
	return nil
}

// bigUploadBytes is "50 MB", just under the 50 MiB local upload limit.
const bigUploadBytes = 50_000_000

// bigUpload streams a 50 MB PDF and measures throughput and how much the
// server's peak RSS grows: an upload must stream to disk, not to memory.
func (b *bench) bigUpload() error {
	var tput, growth []float64
	for i := range b.runs {
		s, _, err := b.uploadServer(fmt.Sprintf("folio-upload-%d", i))
		if err != nil {
			return err
		}
		before, err1 := procStatus(s.pid(), "VmRSS")
		err2 := resetPeak(s.pid())
		if err := firstErr(err1, err2); err != nil {
			s.stop()
			return err
		}
		status, body, d, err := b.upload(s.base, "big.pdf", newPDFStream(bigUploadBytes, uint64(i)))
		hwm, herr := procStatus(s.pid(), "VmHWM")
		s.stop()
		if err := firstErr(err, uploadOK(status, body), herr); err != nil {
			return err
		}
		tput, growth = append(tput, bigUploadBytes/1e6/d.Seconds()), append(growth, hwm-before)
	}
	b.add(row{Figure: "50 MB upload: throughput", Sum: summarize(tput), Unit: unitMBs,
		Note: "a 50,000,000-byte PDF streamed as chunked multipart from a generator over loopback; fresh process per run"})
	g := row{Figure: "50 MB upload: RSS growth", Sum: summarize(growth), Unit: unitMB,
		Note: "VmHWM after the upload minus VmRSS before it (peak reset before the upload)"}
	b.add(g.check("≤ 32 MB", g.Sum.Median <= 32))
	return b.worstUploads()
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func countWebP(root string) int {
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".webp") && !strings.Contains(p, "/.") {
			n++
		}
		return nil
	})
	return n
}

// pdfStream yields a PDF header then pseudo-random bytes (so nothing on the
// way can compress it), n bytes in all, from a 64 KiB block.
type pdfStream struct {
	left  int
	block []byte
	off   int
	head  []byte
}

func newPDFStream(n int, seed uint64) *pdfStream {
	r := rand.New(rand.NewPCG(seed, 0xb16))
	block := make([]byte, 64<<10)
	for i := range block {
		block[i] = byte(r.UintN(256))
	}
	return &pdfStream{left: n, block: block, head: []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")}
}

func (p *pdfStream) Read(buf []byte) (int, error) {
	if p.left == 0 {
		return 0, io.EOF
	}
	if len(buf) > p.left {
		buf = buf[:p.left]
	}
	n := 0
	if len(p.head) > 0 {
		n = copy(buf, p.head)
		p.head = p.head[n:]
	} else {
		n = copy(buf, p.block[p.off:])
		p.off = (p.off + n) % len(p.block)
	}
	p.left -= n
	return n, nil
}

// photo returns a cached 4000×3000 JPEG: gradients with noise, so that it
// compresses like a photograph rather than a flat test card.
func (b *bench) photo() (string, error) {
	path := filepath.Join(b.dataDir, fmt.Sprintf("photo-4000x3000-s%d.jpg", b.seed))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	b.logf("generating %s", filepath.Base(path))
	const w, h = 4000, 3000
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(b.seed, 0xf070))
	for y := range h {
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x := range w {
			n := int(r.UintN(48)) - 24
			row[4*x] = clamp(x*255/w + n)
			row[4*x+1] = clamp(y*255/h + n)
			row[4*x+2] = clamp((x+y)*255/(w+h) - n)
			row[4*x+3] = 255
		}
	}
	if err := os.MkdirAll(b.dataDir, 0o755); err != nil {
		return "", err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriter(f)
	err = jpeg.Encode(bw, img, &jpeg.Options{Quality: 90})
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

func clamp(v int) uint8 {
	return uint8(min(255, max(0, v)))
}
