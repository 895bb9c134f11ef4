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
// The map of documents is filled by the caller's goroutine, block after
// block in file order, while the workers decode the next ones.

// decodedBlock is what a worker made of one block.
type decodedBlock struct {
	keys    []docKey
	entries []docEntry
	err     error
	done    chan struct{}
}

// decodeBlocks decodes the blocks of documents of a cache file (n: the
// number of documents the file says it holds, checked) into the map of
// the document cache, with their lines' keys in lines.
func (s *Source) decodeBlocks(blocks [][]byte, n int, lines *lineKeys) (map[docKey]*docEntry, error) {
	out := make([]decodedBlock, len(blocks))
	for i := range out {
		out[i].done = make(chan struct{})
	}
	var next atomic.Int64
	var failed atomic.Bool
	workers := min(runtime.GOMAXPROCS(0), len(blocks))
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			d := &cacheDecoder{in: newInterner(), lines: lines, lineMemo: map[string]int{}}
			for {
				i := int(next.Add(1)) - 1
				if i >= len(blocks) {
					return
				}
				b := &out[i]
				if !failed.Load() {
					d.B, d.Err = blocks[i], nil
					b.keys, b.entries = s.decodeBlock(d)
					if b.err = d.Err; b.err != nil {
						failed.Store(true)
					}
				}
				close(b.done)
			}
		})
	}
	defer wg.Wait()
	docs := make(map[docKey]*docEntry, n)
	for i := range out {
		b := &out[i]
		<-b.done
		if b.err != nil {
			return nil, b.err
		}
		for j, k := range b.keys {
			docs[k] = &b.entries[j]
		}
		b.keys = nil
	}
	return docs, nil
}

// decodeBlock decodes the documents of one block, d.B.
func (s *Source) decodeBlock(d *cacheDecoder) ([]docKey, []docEntry) {
	// about one document per 200 bytes, grown if there are more
	keys := make([]docKey, 0, len(d.B)/200+1)
	entries := make([]docEntry, 0, len(d.B)/200+1)
	for d.Err == nil && len(d.B) > 0 {
		var k docKey
		copy(k.blob[:], d.Bytes(20))
		k.ext = d.key()
		doc, off := d.doc(k.ext, func(off int) content.Markdown { return s.lazyBody(k.blob, k.ext, off) })
		if d.Err != nil {
			break
		}
		keys = append(keys, k)
		entries = append(entries, docEntry{doc: doc, bodyOff: off})
	}
	return keys, entries
}
