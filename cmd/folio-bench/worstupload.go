package main

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net/http"
	"strings"
)

// uploadRSSBudget is the documented budget (docs/media-limits.md) of the
// RSS one upload may add to a server: the decode of the largest image the
// limits allow (50 MP at 8 bytes a pixel, a 16-bit RGBA PNG: 400 MB) and
// the first reduction made from it.
const uploadRSSBudget = 600

// worstCase is one upload of the worst-case row.
type worstCase struct {
	name string
	w, h int
	// colorType and depth of the PNG: 6/16 is 16-bit RGBA, 0/8 8-bit grey.
	colorType, depth byte
	status           int // the expected answer
}

// worstCases are the images that cost the most memory within the limits
// (every pixel the limit allows, at the most bytes a pixel; the longest
// side at the most elongated shape), and the attack files of issue 23
// that the limits refuse from their header.
var worstCases = []worstCase{
	{"7071×7071 16-bit RGBA PNG (50 MP, 8 B/px decoded)", 7071, 7071, 6, 16, http.StatusCreated},
	{"16384×256 16-bit RGBA PNG (longest side, 64:1)", 16384, 256, 6, 16, http.StatusCreated},
	{"50,000,000×1 PNG (refused: a side over 16384)", 50_000_000, 1, 0, 8, http.StatusRequestEntityTooLarge},
	{"1×50,000,000 PNG (refused)", 1, 50_000_000, 0, 8, http.StatusRequestEntityTooLarge},
}

// worstUploads uploads each worst case into a fresh process and reports
// the largest RSS growth of any one of them: the budget a box must have
// for each upload it makes at once (--transform-concurrency of them).
func (b *bench) worstUploads() error {
	files := make([][]byte, len(worstCases))
	for i, c := range worstCases {
		files[i] = blackPNG(c.w, c.h, c.colorType, c.depth)
	}
	var worst []float64
	per := make([][]float64, len(worstCases))
	for run := range b.runs {
		top := 0.0
		for i, c := range worstCases {
			s, _, err := b.uploadServer(fmt.Sprintf("folio-worst-%d-%d", run, i))
			if err != nil {
				return err
			}
			before, err1 := procStatus(s.pid(), "VmRSS")
			err2 := resetPeak(s.pid())
			if err := firstErr(err1, err2); err != nil {
				s.stop()
				return err
			}
			status, body, _, err := b.upload(s.base, "worst.png", bytes.NewReader(files[i]))
			hwm, herr := procStatus(s.pid(), "VmHWM")
			s.stop()
			if err := firstErr(err, herr); err != nil {
				return err
			}
			if status != c.status {
				return fmt.Errorf("%s: status %d, want %d: %.200s", c.name, status, c.status, body)
			}
			per[i] = append(per[i], hwm-before)
			top = max(top, hwm-before)
		}
		worst = append(worst, top)
	}
	var notes []string
	for i, c := range worstCases {
		notes = append(notes, fmt.Sprintf("%s (%d KB): %.0f MB", c.name, len(files[i])>>10, summarize(per[i]).Median))
	}
	r := row{Figure: "worst-case upload RSS", Sum: summarize(worst), Unit: unitMB,
		Note: "largest RSS growth (VmHWM after minus VmRSS before, fresh process each) of one upload of: " + strings.Join(notes, "; ")}
	b.add(r.check(fmt.Sprintf("≤ %d MB", uploadRSSBudget), r.Sum.Max <= uploadRSSBudget))
	return nil
}

// blackPNG is a valid all-zero PNG of w×h (colorType 0 grey or 6 RGBA, 8
// or 16 bits), its rows deflated as they are made: huge images cost
// almost nothing to make or send.
func blackPNG(w, h int, colorType, depth byte) []byte {
	channels := 1
	if colorType == 6 {
		channels = 4
	}
	var idat bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	row := make([]byte, 1+w*channels*int(depth)/8)
	for range h {
		zw.Write(row)
	}
	zw.Close()
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	chunk("IHDR", append(ihdr, depth, colorType, 0, 0, 0))
	chunk("IDAT", idat.Bytes())
	chunk("IEND", nil)
	return b.Bytes()
}
