// Package probe inspects uploaded media without trusting its name: it sniffs
// the type from the first bytes, reads dimensions from headers only (refusing
// decompression bombs before any decode), and sanitizes SVG.
//
// Everything here reads attacker-controlled bytes, so every parser is bounded
// in the bytes it reads, the memory it allocates and the depth it descends,
// and none may panic.
package probe

import (
	"bytes"
	"encoding/binary"
)

// SniffLen is how many leading bytes Sniff wants to see. Fewer are fine for
// a short file; an SVG whose root element starts later is refused.
const SniffLen = 512

// MIME types this package recognises.
const (
	JPEG = "image/jpeg"
	PNG  = "image/png"
	GIF  = "image/gif"
	WebP = "image/webp"
	SVG  = "image/svg+xml"
	PDF  = "application/pdf"
	MP4  = "video/mp4"
	WebM = "video/webm"
)

// Sniff decides the type of a file by its first bytes (give at least
// SniffLen when the file has them). It never looks at a name; anything it
// does not recognise positively is refused with ok=false.
func Sniff(head []byte) (mimeType string, ok bool) {
	switch {
	case len(head) >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF:
		return JPEG, true
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return PNG, true
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return GIF, true
	case isWebP(head):
		return WebP, true
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return PDF, true
	case isMP4(head):
		return MP4, true
	case isWebM(head):
		return WebM, true
	case isSVG(head):
		return SVG, true
	}
	return "", false
}

func isWebP(b []byte) bool {
	if len(b) < 16 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return false
	}
	switch string(b[12:16]) {
	case "VP8 ", "VP8L", "VP8X":
		return true
	}
	return false
}

// mp4Brands are ftyp brands of the ISO base media family that browsers play
// as video/mp4. QuickTime ("qt  "), 3GPP and audio-only M4A are not listed:
// they are other types.
var mp4Brands = map[string]bool{
	"isom": true, "iso2": true, "iso3": true, "iso4": true, "iso5": true,
	"iso6": true, "iso7": true, "iso8": true, "iso9": true,
	"mp41": true, "mp42": true, "mp71": true, "avc1": true, "hvc1": true,
	"M4V ": true, "M4VH": true, "M4VP": true, "dash": true, "msdh": true,
	"msix": true, "mmp4": true, "MSNV": true, "cmfc": true, "cmf2": true,
	"XAVC": true, "av01": true,
}

// notVideoBrands share the ftyp box with MP4 but are images (HEIF, AVIF),
// audio or camera raw; a compatible "isom"/"mif1" must not turn them into
// video.
var notVideoBrands = map[string]bool{
	"avif": true, "avis": true, "heic": true, "heix": true, "heim": true,
	"heis": true, "hevc": true, "hevx": true, "mif1": true, "msf1": true,
	"miaf": true, "jpeg": true, "jpgs": true, "M4A ": true, "M4B ": true,
	"M4P ": true, "crx ": true, "qt  ": true, "F4A ": true, "F4B ": true,
}

func isMP4(b []byte) bool {
	if len(b) < 16 || string(b[4:8]) != "ftyp" {
		return false
	}
	size := int(binary.BigEndian.Uint32(b[0:4]))
	if size < 16 || size%4 != 0 {
		return false
	}
	major := string(b[8:12])
	if mp4Brands[major] {
		return true
	}
	if notVideoBrands[major] {
		return false
	}
	// An unknown major brand counts when a compatible brand is MP4 and none
	// says image/audio.
	end := min(size, len(b))
	found := false
	for i := 16; i+4 <= end; i += 4 {
		br := string(b[i : i+4])
		if notVideoBrands[br] {
			return false
		}
		if mp4Brands[br] {
			found = true
		}
	}
	return found
}

