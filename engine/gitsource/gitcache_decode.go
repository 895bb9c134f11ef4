package gitsource

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/folio-cms/folio/content"
)

// A restart decodes the parse cache's documents, a million of them at a
// million files, before it can look any up: the file holds them in
// blocks (writeCache), decoded here by one worker per core. Each worker
// has its own interner; the table of the lines' keys is shared
// (lineKeys.add takes its lock, a worker remembers the keys it saw).
// The workers read the blocks from the file in turn (cacheReader.block: a
// block's bytes are let go once decoded); the map of documents is
// filled by the caller's goroutine as they are decoded.

// docBlock is one block of documents of a cache file: its bytes and the
// number of documents it says it holds (at most one per 24 bytes).
type docBlock struct {
	data  []byte
	count int
}

// decodedBlock is what a worker made of one block.
type decodedBlock struct {
	keys    []docKey
	entries []docEntry
}

// decodeBlocks decodes the blocks of documents of a cache file, as next
// reads them (false: no more), into the map of the document cache (n:
// the number of documents the file says it holds, checked), with their
// lines' keys in lines. Each worker hands next the bytes of the block it
// decoded last, which next may read the next block into: a decoded
// document keeps none of its block's bytes.
func (s *Source) decodeBlocks(next func(reuse []byte) (docBlock, bool, error), n int, lines *lineKeys) (*docIndex, error) {
	docs := newDocIndex(n)
	err := s.decodeBlocksEach(next, lines, func(b decodedBlock) {
		for j, k := range b.keys {
			docs.set(k, &b.entries[j])
		}
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// decodeBlocksEach decodes the blocks next reads, as decodeBlocks, and
// hands each decoded block to each, on the caller's goroutine.
func (s *Source) decodeBlocksEach(next func(reuse []byte) (docBlock, bool, error), lines *lineKeys, each func(decodedBlock)) error {
	var (
		mu      sync.Mutex // next, ended
		ended   bool       // next said there are no more
		failed  atomic.Bool
		errOnce sync.Once
		err     error
		wg      sync.WaitGroup
	)
	fail := func(e error) {
		errOnce.Do(func() { err = e })
		failed.Store(true)
	}
	decoded := make(chan decodedBlock, 4)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			d := &cacheDecoder{in: newInterner(), lines: lines, lineMemo: map[string]int{}}
			var last []byte // the bytes of the block decoded last
			for !failed.Load() {
				mu.Lock()
				var b docBlock
				var ok bool
				var e error
				if !ended {
					b, ok, e = next(last)
					ended = !ok
				}
				mu.Unlock()
				if e != nil {
					fail(e)
				}
				if !ok {
					return
				}
				d.B, d.Err = b.data, nil
				var out decodedBlock
				out.keys, out.entries = s.decodeBlock(d, b.count)
				if d.Err != nil {
					fail(d.Err)
					return
				}
				last = b.data
				decoded <- out
			}
		})
	}
	go func() {
		wg.Wait()
		close(decoded)
	}()
	for b := range decoded {
		each(b)
	}
	return err
}

// decodeBlock decodes the count documents of one block, d.B (the
// entries are kept: made to the size the block says).
func (s *Source) decodeBlock(d *cacheDecoder, count int) ([]docKey, []docEntry) {
	keys := make([]docKey, 0, count)
	entries := make([]docEntry, 0, count)
	var bodies []bodyInBlob // the readers of the block's bodies, made once
	var k docKey
	inBlob := func(off int) content.BodySource {
		if bodies == nil {
			bodies = make([]bodyInBlob, 0, count)
		}
		if len(bodies) == cap(bodies) {
			return &bodyInBlob{s: s, h: k.blob, off: int32(off)} // more bodies than documents: a corrupt block, failed below
		}
		bodies = append(bodies, bodyInBlob{s: s, h: k.blob, off: int32(off)})
		return &bodies[len(bodies)-1]
	}
	for d.Err == nil && len(d.B) > 0 {
		k = docKey{}
		copy(k.blob[:], d.Bytes(20))
		k.ext = d.key()
		doc, off := d.doc(k.ext, inBlob)
		if d.Err != nil {
			break
		}
		keys = append(keys, k)
		entries = append(entries, docEntry{doc: doc, bodyOff: off})
	}
	if len(keys) != count {
		d.Fail() // not the block that was written
	}
	return keys, entries
}
