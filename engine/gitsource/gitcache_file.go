package gitsource

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/folio-cms/folio/engine/internal/atomicfile"
)

// The cache file: magic, the cache key (parser generation), the site, the
// number of documents, the documents in blocks (each introduced by a 2
// byte, its length and its number of documents; ended by a 0), the recent per-path times, and a CRC-32 of everything before it. Written atomically, so a
// crash leaves the old file or the new one.
// Version 3 holds where a Markdown body starts in its blob, which the
// server reads again when it needs the body; version 2 held the Markdown
// source, version 1 the HTML.
// Version 4 kept the lines of the documents' keys, version 5 also what
// Parse found of their strings for the reference checker (RefHint), and
// the number of documents after the site. Version 6 writes the
// documents in blocks a restart decodes in parallel.
const cacheMagic = "folio-parsed-docs/6\n"

// SaveCache writes the parsed documents and recent Updated times to the
// cache file, so a restart skips parsing. The file is tens of MB for a large
// site, so after the first write it is rewritten only once many documents
// (1000, or a tenth of the cache) were parsed since: a few lost documents
// cost a few parses at the next start. Close writes whatever is left.
func (s *Source) SaveCache() error { return s.saveCache(false) }

func (s *Source) saveCache(force bool) error {
	if s.cache == "" {
		return nil
	}
	s.saveMu.Lock()
	defer s.saveMu.Unlock()

	c := s.docs
	c.mu.Lock()
	worth := !c.onDisk || c.unsaved >= max(1000, c.docs.len()/10)
	if !c.dirty || !(force || worth) {
		c.mu.Unlock()
		return nil
	}
	unsaved := c.unsaved
	c.unsaved = 0
	docs := make([]keyedDoc, 0, c.docs.len())
	for k, e := range c.docs.all() {
		docs = append(docs, keyedDoc{k, parsedDoc{doc: e.doc, bodyOff: e.bodyOff}})
	}
	times := append([]pathTimes(nil), c.times...)
	lines := s.lineKeys // set with c.mu held (decodeFirst)
	c.dirty = false
	c.mu.Unlock()

	// Documents are immutable, so they are encoded outside the lock,
	// and written as they are encoded: the whole file is not held (367
	// MB at a million files, while a first start reaches ready).
	var skipped int
	err := atomicfile.WriteFunc(s.cache, func(w io.Writer) error {
		var err error
		skipped, err = writeCache(w, cacheChunk, s.cfg.CacheKey, s.siteID(), docs, times, lines)
		return err
	})
	if skipped > 0 {
		s.log.Debug("source: documents not persisted (unencodable values)", "count", skipped)
	}
	if err != nil {
		c.mu.Lock()
		c.dirty = true
		c.unsaved += unsaved
		c.mu.Unlock()
		return fmt.Errorf("source: save cache: %w", err)
	}
	c.mu.Lock()
	c.onDisk = true
	c.mu.Unlock()
	return nil
}

// keyedDoc is a document of the cache and its key.
type keyedDoc struct {
	key docKey
	parsedDoc
}

func encodeCache(key, site string, docs map[docKey]parsedDoc, times []pathTimes) ([]byte, int) {
	return encodeCacheLines(key, site, docs, times, nil)
}

// encodeCacheLines is encodeCache of documents whose lines of keys, when
// read from the cache, are compact in lines.
func encodeCacheLines(key, site string, docs map[docKey]parsedDoc, times []pathTimes, lines *lineKeys) ([]byte, int) {
	list := make([]keyedDoc, 0, len(docs))
	for k, d := range docs {
		list = append(list, keyedDoc{k, d})
	}
	var b bytes.Buffer
	skipped, _ := writeCache(&b, cacheChunk, key, site, list, times, lines) // a Buffer does not fail
	return b.Bytes(), skipped
}

// cacheChunk is how much of the cache file writeCache holds before it
// writes it out.
const cacheChunk = 1 << 20

// cacheBlock is about how many bytes of documents one block of the cache
// file holds: a restart decodes the blocks in parallel (gitcache_decode.go).
const cacheBlock = 256 << 10

