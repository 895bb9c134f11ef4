package media

import (
	"bytes"
	"encoding/gob"
	"sync"
)

// entryEncoder writes log entries as encodeGob does, each a gob stream of
// its own that a fresh decoder reads (the type descriptors of logEntry,
// then the value), without making them again for every entry: a new
// gob.Encoder walks the whole type (an item's every field) to describe
// it, most of the CPU of an entry. The descriptors depend on the type
// alone (logEntry has no interface field, and gob's type ids are the
// process's), so they are made once; each entry is then that prefix and
// the value's message from one encoder kept for the purpose.
type entryEncoder struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// enc has sent the descriptors already; nil until the first entry,
	// and again after an error.
	enc    *gob.Encoder
	prefix []byte
}

// encode is encodeGob(e), byte for byte.
func (ee *entryEncoder) encode(e *logEntry) ([]byte, error) {
	ee.mu.Lock()
	defer ee.mu.Unlock()
	if ee.enc == nil && !ee.start() {
		return encodeGob(e)
	}
	ee.buf.Reset()
	if err := ee.enc.Encode(e); err != nil {
		ee.enc = nil
		return encodeGob(e)
	}
	out := make([]byte, len(ee.prefix)+ee.buf.Len())
	copy(out, ee.prefix)
	copy(out[len(ee.prefix):], ee.buf.Bytes())
	return out, nil
}

// start makes the encoder and the prefix: what a first entry writes
// before its value, which a second entry of the same value does not.
func (ee *entryEncoder) start() bool {
	var zero logEntry
	ee.buf.Reset()
	enc := gob.NewEncoder(&ee.buf)
	if enc.Encode(&zero) != nil {
		return false
	}
	first := bytes.Clone(ee.buf.Bytes())
	ee.buf.Reset()
	if enc.Encode(&zero) != nil || !bytes.HasSuffix(first, ee.buf.Bytes()) {
		return false
	}
	ee.enc, ee.prefix = enc, first[:len(first)-ee.buf.Len()]
	return true
}