// isWebM parses the EBML header element and accepts DocType "webm" only
// (Matroska proper is another type).
func isWebM(b []byte) bool {
	if len(b) < 4 || b[0] != 0x1A || b[1] != 0x45 || b[2] != 0xDF || b[3] != 0xA3 {
		return false
	}
	size, n, ok := ebmlVint(b[4:])
	if !ok {
		return false
	}
	body := b[4+n:]
	if size >= 0 && size < int64(len(body)) {
		body = body[:size]
	}
	for len(body) > 0 {
		id, n, ok := ebmlID(body)
		if !ok {
			return false
		}
		body = body[n:]
		sz, n, ok := ebmlVint(body)
		if !ok || sz < 0 || sz > int64(len(body)-n) {
			return false
		}
		body = body[n:]
		if id == 0x4282 { // DocType
			dt := bytes.TrimRight(body[:sz], "\x00")
			return string(dt) == "webm"
		}
		body = body[sz:]
	}
	return false
}

// isSVG accepts text whose first element is <svg, after an optional BOM,
// XML declaration, comments, processing instructions and a non-HTML
// doctype. Anything else first (HTML, stray text) refuses it.
func isSVG(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
	for {
		b = bytes.TrimLeft(b, " \t\r\n")
		switch {
		case bytes.HasPrefix(b, []byte("<?")):
			i := bytes.Index(b, []byte("?>"))
			if i < 0 {
				return false
			}
			b = b[i+2:]
		case bytes.HasPrefix(b, []byte("<!--")):
			i := bytes.Index(b[4:], []byte("-->"))
			if i < 0 {
				return false
			}
			b = b[4+i+3:]
		case len(b) >= 9 && bytes.EqualFold(b[:9], []byte("<!DOCTYPE")):
			rest := bytes.TrimLeft(b[9:], " \t\r\n")
			if len(rest) < 3 || !bytes.Equal(rest[:3], []byte("svg")) {
				return false // html, or something else: not an SVG file
			}
			end := doctypeEnd(b)
			if end < 0 {
				return false
			}
			b = b[end:]
		case bytes.HasPrefix(b, []byte("<svg")):
			if len(b) < 5 {
				return false
			}
			switch b[4] {
			case ' ', '\t', '\r', '\n', '>', '/':
				return true
			}
			return false
		default:
			return false
		}
	}
}

// doctypeEnd returns the index just past the doctype that starts b,
// skipping an internal subset in brackets, or -1 if it does not end in b.
func doctypeEnd(b []byte) int {
	depth := 0
	var quote byte
	for i, c := range b {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == '>' && depth <= 0:
			return i + 1
		}
	}
	return -1
}

// ebmlID reads an EBML element ID (1 to 4 bytes, marker bits kept).
func ebmlID(b []byte) (id uint32, n int, ok bool) {
	if len(b) == 0 || b[0] == 0 {
		return 0, 0, false
	}
	n = lengthOfVint(b[0])
	if n > 4 || n > len(b) {
		return 0, 0, false
	}
	for i := 0; i < n; i++ {
		id = id<<8 | uint32(b[i])
	}
	return id, n, true
}

// ebmlVint reads an EBML variable-length size (1 to 8 bytes). An all-ones
// value means "unknown size" and is returned as -1.
func ebmlVint(b []byte) (v int64, n int, ok bool) {
	if len(b) == 0 || b[0] == 0 {
		return 0, 0, false
	}
	n = lengthOfVint(b[0])
	if n > len(b) {
		return 0, 0, false
	}
	mask := byte(0xFF >> n)
	u := uint64(b[0] & mask)
	allOnes := b[0]&mask == mask
	for i := 1; i < n; i++ {
		u = u<<8 | uint64(b[i])
		if b[i] != 0xFF {
			allOnes = false
		}
	}
	if allOnes {
		return -1, n, true
	}
	if u > 1<<56 {
		return 0, 0, false
	}
	return int64(u), n, true
}

func lengthOfVint(first byte) int {
	n := 1
	for mask := byte(0x80); mask != 0 && first&mask == 0; mask >>= 1 {
		n++
	}
	return n
}
