package engine

import (
	"errors"
	"strings"
	"testing"

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
