package gitsource

import (
	"bytes"
	"sync"

	"github.com/folio-cms/folio/content"
)

// encodeFirstMin is SourceConfig.EncodeFirstMin's default: the number of
// documents the first Load of a Source (a start with no parse cache)
// parses from which it holds them in the parse cache's form while it
// parses.
//
// A parsed document (its front matter's map, its strings, its packed
// lines) is heavier than the same document decoded from the parse cache
// (a list of fields, keys and short values interned, lines in a shared
// table), and while a million of them are parsed they and the parser's
// garbage sit on the heap: the collector's goal, twice the live heap at
// the end of the parse, let a first start at a million files peak at
// 5.1 GB where a restart, decoding the same documents from the cache,
// peaks at 3.6 GB on the same live heap at ready. So each worker encodes
// the documents it parses into blocks of the cache file's form (bytes
// the collector does not scan) and drops them; once every blob is
// parsed, the blocks are decoded on every core as a restart decodes the
// cache file (decodeBlocksEach), and the first start's documents are
// exactly the restart's.
const encodeFirstMin = 1 << 14

// firstBlocks are the blocks of encoded documents of a first Load's
// workers.
type firstBlocks struct {
	mu     sync.Mutex
	blocks []docBlock
	docs   int // documents in blocks
}

// firstEncoder is one parse worker's: the block it encodes documents
// into, handed to blocks when it is about cacheBlock bytes.
type firstEncoder struct {
	e      *cacheEncoder
	count  int
	blocks *firstBlocks
}

func newFirstEncoder(blocks *firstBlocks) *firstEncoder {
	return &firstEncoder{e: newCacheEncoder(make([]byte, 0, cacheBlock+64<<10)), blocks: blocks}
}

// add encodes doc (key k, body at bodyOff) as the cache file holds it;
// false when it cannot be (a value the cache does not know: the parsed
// document is kept as it is).
func (fe *firstEncoder) add(k docKey, doc *content.Doc, bodyOff int) bool {
	mark := len(fe.e.B)
	fe.e.B = append(fe.e.B, k.blob[:]...)
	fe.e.Str(k.ext)
	if err := fe.e.doc(doc, bodyOff); err != nil {
		fe.e.B = fe.e.B[:mark]
		return false
	}
	fe.count++
	if len(fe.e.B) >= cacheBlock {
		fe.flush()
	}
	return true
}

// flush hands the block encoded so far to blocks, a copy of its size:
// the encoder's buffer is reused.
func (fe *firstEncoder) flush() {
	if fe.count == 0 {
		return
	}
	b := docBlock{data: bytes.Clone(fe.e.B), count: fe.count}
	fe.e.B, fe.count = fe.e.B[:0], 0
	fe.blocks.mu.Lock()
	fe.blocks.blocks = append(fe.blocks.blocks, b)
	fe.blocks.docs += b.count
	fe.blocks.mu.Unlock()
}

// decodeFirst decodes the blocks of a first Load's encoded documents
// into cache entries, each block's bytes let go once decoded, their
// lines of keys in the Source's table (made here when no cache file was
// read).
func (s *Source) decodeFirst(fb *firstBlocks) (map[docKey]*docEntry, error) {
	blocks := fb.blocks
	fb.blocks = nil
	i := 0
	next := func([]byte) (docBlock, bool, error) { // called under decodeBlocksEach's lock
		if i == len(blocks) {
			return docBlock{}, false, nil
		}
		b := blocks[i]
		blocks[i] = docBlock{}
		i++
		return b, true, nil
	}
	// No document of the cache file was handed out yet (this is the
	// first Load): its table may take more keys.
	s.docs.mu.Lock()
	lines := s.lineKeys
	if lines == nil {
		lines = newLineKeys()
		s.lineKeys = lines
	}
	s.docs.mu.Unlock()
	docs := make(map[docKey]*docEntry, fb.docs)
	err := s.decodeBlocksEach(next, lines, func(b decodedBlock) {
		for j, k := range b.keys {
			docs[k] = &b.entries[j]
		}
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}
