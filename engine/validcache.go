package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/crc32"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/schema"
	"github.com/folio-cms/folio/engine/gitsource"
	"github.com/folio-cms/folio/engine/internal/atomicfile"
)

// The validation cache keeps, beside the parse cache, the content model's
// verdict on every document of the published branch, by document (its
// blob and extension, as the parse cache names it) and type, for one
// model (a hash of the model files as parsed): a restart on the same model
// takes them instead of validating every document again (about 0.75 s of
// CPU at 100k files). A model that changed, another build (the parse
// cache's key) or another site ignores the file.
//
// Layout: magic, the parse cache's key, the site, the model hash, the
// number of entries (4 bytes, little-endian: the map is made its size),
// the entries (each introduced by a 1 byte, ended by a 0), a CRC-32 of
// everything before it. Written atomically after the parse cache.
const validMagic = "folio-validation/2\n"

// minValidEntry is the fewest bytes an entry takes (the 1, the key's
// length and 20 bytes of blob, the 0 and a type name of 3, three
// counts): it bounds the number of entries a file of n bytes claims.
const minValidEntry = 29

// validPath is the validation cache's file (beside the parse cache); ""
// without a cache dir.
func validPath(src *gitsource.Source) string {
	p := src.CachePath()
	if p == "" {
		return ""
	}
	return strings.TrimSuffix(p, ".cache") + ".valid"
}

// modelHash names a model by the files it was compiled from (as parsed;
// the build is in the parse cache's key); "" when one does not encode.
func modelHash(files map[string]*content.Doc) string {
	h := sha256.New()
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range files {
			if !yield(p) {
				return
			}
		}
	}) {
		b, err := json.Marshal(files[p].Meta())
		if err != nil {
			return ""
		}
		h.Write([]byte(p))
		h.Write([]byte{0})
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// persistedResults are the results the validation cache held at start,
// by document (blob and extension) and type, for the model of hash. The
// file holds them in the order of the documents' paths at the last load
// (encodeValidation), the order a start asks for them in: get takes the
// next one when it is the one asked for, and only otherwise looks it up.
type persistedResults struct {
	hash    string
	entries []persistEntry
	next    int // the entry get expects to be asked for next
	// index finds the entries by the first 8 bytes of their blob (a
	// SHA-1: they tell blobs apart but for a rare few): 1 + the index of
	// the last entry with them, whose next chains the others. Made on
	// the first get that is not of the next entry.
	index map[uint64]int32
}

// persistEntry is one result of persistedResults: the document as the
// parse cache names it (its blob and extension), the type
// (Type.Kind ":" Type.Name) and the result. A start looks every document
// up by the blob and path its file has, with no string built per
// document.
type persistEntry struct {
	blob     plumbing.Hash
	ext, typ string
	next     int32 // 1 + the index of the previous entry with the same index key; 0: none
	res      docResult
}

func blobPrefix(h plumbing.Hash) uint64 { return binary.LittleEndian.Uint64(h[:8]) }

func (e *persistEntry) is(blob plumbing.Hash, ext, typ string) bool {
	return e.blob == blob && e.ext == ext && e.typ == typ
}

// get is the result for a document and type. Not safe for concurrent
// use.
func (p *persistedResults) get(blob plumbing.Hash, ext, typ string) (docResult, bool) {
	if p.next < len(p.entries) && p.entries[p.next].is(blob, ext, typ) {
		p.next++
		return p.entries[p.next-1].res, true
	}
	if p.index == nil {
		p.index = make(map[uint64]int32, len(p.entries))
		for i := range p.entries {
			e := &p.entries[i]
			k := blobPrefix(e.blob)
			e.next = p.index[k]
			p.index[k] = int32(i + 1)
		}
	}
	for i := p.index[blobPrefix(blob)]; i > 0; {
		e := &p.entries[i-1]
		if e.is(blob, ext, typ) {
			p.next = int(i)
			return e.res, true
		}
		i = e.next
	}
	return docResult{}, false
}

// parseHash reads a blob hash written in hex (content.File.Blob) without
// allocating; false when s is not one.
func parseHash(s string) (h plumbing.Hash, ok bool) {
	if len(s) != 2*len(h) {
		return h, false
	}
	for i := range h {
		hi, lo := unhex[s[2*i]], unhex[s[2*i+1]]
		if hi|lo > 0xf {
			return h, false
		}
		h[i] = hi<<4 | lo
	}
	return h, true
}

// unhex is the value of a hex digit, 0xff for any other byte.
var unhex = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c], t[c-'a'+'A'] = byte(c-'a'+10), byte(c-'a'+10)
	}
	return t
}()

