package gitsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/folio-cms/folio/content"
)

type parseResult struct {
	key     docKey
	doc     *content.Doc
	bodyOff int
	err     error
}

// parseMisses reads and parses the missed blobs with cfg.Workers workers,
// each on its own object store, fills out, and returns the new documents.
// With encode, the workers hold the documents they parse in the parse
// cache's form, decoded once all are parsed (source_load_encode.go):
// those are returned as the cache entries they were decoded into,
// decoded.
func (s *Source) parseMisses(ctx context.Context, objects cache.Object, misses map[docKey][]int, out func(i int) *content.File, encode bool) (parsed map[docKey]parsedDoc, decoded map[docKey]*docEntry, err error) {
	parsed = map[docKey]parsedDoc{}
	if len(misses) == 0 {
		return parsed, nil, nil
	}
	keys := make([]docKey, 0, len(misses))
	firsts := make([]string, 0, len(misses)) // the path of each key's first file
	for k, idx := range misses {
		keys = append(keys, k)
		firsts = append(firsts, out(idx[0]).Path)
	}
	workers := min(s.cfg.Workers, len(keys))
	// each worker's results but the documents it encoded (those are
	// read from decoded): no result per document held through the
	// decode, 80 MB at a million files
	results := make([][]parseResult, workers)
	var packs *packBlobs
	var blocks *firstBlocks
	if encode {
		blocks = &firstBlocks{}
	}
	if len(keys) >= s.cfg.PackBlobsMin {
		packs = openPackBlobs(s.gitDir)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		readErr error
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := s.openStorage(objects)
			defer st.Close()
			var pr *packReader
			if packs != nil {
				pr = packs.reader()
				// content.ParseLazy keeps nothing of the bytes it
				// parses (a body it leaves in the blob is read again):
				// one buffer per worker instead of one per blob, 6.7 KB
				// a file, a quarter of a first start's garbage.
				pr.reuse = s.cfg.Parse == nil
				defer pr.Close()
			}
			var enc *firstEncoder
			if blocks != nil {
				enc = newFirstEncoder(blocks)
				defer enc.flush()
			}
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(keys) {
					return
				}
				k := keys[i]
				doc, off, perr, err := s.readParseTolerant(st, pr, k.blob, firsts[i])
				if err != nil {
					errOnce.Do(func() { readErr = err })
					cancel()
					return
				}
				if perr == nil && enc != nil && enc.add(k, doc, off) {
					continue // the block holds it
				}
				results[w] = append(results[w], parseResult{key: k, doc: doc, bodyOff: off, err: perr})
			}
		}()
	}
	wg.Wait()
	if readErr != nil {
		return nil, nil, readErr
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if blocks != nil {
		decoded, err = s.decodeFirst(blocks)
		if err == nil && len(decoded) != blocks.docs {
			err = fmt.Errorf("%d documents decoded of %d encoded", len(decoded), blocks.docs)
		}
		if err != nil {
			// not the documents that were encoded (a value that does
			// not decode as it encoded): parsed again, as they are
			s.log.Warn("source: the first load's encoded documents do not decode; parsing them again", "err", err)
			return s.parseMisses(ctx, objects, misses, out, false)
		}
	}
	for k, e := range decoded {
		for _, j := range misses[k] {
			out(j).Doc = e.doc
		}
	}
	for _, r := range slices.Concat(results...) {
		idx := misses[r.key]
		if r.err == nil {
			parsed[r.key] = parsedDoc{doc: r.doc, bodyOff: r.bodyOff}
			for _, j := range idx {
				out(j).Doc = r.doc
			}
			continue
		}
		out(idx[0]).Err = r.err
		// Errors may name the path, so a shared blob gets each path's own.
		for _, j := range idx[1:] {
			f := out(j)
			f.Err = s.reparseErr(objects, r, f.Path)
		}
	}
	return parsed, decoded, nil
}

