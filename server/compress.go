package server

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/server/repr"
	"github.com/folio-cms/folio/server/transport"
	"github.com/klauspost/compress/gzip"
)

// coding is the content coding of a response body.
type coding = repr.Coding

const (
	identity     = repr.Identity
	codingGzip   = repr.Gzip
	codingBrotli = repr.Brotli
)

// compressMin is the smallest body compressed on the fly: below about a
// kilobyte the gzip framing and the work outweigh the bytes saved.
const compressMin = 1024

// negotiate picks the coding of a response from the request's
// Accept-Encoding (RFC 9110 §12.5.3): the offered coding with the highest
// q-value; on a tie brotli, then gzip, then identity. "x-gzip" is gzip;
// "*" stands for every coding the field does not name, identity
// included; identity is acceptable unless "identity;q=0", or "*;q=0"
// without an identity entry, says otherwise. An entry with a malformed
// q-value is ignored. Identity is chosen over a coding only when the field
// names it (or "*") with a higher q-value. When nothing offered is acceptable, folio sends
// identity (RFC 9110 lets a server disregard the field rather than answer
// 406). brotli is offered only when brotliOK.
func negotiate(r *http.Request, brotliOK bool) coding {
	fields := r.Header["Accept-Encoding"]
	if len(fields) == 0 {
		return identity
	}
	const unset = -1
	qGzip, qBr, qIdentity, qStar := unset, unset, unset, unset
	for _, f := range fields {
		for elem := range strings.SplitSeq(f, ",") {
			name, params, _ := strings.Cut(elem, ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			q, ok := qValue(params)
			if !ok {
				continue
			}
			var dst *int
			switch name {
			case "gzip", "x-gzip":
				dst = &qGzip
			case "br":
				dst = &qBr
			case "identity":
				dst = &qIdentity
			case "*":
				dst = &qStar
			default:
				continue
			}
			if *dst == unset {
				*dst = q
			}
		}
	}
	or := func(q, def int) int {
		if q == unset {
			return def
		}
		return q
	}
	star := or(qStar, 0)
	gz, br := or(qGzip, star), or(qBr, star)
	// An identity the field does not name is acceptable, but any coding
	// the client asked for ranks above it.
	id := or(qIdentity, or(qStar, 0))
	if !brotliOK {
		br = 0
	}
	switch {
	case br > 0 && br >= gz && br >= id:
		return codingBrotli
	case gz > 0 && gz >= id:
		return codingGzip
	}
	return identity
}

// qValue reads the q parameter of an Accept-Encoding element as
// thousandths (1000 when absent); false when it is malformed.
func qValue(params string) (int, bool) {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(p, "=")
		if !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		v = strings.TrimSpace(v)
		// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
		if v == "" || len(v) > 5 || (v[0] != '0' && v[0] != '1') || (len(v) > 1 && v[1] != '.') {
			return 0, false
		}
		q := int(v[0]-'0') * 1000
		scale := 100
		for _, d := range []byte(v[min(len(v), 2):]) {
			if d < '0' || d > '9' {
				return 0, false
			}
			q += int(d-'0') * scale
			scale /= 10
		}
		if q > 1000 {
			return 0, false
		}
		return q, true
	}
	return 1000, true
}

// gzipper is a pooled gzip writer with its output buffer, for bodies
// compressed on the fly.
type gzipper struct {
	buf bytes.Buffer
	zw  *gzip.Writer
}

// onTheFlyLevel trades ratio for CPU: these bodies are compressed on
// every request.
const onTheFlyLevel = 4

var gzippers = sync.Pool{New: func() any {
	g := &gzipper{}
	g.zw, _ = gzip.NewWriterLevel(&g.buf, onTheFlyLevel)
	return g
}}

// gzipBody compresses b into a pooled buffer; give it back with release
// once the bytes are written.
func gzipBody(b []byte) *gzipper {
	g := gzippers.Get().(*gzipper)
	g.buf.Reset()
	g.zw.Reset(&g.buf)
	g.zw.Write(b) // a bytes.Buffer does not fail
	g.zw.Close()
	return g
}

func (g *gzipper) release() {
	if g.buf.Cap() > 1<<20 { // do not keep a huge buffer for every later body
		return
	}
	gzippers.Put(g)
}

// serveCoded writes body, already in coding c, as a 200 with the ETag of
// that coding (etag is the identity's), Cache-Control, surrogate keys and
// Vary; or a 304 when If-None-Match names the representation (see
// etagMatches).
func serveCoded(w http.ResponseWriter, r *http.Request, c coding, body []byte, etag, cacheControl string, keys keyHdr) error {
	return serveRep(w, r, c, body, []string{c.ETag(etag)}, nil, etag, cacheControl, keys)
}

// serveRep is serveCoded with the header values of the ETag (etagHdr, of
// coding c) and, when known, Content-Length (nil: from len(body)) ready
// to put in the header map; etag is the identity's, for If-None-Match.
func serveRep(w http.ResponseWriter, r *http.Request, c coding, body []byte, etagHdr, clen []string, etag, cacheControl string, keys keyHdr) error {
	if clen == nil {
		clen = []string{strconv.Itoa(len(body))}
	}
	if !writeRepHeader(w, r, c, etagHdr, clen, etag, cacheControl, keys) {
		return nil
	}
	return transport.WriteOnce(w, r, body)
}

// serveParts is serveCoded of the concatenation of parts (size bytes),
// written from the parts themselves (transport.WriteOnceParts).
func serveParts(w http.ResponseWriter, r *http.Request, c coding, parts [][]byte, size int, etag, cacheControl string, keys keyHdr) error {
	if !writeRepHeader(w, r, c, []string{c.ETag(etag)}, []string{strconv.Itoa(size)}, etag, cacheControl, keys) {
		return nil
	}
	return transport.WriteOnceParts(w, r, size, parts)
}

// writeRepHeader sets the headers of a representation and, for a 304
// or a HEAD, writes the status and returns false: no body follows.
func writeRepHeader(w http.ResponseWriter, r *http.Request, c coding, etagHdr, clen []string, etag, cacheControl string, keys keyHdr) bool {
	h := w.Header()
	h["Etag"] = etagHdr
	h["Cache-Control"] = cacheHdr(cacheControl)
	keys.set(h)
	if _, ok := h["Vary"]; !ok {
		h["Vary"] = hdrVary
	} else {
		h.Add("Vary", hdrVary[0])
	}
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return false
	}
	h["Content-Type"] = hdrJSON
	if ce := c.ContentEncoding(); ce != nil {
		h["Content-Encoding"] = ce
	}
	h["Content-Length"] = clen
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return false
	}
	return true
}

// serveResource serves a pre-encoded page, item or globals in the coding
// the client prefers; the compressed forms, and the header values of
// every form, are made once per resource (repr.Of).
func serveResource(w http.ResponseWriter, r *http.Request, res *engine.Resource, cacheControl string) error {
	_, etag, err := res.Body()
	if err != nil {
		return err
	}
	keys := keysOf(res.Keys())
	c := negotiate(r, true)
	rep, err := repr.Of(res, c)
	if err != nil {
		return err
	}
	return serveRep(w, r, c, rep.Body, rep.ETag, rep.ContentLength, etag, cacheControl, keys)
}
