package content

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// FuzzParse checks the invariants every input must keep: no panic, an
// error is a Problem naming the path, a Doc encodes as JSON.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"---\ntitle: x\n---\nbody", "+++\na = [1, {b = 2}]\n+++\n", ";;;\n{\"a\": 1}\n;;;\n", "{\n\"a\": 1\n}\n\ntext",
		"a: &x {b: 1}\nc: *x\n<<: *x\n", "> > - [ ] x\n\n| a |\n|---|\n", aliasBomb, "a: .nan", "\uFEFF---\n---\n",
		"---\ntitle: x\n---\n<p onclick=x>a<script>b</script><a href=\"javascript:c\">d</a><iframe src=e></iframe></p>",
		"<SCRIPT>x</SCRIPT><svg><script>y</script></svg><math><style>z</style></math><img src=x onerror=y>",
		"---\na: 1\n-----\nb: 2\n---\nbody", "---js\nconst a = { b: [1, \"c\"] };\n---\nx",
	} {
		for _, ext := range []string{".md", ".yaml", ".json", ".toml", ".html"} {
			f.Add(ext, s)
		}
	}
	f.Fuzz(func(t *testing.T, ext, src string) {
		p := "content/posts/x" + ext
		doc, err := Parse(p, []byte(src))
		// The front matter fast path agrees with parsing the whole file.
		whole, wholeErr := parseFile(p, []byte(src), false, nil)
		if !reflect.DeepEqual(err, wholeErr) || (doc == nil) != (whole == nil) ||
			doc != nil && (doc.Body.Source() != whole.Body.Source() || doc.Line != whole.Line || !reflect.DeepEqual(doc.KeyLines(), whole.KeyLines())) {
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
		// An HTML body is served sanitized: no element or attribute that
		// runs script, as a browser would tokenize it.
		if doc.Body.IsHTML() {
			if bad := scriptIn(doc.Body.HTML()); bad != "" {
				t.Fatalf("sanitized HTML body has %s: %q", bad, doc.Body.HTML())
			}
		}
		if _, err := json.Marshal(doc.Meta()); err != nil {
			t.Fatalf("Meta does not encode: %v", err)
		}
		_, _ = Assemble([]File{{Path: p, Doc: doc}})
	})
}

// scriptIn names the first element or attribute of h that runs script or
// loads a frame (script, style, iframe, object, an on* handler, a
// javascript: URL); "" when there is none.
func scriptIn(h string) string {
	z := html.NewTokenizer(strings.NewReader(h))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "script", "style", "iframe", "object", "embed":
				return "<" + tok.Data + ">"
			}
			for _, a := range tok.Attr {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				if strings.HasPrefix(a.Key, "on") || strings.HasPrefix(v, "javascript:") || strings.HasPrefix(v, "vbscript:") {
					return a.Key + "=" + a.Val
				}
			}
		}
	}
}
