package gitsource

import (
	"encoding/hex"
	"path"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/chunks"
)

// docKey names a parsed document: the blob's content and the extension that
// chose its parser (the same blob as .md and as .yaml parses differently).
type docKey struct {
	blob plumbing.Hash
	ext  string
}

func newDocKey(blob plumbing.Hash, p string) docKey {
	return docKey{blob: blob, ext: path.Ext(p)}
}

// blobName is h in hex, as plumbing.Hash.String, in one allocation (the
// hex package's makes a slice, then the string: a Load names every file's
// blob, and half of that was garbage among the documents kept).
func blobName(h plumbing.Hash) string {
	var b [2 * len(h)]byte
	hex.Encode(b[:], h[:])
	return string(b[:])
}

type docEntry struct {
	doc  *content.Doc
	used uint64 // generation (Load count) that last used it
	// bodyOff is where the body starts in the blob, when doc reads it
	// from there (see source_body.go); -1 when doc holds its body or has
	// none.
	bodyOff int
}

// parsedDoc is a document a Load parsed, and its bodyOff.
type parsedDoc struct {
	doc     *content.Doc
	bodyOff int
}

// pathTimes is the Updated time of every relevant path of one commit.
type pathTimes struct {
	commit plumbing.Hash
	times  *timeMap
	id     uint64 // unique among the attributions this cache held
}

const (
	// docKeepLoads: a document unused by this many Loads is dropped, so a
	// long-running server does not keep every version of every file.
	docKeepLoads = 16
	// docSweepLoads: how often (in Loads) documents are checked for it.
	docSweepLoads = 4
	// keepPathTimes: attributions kept for incremental Updated times; a few,
	// so alternating loads of a published and a draft branch both stay warm.
	keepPathTimes = 4
)

// docCache holds parsed documents by blob and the per-path times of recent
// commits. Only successful parses are cached: a failure is cheap to repeat
// and its error may name the path.
type docCache struct {
	mu   sync.Mutex
	gen  uint64
	docs *docIndex
	// loose are the documents that may be in no Load's list: those a
	// patched Load's files left (gone or changed), and at a full Load
	// those it did not use. A patched Load's sweep looks at these only,
	// not at every document (a million at 1M) after marking every one
	// its list holds.
	loose   map[docKey]*docEntry
	times   []pathTimes // most recently used first
	timesID uint64      // the last pathTimes.id given
	dirty   bool        // changed since the last save or load
	unsaved int         // documents parsed since the last save or load
	onDisk  bool        // the cache file holds an earlier state of this cache
	fromDsk int         // entries loaded from the persisted cache
	fetched int         // entries taken from a fetched cache (AdoptCache)

	stats SourceStats
}

// SourceStats are counters for tests and the status endpoint.
type SourceStats struct {
	Loads          int           // Load calls that succeeded
	Parsed         int           // blobs read and parsed (cache misses), all Loads
	CacheHits      int           // documents taken from the cache, all Loads
	CachedDocs     int           // documents in the cache now
	LoadedFromDisk int           // documents read from the persisted cache at open
	Adopted        int           // documents taken from another box's cache (AdoptCache)
	CommitsWalked  int           // commits compared to attribute Updated times, all Loads
	LastLoad       time.Duration // wall time of the last Load
	LastParsed     int           // cache misses of the last Load
}

func newDocCache() *docCache {
	return &docCache{docs: newDocIndex(0)}
}

// Stats returns the source's counters.
func (s *Source) Stats() SourceStats {
	c := s.docs
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.stats
	st.CachedDocs = c.docs.len()
	st.LoadedFromDisk = c.fromDsk
	st.Adopted = c.fetched
	return st
}

// begin starts a Load's generation.
func (c *docCache) begin() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	return c.gen
}

// lookup calls fn with a get that returns the cache entry of a key, or
// nil: one lock for a Load's many lookups. fn may set the entries' used
// (it holds the lock).
func (c *docCache) lookup(gen uint64, fn func(get func(docKey) *docEntry)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fn(c.docs.get)
}

