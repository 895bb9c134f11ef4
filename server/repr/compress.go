package repr

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/folio-cms/folio/engine"
	"github.com/klauspost/compress/flate"
)

// Compressed encodings of a resource are made on the first request that
// asks for them, once, and kept with the resource (so they survive a
// reload that leaves the document unchanged). Eager compression at build
// time would hold up the swap and hold the compressed form of every page
// and item of a 100k-item site in memory, though most are rarely read;
// this way the memory follows what is actually read compressed.

// GzipLevel is the flate level of the kept encodings: they are made once,
// so a better ratio is worth the extra microseconds.
const GzipLevel = 6

// BrotliQuality is the brotli quality of the kept encodings. 11 is several
// times slower than 6 for a few percent; the first reader pays for it.
const BrotliQuality = 6

// gzipHeader is a gzip member header: no name, no time, unknown OS.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// finalBlock is an empty final stored DEFLATE block, which ends a stream
// that so far ends byte-aligned (after a sync flush).
var finalBlock = []byte{1, 0, 0, 0xff, 0xff}

// gzTrailer is the length of a gzip trailer (CRC-32 and size).
const gzTrailer = 8

type encodings struct {
	gzOnce sync.Once
	gz     []byte // a whole gzip member: header, fragment, final block, trailer
	// gzShift is crcShift of the body's length: with the CRC in gz's
	// trailer, what a list needs to add the body to its CRC (Fragment).
	gzShift uint32
	brOnce  sync.Once
	br      []byte
}

var flatePool = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, GzipLevel)
	return w
}}

// Deflate compresses b into raw DEFLATE blocks that end with a sync flush:
// byte-aligned and not final, so that such fragments, and stored blocks
// between them, can be joined into one stream (see GzipPieces).
func Deflate(b []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(b)/3 + 64)
	fw := flatePool.Get().(*flate.Writer)
	fw.Reset(&buf)
	fw.Write(b) // a bytes.Buffer does not fail
	fw.Flush()
	flatePool.Put(fw)
	return buf.Bytes()
}

// GzipBody returns the gzip encoding of res's Body (made on first use, then
// kept with it) and its ETag: Body's with "-gz" before the closing quote;
// Body's error when it has one.
func GzipBody(res *engine.Resource) ([]byte, string, error) {
	body, etag, err := res.Body()
	if err != nil {
		return nil, "", err
	}
	return keptGzip(res, body).gz, EncodedETag(etag, "gz"), nil
}

// keptGzip is res's kept gzip encoding, made from body (res's Body) on
// first use.
func keptGzip(res *engine.Resource, body []byte) *encodings {
	e := &keptOf(res).enc
	e.gzOnce.Do(func() {
		frag := Deflate(body)
		gz := make([]byte, 0, len(gzipHeader)+len(frag)+len(finalBlock)+gzTrailer)
		gz = append(gz, gzipHeader...)
		gz = append(gz, frag...)
		gz = append(gz, finalBlock...)
		gz = binary.LittleEndian.AppendUint32(gz, crc32.ChecksumIEEE(body))
		gz = binary.LittleEndian.AppendUint32(gz, uint32(len(body)))
		e.gz, e.gzShift = gz, crcShift(len(body))
	})
	return e
}

// Fragment is a resource's Body as a kept DEFLATE fragment, with what a
// gzip list needs besides to join it (GzipPieces): the body's length and
// CRC-32, so that the list's CRC is made without reading the body.
type Fragment struct {
	Deflated   []byte
	Size       int
	crc, shift uint32
}

// DeflatedFragment is res's Body as a DEFLATE fragment (see Deflate),
// the part of the kept gzip encoding between its header and its final
// block, for a list to join without compressing the item again, with
// the body's length and CRC.
func DeflatedFragment(res *engine.Resource) (Fragment, error) {
	body, _, err := res.Body()
	if err != nil {
		return Fragment{}, err
	}
	e := keptGzip(res, body)
	gz := e.gz
	return Fragment{
		Deflated: gz[len(gzipHeader) : len(gz)-len(finalBlock)-gzTrailer],
		Size:     len(body),
		crc:      binary.LittleEndian.Uint32(gz[len(gz)-gzTrailer:]),
		shift:    e.gzShift,
	}, nil
}

