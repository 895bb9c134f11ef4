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
	err     error
	done    chan struct{}
}

// decodeBlocks decodes the blocks of documents of a cache file (n: the
// number of documents the file says it holds, checked) into the map of
// the document cache, with their lines' keys in lines.
func (s *Source) decodeBlocks(blocks []docBlock, n int, lines *lineKeys) (map[docKey]*docEntry, error) {
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
					d.B, d.Err = blocks[i].data, nil
					b.keys, b.entries = s.decodeBlock(d, blocks[i].count)
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

// decodeBlock decodes the count documents of one block, d.B (the
// entries are kept: made to the size the block says).
func (s *Source) decodeBlock(d *cacheDecoder, count int) ([]docKey, []docEntry) {
	keys := make([]docKey, 0, count)
	entries := make([]docEntry, 0, count)
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
	if len(keys) != count {
		d.Fail() // not the block that was written
	}
	return keys, entries
}
