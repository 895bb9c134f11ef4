package decap

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content/fault"
)

// countingReader counts what is read of r.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// The body reader hands the decoder a placeholder for an asset's 8 MB of
// base64, which goes to a file; what the decoder reads stays small, and
// the file decodes back to the asset.
func TestBodyReaderSpoolsAssets(t *testing.T) {
	data := make([]byte, 6<<20)
	rand.Read(data)
	b64 := base64.StdEncoding.EncodeToString(data)
	body := `{"action":"persistMedia","params":{"branch":"main","asset":{"path":"uploads/x.bin","content":"` + b64 + `","encoding":"base64"}}}`
	dir := t.TempDir()
	br, err := newBodyReader(strings.NewReader(body), func() (*os.File, error) { return os.CreateTemp(dir, "spool-*") }, true)
	if err != nil {
		t.Fatal(err)
	}
	defer br.spool.close()
	text, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	if len(text) > 512 || br.text > 512 {
		t.Fatalf("the decoder read %d bytes: %.200s", len(text), text)
	}
	var req struct {
		Action string
		Params struct{ Asset asset }
	}
	if err := json.Unmarshal(text, &req); err != nil {
		t.Fatal(err)
	}
	if len(br.spool.files) != 1 {
		t.Fatalf("%d files spooled", len(br.spool.files))
	}
	if fi, _ := br.spool.files[0].Stat(); fi.Size() != int64(len(b64)) {
		t.Fatalf("spooled %d bytes, want %d", fi.Size(), len(b64))
	}
	rd, err := br.spool.contentReader(req.Params.Asset)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rd)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("decoded %d bytes (%v), want the %d of the asset", len(got), err, len(data))
	}
	// A placeholder the client wrote itself names nothing.
	if br.spool.file("\x00folio-spool-0000-0") != nil {
		t.Fatal("a forged placeholder named a file")
	}
}

// Without media:write, a persistMedia stops at its params: the reader
// reads no more than its buffer past them, and spools nothing.
func TestBodyReaderScopeFirst(t *testing.T) {
	body := `{"action":"persistMedia","params":{"branch":"main","asset":{"path":"uploads/x.bin","content":"` + strings.Repeat("A", 32<<20) + `"}}}`
	src := &countingReader{r: strings.NewReader(body)}
	br, err := newBodyReader(src, func() (*os.File, error) { t.Fatal("spooled"); return nil, nil }, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(br)
	if fault.CodeOf(err) != fault.Forbidden {
		t.Fatalf("err = %v, want Forbidden", err)
	}
	if src.n > 128<<10 {
		t.Fatalf("read %d bytes of the body before refusing it", src.n)
	}
	// Text past TextLimit is refused too (a long string under another key).
	body = `{"action":"persistEntry","params":{"x":"` + strings.Repeat("A", TextLimit) + `"}}`
	br, _ = newBodyReader(strings.NewReader(body), nil, true)
	if _, err = io.ReadAll(br); fault.CodeOf(err) != fault.TooLarge {
		t.Fatalf("err = %v, want TooLarge", err)
	}
}

// A body whose text passes HeavyText calls heavy once, before the
// decoder has it all; heavy's error ends the read.
func TestBodyReaderHeavy(t *testing.T) {
	body := `{"action":"persistEntry","params":{"dataFiles":[{"raw":"` + strings.Repeat("x", 2*HeavyText) + `"}]}}`
	calls := 0
	br, _ := newBodyReader(strings.NewReader(body), nil, true)
	br.heavy = func() error { calls++; return nil }
	if _, err := io.ReadAll(br); err != nil || calls != 1 {
		t.Fatalf("err %v, %d calls of heavy", err, calls)
	}
	br, _ = newBodyReader(strings.NewReader(body), nil, true)
	br.heavy = func() error { return fault.New(fault.Busy, "no turn") }
	if _, err := io.ReadAll(br); fault.CodeOf(err) != fault.Busy {
		t.Fatalf("err = %v, want heavy's", err)
	}
	br, _ = newBodyReader(strings.NewReader(`{"action":"getEntry","params":{"path":"a.md"}}`), nil, true)
	br.heavy = func() error { t.Fatal("heavy called for a small body"); return nil }
	io.ReadAll(br)
}
