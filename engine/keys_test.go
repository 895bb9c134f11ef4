package engine_test

import (
	"testing"

	"github.com/folio-cms/folio/engine"
)

func TestKeyScheme(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{engine.PageKey("home"), "page:home"},
		{engine.PageKey("a b,c"), "page:a%20b%2Cc"},
		{engine.ItemKey("posts", "guides/install"), "item:posts/guides/install"},
		{engine.ItemKey("posts", "ü%"), "item:posts/%C3%BC%25"},
		{engine.TypeKey("posts"), "type:posts"},
		{engine.KeyPart("ok-._~/:@9Z"), "ok-._~/:@9Z"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
