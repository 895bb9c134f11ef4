package gitsource

import (
	"container/list"
	"fmt"
	"io"
	"runtime"
	"sync"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"

	"github.com/folio-cms/folio/content"
)

// Markdown bodies are most of a site's bytes (640 MB of the 100k-file
// bench site's 655 MB), and a server needs each only when it first
// renders it (or indexes it for search). So a document the Source
// parsed does not keep its body: it keeps where the body starts in its
// blob, and reads the blob again from the repository when the body is
// needed. Blobs are named by their content, so what is read is what was
// parsed. The parse cache then holds that offset instead of the text.

// blobReader reads blobs on demand, for any goroutine: a few object
// stores (go-git's are not safe for concurrent use), each with a reader
// of whole blobs straight from the packs, lent out one per read. A blob
// it cannot find (written to a pack after the stores were opened, or
// repacked away) makes it open everything again, once per read.
type blobReader struct {
	gitDir  string
	objects cache.Object // delta bases, shared by the stores

	recent recentBlobs
	idle   int // how many idle stores are kept

	mu    sync.Mutex
	gen   int        // bumped by refresh; older conns are closed when returned
	packs *packBlobs // nil until first needed
	free  []*blobConn
}

type blobConn struct {
	gen int
	st  *objectStore
	pr  *packReader
}

// blobReaderCache is the delta-base cache of body reads: most blobs of a
// packed site are whole objects, which need none.
const blobReaderCache = 8 * cache.MiByte

func newBlobReader(gitDir string) *blobReader {
	return &blobReader{gitDir: gitDir, objects: cache.NewObjectLRU(blobReaderCache), recent: recentBlobs{limit: recentBlobsBytes},
		idle: max(2, runtime.NumCPU())}
}

func (r *blobReader) get() *blobConn {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.free); n > 0 {
		c := r.free[n-1]
		r.free = r.free[:n-1]
		return c
	}
	if r.packs == nil {
		r.packs = openPackBlobs(r.gitDir)
	}
	return &blobConn{
		gen: r.gen,
		st:  openObjectStorage(r.gitDir, r.objects),
		pr:  r.packs.reader(),
	}
}

func (r *blobReader) put(c *blobConn) {
	r.mu.Lock()
	keep := c.gen == r.gen && len(r.free) < r.idle
	if keep {
		r.free = append(r.free, c)
	}
	r.mu.Unlock()
	if !keep {
		c.close()
	}
}

func (c *blobConn) close() {
	c.pr.Close()
	c.st.Close()
}

// refresh drops the stores and pack indexes opened so far: the next read
// opens the repository's current packs.
func (r *blobReader) refresh(gen int) {
	r.mu.Lock()
	if r.gen != gen {
		r.mu.Unlock()
		return // refreshed already
	}
	r.gen++
	r.packs = nil
	free := r.free
	r.free = nil
	r.mu.Unlock()
	for _, c := range free {
		c.close()
	}
}

// read returns the bytes of blob h; the caller must not modify them.
func (r *blobReader) read(h plumbing.Hash) ([]byte, error) {
	if data, ok := r.recent.get(h); ok {
		return data, nil
	}
	data, gen, err := r.readOnce(h)
	if err != nil {
		r.refresh(gen)
		if data, _, err = r.readOnce(h); err != nil {
			return nil, err
		}
	}
	r.recent.put(h, data)
	return data, nil
}

// recentBlobs keeps the blobs read last, up to a number of bytes: the
// hits of a search are read for their snippets, and the same searches
// come again (about 50 µs a read saved, 20 hits a page).
type recentBlobs struct {
	mu    sync.Mutex
	limit int
	size  int
	m     map[plumbing.Hash]*list.Element
	order list.List // of recentBlob, most recent first
}

type recentBlob struct {
	h    plumbing.Hash
	data []byte
}

// recentBlobsBytes bounds the blobs kept: about a thousand documents of
// the bench site.
const recentBlobsBytes = 8 << 20

