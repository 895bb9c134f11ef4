package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// writeRSSBudget is the target (issue 29) of the RSS the worst write
// body within the limits may add to an idle server.
const writeRSSBudget = 256

// worstWriteConcurrency is how many worst bodies the concurrent pass
// sends at once.
const worstWriteConcurrency = 16

// worstWriteCase is one request of the worstwrite group.
type worstWriteCase struct {
	name         string
	method, path string
	body         func() io.Reader // nil: no body
	public       bool             // sent without a key
	status       int              // the expected answer of a lone request
}

// worstWriteSite is the site the group writes to: 120 public authors
// with 2 KB bios, each naming two others, and 100 public posts naming
// 30 authors each (expand=* on the posts' list brings 90 items a post).
func worstWriteSite() map[string]string {
	files := map[string]string{
		"folio.yaml":    "types:\n  posts:\n    public: true\n  authors:\n    public: true\n",
		"pages/home.md": "---\ntitle: Home\nisHomepage: true\n---\nHi.\n",
	}
	bio := strings.Repeat("A sentence of an author's biography, long enough to weigh. ", 35)
	for i := range 120 {
		files[fmt.Sprintf("content/authors/a%03d.md", i)] = fmt.Sprintf("---\ntitle: Author %d\nfriends: [authors/a%03d, authors/a%03d]\n---\n%s\n", i, (i+1)%120, (i+2)%120, bio)
	}
	for i := range 100 {
		var refs []string
		for j := range 30 {
			refs = append(refs, fmt.Sprintf("authors/a%03d", (i*30+j)%120))
		}
		files[fmt.Sprintf("content/posts/p%03d.md", i)] = fmt.Sprintf("---\ntitle: Post %d\ndate: 2026-01-10\nby: [%s]\n---\nText.\n", i, strings.Join(refs, ", "))
	}
	return files
}

// worstWriteCases are the costliest bodies within the write limits
// (docs/api.md, "Limits"), and two the limits refuse before decoding.
func worstWriteCases() []worstWriteCase {
	deep := func() io.Reader {
		// 100 levels (the parser's limit) with 99,000 strings at the
		// bottom: YAML indents each of them 100 deep.
		var b bytes.Buffer
		b.WriteString(`{"data": {"x": `)
		b.WriteString(strings.Repeat(`{"a": `, 97))
		b.WriteString(`["x"`)
		b.WriteString(strings.Repeat(`,"x"`, 99_000))
		b.WriteString(`]`)
		b.WriteString(strings.Repeat(`}`, 97))
		b.WriteString(`}}`)
		return &b
	}
	tooDeep := func() io.Reader {
		return strings.NewReader(`{"data": {"x": ` + strings.Repeat(`{"a": `, 9000) + `1` + strings.Repeat(`}`, 9000) + `}}`)
	}
	many := func() io.Reader {
		// 33,000 small objects: 99,000 tokens (the limit is 100,000),
		// 2.2 MB of JSON, 2 MB of YAML: written.
		var b bytes.Buffer
		b.WriteString(`{"title": "Many", "list": [`)
		for i := range 33_000 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"k":"%06d %s"}`, i, strings.Repeat("v", 44))
		}
		b.WriteString(`]}`)
		return &b
	}
	media := func() io.Reader {
		// A 50 MB PDF (the upload limit), as Decap sends it: one JSON
		// string of 67 MB of base64, made as it is sent.
		pr, pw := io.Pipe()
		go func() {
			_, err := io.WriteString(pw, `{"action":"persistMedia","params":{"branch":"main","asset":{"path":"uploads/big.pdf","encoding":"base64","content":"`)
			if err == nil {
				enc := base64.NewEncoder(base64.StdEncoding, pw)
				_, err = io.WriteString(enc, "%PDF-1.4\n")
				if err == nil {
					_, err = io.Copy(enc, io.LimitReader(zeros{}, 50<<20-64))
				}
				if err == nil {
					err = enc.Close()
				}
			}
			if err == nil {
				_, err = io.WriteString(pw, `"}}}`)
			}
			pw.CloseWithError(err)
		}()
		return pr
	}
	entry := func() io.Reader {
		// An entry of 500,000 short lines: 8 MB as JSON (the RPC's text
		// limit), refused as a file over 4 MB once decoded.
		return strings.NewReader(`{"action":"persistEntry","params":{"branch":"main","dataFiles":[{"slug":"big","path":"content/posts/big.md","raw":"---\ntitle: Big\n---\n` +
			strings.Repeat(`a line of text\n`, 500_000) + `"}],"assets":[],"options":{"commitMessage":"Create big"}}}`)
	}
	return []worstWriteCase{
		{"PATCH, 100 levels deep, 99,000 values (refused when encoded: YAML over 4 MB)", "PATCH", "/api/v1/content/posts/p000", deep, false, http.StatusRequestEntityTooLarge},
		{"PATCH, 9,000 levels deep in 54 KB (refused before decoding)", "PATCH", "/api/v1/content/posts/p001", tooDeep, false, http.StatusBadRequest},
		{"POST, 33,000 small objects, 99,000 values (written: 2 MB of YAML)", "POST", "/api/v1/content/posts", many, false, http.StatusCreated},
		{"Decap persistMedia, a 50 MB file as 67 MB of base64", "POST", "/api/v1/decap", media, false, http.StatusOK},
		{"Decap persistEntry, an 8 MB entry (refused when decoded: a file over 4 MB)", "POST", "/api/v1/decap", entry, false, http.StatusRequestEntityTooLarge},
		{"public GET of 11 posts with expand=* (990 references, the cap is 1,000)", "GET", "/api/v1/public/collections/posts?limit=11&expand=*", nil, true, http.StatusOK},
	}
}

