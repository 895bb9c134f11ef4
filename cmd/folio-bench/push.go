package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

const pushes = 20

// gitEnv keeps the user's Git configuration (hooks, signing) out of the
// measured pushes.
var gitEnv = []string{
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
	"GIT_AUTHOR_NAME=folio-bench", "GIT_AUTHOR_EMAIL=bench@localhost",
	"GIT_COMMITTER_NAME=folio-bench", "GIT_COMMITTER_EMAIL=bench@localhost",
}

func git(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return nil
}

var titleLine = regexp.MustCompile(`(?m)^title: .*$`)

// pushToServe measures pushes on each site size of -push-sizes.
func (b *bench) pushToServe() error { return b.eachPushSize(b.pushToServeAt) }

// eachPushSize runs at on each site size of -push-sizes, and returns
// the errors of all.
func (b *bench) eachPushSize(at func(n int) error) error {
	var errs []error
	for _, n := range b.pushSizes {
		if err := at(n); err != nil {
			errs = append(errs, fmt.Errorf("%s files: %w", sizeLabel(n), err))
		}
	}
	return errors.Join(errs...)
}

// serveClone clones the site at dir (its site.git) into a scratch bare
// repository and work tree named name, starts folio on the bare one
// with a scratch cache and the media root, and waits until it serves.
// It returns the server and the work tree.
func (b *bench) serveClone(dir, name, media string) (*server, string, error) {
	tmp, bare, work, err := b.scratchClone(dir, name, true)
	if err != nil {
		return nil, "", err
	}
	cache, err := b.scratch(name + "-cache")
	if err != nil {
		return nil, "", err
	}
	s, err := b.startFolio(serveOpts{Site: bare, Media: media, CacheDir: cache, Log: filepath.Join(tmp, "folio.log")})
	if err != nil {
		return nil, "", err
	}
	if _, err := s.waitReady(b.client, "/api/v1/pages", b.key, readyLimit); err != nil {
		s.stop()
		return nil, "", err
	}
	return s, work, nil
}

// pushToServeAt serves a bare clone of the site of n files, pushes
// one-file commits (a post's title) into it from a work tree, and times
// each from the start of `git push` to the first GET of the post that
// returns the new title.
func (b *bench) pushToServeAt(n int) error {
	dir, m, err := b.dataset(n, 0)
	if err != nil {
		return err
	}
	if len(m.Posts) == 0 {
		return fmt.Errorf("the generated site has no published post")
	}
	slug := m.Posts[0]
	media, err := b.scratch("push-media")
	if err != nil {
		return err
	}
	s, work, err := b.serveClone(dir, "push", media)
	if err != nil {
		return err
	}
	defer s.stop()
	// The search index is built in the background after the start; the
	// pushes measure the steady state, not a build's competition for
	// the CPU.
	if _, err := s.waitReady(b.client, "/api/v1/search?q=trail", b.key, searchBuiltLimit); err != nil {
		return err
	}
	file := filepath.Join(work, "content", "posts", slug+".md")
	url := s.base + "/api/v1/content/posts/" + slug
	var toServe, pushOnly, afterPush, toSearch []float64
	var samples []time.Duration
	for i := range pushes {
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		// The last word is new to the site: a search for it finds the
		// post once the index has the push.
		word := fmt.Sprintf("benchword%dx%d", i, time.Now().UnixNano())
		marker := "Bench edit " + word
		data = titleLine.ReplaceAll(data, []byte(`title: "`+marker+`"`))
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return err
		}
		if err := git(work, "commit", "-q", "-a", "-m", marker); err != nil {
			return err
		}
		t0 := time.Now()
		if err := git(work, "push", "-q", "origin", "main"); err != nil {
			return err
		}
		pushed := time.Since(t0)
		seen, err := b.pollFor(url, marker, t0, 30*time.Second)
		if err != nil {
			return fmt.Errorf("push %d: %w (log: %s)", i, err, s.logf.Name())
		}
		found, err := b.pollFor(s.base+"/api/v1/search?q="+word, `"slug":"`+slug+`"`, t0, 30*time.Second)
		if err != nil {
			return fmt.Errorf("push %d: search: %w (log: %s)", i, err, s.logf.Name())
		}
		toSearch = append(toSearch, ms(found))
		samples = append(samples, seen)
		toServe = append(toServe, ms(seen))
		pushOnly = append(pushOnly, ms(pushed))
		afterPush = append(afterPush, ms(seen-pushed))
	}
	slices.Sort(samples)
	label := sizeLabel(n) + " files"
	p50 := row{Figure: "push to serve, " + label + ", p50", Sum: summarize(toServe), Unit: unitMS,
		Note: fmt.Sprintf("start of `git push` of a one-file title edit into a local bare repository to the first GET /api/v1/content/posts/{slug} showing it (polled every 1 ms), %d pushes; min and max are over all pushes", pushes)}
	switch n {
	case 10000:
		p50 = p50.check("≤ 100 ms", p50.Sum.Median <= 100)
	case 100000:
		p50 = p50.check("≤ 250 ms", p50.Sum.Median <= 250)
	}
	b.add(p50)
	p95 := ms(percentile(samples, 0.95))
	b.add(row{Figure: "push to serve, " + label + ", p95", Sum: summary{Median: p95, Min: p95, Max: p95, N: 1}, Unit: unitMS})
	b.add(row{Figure: "… of which `git push` itself", Sum: summarize(pushOnly), Unit: unitMS})
	b.add(row{Figure: "… of which after `git push` returned (watch, load, swap)", Sum: summarize(afterPush), Unit: unitMS})
	b.add(row{Figure: "push to searchable, " + label, Sum: summarize(toSearch), Unit: unitMS,
		Note: "start of `git push` to the first GET /api/v1/search?q=<a word new in the edit> that finds the post (the index follows in the background after the swap; a search waits for it up to 1 s); measured after the post was served"})
	return nil
}

// pollFor GETs url until its body contains want, and returns the time
// since t0.
func (b *bench) pollFor(url, want string, t0 time.Time, limit time.Duration) (time.Duration, error) {
	deadline := t0.Add(limit)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+b.key)
		resp, err := b.client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && bytes.Contains(body, []byte(want)) {
				return time.Since(t0), nil
			}
		}
		time.Sleep(time.Millisecond)
	}
	return 0, fmt.Errorf("%q not served after %s", want, limit)
}