func (c *recentBlobs) get(h plumbing.Hash) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[h]
	if e == nil {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(recentBlob).data, true
}

func (c *recentBlobs) put(h plumbing.Hash, data []byte) {
	if len(data) > c.limit/16 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[plumbing.Hash]*list.Element{}
	}
	if _, ok := c.m[h]; ok {
		return
	}
	c.m[h] = c.order.PushFront(recentBlob{h: h, data: data})
	c.size += len(data)
	for c.size > c.limit {
		last := c.order.Back()
		b := c.order.Remove(last).(recentBlob)
		delete(c.m, b.h)
		c.size -= len(b.data)
	}
}

func (r *blobReader) readOnce(h plumbing.Hash) ([]byte, int, error) {
	c := r.get()
	defer r.put(c)
	if data, size, ok := c.pr.read(h); ok {
		if data == nil {
			return nil, c.gen, fmt.Errorf("blob %s: %d bytes, over the limit", h, size)
		}
		return data, c.gen, nil
	}
	obj, err := c.st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, c.gen, fmt.Errorf("blob %s: %w", h, err)
	}
	if obj.Size() < 0 {
		return nil, c.gen, fmt.Errorf("blob %s: corrupt object (size %d)", h, obj.Size())
	}
	if obj.Size() > content.MaxFileSize {
		return nil, c.gen, fmt.Errorf("blob %s: %d bytes, over the limit", h, obj.Size())
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, c.gen, fmt.Errorf("blob %s: %w", h, err)
	}
	defer rd.Close()
	data := make([]byte, obj.Size())
	if _, err := io.ReadFull(rd, data); err != nil {
		return nil, c.gen, fmt.Errorf("blob %s: %w", h, err)
	}
	return data, c.gen, nil
}

// close releases the idle stores; reads after it open new ones.
func (r *blobReader) close() {
	r.refresh(r.currentGen())
}

func (r *blobReader) currentGen() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gen
}

// lazyBody is the body that starts at byte off of blob h, a document
// file of extension ext (Markdown, or HTML: content.LazyBodyOf).
func (s *Source) lazyBody(h plumbing.Hash, ext string, off int) content.Markdown {
	return content.LazyBodyOf(ext, func() (string, error) { return s.blobBody(h, off) })
}

// blobBody is the text of blob h from byte off on.
func (s *Source) blobBody(h plumbing.Hash, off int) (string, error) {
	data, err := s.blobs.read(h)
	if err == nil && off > len(data) {
		err = fmt.Errorf("blob %s: %d bytes, body said to start at %d", h, len(data), off)
	}
	if err != nil {
		s.log.Error("source: cannot read a document's body from the repository", "err", err)
		return "", err
	}
	if off == len(data) {
		return "", nil
	}
	// No copy: nothing writes the bytes of a blob read (blobs.read),
	// and a build of the search index reads every body once.
	return unsafe.String(&data[off], len(data)-off), nil
}

// bodyInBlob is lazyBody's reader as a value: a restart's decode makes
// those of a block of documents in one slice (decodeBlock), not a
// closure for each document.
type bodyInBlob struct {
	s *Source
	h plumbing.Hash
	// off is at most content.MaxFileSize (the decode checks it): an
	// int32 beside the hash, 32 bytes a body, not 40.
	off int32
}

// A body's offset fits bodyInBlob.off (a compile error otherwise).
const _ int32 = content.MaxFileSize

// BodySource is the body's text (content.BodySource).
func (b *bodyInBlob) BodySource() (string, error) { return b.s.blobBody(b.h, int(b.off)) }

// bodyOffset is where d's Markdown body starts in data, the bytes it was
// parsed from, or -1 when d has no body or its body is not data's tail
// (then it stays in memory).
func bodyOffset(d *content.Doc, data []byte) int {
	if d == nil || !d.HasBody || d.Body.Lazy() {
		return -1
	}
	src := d.Body.Source()
	if src == "" || len(src) > len(data) {
		return -1
	}
	off := len(data) - len(src)
	if string(data[off:]) != src {
		return -1
	}
	return off
}
