package media_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// clock is a test clock that moves one second per reading, so items made
// one after another have distinct, ordered creation times.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

type env struct {
	root  string
	store *local.Storage
	clock *clock
	cfg   media.Config
}

func newEnv(tb testing.TB) *env {
	tb.Helper()
	root := tb.TempDir()
	st, err := local.New(root)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	e := &env{root: root, store: st, clock: newClock()}
	e.cfg = media.Config{Root: root, Storage: st, Now: e.clock.Now}
	return e
}

func (e *env) open(tb testing.TB) *media.Library {
	tb.Helper()
	l, err := media.Open(context.Background(), e.cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	return l
}

func mustCreate(tb testing.TB, l *media.Library, name string, body []byte, folder string) *media.Item {
	tb.Helper()
	it, err := l.Create(context.Background(), media.UploadInput{Filename: name, Body: bytes.NewReader(body), Folder: folder})
	if err != nil {
		tb.Fatalf("Create(%q): %v", name, err)
	}
	return it
}

func pngBytes(tb testing.TB, w, h int) []byte {
	tb.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func jpegBytes(tb testing.TB, w, h int) []byte {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func gifBytes(tb testing.TB, w, h int) []byte {
	tb.Helper()
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// pngBomb is a valid PNG whose header declares w×h pixels; its data is a
// tiny image, so only a decoder that trusts the header would explode.
func pngBomb(tb testing.TB, w, h uint32) []byte {
	tb.Helper()
	b := pngBytes(tb, 1, 1)
	// IHDR data starts at 16: width, height; its CRC covers type and data.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

var pdfBytes = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")

// mp4Bytes is an ftyp box and nothing else: enough to sniff, no dimensions.
var mp4Bytes = []byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2\x00\x00\x00\x08free")

const evilSVG = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="20" onload="alert(1)"><script>alert(2)</script><rect width="10" height="20"/></svg>`

func fileExists(tb testing.TB, path string) bool {
	tb.Helper()
	_, err := os.Stat(path)
	return err == nil
}

func keyPath(root, key string) string { return filepath.Join(root, filepath.FromSlash(key)) }

func sidecarOf(root, key string) string {
	dir, name := filepath.Split(keyPath(root, key))
	return filepath.Join(dir, ".meta", name+".yaml")
}

func readAll(tb testing.TB, st media.Storage, key string) []byte {
	tb.Helper()
	rc, err := st.Open(context.Background(), key)
	if err != nil {
		tb.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }

// listNames is the filenames of the items, in order.
func listNames(items []*media.Item) string {
	var s []string
	for _, it := range items {
		s = append(s, it.Filename)
	}
	return strings.Join(s, ",")
}

func newTestLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
