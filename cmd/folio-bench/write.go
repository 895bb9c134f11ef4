package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"time"
)

const writes = 20

// writeToServe measures the write API on each site size of -push-sizes.
func (b *bench) writeToServe() error { return b.eachPushSize(b.writeToServeAt) }

// writeToServeAt serves a bare repository of the site of n files by URL
// (file://, so that the writing box clones it and pushes, as with a real
// remote) from a writing box and a --read-only box polling it every 50 ms,
// and times PATCHes of a post's title through the write API: from the
// request to its answer (the writing box then serves the new commit), and
// to the first GET on the read-only box that shows it.
func (b *bench) writeToServeAt(n int) error {
	dir, m, err := b.dataset(n, 0)
	if err != nil {
		return err
	}
	if len(m.Posts) == 0 {
		return fmt.Errorf("the generated site has no published post")
	}
	slug := m.Posts[0]
	tmp, bare, _, err := b.scratchClone(dir, "write", false)
	if err != nil {
		return err
	}
	var boxes []*server
	defer func() {
		for _, s := range boxes {
			s.stop()
		}
	}()
	// One media root, as two boxes of one host share it: the writer,
	// started first, makes the library state a --read-only box needs.
	media, err := b.scratch("write-media")
	if err != nil {
		return err
	}
	for _, name := range []string{"writer", "reader"} {
		cache, err := b.scratch("write-cache-" + name)
		if err != nil {
			return err
		}
		args := []string{"--poll", "50ms"}
		if name == "reader" {
			args = append(args, "--read-only")
		}
		s, err := b.startFolio(serveOpts{Site: "file://" + bare, Media: media, CacheDir: cache, Log: filepath.Join(tmp, name+".log"), Args: args})
		if err != nil {
			return err
		}
		boxes = append(boxes, s)
		if _, err := s.waitReady(b.client, "/api/v1/pages", b.key, readyLimit); err != nil {
			return err
		}
		if _, err := s.waitReady(b.client, "/api/v1/search?q=trail", b.key, searchBuiltLimit); err != nil {
			return err
		}
	}
	writer, reader := boxes[0], boxes[1]
	path := "/api/v1/content/posts/" + slug
	var answered, onReader []float64
	for i := range writes {
		marker := fmt.Sprintf("Write API edit %d at %d", i, time.Now().UnixNano())
		t0 := time.Now()
		req, _ := http.NewRequest("PATCH", writer.base+path, bytes.NewReader([]byte(`{"title": "`+marker+`"}`)))
		req.Header.Set("Authorization", "Bearer "+b.key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := b.client.Do(req)
		if err != nil {
			return fmt.Errorf("write %d: %w", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(t0)
		if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(marker)) {
			return fmt.Errorf("write %d: %d %s (log: %s)", i, resp.StatusCode, body, filepath.Join(tmp, "writer.log"))
		}
		seen, err := b.pollFor(reader.base+path, marker, t0, 30*time.Second)
		if err != nil {
			return fmt.Errorf("write %d on the read-only box: %w (log: %s)", i, err, filepath.Join(tmp, "reader.log"))
		}
		answered = append(answered, ms(took))
		onReader = append(onReader, ms(seen))
	}
	label := sizeLabel(n) + " files"
	w := row{Figure: "write to serve on the writing box, " + label + ", p50", Sum: summarize(answered), Unit: unitMS,
		Note: fmt.Sprintf("PATCH /api/v1/content/posts/{slug} (a title) to its answer, which the writing box serves from the new commit: validate, commit without a work tree, `git push` to a file:// remote, reload; %d writes", writes)}
	r := row{Figure: "write to serve on a read-only box, " + label + ", p50", Sum: summarize(onReader), Unit: unitMS,
		Note: "from the same request to the first GET on a --read-only box (polling the remote every 50 ms) that shows the edit"}
	if n == 10000 {
		w = w.check("≤ 300 ms", w.Sum.Median <= 300)
		r = r.check("≤ 300 ms", r.Sum.Median <= 300)
	}
	b.add(w)
	b.add(r)
	return nil
}
