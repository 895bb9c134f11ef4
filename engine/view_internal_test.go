package engine

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/folio-cms/folio/content"
)

// A resource whose body does not render is an error that names the file,
// and nothing of it is kept: once the body renders, the resource encodes.
func TestResource_BodyFails(t *testing.T) {
	broken := true
	it := &content.Item{ID: "1", Type: "posts", Slug: "a", Meta: content.Meta{Path: "content/posts/a.md"},
		Data: map[string]any{"body": content.NewLazyMarkdown(func() (string, error) {
			if broken {
				panic("renderer bug")
			}
			return "fine", nil
		})}}
	r := newResource(it)
	for range 2 {
		if _, _, err := r.Body(); !errors.Is(err, content.ErrRenderPanic) || !strings.Contains(err.Error(), "content/posts/a.md") {
			t.Fatalf("Body: err = %v, want the panic with the path", err)
		}
		if sk, _ := r.Keys(); sk != nil {
			t.Fatalf("keys of a resource that does not encode: %q", sk)
		}
		if _, err := r.WithBody([]byte("{}"), `"x"`); err == nil {
			t.Fatal("WithBody of a resource that does not encode")
		}
	}
	broken = false
	body, etag, err := r.Body()
	if err != nil || !strings.Contains(string(body), "<p>fine</p>") || etag == "" {
		t.Fatalf("Body = %s %s, %v", body, etag, err)
	}
}

// TestResource_SmallUntilEncoded: a snapshot's resources (one for every
// item, two for every page), most never requested, are 48 bytes until
// the first request encodes one (128 when the encoding's fields were the
// resource's); the encoding is made once however many ask at once, and
// is what it was: body, ETag tied to the blob, keys, and WithBody's.
func TestResource_SmallUntilEncoded(t *testing.T) {
	if n := unsafe.Sizeof(Resource{}); n > 48 {
		t.Errorf("a resource not encoded is %d bytes, want at most 48", n)
	}
	it := &content.Item{ID: "1", Type: "posts", Slug: "a", Title: "A", Data: map[string]any{"k": "v"},
		Meta: content.Meta{Path: "content/posts/a.md", Blob: "0123456789abcdef0123456789abcdef01234567"}}
	r := newResource(it)
	if r.enc.Load() != nil {
		t.Fatal("encoded before the first request")
	}
	var wg sync.WaitGroup
	bodies := make([][]byte, 8)
	for i := range bodies {
		wg.Go(func() { bodies[i], _, _ = r.Body() })
	}
	wg.Wait()
	for _, b := range bodies[1:] {
		if unsafe.SliceData(b) != unsafe.SliceData(bodies[0]) {
			t.Fatal("encoded more than once")
		}
	}
	body, etag, err := r.Body()
	if err != nil || !strings.HasPrefix(string(body), `{"id":"1","type":"posts","title":"A","slug":"a","data":{"k":"v"}`) {
		t.Fatalf("Body = %s, %v", body, err)
	}
	if want := `"0123456789abcdef.` + ETag(body)[1:]; etag != want {
		t.Errorf("ETag %s, want %s", etag, want)
	}
	sk, tag := r.Keys()
	if len(sk) != 1 || sk[0] != ItemKey("posts", "1")+" "+TypeKey("posts") || len(tag) != 1 || tag[0] != ItemKey("posts", "1")+","+TypeKey("posts") {
		t.Errorf("Keys = %q, %q", sk, tag)
	}
	w, err := r.WithBody([]byte(`{"x":1}`), `"w"`)
	if err != nil {
		t.Fatal(err)
	}
	wb, wetag, err := w.Body()
	wsk, _ := w.Keys()
	if err != nil || string(wb) != `{"x":1}` || wetag != `"w"` || len(wsk) != 1 || wsk[0] != sk[0] {
		t.Errorf("WithBody: %s %s %q, %v", wb, wetag, wsk, err)
	}
}
