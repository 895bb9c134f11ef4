package write

import (
	"testing"

	"github.com/folio-cms/folio/content"
)

// FuzzEdit edits arbitrary files: never a panic, and an edit that
// succeeds and reads back (roundTrip) keeps every key it did not touch.
func FuzzEdit(f *testing.F) {
	for _, c := range files {
		f.Add(c, "title", "New", "rating")
	}
	f.Add("---\na: &x 1\nb: *x\n---\n", "c", "v", "a")
	f.Add("---\n? [complex]\n: v\n---\n", "k", "v", "x")
	f.Add("+++\n[t]\na = 1\n+++\n", "b", "v", "t")
	f.Add("{\n\"a\": 1\n}\nbody", "b", "v", "a")
	f.Add("---\n- a\n- b\n---\n", "k", "v", "x")
	f.Fuzz(func(t *testing.T, src, setKey, setVal, removeKey string) {
		for _, p := range []string{"content/posts/x.md", "content/posts/x.yaml", "content/posts/x.toml", "content/posts/x.json"} {
			before, err := content.Parse(p, []byte(src))
			if err != nil {
				continue
			}
			fl, err := splitFile(p, []byte(src), FormatYAML)
			if err != nil {
				continue
			}
			ch := change{set: map[string]any{setKey: setVal}, remove: map[string]bool{removeKey: true}}
			if setKey == removeKey || setKey == "" {
				continue
			}
			if err := fl.apply(ch); err != nil {
				continue
			}
			out := fl.bytes()
			if roundTrip(p, out, nil, ch) != nil {
				continue
			}
			after, err := content.Parse(p, out)
			if err != nil {
				t.Fatalf("%s: round trip passed, parse failed: %v", p, err)
			}
			for k, v := range before.Meta() {
				if k == setKey || k == removeKey {
					continue
				}
				if !sameValue(after.Meta()[k], v) {
					t.Fatalf("%s: untouched key %q changed: %#v -> %#v\n%s", p, k, v, after.Meta()[k], out)
				}
			}
		}
	})
}
