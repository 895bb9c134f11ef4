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
	// states are the state stores of the libraries opened, by library.
	states map[*media.Library]*local.State
}

// newEnv is a library on local storage whose media root is a new
// directory; its state is <root>/.state, as cmd/folio keeps it.
func newEnv(tb testing.TB) *env {
	tb.Helper()
	root := tb.TempDir()
	st, err := local.New(root)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	e := &env{root: root, store: st, clock: newClock(), states: map[*media.Library]*local.State{}}
	e.cfg = media.Config{Root: root, Storage: st, Now: e.clock.Now}
	return e
}

// open opens the library as e.cfg says, on its own opening of the state
// directory (read-only when e.cfg is), as a process would.
func (e *env) open(tb testing.TB) *media.Library {
	tb.Helper()
	l, err := e.tryOpen()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.close(tb, l) })
	return l
}

func (e *env) tryOpen() (*media.Library, error) {
	dir := filepath.Join(e.root, local.StateDir)
	open := local.OpenState
	if e.cfg.ReadOnly {
		open = local.OpenStateReadOnly
	}
	state, err := open(dir)
	if err != nil {
		return nil, err
	}
	cfg := e.cfg
	cfg.State = state
	l, err := media.Open(context.Background(), cfg)
	if err != nil {
		state.Close()
		return nil, err
	}
	e.states[l] = state
	return l, nil
}

// close closes l and its state, as the end of a process does; closing
// again does nothing.
func (e *env) close(tb testing.TB, l *media.Library) {
	tb.Helper()
	state, ok := e.states[l]
	if !ok {
		return
	}
	delete(e.states, l)
	if err := l.Close(); err != nil {
		tb.Error(err)
	}
	state.Close()
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

// stateItem is the path of an item's sidecar in the state of the
// library on root (items/<id>.yaml under <root>/.state).
func stateItem(root, id string) string {
	return filepath.Join(root, local.StateDir, "items", id+".yaml")
}

// withState runs fn on the state of e's media root while no library has
// it open, as a tool (or what a crash left) would change it.
func (e *env) withState(tb testing.TB, fn func(*local.State)) {
	tb.Helper()
	state, err := local.OpenState(filepath.Join(e.root, local.StateDir))
	if err != nil {
		tb.Fatal(err)
	}
	defer state.Close()
	fn(state)
}

// leftover leaves what a write that a crash cut off after its objects and
// before its commit leaves: the object at key, and its claim for owner.
//
// Only a crash leaves one, and a crashed run leaves no clean-shutdown
// mark: leftover removes the one the last Close wrote, so that the next
// start sweeps as it does after a crash.
func leftover(tb testing.TB, st media.Storage, state media.StateStore, owner, key string, body []byte) {
	tb.Helper()
	ctx := context.Background()
	if err := state.Delete(ctx, "clean-shutdown"); err != nil {
		tb.Fatal(err)
	}
	if err := st.Put(ctx, key, bytes.NewReader(body), int64(len(body)), "application/octet-stream"); err != nil {
		tb.Fatal(err)
	}
	if _, err := state.Create(ctx, "claims/"+strings.ToLower(key), media.ClaimBody(owner, key)); err != nil {
		tb.Fatal(err)
	}
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
