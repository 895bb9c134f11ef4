package gitsource

import (
	"encoding/hex"
	"path"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio-cms/folio/content"
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
	mu      sync.Mutex
	gen     uint64
	docs    *docIndex
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

// finish records a Load's new documents, drops stale ones, and returns the
// entries of the new ones.
func (c *docCache) finish(gen uint64, parsed map[docKey]parsedDoc, hits int, walked int, took time.Duration) map[docKey]*docEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	added := make(map[docKey]*docEntry, len(parsed))
	for k, d := range parsed {
		e := &docEntry{doc: d.doc, used: gen, bodyOff: d.bodyOff}
		c.docs.set(k, e)
		added[k] = e
		c.dirty = true
	}
	// Stale documents are looked for every docSweepLoads Loads, not after
	// each (a walk over every document of the site): one stays up to
	// docKeepLoads+docSweepLoads-1 Loads.
	if gen%docSweepLoads == 0 {
		if c.docs.deleteIf(func(e *docEntry) bool { return gen-e.used >= docKeepLoads }) {
			c.dirty = true
		}
	}
	c.unsaved += len(parsed)
	c.stats.Loads++
	c.stats.Parsed += len(parsed)
	c.stats.LastParsed = len(parsed)
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
