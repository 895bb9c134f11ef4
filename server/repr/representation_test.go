package repr

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/folio-cms/folio/engine"
)

func TestResource_Representation(t *testing.T) {
	r := engine.NewResource(map[string]any{"title": "Hello", "body": strings.Repeat("<p>some text</p>", 500)})
	body, etag, _ := r.Body()
	gz, gzTag, _ := GzipBody(r)
	br, brTag, _ := BrotliBody(r)
	for _, tc := range []struct {
		c    Coding
		body []byte
		etag string
	}{{Identity, body, etag}, {Gzip, gz, gzTag}, {Brotli, br, brTag}, {Coding(200), body, etag}} {
		rep, _ := Of(r, tc.c)
		if !bytes.Equal(rep.Body, tc.body) {
			t.Errorf("coding %d: body of %d bytes, want %d", tc.c, len(rep.Body), len(tc.body))
		}
		if len(rep.ETag) != 1 || rep.ETag[0] != tc.etag {
			t.Errorf("coding %d: ETag %q, want %s", tc.c, rep.ETag, tc.etag)
		}
		if want := strconv.Itoa(len(tc.body)); len(rep.ContentLength) != 1 || rep.ContentLength[0] != want {
			t.Errorf("coding %d: Content-Length %q, want %s", tc.c, rep.ContentLength, want)
		}
		if again, _ := Of(r, tc.c); again != rep {
			t.Errorf("coding %d: made again", tc.c)
		}
	}
}

// The first readers of a representation may race to make it; they all get
// the one kept.
func TestResource_RepresentationConcurrent(t *testing.T) {
	r := engine.NewResource(map[string]any{"body": strings.Repeat("text ", 1000)})
	got := make([]*Representation, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i], _ = Of(r, Gzip) })
	}
	wg.Wait()
	for _, rep := range got {
		if rep != got[0] {
			t.Fatal("readers got different representations")
		}
	}
}
