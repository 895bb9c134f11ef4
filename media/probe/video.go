package probe

import (
	"encoding/binary"
	"io"
)

// Video dimensions come from small hand-written parsers rather than a
// demuxer dependency: they only need a few fixed fields, they seek over
// everything else, and every size read from the file is checked against
// the bytes that remain before it is used. They return 0×0 on any doubt.

// maxVideoBoxes bounds how many boxes/elements a parse may visit, so a file
// of millions of tiny boxes costs no more than a normal one.
const maxVideoBoxes = 4096

type mp4Box struct {
	typ        string
	start, end int64 // payload range in the file
}

type mp4Walker struct {
	r      io.ReadSeeker
	budget int
}

// children lists the boxes inside [start, end) (bounded by the budget).
func (m *mp4Walker) children(start, end int64) []mp4Box {
	var out []mp4Box
	var hdr [16]byte
	for pos := start; pos+8 <= end && m.budget > 0; m.budget-- {
		if _, err := m.r.Seek(pos, io.SeekStart); err != nil {
			return out
		}
		if _, err := io.ReadFull(m.r, hdr[:8]); err != nil {
			return out
		}
		size := int64(binary.BigEndian.Uint32(hdr[0:4]))
		typ := string(hdr[4:8])
		hlen := int64(8)
		switch size {
		case 0: // extends to the end of the enclosing range
			size = end - pos
		case 1: // 64-bit size follows
			if _, err := io.ReadFull(m.r, hdr[8:16]); err != nil {
				return out
			}
			u := binary.BigEndian.Uint64(hdr[8:16])
			if u > uint64(end-pos) {
				return out
			}
			size, hlen = int64(u), 16
		}
		if size < hlen || size > end-pos {
			return out
		}
		out = append(out, mp4Box{typ: typ, start: pos + hlen, end: pos + size})
		pos += size
	}
	return out
}

// read returns up to max bytes of a box payload.
func (m *mp4Walker) read(b mp4Box, max int64) []byte {
	n := min(b.end-b.start, max)
	if _, err := m.r.Seek(b.start, io.SeekStart); err != nil {
		return nil
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(m.r, buf); err != nil {
		return nil
	}
	return buf
}

func (m *mp4Walker) find(start, end int64, typ string) (mp4Box, bool) {
	for _, b := range m.children(start, end) {
		if b.typ == typ {
			return b, true
		}
	}
	return mp4Box{}, false
}

// mp4Dimensions returns the presented size of the first video track: the
// tkhd width and height (which include the pixel aspect ratio), else the
// coded size of the first visual sample entry, swapped when the track
// matrix rotates by 90° (portrait phone video).
func mp4Dimensions(r io.ReadSeeker) (int, int) {
	end, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, 0
	}
	m := &mp4Walker{r: r, budget: maxVideoBoxes}
	moov, ok := m.find(0, end, "moov")
	if !ok {
		return 0, 0
	}
	for _, trak := range m.children(moov.start, moov.end) {
		if trak.typ != "trak" {
			continue
		}
		mdia, ok := m.find(trak.start, trak.end, "mdia")
		if !ok {
			continue
		}
		hdlr, ok := m.find(mdia.start, mdia.end, "hdlr")
		if !ok {
			continue
		}
		if h := m.read(hdlr, 12); len(h) < 12 || string(h[8:12]) != "vide" {
			continue
		}
		w, h, rotated := 0, 0, false
		if tkhd, ok := m.find(trak.start, trak.end, "tkhd"); ok {
			w, h, rotated = parseTkhd(m.read(tkhd, 96))
		}
		if w <= 0 || h <= 0 {
			w, h = m.sampleEntrySize(mdia)
		}
		if w <= 0 || h <= 0 {
			return 0, 0
		}
		if rotated {
			w, h = h, w
		}
		return w, h
	}
	return 0, 0
}

func parseTkhd(b []byte) (w, h int, rotated bool) {
	if len(b) < 4 {
		return 0, 0, false
	}
	matrix := 40
	if b[0] == 1 {
		matrix = 52
	}
	if len(b) < matrix+44 {
		return 0, 0, false
	}
	be := binary.BigEndian
	a, bb := int32(be.Uint32(b[matrix:])), int32(be.Uint32(b[matrix+4:]))
	c, d := int32(be.Uint32(b[matrix+12:])), int32(be.Uint32(b[matrix+16:]))
	rotated = a == 0 && d == 0 && bb != 0 && c != 0
	// 16.16 fixed point; round to whole pixels.
	w = int((be.Uint32(b[matrix+36:]) + 0x8000) >> 16)
	h = int((be.Uint32(b[matrix+40:]) + 0x8000) >> 16)
	return w, h, rotated
}