// typeKey is the type's part of a persistKey and of a validKey.
func typeKey(t *schema.Type) string { return t.Kind + ":" + t.Name }

// validKey is a result's key in persistedResults.
func validKey(name string, t *schema.Type) string { return name + "\x00" + typeKey(t) }

// saveValidation writes the published branch's validation results, when
// they changed since the last write and the change is worth a write of
// the whole file: the file holds no results of this model yet, or at
// least max(1000, a tenth of the documents) were validated since
// (the parse cache's rule, gitsource's saveCache), or force (Close). A
// push's reload validates its few documents and leaves the file as it
// was (rewriting it took 5 ms of CPU per push at 10k files): a restart
// validates those few again, as it would validate any document the
// file lacks.
func (e *Engine) saveValidation(force bool) error {
	path := validPath(e.src)
	if path == "" {
		return nil
	}
	e.reloadMu.Lock()
	ms := e.models[e.cfg.Branch]
	if ms == nil || ms.model.Empty() || ms.results == nil || ms.gen == ms.savedGen || ms.hash == "" ||
		!(force || !ms.onDisk || ms.unsaved >= max(1000, len(ms.results)/10)) {
		e.reloadMu.Unlock()
		return nil
	}
	results := make(map[valKey]docResult, len(ms.results))
	for k, r := range ms.results {
		results[k] = r
	}
	order := ms.order()
	hash, gen, unsaved := ms.hash, ms.gen, ms.unsaved
	e.reloadMu.Unlock()

	data := encodeValidation(e.src.CacheKey(), e.src.SiteID(), hash, order, results, e.src.DocNames())
	if err := atomicfile.Write(path, data); err != nil {
		return err
	}
	e.reloadMu.Lock()
	if ms.savedGen < gen {
		ms.savedGen = gen
	}
	if ms.hash == hash {
		ms.onDisk = true
		ms.unsaved = max(0, ms.unsaved-unsaved)
	}
	e.reloadMu.Unlock()
	return nil
}

// loadValidation reads the validation cache; nil when there is none, or
// it is of another build or site, or it does not read.
func loadValidation(src *gitsource.Source) *persistedResults {
	path := validPath(src)
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return decodeValidation(data, src.CacheKey(), src.SiteID())
}

