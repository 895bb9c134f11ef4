package repr

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/folio-cms/folio/engine"
)

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestResource_Gzip(t *testing.T) {
	r := engine.NewResource(map[string]any{"title": "Hello", "body": strings.Repeat("<p>some text</p>", 500)})
	body, etag, _ := r.Body()
	gz, gzTag, _ := GzipBody(r)
	if got := gunzip(t, gz); !bytes.Equal(got, body) {
		t.Fatalf("gunzip: got %d bytes, want %d", len(got), len(body))
	}
	if len(gz) >= len(body)/4 {
		t.Errorf("gzip is %d bytes of %d", len(gz), len(body))
	}
	if want := etag[:len(etag)-1] + `-gz"`; gzTag != want {
		t.Errorf("ETag %s, want %s", gzTag, want)
	}
	again, _, _ := GzipBody(r)
	if &again[0] != &gz[0] {
		t.Error("Gzip compressed again")
	}
	br, brTag, _ := BrotliBody(r)
	got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(br)))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("brotli: %v, %d bytes", err, len(got))
	}
	if brTag != etag[:len(etag)-1]+`-br"` {
		t.Errorf("brotli ETag %s", brTag)
	}
}

func TestGzipJoin(t *testing.T) {
	a := engine.NewResource(map[string]any{"a": strings.Repeat("alpha ", 3000)})
	b := engine.NewResource(map[string]any{"b": "beta"})
	ab, _, _ := a.Body()
	bb, _, _ := b.Body()
	af, _ := DeflatedFragment(a)
	bf, _ := DeflatedFragment(b)
	big := bytes.Repeat([]byte("x"), 70000) // more than one stored block
	var want []byte
	want = append(want, `{"items":[`...)
	want = append(want, ab...)
	want = append(want, ',')
	want = append(want, bb...)
	want = append(want, `],"pad":"`...)
	want = append(want, big...)
	want = append(want, `"}`...)
	var g GzipPieces
	g.Start(7, len(want)-len(ab)-len(bb))
	g.Raw([]byte(`{"items":[`))
	g.Fragment(af)
	g.Raw([]byte(","))
	g.Fragment(bf)
	g.Raw([]byte(`],"pad":"`))
	g.Raw(big)
	g.Raw([]byte(`"}`))
	pieces, n := g.Done()
	gz := bytes.Join(pieces, nil)
	if got := gunzip(t, gz); !bytes.Equal(got, want) {
		t.Fatalf("joined stream decodes to %d bytes, want %d", len(got), len(want))
	}
	if n != len(gz) {
		t.Fatalf("GzipPieces said %d bytes, wrote %d", n, len(gz))
	}
	var empty GzipPieces
	empty.Start(0, 0)
	if pieces, _ := empty.Done(); len(gunzip(t, bytes.Join(pieces, nil))) != 0 {
		t.Fatal("empty join decodes to bytes")
	}
}

// benchPage is about the size of the load test's page (12 KB of JSON).
func benchPage() *engine.Resource {
	var sections []map[string]any
	for i := range 40 {
		sections = append(sections, map[string]any{"id": fmt.Sprint("s", i), "type": "text",
			"data": map[string]any{"html": fmt.Sprintf("<p>Paragraph %d of the page, with some words that repeat as real text does.</p>", i)}})
	}
	return engine.NewResource(map[string]any{"title": "A page", "slug": "a-page", "sections": sections})
}

// BenchmarkResourceGzip is the one-off cost of a page's kept gzip form.
func BenchmarkResourceGzip(b *testing.B) {
	body, etag, _ := benchPage().Body()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		r, _ := engine.NewResource(nil).WithBody(body, etag)
		GzipBody(r)
	}
}

// BenchmarkResourceBrotli is the one-off cost of a page's kept brotli form.
func BenchmarkResourceBrotli(b *testing.B) {
	body, etag, _ := benchPage().Body()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		r, _ := engine.NewResource(nil).WithBody(body, etag)
		BrotliBody(r)
	}
}