// reparseErr gives the failure of a blob under another path. An oversized
// blob is refused on its size again, not read.
func (s *Source) reparseErr(objects cache.Object, r parseResult, p string) error {
	st := s.openStorage(objects)
	defer st.Close()
	_, _, perr, err := s.readParseTolerant(st, nil, r.key.blob, p)
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
// The document's body, if any, is left in the repository (see
// source_body.go); bodyOff is where it starts in the blob, -1 when the
// document holds it.
func (s *Source) readParse(st storer.EncodedObjectStorer, pr *packReader, blob plumbing.Hash, p string) (doc *content.Doc, bodyOff int, perr, err error) {
	if data, size, ok := pr.read(blob); ok {
		if data == nil {
			return nil, -1, tooLarge(p, size), nil
		}
		return s.parseData(blob, p, data)
	}
	// Stores open with LargeObjectThreshold, and packs return objects over
	// 16 KB lazily, so a large blob's size is known without reading it.
	obj, err := st.EncodedObject(plumbing.BlobObject, blob)
	if err != nil {
		return nil, -1, nil, fmt.Errorf("blob %s (%s): %w", blob, p, err)
	}
	if obj.Size() < 0 {
		// A loose object's header says "blob -1": make would panic.
		return nil, -1, nil, fmt.Errorf("blob %s (%s): corrupt object (size %d)", blob, p, obj.Size())
	}
	if obj.Size() > content.MaxFileSize {
		return nil, -1, tooLarge(p, obj.Size()), nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, -1, nil, fmt.Errorf("blob %s (%s): %w", blob, p, err)
	}
	data := make([]byte, obj.Size())
	_, err = io.ReadFull(rd, data)
	rd.Close()
	if err != nil {
		return nil, -1, nil, fmt.Errorf("blob %s (%s): %w", blob, p, err)
	}
	return s.parseData(blob, p, data)
}

// readParseTolerant is readParse that makes a blob that cannot be decoded (a
// corrupt or missing object: "zlib: invalid header", a truncated object)
// a problem of its file, which is left out, rather than a failure of the
// whole load: a fresh box with no snapshot to keep must start and serve
// everything else. A failure to read the repository at all (an I/O error,
// no file descriptor left, the load cancelled) still fails the load.
func (s *Source) readParseTolerant(st storer.EncodedObjectStorer, pr *packReader, blob plumbing.Hash, p string) (doc *content.Doc, bodyOff int, perr, err error) {
	doc, bodyOff, perr, err = s.readParse(st, pr, blob, p)
	if err != nil && corruptObject(err) {
		return nil, -1, content.Problem{Path: p, Message: fmt.Sprintf("the Git object of this file cannot be read (%v); the file is left out until it is repaired", err)}, nil
	}
	return doc, bodyOff, perr, err
}

// corruptObject tells a damaged object from a repository that cannot be
// read now.
func corruptObject(err error) bool {
	var pe *fs.PathError
	var se *os.SyscallError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &pe), errors.As(err, &se),
		errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE), errors.Is(err, syscall.EIO), errors.Is(err, syscall.ENOMEM):
		return false
	}
	return true
}

func (s *Source) parseData(blob plumbing.Hash, p string, data []byte) (doc *content.Doc, bodyOff int, perr, err error) {
	lazyAt := -1 // the body ParseLazy made lazy, read from the blob again
	doc, perr = s.safeParse(p, data, func(off int) content.Markdown {
		lazyAt = off
		return s.lazyBody(blob, path.Ext(p), off)
	})
	if perr == nil && doc == nil {
		perr = content.Problem{Path: p, Message: "parser returned no document"}
	}
	bodyOff = -1
	switch {
	case perr != nil:
	case lazyAt >= 0 && doc.HasBody && doc.Body.Lazy():
		bodyOff = lazyAt
	default: // SourceConfig.Parse's body, a copy
		if bodyOff = bodyOffset(doc, data); bodyOff >= 0 {
			doc.Body = s.lazyBody(blob, path.Ext(p), bodyOff)
		}
	}
	return doc, bodyOff, perr, nil
}

// safeParse keeps a parser panic on one file from taking the server down.
// body makes a body that ParseLazy leaves in the blob (SourceConfig.Parse
// unset).
func (s *Source) safeParse(p string, data []byte, body func(off int) content.Markdown) (doc *content.Doc, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("source: parser panic", "path", p, "panic", r)
			doc, err = nil, content.Problem{Path: p, Message: "internal parser error"}
		}
	}()
	if s.cfg.Parse != nil {
		return s.cfg.Parse(p, data)
	}
	return content.ParseLazy(p, data, body)
}
