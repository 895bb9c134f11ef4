package write

import (
	"context"
	"testing"

	"github.com/folio-cms/folio/content"
)

// Keys and values that YAML, TOML and JSON would read otherwise if
// written plain are written so that they read back as given.
func TestAwkwardKeysAndValues(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	fields := map[string]any{
		"a: b": "x", "#c": "- y", "true": "null", "k": "line one\n---\nline three", "n": "007", "u": "ünï ☃", "empty": "",
		"nested": map[string]any{"deep": []any{1, "two", map[string]any{"x: y": true}}},
	}
	for _, slug := range []string{"hello", "toml", "json"} {
		res, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: slug, Fields: fields}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", slug, err)
		}
		doc, err := content.Parse(res.Path, []byte(s.remoteFile(res.Path)))
		if err != nil {
			t.Fatalf("%s: %v", slug, err)
		}
		for k, v := range fields {
			if !sameValue(doc.Meta()[k], v) {
				t.Errorf("%s: %q reads back as %#v", slug, k, doc.Meta()[k])
			}
		}
	}
}
