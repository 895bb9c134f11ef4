package gitsource

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/folio-cms/folio/engine/internal/bincodec"
)

// lineKeys are the keys of the lines of keys (content.Doc.KeyLines) of
// the documents one cache file held, each once. A document read from
// the cache keeps its lines as (index in lineKeys, line) pairs until a
// problem needs them: its keys are those of every other document of
// its type ("title", "date", "/tags/0"), and kept written out in each
// they were a fifth of the parse cache's documents at ready (about 190
// bytes a document at 100k). Made while the cache file is read (add
// takes mu: the file's blocks are decoded in parallel), not changed
// after: read by any goroutine without a lock.
type lineKeys struct {
	mu    sync.Mutex
	keys  []string
	index map[string]int
	// decodeFn is decode, made once (a method value per document is an
	// allocation per document).
	decodeFn func([]byte) map[string]int
}

func newLineKeys() *lineKeys {
	lk := &lineKeys{index: map[string]int{}}
	lk.decodeFn = lk.decode
	return lk
}

// add returns the index of key k (as bytes), adding it.
func (lk *lineKeys) add(k []byte) int {
	lk.mu.Lock()
	defer lk.mu.Unlock()
	if i, ok := lk.index[string(k)]; ok {
		return i
	}
	s := string(k)
	lk.keys = append(lk.keys, s)
	lk.index[s] = len(lk.keys) - 1
	return len(lk.keys) - 1
}

// compactLines reads the lines of keys as the cache file has them (a
// count, then each key and its line) and returns them as pairs of
// indexes in lk and lines (the count first); nil when there are none.
func (d *cacheDecoder) compactLines(lk *lineKeys) []byte {
	n := d.Count()
	if n == 0 || d.Err != nil {
		return nil
	}
	out := binary.AppendUvarint(d.scratch[:0], uint64(n))
	for range n {
		k := d.Bytes(d.Uvarint())
		l := d.Varint()
		i, ok := d.lineMemo[string(k)]
		if !ok {
			i = lk.add(k)
			if d.lineMemo != nil {
				d.lineMemo[string(k)] = i
			}
		}
		out = binary.AppendUvarint(out, uint64(i))
		out = binary.AppendVarint(out, l)
	}
	d.scratch = out
	if d.Err != nil {
		return nil
	}
	if d.in != nil {
		return d.in.slab.bytes(out) // in the decode's blocks: no object of its own
	}
	return slices.Clone(out)
}

// decode makes the map of compact lines (as compactLines made them).
func (lk *lineKeys) decode(enc []byte) map[string]int {
	d := bincodec.Decoder{B: enc}
	n := d.Count()
	lines := make(map[string]int, n)
	for range n {
		i := d.Uvarint()
		l := d.Varint()
		if i >= uint64(len(lk.keys)) {
			return nil
		}
		lines[lk.keys[i]] = int(l)
	}
	if d.Err != nil {
		return nil
	}
	return lines
}

// expand appends compact lines to e as the cache file has them: the
// bytes they were read from.
func (lk *lineKeys) expand(e *cacheEncoder, enc []byte) bool {
	d := bincodec.Decoder{B: enc}
	n := d.Count()
	e.Uvarint(uint64(n))
	for range n {
		i := d.Uvarint()
		l := d.Varint()
		if i >= uint64(len(lk.keys)) {
			return false
		}
		e.Str(lk.keys[i])
		e.Varint(l)
	}
	return d.Err == nil
}
