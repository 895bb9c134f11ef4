package probe

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/chai2010/webp"
)

// testImage is w×h with its left third red and the rest blue, so a rotation
// is visible in the pixels.
func testImage(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{0, 0, 255, 255}
			if x < w/3 {
				c = color.NRGBA{255, 0, 0, 255}
			}
			m.SetNRGBA(x, y, c)
		}
	}
	return m
}

func mustEncode(tb testing.TB, mimeType string, m image.Image) []byte {
	tb.Helper()
	var b bytes.Buffer
	var err error
	switch mimeType {
	case JPEG:
		err = jpeg.Encode(&b, m, &jpeg.Options{Quality: 90})
	case PNG:
		err = png.Encode(&b, m)
	case GIF:
		err = gif.Encode(&b, m, nil)
	case WebP:
		err = webp.Encode(&b, m, &webp.Options{Quality: 80})
	default:
		tb.Fatalf("no encoder for %s", mimeType)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// withEXIFOrientation inserts a minimal APP1 EXIF segment (big-endian TIFF,
// IFD0 with the single Orientation tag) right after SOI.
func withEXIFOrientation(tb testing.TB, jpg []byte, orientation uint16) []byte {
	tb.Helper()
	if len(jpg) < 2 || jpg[0] != 0xFF || jpg[1] != 0xD8 {
		tb.Fatal("not a JPEG")
	}
	var p bytes.Buffer
	p.WriteString("Exif\x00\x00")
	p.WriteString("MM")
	binary.Write(&p, binary.BigEndian, uint16(42))
	binary.Write(&p, binary.BigEndian, uint32(8)) // IFD0 offset
	binary.Write(&p, binary.BigEndian, uint16(1)) // one entry
	binary.Write(&p, binary.BigEndian, uint16(0x0112))
	binary.Write(&p, binary.BigEndian, uint16(3)) // SHORT
	binary.Write(&p, binary.BigEndian, uint32(1))
	binary.Write(&p, binary.BigEndian, orientation)
	binary.Write(&p, binary.BigEndian, uint16(0))
	binary.Write(&p, binary.BigEndian, uint32(0)) // no next IFD
	var out bytes.Buffer
	out.Write(jpg[:2])
	out.Write([]byte{0xFF, 0xE1})
	binary.Write(&out, binary.BigEndian, uint16(p.Len()+2))
	out.Write(p.Bytes())
	out.Write(jpg[2:])
	return out.Bytes()
}

// pngHeader is a PNG signature and a valid IHDR claiming w×h, and nothing
// else: the decompression-bomb shape.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.WriteString("IHDR")
	b.Write(ihdr)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte("IHDR"), ihdr...)))
	return b.Bytes()
}

func box(typ string, payload ...[]byte) []byte {
	n := 8
	for _, p := range payload {
		n += len(p)
	}
	b := make([]byte, 8, n)
	binary.BigEndian.PutUint32(b, uint32(n))
	copy(b[4:], typ)
	for _, p := range payload {
		b = append(b, p...)
	}
	return b
}

func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
func u16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }

func ftyp(major string, compat ...string) []byte {
	p := []byte(major)
	p = append(p, 0, 0, 0, 0)
	for _, c := range compat {
		p = append(p, c...)
	}
	return box("ftyp", p)
}

// mp4File is an ftyp and a moov with one track of the given handler,
// tkhd size w×h (rotated by 90° if asked) and a visual sample entry of
// ew×eh.
func mp4File(handler string, w, h, ew, eh uint16, rotate bool) []byte {
	tkhd := make([]byte, 84)
	m := tkhd[40:76]
	if rotate {
		binary.BigEndian.PutUint32(m[4:], 0x00010000)
		binary.BigEndian.PutUint32(m[12:], 0xFFFF0000)
	} else {
		binary.BigEndian.PutUint32(m[0:], 0x00010000)
		binary.BigEndian.PutUint32(m[16:], 0x00010000)
	}
	binary.BigEndian.PutUint32(m[32:], 0x40000000)
	binary.BigEndian.PutUint32(tkhd[76:], uint32(w)<<16)
	binary.BigEndian.PutUint32(tkhd[80:], uint32(h)<<16)
	hdlr := append(make([]byte, 8), handler...)
	hdlr = append(hdlr, make([]byte, 13)...)
	entry := make([]byte, 78)
	binary.BigEndian.PutUint16(entry[24:], ew)
	binary.BigEndian.PutUint16(entry[26:], eh)
	stsd := box("stsd", u32(0), u32(1), box("avc1", entry))
	moov := box("moov",
		box("mvhd", make([]byte, 100)),
		box("trak",
			box("tkhd", tkhd),
			box("mdia",
				box("mdhd", make([]byte, 24)),
				box("hdlr", hdlr),
				box("minf", box("stbl", stsd)))))
	return append(append(ftyp("isom", "isom", "iso2", "avc1", "mp41"), box("mdat", make([]byte, 64))...), moov...)
}

func ebml(id uint32, body ...[]byte) []byte {
	var b []byte
	switch {
	case id > 0xFFFFFF:
		b = u32(id)
	case id > 0xFFFF:
		b = []byte{byte(id >> 16), byte(id >> 8), byte(id)}
	case id > 0xFF:
		b = u16(uint16(id))
	default:
		b = []byte{byte(id)}
	}
	n := 0
	for _, p := range body {
		n += len(p)
	}
	// Sizes are written in the 8-byte form: marker 0x01, then 7 bytes.
	sz := binary.BigEndian.AppendUint64(nil, uint64(n))
	b = append(b, 0x01)
	b = append(b, sz[1:]...)
	for _, p := range body {
		b = append(b, p...)
	}
	return b
}

func webmFile(docType string, w, h uint16) []byte {
	header := ebml(0x1A45DFA3,
		ebml(0x4286, []byte{1}),
		ebml(0x4282, []byte(docType)))
	tracks := ebml(ebmlTracks,
		ebml(ebmlTrackEntry,
			ebml(0xD7, []byte{1}),
			ebml(ebmlTrackType, []byte{2}), // audio first
		),
		ebml(ebmlTrackEntry,
			ebml(0xD7, []byte{2}),
			ebml(ebmlTrackType, []byte{1}),
			ebml(ebmlVideo,
				ebml(ebmlPixelWidth, u16(w)),
				ebml(ebmlPixelHeight, u16(h)))))
	// A live-style Segment of unknown size.
	seg := append([]byte{0x18, 0x53, 0x80, 0x67, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF},
		ebml(0x1549A966, ebml(0x2AD7B1, u32(1000000)))...)
	seg = append(seg, tracks...)
	seg = append(seg, ebml(ebmlCluster, make([]byte, 32))...)
	return append(header, seg...)
}
