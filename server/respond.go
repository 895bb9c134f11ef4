package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server/repr"
)

// Cache-Control values (docs/api.md, "Behaviour in detail": anything
// that depends on a key is private, drafts are never stored). Public responses let a CDN serve a
// stale copy while it revalidates in the background, and for a day when
// folio does not answer (RFC 5861), so an outage of the boxes behind it
// is not an outage of the site.
const (
	cachePrivate     = "private, no-cache"
	cacheNoStore     = "private, no-store"
	cachePublicShort = "public, max-age=60, stale-while-revalidate=60, stale-if-error=86400"
	// publicMaxAge is cachePublicShort's max-age, in seconds.
	publicMaxAge    = 60
	cachePublicHour = "public, max-age=3600, stale-while-revalidate=3600, stale-if-error=86400"
	// cacheImmutable is for /uploads/ files: a stored key never changes
	// content.
	cacheImmutable = "public, max-age=31536000, immutable, stale-if-error=86400"
	// cachePrivateImmutable is for content read at a full commit hash
	// with a key: that commit's content never changes.
	cachePrivateImmutable = "private, max-age=31536000, immutable"
)

// cacheHdrs are the Cache-Control values above as header values, shared
// like hdrJSON.
var cacheHdrs = map[string][]string{
	cachePrivate:     {cachePrivate},
	cacheNoStore:     {cacheNoStore},
	cachePublicShort: {cachePublicShort},
	cachePublicHour:  {cachePublicHour},
	cacheImmutable:   {cacheImmutable},

	cachePrivateImmutable: {cachePrivateImmutable},
}

// cacheHdr is the Cache-Control header value cc, shared when it is one of
// the constants.
func cacheHdr(cc string) []string {
	if v, ok := cacheHdrs[cc]; ok {
		return v
	}
	return []string{cc}
}

// Header values every JSON response shares. The slices are never changed:
// net/http only reads them, and a handler that sets another value replaces
// the slice. Sharing them saves allocations on the hottest path.
var (
	hdrJSON = []string{"application/json; charset=utf-8"}
	hdrVary = []string{"Authorization, Accept-Encoding"}
)

// writeJSON encodes v and writes it with status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// keyHdr holds the values of the Surrogate-Key (space-separated) and
// Cache-Tag (comma-separated) headers of a response: the surrogate keys
// that name what it holds, so a CDN can purge by key (engine.ChangedKeys
// has the scheme; media adds "media:<id>" and "media"). The slices are
// shared and never changed, like hdrJSON.
type keyHdr struct{ sk, ct []string }

func keysOf(sk, ct []string) keyHdr { return keyHdr{sk, ct} }

// Keys of media responses.
const (
	keyMedia       = "media"
	keyMediaPrefix = "media:"
)

var (
	hdrKeyPages = keyHdr{[]string{engine.KeyPages}, []string{engine.KeyPages}}
	hdrKeyMedia = keyHdr{[]string{keyMedia}, []string{keyMedia}}
	// hdrKeyMediaList is on the media lists: they list preset URLs too.
	hdrKeyMediaList = keyHdr{[]string{keyMedia + " " + engine.KeyPresets}, []string{keyMedia + "," + engine.KeyPresets}}
)

// mediaKey is the surrogate key of one media item (ids need no escaping:
// media.ValidID).
func mediaKey(id string) string { return keyMediaPrefix + id }

func mediaKeyHdr(id string) keyHdr {
	v := []string{mediaKey(id)}
	return keyHdr{v, v}
}

// mediaJSONKeyHdr is on an item's JSON: its own key, and engine.KeyPresets
// for the preset URLs it lists.
func mediaJSONKeyHdr(id string) keyHdr {
	k := mediaKey(id)
	return keyHdr{[]string{k + " " + engine.KeyPresets}, []string{k + "," + engine.KeyPresets}}
}

// set puts the keys in h; no keys leaves h alone.
func (k keyHdr) set(h http.Header) {
	if k.sk != nil {
		h["Surrogate-Key"] = k.sk
		h["Cache-Tag"] = k.ct
	}
}

// serveBody writes a 200 JSON body with its ETag, Cache-Control and
// surrogate keys, or a 304 when the client's If-None-Match already names
// that ETag. A body of compressMin bytes or more goes gzip-compressed on
// the fly (pooled writer) to a client that takes gzip, with the ETag
// marked "-gz".
func serveBody(w http.ResponseWriter, r *http.Request, body []byte, etag, cacheControl string, keys keyHdr) error {
	if len(body) < compressMin || negotiate(r, false) != codingGzip {
		return serveCoded(w, r, identity, body, etag, cacheControl, keys)
	}
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		return serveCoded(w, r, codingGzip, nil, etag, cacheControl, keys)
	}
	g := gzipBody(body)
	defer g.release()
	return serveCoded(w, r, codingGzip, g.buf.Bytes(), etag, cacheControl, keys)
}

