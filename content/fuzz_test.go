package content

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// FuzzParse checks the invariants every input must keep: no panic, an
// error is a Problem naming the path, a Doc encodes as JSON.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"---\ntitle: x\n---\nbody", "+++\na = [1, {b = 2}]\n+++\n", ";;;\n{\"a\": 1}\n;;;\n", "{\n\"a\": 1\n}\n\ntext",
		"a: &x {b: 1}\nc: *x\n<<: *x\n", "> > - [ ] x\n\n| a |\n|---|\n", aliasBomb, "a: .nan", "\uFEFF---\n---\n",
	} {
		for _, ext := range []string{".md", ".yaml", ".json", ".toml"} {
			f.Add(ext, s)
		}
	}
	f.Fuzz(func(t *testing.T, ext, src string) {
		p := "content/posts/x" + ext
		doc, err := Parse(p, []byte(src))
		// The front matter fast path agrees with parsing the whole file.
		whole, wholeErr := parseFile(p, []byte(src), false)
		if !reflect.DeepEqual(err, wholeErr) || (doc == nil) != (whole == nil) ||
			doc != nil && (doc.Body.Source() != whole.Body.Source() || doc.Line != whole.Line || !reflect.DeepEqual(doc.Lines, whole.Lines)) {
			t.Fatalf("fast path differs: %v / %v", err, wholeErr)
		}
		if err != nil {
			var pr Problem
			if !errors.As(err, &pr) || pr.Path != p || pr.Message == "" {
				t.Fatalf("error %#v is not a Problem for %s", err, p)
			}
			return
		}
		if _, err := json.Marshal(doc.Body); err != nil { // renders the Markdown
			t.Fatalf("Body does not encode: %v", err)
		}
		if _, err := json.Marshal(doc.Meta); err != nil {
			t.Fatalf("Meta does not encode: %v", err)
		}
		_, _ = Assemble([]File{{Path: p, Doc: doc}})
	})
}