// writeCache writes the cache file of docs and times to w, at most chunk
// bytes at a time (each document whole: one that cannot be encoded is
// taken back), and returns how many documents it left out. The
// documents are written in blocks of about cacheBlock bytes, each
// introduced by a 2, its length and its number of documents, so that a restart can decode them
// in parallel.
func writeCache(w io.Writer, chunk int, key, site string, docs []keyedDoc, times []pathTimes, lines *lineKeys) (int, error) {
	e := newCacheEncoder(make([]byte, 0, chunk+64<<10))
	blk := newCacheEncoder(make([]byte, 0, cacheBlock+64<<10))
	blk.lines = lines
	sum := uint32(0)
	flush := func(force bool) error {
		if len(e.B) < chunk && !force {
			return nil
		}
		for b := e.B; len(b) > 0; {
			n := min(len(b), chunk)
			sum = crc32.Update(sum, crc32.IEEETable, b[:n])
			if _, err := w.Write(b[:n]); err != nil {
				return err
			}
			b = b[n:]
		}
		e.B = e.B[:0]
		return nil
	}
	// block moves the documents encoded so far into the file, as a
	// block: its length and its number of documents, then them.
	inBlock := 0
	block := func() error {
		if inBlock == 0 {
			return nil
		}
		e.B = append(e.B, 2)
		e.Uvarint(uint64(len(blk.B)))
		e.Uvarint(uint64(inBlock))
		e.B = append(e.B, blk.B...)
		blk.B, inBlock = blk.B[:0], 0
		return flush(false)
	}
	e.B = append(e.B, cacheMagic...)
	e.Str(key)
	e.Str(site)
	e.Uvarint(uint64(len(docs))) // at most: those not encodable are skipped
	skipped := 0
	for _, d := range docs {
		mark := len(blk.B)
		blk.B = append(blk.B, d.key.blob[:]...)
		blk.Str(d.key.ext)
		if err := blk.doc(d.doc, d.bodyOff); err != nil {
			blk.B = blk.B[:mark]
			skipped++
		} else {
			inBlock++
		}
		if len(blk.B) >= cacheBlock {
			if err := block(); err != nil {
				return skipped, err
			}
		}
	}
	if err := block(); err != nil {
		return skipped, err
	}
	e.B = append(e.B, 0)
	e.Uvarint(uint64(len(times)))
	for _, pt := range times {
		e.B = append(e.B, pt.commit[:]...)
		e.Uvarint(uint64(pt.times.len()))
		for p, secs := range pt.times.inPathOrder() {
			e.Str(p)
			t := timeAt(secs)
			bin, err := t.MarshalBinary()
			if err != nil {
				bin, _ = t.UTC().MarshalBinary()
			}
			e.Str(string(bin))
			if err := flush(false); err != nil {
				return skipped, err
			}
		}
	}
	if err := flush(true); err != nil {
		return skipped, err
	}
	_, err := w.Write(binary.LittleEndian.AppendUint32(nil, sum))
	return skipped, err
}

// loadCache reads the cache file into the empty document cache. A file
// written for another parser generation or site is ignored.
func (s *Source) loadCache() error {
	s.docs.mu.Lock()
	defer s.docs.mu.Unlock()
	return s.loadCacheLocked()
}

// loadCacheLocked is loadCache with the document cache's lock held (a
// Source opens with it held while the file is read in the background:
// OpenSource). The file is read a block at a time (gitcache_read.go).
func (s *Source) loadCacheLocked() error {
	f, err := os.Open(s.cache)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := newCacheReader(f)
	if err != nil {
		return err
	}
	key, err1 := r.str()
	site, err2 := r.str()
	if err := cmp.Or(err1, err2); err != nil {
		return err
	}
	if key != s.cfg.CacheKey {
		s.log.Info("source: parsed-document cache is from another build; parsing afresh")
		return nil
	}
	if site != s.siteID() {
		return nil
	}
	// The map is made for the documents the file says it holds, at
	// most one per 32 bytes left: no map to grow through 100k
	// documents.
	n, err := r.uvarint()
	if err != nil {
		return err
	}
	dc := decodedCache{key: key, site: site, lines: newLineKeys()}
	if dc.docs, err = s.decodeBlocks(r.block, int(min(n, uint64(r.unread()/32))), dc.lines); err != nil {
		return err
	}
	// the recent times and the checksum, which must be the file's
	tail, err := io.ReadAll(r.br)
	if err != nil {
		return err
	}
	if len(tail) < 4 || r.sum != binary.LittleEndian.Uint32(tail[len(tail)-4:]) {
		return errCacheCorrupt
	}
	if dc.times, err = decodeTimes(newCacheDecoder(tail[:len(tail)-4])); err != nil {
		return err
	}
	s.installCacheLocked(dc, false)
	return nil
}

// decodedCache is a cache file read: the parser generation and site it
// names, its documents and recent Updated times.
type decodedCache struct {
	key, site string
	docs      *docIndex
	times     []pathTimes
	lines     *lineKeys
}