// serveJSON encodes v and serves it with an ETag computed from the bytes.
func serveJSON(w http.ResponseWriter, r *http.Request, v any, cacheControl string, keys keyHdr) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	body := bytes.TrimRight(buf.Bytes(), "\n")
	return serveBody(w, r, body, engine.ETag(body), cacheControl, keys)
}

// etagMatches implements the weak comparison of If-None-Match (RFC 9110
// §13.1.2), with one more rule: the ETags of a representation's content
// codings ("x", "x-gz", "x-br") all match each other. They name the same
// content, so a client or cache holding any of them has it and may keep
// using it; the 304 carries the ETag of the coding this request selects.
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	etag = uncoded(strings.TrimPrefix(etag, "W/"))
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || uncoded(strings.TrimPrefix(part, "W/")) == etag {
			return true
		}
	}
	return false
}

// uncoded strips a coding mark ("-gz", "-br") from a quoted ETag.
func uncoded(etag string) string {
	for _, s := range []string{`-gz"`, `-br"`} {
		if base, ok := strings.CutSuffix(etag, s); ok {
			return base + `"`
		}
	}
	return etag
}

// listBody builds `{"items":[...],"total":N,"limit":L,"offset":O}` (or
// with another key) from pre-encoded item bodies, without re-encoding them.
func listBody(key string, items [][]byte, total, limit, offset int) []byte {
	n := 64
	for _, it := range items {
		n += len(it) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"`...)
	b = append(b, key...)
	b = append(b, `":[`...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	b = append(b, `],"total":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(limit), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(offset), 10)
	b = append(b, '}')
	return b
}

// listTail is what follows a list's items: `],"total":…}`.
func listTail(total, limit, offset int) []byte {
	tail := listBody("", nil, total, limit, offset)
	return tail[bytes.IndexByte(tail, ']'):]
}

// listParts is listBody of the items' bodies as the pieces to write one
// after another (the items' own bytes, not copied) and their total
// length.
func listParts(key string, items []*engine.Resource, total, limit, offset int) ([][]byte, int, error) {
	tail := listTail(total, limit, offset)
	parts := make([][]byte, 0, 2*len(items)+1)
	parts = append(parts, []byte(`{"`+key+`":[`))
	size := len(parts[0]) + len(tail)
	for i, it := range items {
		if i > 0 {
			parts = append(parts, comma)
			size++
		}
		body, _, err := it.Body()
		if err != nil {
			return nil, 0, err
		}
		parts = append(parts, body)
		size += len(body)
	}
	return append(parts, tail), size, nil
}

// serveList serves a list of pre-encoded resources as listBody does, in
// the coding the client prefers: for gzip, the kept DEFLATE form of each
// item is joined, with the list's own bytes between them in stored
// blocks, so no item is compressed again (repr.GzipPieces).
func serveList(w http.ResponseWriter, r *http.Request, items []*engine.Resource, total, limit, offset int, etag, cacheControl string, keys keyHdr) error {
	c := negotiate(r, false)
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		return serveCoded(w, r, c, nil, etag, cacheControl, keys)
	}
	if c != codingGzip {
		parts, size, err := listParts("items", items, total, limit, offset)
		if err != nil {
			return err
		}
		return serveParts(w, r, identity, parts, size, etag, cacheControl, keys)
	}
	gz, size, err := gzipList("items", items, total, limit, offset)
	if err != nil {
		return err
	}
	return serveParts(w, r, c, gz, size, etag, cacheControl, keys)
}

// gzipList is the gzip encoding of listBody(key, bodies(items), …), as
// pieces to write in turn (repr.GzipPieces) and their length: the items'
// kept DEFLATE fragments, and their kept CRCs for the trailer.
func gzipList(key string, items []*engine.Resource, total, limit, offset int) ([][]byte, int, error) {
	head := []byte(`{"` + key + `":[`)
	tail := listTail(total, limit, offset)
	var g repr.GzipPieces
	g.Start(2*len(items)+1, len(head)+len(items)+len(tail))
	g.Raw(head)
	for i, it := range items {
		if i > 0 {
			g.Raw(comma)
		}
		f, err := repr.DeflatedFragment(it)
		if err != nil {
			return nil, 0, err
		}
		g.Fragment(f) // the item's kept CRC: its body is not read
	}
	g.Raw(tail)
	gz, n := g.Done()
	return gz, n, nil
}

var comma = []byte(",")