func (m *mp4Walker) sampleEntrySize(mdia mp4Box) (int, int) {
	b := mdia
	for _, typ := range []string{"minf", "stbl", "stsd"} {
		var ok bool
		if b, ok = m.find(b.start, b.end, typ); !ok {
			return 0, 0
		}
	}
	// full box header (4), entry count (4), then the first sample entry:
	// size, type, 6 reserved, data reference index, 16 bytes pre_defined
	// and reserved, width and height.
	p := m.read(b, 8+36)
	if len(p) < 8+36 {
		return 0, 0
	}
	e := p[8:]
	return int(binary.BigEndian.Uint16(e[32:34])), int(binary.BigEndian.Uint16(e[34:36]))
}

// Matroska element IDs used to find the first video track of a WebM file.
const (
	ebmlSegment     = 0x18538067
	ebmlTracks      = 0x1654AE6B
	ebmlCluster     = 0x1F43B675
	ebmlTrackEntry  = 0xAE
	ebmlTrackType   = 0x83
	ebmlVideo       = 0xE0
	ebmlPixelWidth  = 0xB0
	ebmlPixelHeight = 0xBA
	// maxTracksBytes bounds the Tracks element read into memory; real ones
	// are a few hundred bytes (codec private data included).
	maxTracksBytes = 1 << 20
)

// webmDimensions walks the top level and the Segment until Tracks, then
// parses Tracks in memory. Clusters (the media data) end the search: Tracks
// precede them in every muxer we know.
func webmDimensions(r io.ReadSeeker) (int, int) {
	budget := maxVideoBoxes
	for budget > 0 {
		budget--
		id, size, ok := readEBMLHeader(r)
		if !ok {
			return 0, 0
		}
		switch {
		case id == ebmlSegment:
			continue // descend: its children follow, sized or not
		case id == ebmlCluster || size < 0:
			return 0, 0
		case id == ebmlTracks:
			if size > maxTracksBytes {
				return 0, 0
			}
			buf := make([]byte, size)
			if _, err := io.ReadFull(r, buf); err != nil {
				return 0, 0
			}
			return tracksVideoSize(buf)
		default:
			if _, err := r.Seek(size, io.SeekCurrent); err != nil {
				return 0, 0
			}
		}
	}
	return 0, 0
}

func readEBMLHeader(r io.Reader) (id uint32, size int64, ok bool) {
	var b [12]byte
	if _, err := io.ReadFull(r, b[:1]); err != nil {
		return 0, 0, false
	}
	n := lengthOfVint(b[0])
	if b[0] == 0 || n > 4 {
		return 0, 0, false
	}
	if _, err := io.ReadFull(r, b[1:n]); err != nil {
		return 0, 0, false
	}
	id, _, ok = ebmlID(b[:n])
	if !ok {
		return 0, 0, false
	}
	if _, err := io.ReadFull(r, b[4:5]); err != nil {
		return 0, 0, false
	}
	m := lengthOfVint(b[4])
	if b[4] == 0 || m > 8 {
		return 0, 0, false
	}
	if _, err := io.ReadFull(r, b[5:4+m]); err != nil {
		return 0, 0, false
	}
	size, _, ok = ebmlVint(b[4 : 4+m])
	return id, size, ok
}

// ebmlChildren calls fn for each child element of an in-memory master
// element; it stops at the first malformed one.
func ebmlChildren(b []byte, fn func(id uint32, body []byte) bool) {
	for len(b) > 0 {
		id, n, ok := ebmlID(b)
		if !ok {
			return
		}
		b = b[n:]
		size, n, ok := ebmlVint(b)
		if !ok || size < 0 || size > int64(len(b)-n) {
			return
		}
		body := b[n : n+int(size)]
		b = b[n+int(size):]
		if !fn(id, body) {
			return
		}
	}
}

func ebmlUint(b []byte) int64 {
	if len(b) == 0 || len(b) > 8 {
		return 0
	}
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	if v > 1<<31 {
		return 0
	}
	return int64(v)
}

func tracksVideoSize(tracks []byte) (w, h int) {
	ebmlChildren(tracks, func(id uint32, entry []byte) bool {
		if id != ebmlTrackEntry {
			return true
		}
		var typ int64 = -1
		var tw, th int64
		ebmlChildren(entry, func(id uint32, body []byte) bool {
			switch id {
			case ebmlTrackType:
				typ = ebmlUint(body)
			case ebmlVideo:
				ebmlChildren(body, func(id uint32, v []byte) bool {
					switch id {
					case ebmlPixelWidth:
						tw = ebmlUint(v)
					case ebmlPixelHeight:
						th = ebmlUint(v)
					}
					return true
				})
			}
			return true
		})
		if (typ == 1 || typ == -1) && tw > 0 && th > 0 {
			w, h = int(tw), int(th)
			return false
		}
		return true
	})
	return w, h
}