// AppendCRC is the CRC-32 of a content whose CRC is crc followed by f's
// body: crc32.Update(crc, crc32.IEEETable, body) without the body.
func (f Fragment) AppendCRC(crc uint32) uint32 {
	return crcCombine(crc, f.crc, f.shift)
}

// BrotliBody returns the brotli encoding of res's Body (made on first use,
// then kept) and its ETag, Body's with "-br"; Body's error when it has
// one.
func BrotliBody(res *engine.Resource) ([]byte, string, error) {
	body, etag, err := res.Body()
	if err != nil {
		return nil, "", err
	}
	e := &keptOf(res).enc
	e.brOnce.Do(func() {
		var buf bytes.Buffer
		bw := brotli.NewWriterLevel(&buf, BrotliQuality)
		bw.Write(body)
		bw.Close()
		e.br = bytes.Clone(buf.Bytes())
	})
	return e.br, EncodedETag(etag, "br"), nil
}

// EncodedETag is the ETag of a content coding of the representation whose
// ETag is etag: `"x"` becomes `"x-gz"` (W/ kept).
func EncodedETag(etag, coding string) string {
	if len(etag) < 2 || etag[len(etag)-1] != '"' {
		return etag
	}
	return etag[:len(etag)-1] + "-" + coding + `"`
}

// GzipPieces builds, a part at a time, one gzip member whose decoded
// content is the parts one after another, as the pieces to write in turn
// (the fragments are the kept ones, not copied), with the CRC-32 and
// length of the content as it goes: a list adds its
// own bytes (Raw) and its items' kept fragments (Fragment), whose CRCs
// are combined rather than computed from their bodies again.
type GzipPieces struct {
	out  [][]byte
	buf  []byte // the stored blocks and the trailer, one buffer
	n    int    // bytes in out
	crc  uint32 // of the content so far
	size int    // its length
}

// Start makes room for parts parts, of which raw bytes are sent as they
// are; the gzip header is the first piece.
func (g *GzipPieces) Start(parts, raw int) {
	g.out = make([][]byte, 0, parts+3)
	g.buf = make([]byte, 0, raw+5*(parts+raw/0xffff+1)+gzTrailer)
	g.add(gzipHeader)
}

// Raw adds b, sent in stored blocks.
func (g *GzipPieces) Raw(b []byte) {
	g.addStored(b)
	g.crc = crc32.Update(g.crc, crc32.IEEETable, b)
	g.size += len(b)
}

// Fragment adds a kept fragment (DeflatedFragment).
func (g *GzipPieces) Fragment(f Fragment) {
	g.add(f.Deflated)
	g.crc = f.AppendCRC(g.crc)
	g.size += f.Size
}

// Done ends the member and returns its pieces and their length.
func (g *GzipPieces) Done() ([][]byte, int) { return g.end(g.crc, g.size) }

func (g *GzipPieces) add(b []byte) {
	g.out = append(g.out, b)
	g.n += len(b)
}

func (g *GzipPieces) addStored(b []byte) {
	at := len(g.buf)
	g.buf = appendStored(g.buf, b)
	g.add(g.buf[at:len(g.buf):len(g.buf)])
}

func (g *GzipPieces) end(crc uint32, size int) ([][]byte, int) {
	g.add(finalBlock)
	at := len(g.buf)
	g.buf = binary.LittleEndian.AppendUint32(g.buf, crc)
	g.buf = binary.LittleEndian.AppendUint32(g.buf, uint32(size))
	g.add(g.buf[at:])
	return g.out, g.n
}

// appendStored appends b as non-final stored DEFLATE blocks (the stream is
// byte-aligned before and after each).
func appendStored(out, b []byte) []byte {
	for len(b) > 0 {
		n := min(len(b), 0xffff)
		out = append(out, 0, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		out = append(out, b[:n]...)
		b = b[n:]
	}
	return out
}