// finish records a Load's new documents, those it parsed and those it
// decoded into entries (decodeFirst), drops stale ones, and returns the
// entries of the new ones. full tells a Load that marked every document
// its list holds used (not a patched one).
func (c *docCache) finish(gen uint64, parsed map[docKey]parsedDoc, decoded map[docKey]*docEntry, hits int, walked int, took time.Duration, full bool) map[docKey]*docEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	// A first start's decoded documents: their map is the one returned
	// (the Load's own; a second map of a million entries otherwise).
	n := len(parsed) + len(decoded)
	added := decoded
	if added == nil {
		added = make(map[docKey]*docEntry, len(parsed))
	}
	for k, e := range decoded {
		e.used = gen
		c.docs.set(k, e)
		c.dirty = true
	}
	for k, d := range parsed {
		e := &docEntry{doc: d.doc, used: gen, bodyOff: d.bodyOff}
		c.docs.set(k, e)
		added[k] = e
		c.dirty = true
	}
	// Stale documents are looked for every docSweepLoads Loads, not after
	// each (a walk over every document of the site): one stays up to
	// docKeepLoads+docSweepLoads-1 Loads.
	sweep := gen%docSweepLoads == 0
	switch {
	case full:
		// every document is looked at: those this Load did not use
		// are the loose ones
		if sweep && c.docs.deleteIf(func(e *docEntry) bool { return gen-e.used >= docKeepLoads }) {
			c.dirty = true
		}
		c.loose = map[docKey]*docEntry{}
		for k, e := range c.docs.all() {
			if e.used != gen {
				c.loose[k] = e
			}
		}
	case sweep:
		for k, e := range c.loose {
			if c.docs.get(k) != e {
				delete(c.loose, k) // dropped or replaced since
			} else if gen-e.used >= docKeepLoads {
				c.docs.delete(k)
				delete(c.loose, k)
				c.dirty = true
			}
		}
	}
	c.unsaved += n
	c.stats.Loads++
	c.stats.Parsed += n
	c.stats.LastParsed = n
	c.stats.CacheHits += hits
	c.stats.CommitsWalked += walked
	c.stats.LastLoad = took
	return added
}

// pathTimesFor returns the known attribution of commit h and its id, or
// nil. The map is never changed.
func (c *docCache) pathTimesFor(h plumbing.Hash) (*timeMap, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, pt := range c.times {
		if pt.commit == h {
			// Move to front: recently used attributions are kept.
			copy(c.times[1:i+1], c.times[:i])
			c.times[0] = pt
			return pt.times, pt.id
		}
	}
	return nil, 0
}

// knownCommits returns the commits with a known attribution.
func (c *docCache) knownCommits() map[plumbing.Hash]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := make(map[plumbing.Hash]bool, len(c.times))
	for _, pt := range c.times {
		m[pt.commit] = true
	}
	return m
}

// putPathTimes records the attribution of commit h and returns its id.
func (c *docCache) putPathTimes(h plumbing.Hash, times *timeMap) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, pt := range c.times {
		if pt.commit == h {
			c.times = append(c.times[:i], c.times[i+1:]...)
			break
		}
	}
	c.timesID++
	c.times = append([]pathTimes{{commit: h, times: times, id: c.timesID}}, c.times...)
	if len(c.times) > keepPathTimes {
		c.times = c.times[:keepPathTimes]
	}
	c.dirty = true
	return c.timesID
}

// leave notes the documents of the files at paths gone of a list (files
// and their entries docs, in path order) as loose: the sweep drops them
// once no Load has used them for docKeepLoads Loads. One taken again by
// a Load is marked used then. (A document two files share stays loose
// when one of them goes: dropped from the cache, it is parsed again at
// the next start; the list keeps serving it.) c.mu is held.
func (c *docCache) leave(files chunks.List[gitFile], docs chunks.List[*docEntry], gone []string) {
	for _, p := range gone {
		i, found := findFile(files, p)
		if !found {
			continue
		}
		if e := docs.At(i); e != nil {
			f := files.Ptr(i)
			if c.loose == nil {
				c.loose = map[docKey]*docEntry{}
			}
			c.loose[newDocKey(f.blob, f.path)] = e
		}
	}
}

// taken notes that a Load's list holds e (of key k) again: it is not
// loose. c.mu is held.
func (c *docCache) taken(k docKey, e *docEntry) {
	if c.loose[k] == e {
		delete(c.loose, k)
	}
}
