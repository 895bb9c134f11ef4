package schema

import (
	"testing"

	"github.com/folio-cms/folio/content"
)

// FuzzCompile: whatever folio.yaml, Decap config and document say, the
// model compiles or is a problem, and validation answers; never a panic.
func FuzzCompile(f *testing.F) {
	f.Add(postsModel, decapConfig, "---\ntitle: A\nprice: 3\n---\nBody\n")
	f.Add("types:\n  posts:\n    fields:\n      a: {kind: list, of: {kind: object, fields: {b: {kind: enum, values: [1, x]}}}}\n",
		"collections: [{name: x, folder: content/posts, fields: [{name: l, widget: list, types: [{name: t, fields: [{name: n, widget: number}]}]}]}]\n",
		"---\na: [{b: 1}, {b: y}]\nl: [{type: t, n: '3'}]\n---\n")
	f.Add("types: {posts: {schema: schemas/p.json}}\n", "collections: 3\n", "---\n[]\n---\n")
	f.Fuzz(func(t *testing.T, cfg, decap, doc string) {
		files := map[string]string{"folio.yaml": cfg, "admin/config.yml": decap, "content/posts/a.md": doc,
			"schemas/p.json": `{"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "string"}}}`}
		var fs []content.File
		docs := map[string]*content.Doc{}
		for p, src := range files {
			d, err := content.Parse(p, []byte(src))
			fs = append(fs, content.File{Path: p, Doc: d, Err: err})
			docs[p] = d
		}
		site, _ := content.Assemble(fs)
		m, probs, ok := Compile(site)
		if !ok {
			if len(probs) == 0 {
				t.Fatal("not compiled, and no problem")
			}
			return
		}
		if d := docs["content/posts/a.md"]; d != nil {
			if ty := m.Of("posts"); ty != nil {
				ty.Validate(d)
				ty.Apply(d.Meta())
			}
		}
		for _, ty := range m.All() {
			if _, err := jsonValue(ty.Data); err != nil {
				t.Fatalf("%s: data schema does not encode: %v", ty.Name, err)
			}
		}
	})
}
