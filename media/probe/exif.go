package probe

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
)

// maxJPEGSegments bounds the marker walk: real files carry a handful of
// segments before the frame header; a crafted one may carry thousands.
const maxJPEGSegments = 256

// JPEGOrientation returns the EXIF orientation (1 to 8) of a JPEG read from
// r, or 1 when it has none or it cannot be read: a wrong or missing tag must
// never make an upload fail. It reads only the segments before the frame
// header, at most 64 KiB of them into memory (the APP1 segment).
func JPEGOrientation(r io.Reader) int {
	br := bufio.NewReaderSize(r, 4096)
	var m [2]byte
	if _, err := io.ReadFull(br, m[:]); err != nil || m[0] != 0xFF || m[1] != 0xD8 {
		return 1
	}
	for range maxJPEGSegments {
		marker, err := nextMarker(br)
		if err != nil {
			return 1
		}
		switch {
		case marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01:
			continue // standalone markers carry no length
		case marker == 0xDA || marker == 0xD9 || (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC):
			return 1 // frame or scan: EXIF comes before these
		}
		var lb [2]byte
		if _, err := io.ReadFull(br, lb[:]); err != nil {
			return 1
		}
		n := int(binary.BigEndian.Uint16(lb[:])) - 2
		if n < 0 {
			return 1
		}
		if marker != 0xE1 {
			if _, err := br.Discard(n); err != nil {
				return 1
			}
			continue
		}
		seg := make([]byte, n) // n < 64 KiB by construction
		if _, err := io.ReadFull(br, seg); err != nil {
			return 1
		}
		if len(seg) >= 6 && string(seg[:6]) == "Exif\x00\x00" {
			if o, ok := exifOrientation(seg[6:]); ok {
				return o
			}
			return 1
		}
	}
	return 1
}

// nextMarker skips fill bytes and returns the next marker code.
func nextMarker(br *bufio.Reader) (byte, error) {
	c, err := br.ReadByte()
	if err != nil {
		return 0, err
	}
	if c != 0xFF {
		return 0, errors.New("probe: jpeg: expected marker")
	}
	for range 64 { // fill bytes 0xFF may repeat; bound them
		c, err = br.ReadByte()
		if err != nil {
			return 0, err
		}
		if c != 0xFF {
			return c, nil
		}
	}
	return 0, errors.New("probe: jpeg: too many fill bytes")
}

// exifOrientation finds tag 0x0112 in IFD0 of a TIFF structure.
func exifOrientation(t []byte) (int, bool) {
	if len(t) < 8 {
		return 0, false
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 0, false
	}
	if bo.Uint16(t[2:4]) != 42 {
		return 0, false
	}
	off := int64(bo.Uint32(t[4:8]))
	if off < 8 || off+2 > int64(len(t)) {
		return 0, false
	}
	count := int64(bo.Uint16(t[off : off+2]))
	p := off + 2
	for i := int64(0); i < count; i++ {
		e := p + i*12
		if e+12 > int64(len(t)) {
			return 0, false
		}
		if bo.Uint16(t[e:e+2]) != 0x0112 {
			continue
		}
		typ := bo.Uint16(t[e+2 : e+4])
		var v int
		switch typ {
		case 3: // SHORT, stored left-justified in the value field
			v = int(bo.Uint16(t[e+8 : e+10]))
		case 4: // LONG, seen in the wild
			v = int(bo.Uint32(t[e+8 : e+12]))
		default:
			return 0, false
		}
		if v < 1 || v > 8 {
			return 0, false
		}
		return v, true
	}
	return 0, false
}
