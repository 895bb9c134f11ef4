package engine

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/folio-cms/folio/content"
)

// gitFile is one relevant blob (or symlink) of a commit's tree.
type gitFile struct {
	path string
	blob plumbing.Hash
	mode filemode.FileMode
}

// Load reads every relevant file of a commit, taking parsed documents from
// the cache and parsing the rest in parallel. Files that cannot be served
// (symlinks, oversized blobs, parse failures) come back with Err set; an
// error means the commit itself could not be read.
func (s *Source) Load(ctx context.Context, commit string) (*Tree, error) {
	if !plumbing.IsHash(commit) {
		return nil, fmt.Errorf("source: load %q: not a commit hash", commit)
	}
	h := plumbing.NewHash(commit)
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	start := time.Now()

	objects := cache.NewObjectLRU(loadCacheSize)
	st := s.openStorage(objects)
	defer st.Close()
	c, err := object.GetCommit(st, h)
	if err != nil {
		return nil, fmt.Errorf("source: load commit %s: %w", commit, err)
	}
	var files []gitFile
	if err := walkTree(st, c.TreeHash, "", s.cfg.Relevant, &files); err != nil {
		return nil, fmt.Errorf("source: load commit %s: %w", commit, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })

	times, walked, err := s.attribute(ctx, st, c, files)
	if err != nil {
		return nil, fmt.Errorf("source: load commit %s: history: %w", commit, err)
	}

	gen := s.docs.begin()
	out := make([]content.File, len(files))
	misses := map[docKey][]int{} // one parse per distinct blob and extension
	hits := 0
	for i, f := range files {
		out[i] = content.File{Path: f.path, Updated: times[f.path]}
		if f.mode == filemode.Symlink {
			// The link target could be anything on this machine
			// (/etc/passwd); it is never resolved or read.
			out[i].Err = content.Problem{Path: f.path, Message: "symlink not followed"}
			continue
		}
		k := newDocKey(f.blob, f.path)
		if d := s.docs.get(k, gen); d != nil {
			out[i].Doc = d
			hits++
			continue
		}
		misses[k] = append(misses[k], i)
	}
	parsed, err := s.parseMisses(ctx, objects, misses, out)
	if err != nil {
		return nil, fmt.Errorf("source: load commit %s: %w", commit, err)
	}
	s.docs.finish(gen, parsed, hits, walked, time.Since(start))
	return &Tree{Commit: h.String(), Time: c.Committer.When.UTC(), Files: out}, nil
}

// walkTree lists the relevant regular files and symlinks below tree h.
// Submodules are skipped: their commits are not in this repository.
func walkTree(st storer.EncodedObjectStorer, h plumbing.Hash, prefix string, relevant func(string) bool, out *[]gitFile) error {
	t, err := object.GetTree(st, h)
	if err != nil {
		return fmt.Errorf("tree %s%s: %w", prefix, h, err)
	}
	for _, e := range t.Entries {
		p := prefix + e.Name
		switch e.Mode {
		case filemode.Dir:
			if err := walkTree(st, e.Hash, p+"/", relevant, out); err != nil {
				return err
			}
		case filemode.Submodule:
		case filemode.Regular, filemode.Executable, filemode.Deprecated, filemode.Symlink:
			if relevant(p) {
				*out = append(*out, gitFile{path: p, blob: e.Hash, mode: e.Mode})
			}
		}
	}
	return nil
}

type parseResult struct {
	key docKey
	doc *content.Doc
	err error
}

// parseMisses reads and parses the missed blobs with cfg.Workers workers,
// each on its own object store, fills out, and returns the new documents.
func (s *Source) parseMisses(ctx context.Context, objects cache.Object, misses map[docKey][]int, out []content.File) (map[docKey]*content.Doc, error) {
	parsed := map[docKey]*content.Doc{}
	if len(misses) == 0 {
		return parsed, nil
	}
	keys := make([]docKey, 0, len(misses))
	for k := range misses {
		keys = append(keys, k)
	}
	results := make([]parseResult, len(keys))
	workers := min(s.cfg.Workers, len(keys))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		readErr error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := s.openStorage(objects)
			defer st.Close()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(keys) {
					return
				}
				k := keys[i]
				first := out[misses[k][0]].Path
				doc, perr, err := s.readParse(st, k.blob, first)
				if err != nil {
					errOnce.Do(func() { readErr = err })
					cancel()
					return
				}
				results[i] = parseResult{key: k, doc: doc, err: perr}
			}
		}()
	}
	wg.Wait()
	if readErr != nil {
		return nil, readErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, r := range results {
		idx := misses[keys[i]]
		if r.err == nil {
			parsed[r.key] = r.doc
			for _, j := range idx {
				out[j].Doc = r.doc
			}
			continue
		}
		out[idx[0]].Err = r.err
		// Errors may name the path, so a shared blob gets each path's own.
		for _, j := range idx[1:] {
			out[j].Err = s.reparseErr(objects, r, out[j].Path)
		}
	}
	return parsed, nil
}

// reparseErr gives the failure of a blob under another path. An oversized
// blob is refused on its size again, not read.
func (s *Source) reparseErr(objects cache.Object, r parseResult, p string) error {
	st := s.openStorage(objects)
	defer st.Close()
	_, perr, err := s.readParse(st, r.key.blob, p)
	if err != nil {
		return err
	}
	return perr
}

func tooLarge(p string, size int64) content.Problem {
	return content.Problem{Path: p, Message: fmt.Sprintf("file is %d bytes, larger than the %d byte limit; not read", size, content.MaxFileSize)}
}

// readParse reads one blob and parses it. perr is the file's problem (too
// large, does not parse); err means the repository could not be read.
func (s *Source) readParse(st storer.EncodedObjectStorer, blob plumbing.Hash, p string) (doc *content.Doc, perr, err error) {
	// Stores open with LargeObjectThreshold, and packs return objects over
	// 16 KB lazily, so a large blob's size is known without reading it.
	obj, err := st.EncodedObject(plumbing.BlobObject, blob)
	if err != nil {
		return nil, nil, fmt.Errorf("blob %s (%s): %w", blob, p, err)
	}
	if obj.Size() > content.MaxFileSize {
		return nil, tooLarge(p, obj.Size()), nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, nil, fmt.Errorf("blob %s (%s): %w", blob, p, err)
	}
	data := make([]byte, obj.Size())
	_, err = io.ReadFull(rd, data)
	rd.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("blob %s (%s): %w", blob, p, err)
	}
	doc, perr = s.safeParse(p, data)
	if perr == nil && doc == nil {
		perr = content.Problem{Path: p, Message: "parser returned no document"}
	}
	return doc, perr, nil
}

// safeParse keeps a parser panic on one file from taking the server down.
func (s *Source) safeParse(p string, data []byte) (doc *content.Doc, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("source: parser panic", "path", p, "panic", r)
			doc, err = nil, content.Problem{Path: p, Message: "internal parser error"}
		}
	}()
	return s.cfg.Parse(p, data)
}