// decodeValidation reads a validation cache file; nil when it is not
// one of the parse cache's key and the site, or does not read.
func decodeValidation(data []byte, key, site string) *persistedResults {
	if len(data) < len(validMagic)+4 || string(data[:len(validMagic)]) != validMagic {
		return nil
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil
	}
	d := newCacheDecoder(body[len(validMagic):])
	if d.Str() != key || d.Str() != site {
		return nil
	}
	p := &persistedResults{hash: d.Str()}
	n := 0
	if c := d.Bytes(4); c != nil {
		n = int(min(binary.LittleEndian.Uint32(c), uint32(len(d.B)/minValidEntry)))
	}
	p.entries = make([]persistEntry, 0, n)
	// The names of extensions, types and fields repeat: one string each.
	names := map[string]string{}
	intern := func(b []byte) string {
		if s, ok := names[string(b)]; ok {
			return s
		}
		s := string(b)
		names[s] = s
		return s
	}
	// The unique values of all documents share one array (most documents
	// have one or none).
	var uniq []uniqueValue
	for d.Err == nil && d.Byte1() == 1 {
		// the key: validKey (20 bytes of blob, the extension, "\x00",
		// the type)
		key := d.Bytes(d.Uvarint())
		var e persistEntry
		ok := false
		if len(key) > len(e.blob) {
			rest := key[len(e.blob):]
			if i := bytes.IndexByte(rest, 0); i >= 0 {
				copy(e.blob[:], key)
				e.ext, e.typ, ok = intern(rest[:i]), intern(rest[i+1:]), true
			}
		}
		var r docFindings
		for range d.Count() {
			v := schema.Violation{Line: int(d.Varint()), Field: d.Str(), Message: d.Str()}
			v.Warn = d.Byte1() == 1
			r.vs = append(r.vs, v)
		}
		if n := d.Count(); n > 0 {
			if cap(uniq)-len(uniq) < n {
				uniq = make([]uniqueValue, 0, max(n, 1024))
			}
			start := len(uniq)
			for range n {
				uniq = append(uniq, uniqueValue{field: intern(d.Bytes(d.Uvarint())), value: d.Str()})
			}
			r.unique = uniq[start:len(uniq):len(uniq)]
		}
		for range d.Count() {
			br := bareRef{field: d.Str(), slug: d.Str()}
			for range d.Count() {
				br.to = append(br.to, d.Str())
			}
			r.bare = append(r.bare, br)
		}
		if d.Err == nil && ok && len(p.entries) < math.MaxInt32 {
			e.res = newDocResult(r.vs, r.unique, r.bare)
			p.entries = append(p.entries, e)
		}
	}
	if d.Err != nil {
		return nil
	}
	return p
}

// encodeValidation is the validation cache's file of results, for the
// parse cache's key, the site and the model's hash; names names the
// documents (a document not named is left out). The results of order
// (the last load's documents in path order) come first, in that order,
// then the others; results is emptied.
func encodeValidation(key, site, hash string, order []valKey, results map[valKey]docResult, names map[*content.Doc]string) []byte {
	b := newCacheEncoder(make([]byte, 0, 1<<16+64*len(results)))
	b.B = append(b.B, validMagic...)
	b.Str(key)
	b.Str(site)
	b.Str(hash)
	countAt := len(b.B)
	b.B = append(b.B, 0, 0, 0, 0)
	count := uint32(0)
	emit := func(k valKey, r docResult) {
		name, ok := names[k.doc]
		if !ok {
			return // no longer in the parse cache
		}
		count++
		b.B = append(b.B, 1)
		b.Str(validKey(name, k.t))
		b.Uvarint(uint64(len(r.violations())))
		for _, v := range r.violations() {
			b.Varint(int64(v.Line))
			b.Str(v.Field)
			b.Str(v.Message)
			if v.Warn {
				b.B = append(b.B, 1)
			} else {
				b.B = append(b.B, 0)
			}
		}
		b.Uvarint(uint64(len(r.unique())))
		for _, u := range r.unique() {
			b.Str(u.field)
			b.Str(u.value)
		}
		b.Uvarint(uint64(len(r.bare())))
		for _, br := range r.bare() {
			b.Str(br.field)
			b.Str(br.slug)
			b.Uvarint(uint64(len(br.to)))
			for _, t := range br.to {
				b.Str(t)
			}
		}
	}
	for _, k := range order {
		if r, ok := results[k]; ok {
			delete(results, k) // written
			emit(k, r)
		}
	}
	for k, r := range results {
		emit(k, r)
	}
	b.B = append(b.B, 0)
	binary.LittleEndian.PutUint32(b.B[countAt:], count)
	b.B = binary.LittleEndian.AppendUint32(b.B, crc32.ChecksumIEEE(b.B))
	return b.B
}

// order are the last load's documents (and types) in path order: the
// validation cache's file has their results in it. Made when the file is
// written, not at every reload.
func (ms *modelState) order() []valKey {
	order := make([]valKey, 0, ms.lastChecks.len())
	for c := range ms.lastChecks.all() {
		order = append(order, valKey{c.doc, c.t})
	}
	return order
}