// decodeCache reads a whole cache file in memory (another box's: a
// Source reads its own file a block at a time, loadCacheLocked): its
// magic and CRC-32, then what it holds, if accept takes the parser
// generation and site it names (else docs is nil).
func (s *Source) decodeCache(data []byte, accept func(key, site string) bool) (decodedCache, error) {
	if len(data) < len(cacheMagic)+4 || string(data[:len(cacheMagic)]) != cacheMagic {
		return decodedCache{}, errCacheVersion
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return decodedCache{}, errCacheCorrupt
	}
	d := newCacheDecoder(body[len(cacheMagic):])
	dc := decodedCache{key: d.Str(), site: d.Str(), lines: newLineKeys()}
	if d.Err != nil {
		return decodedCache{}, d.Err
	}
	if !accept(dc.key, dc.site) {
		return dc, nil
	}
	n := min(d.Uvarint(), uint64(len(d.B)/32))
	// the blocks as they are in data
	next := func([]byte) (docBlock, bool, error) { // no bytes to read: data holds them
		switch tag := d.Byte1(); {
		case d.Err != nil:
			return docBlock{}, false, d.Err
		case tag == 0:
			return docBlock{}, false, nil
		case tag != 2:
			d.Fail()
			return docBlock{}, false, d.Err
		}
		size := d.Uvarint()
		count := d.Uvarint()
		b := docBlock{data: d.Bytes(size), count: int(min(count, size/24))}
		return b, d.Err == nil, d.Err
	}
	docs, err := s.decodeBlocks(next, int(n), dc.lines)
	if err != nil {
		return decodedCache{}, err
	}
	if dc.times, err = decodeTimes(d); err != nil {
		return decodedCache{}, err
	}
	dc.docs = docs
	return dc, nil
}

// decodeTimes reads the recent Updated times at the end of a cache file.
func decodeTimes(d *cacheDecoder) ([]pathTimes, error) {
	nt := d.Count()
	var times []pathTimes
	var paths strSlab // a string per path would be an object per file
	for range nt {
		if d.Err != nil {
			break
		}
		var pt pathTimes
		copy(pt.commit[:], d.Bytes(20))
		m := d.Count()
		// written in path order (inPathOrder): kept as read, in two
		// slices; a file of another order is made a map
		ps, at := make([]string, 0, m), make([]int64, 0, m)
		inOrder := true
		for range m {
			p := paths.str(d.Bytes(d.Uvarint()))
			var t time.Time
			if err := t.UnmarshalBinary(d.Bytes(d.Uvarint())); err != nil || t.Nanosecond() != 0 || t.Location() != time.UTC {
				d.Fail() // not a commit's time as a timeMap keeps it
				break
			}
			inOrder = inOrder && (len(ps) == 0 || ps[len(ps)-1] < p)
			ps, at = append(ps, p), append(at, secs(t))
		}
		if inOrder {
			pt.times = newTimeMapSorted(ps, at)
		} else {
			m := make(map[string]int64, len(ps))
			for i, p := range ps {
				m[p] = at[i]
			}
			pt.times = newTimeMapSecs(m)
		}
		times = append(times, pt)
	}
	if d.Err != nil {
		return nil, d.Err
	}
	if len(times) > keepPathTimes {
		times = times[:keepPathTimes]
	}
	return times, nil
}

// installCache makes dc the document cache (empty until now). The cache
// file holds it, unless it came from elsewhere (fetched): then the next
// save writes it.
func (s *Source) installCache(dc decodedCache, fetched bool) {
	s.docs.mu.Lock()
	defer s.docs.mu.Unlock()
	s.installCacheLocked(dc, fetched)
}

// installCacheLocked is installCache with the document cache's lock held.
func (s *Source) installCacheLocked(dc decodedCache, fetched bool) {
	c := s.docs
	s.lineKeys = dc.lines // before any document read from the file is encoded
	c.docs = dc.docs
	for i := range dc.times {
		c.timesID++
		dc.times[i].id = c.timesID
	}
	c.times = dc.times
	c.unsaved = 0
	if fetched {
		c.fetched = dc.docs.len()
		c.dirty, c.onDisk = true, false
		return
	}
	c.fromDsk = dc.docs.len()
	c.dirty = false
	c.onDisk = true
}

// readCacheFileAfter reads the cache file, after checking its magic (a
// cache of an earlier version, version 2 held every body, 670 MB at
// 100k files, is not read at all), into a buffer with room bytes before
// the file's, left zero: buf[room:] is the file.
func readCacheFileAfter(name string, room int) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	head := make([]byte, len(cacheMagic))
	if fi.Size() < int64(len(cacheMagic)+4) {
		return nil, errCacheVersion
	}
	if _, err := io.ReadFull(f, head); err != nil || string(head) != cacheMagic {
		return nil, errCacheVersion
	}
	buf := make([]byte, int64(room)+fi.Size())
	data := buf[room:]
	copy(data, head)
	if _, err := io.ReadFull(f, data[len(head):]); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return buf, nil
}

// staleTempAge is how old a temporary cache file must be to be taken for
// the leftover of a write that never finished (the process was killed):
// a write takes well under a second.
const staleTempAge = time.Minute

// removeStaleTemps removes the temporary files of cache writes that were
// cut short (a kill -9 during a write leaves one; the cache file itself is
// only ever replaced whole, by a rename). Each is as large as the cache.
func (s *Source) removeStaleTemps() {
	tmps, _ := filepath.Glob(s.cache + ".tmp*")
	for _, p := range tmps {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleTempAge {
			if os.Remove(p) == nil {
				s.log.Info("source: removed the leftover of an unfinished cache write", "file", p)
			}
		}
	}
}