// zeros reads an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// worstWrites sends each worst write to a fresh writing box, alone and
// then worstWriteConcurrency at once, and reports the largest RSS growth
// (VmHWM after minus VmRSS before) and the time of each.
func (b *bench) worstWrites() error {
	cases := worstWriteCases()
	var single, together []float64
	perSingle := make([][]float64, len(cases))
	perTogether := make([][]float64, len(cases))
	took := make([][]float64, len(cases))
	for run := range b.runs {
		topSingle, topTogether := 0.0, 0.0
		for i, c := range cases {
			for _, n := range []int{1, worstWriteConcurrency} {
				grew, d, err := b.worstWriteOnce(fmt.Sprintf("worstwrite-%d-%d-%d", run, i, n), c, n)
				if err != nil {
					return fmt.Errorf("%s (%d at once): %w", c.name, n, err)
				}
				b.logf("  %s, %d at once: +%.0f MB in %v", c.name, n, grew, d.Round(time.Millisecond))
				if n == 1 {
					perSingle[i] = append(perSingle[i], grew)
					took[i] = append(took[i], ms(d))
					topSingle = max(topSingle, grew)
				} else {
					perTogether[i] = append(perTogether[i], grew)
					topTogether = max(topTogether, grew)
				}
			}
		}
		single = append(single, topSingle)
		together = append(together, topTogether)
	}
	var notes, notesTogether []string
	for i, c := range cases {
		notes = append(notes, fmt.Sprintf("%s: %.0f MB in %.0f ms", c.name, summarize(perSingle[i]).Median, summarize(took[i]).Median))
		notesTogether = append(notesTogether, fmt.Sprintf("%s: %.0f MB", c.name, summarize(perTogether[i]).Median))
	}
	r := row{Figure: "worst write body RSS", Sum: summarize(single), Unit: unitMB,
		Note: "largest RSS growth (VmHWM after minus VmRSS before, fresh writing box of 220 documents each) of one request of: " + strings.Join(notes, "; ")}
	b.add(r.check(fmt.Sprintf("≤ %d MB", writeRSSBudget), r.Sum.Max <= writeRSSBudget))
	rt := row{Figure: fmt.Sprintf("worst write bodies RSS, %d at once", worstWriteConcurrency), Sum: summarize(together), Unit: unitMB,
		Note: fmt.Sprintf("the same, %d copies of each sent at once (writes are made one at a time; bodies of 256 KB or more decoded two at a time): ", worstWriteConcurrency) + strings.Join(notesTogether, "; ")}
	b.add(rt)
	return nil
}

// worstWriteOnce starts a writing box on a fresh copy of worstWriteSite,
// sends n copies of c at once, and returns the RSS growth in MB and the
// time until the last answer.
func (b *bench) worstWriteOnce(name string, c worstWriteCase, n int) (float64, time.Duration, error) {
	tmp, err := b.scratch(name)
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(tmp)
	work, bare := filepath.Join(tmp, "work"), filepath.Join(tmp, "site.git")
	for p, content := range worstWriteSite() {
		full := filepath.Join(work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return 0, 0, err
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return 0, 0, err
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "site"}, {"clone", "-q", "--bare", ".", bare}} {
		if err := git(work, args...); err != nil {
			return 0, 0, err
		}
	}
	s, err := b.startFolio(serveOpts{Site: "file://" + bare, Media: filepath.Join(tmp, "media"), CacheDir: filepath.Join(tmp, "cache"),
		Log: filepath.Join(b.tmp, name+".log")})
	if err != nil {
		return 0, 0, err
	}
	defer s.stop()
	if _, err := s.waitReady(b.client, "/api/v1/public/collections/posts", "", readyLimit); err != nil {
		return 0, 0, err
	}
	before, err1 := procStatus(s.pid(), "VmRSS")
	err2 := resetPeak(s.pid())
	if err := firstErr(err1, err2); err != nil {
		return 0, 0, err
	}
	client := newClient(n)
	client.Timeout = 10 * time.Minute // 16 writes wait for each other
	t0 := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			status, body, err := b.sendWorst(client, s.base, c)
			switch {
			case err != nil:
				errs[i] = err
			case n == 1 && status != c.status:
				errs[i] = fmt.Errorf("status %d, want %d: %.200s", status, c.status, body)
			case status >= 500:
				errs[i] = fmt.Errorf("status %d: %.200s", status, body)
			}
		})
	}
	wg.Wait()
	d := time.Since(t0)
	hwm, err := procStatus(s.pid(), "VmHWM")
	if err := firstErr(append(errs, err)...); err != nil {
		return 0, 0, err
	}
	return hwm - before, d, nil
}

// sendWorst sends one request of c and reads its answer.
func (b *bench) sendWorst(client *http.Client, base string, c worstWriteCase) (int, []byte, error) {
	var body io.Reader
	if c.body != nil {
		body = c.body()
	}
	req, err := http.NewRequest(c.method, base+c.path, body)
	if err != nil {
		return 0, nil, err
	}
	if !c.public {
		req.Header.Set("Authorization", "Bearer "+b.key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}
