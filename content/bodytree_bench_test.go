package content

import (
	"encoding/json"
	"strings"
	"testing"
)

// benchBody is a docs page of about 5 KB: headings, lists, code, a table,
// links, and (with shortcodes) Docsy's alert and tabpane.
func benchBody(shortcodes bool) string {
	var b strings.Builder
	for i := range 6 {
		b.WriteString("## Section " + strings.Repeat("x", i) + "\n\nSome *text* with a [link](/docs/a/) and `code`, and more words to read here.\n\n- one\n- two **bold**\n- three\n\n")
		b.WriteString("```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n")
		if shortcodes {
			b.WriteString("{{< alert color=\"warning\" >}}\nRead **this**.\n{{< /alert >}}\n\n{{< tabpane >}}\n{{% tab \"Go\" %}}\nUse `go`.\n{{% /tab %}}\n{{< /tabpane >}}\n\nVersion {{% param vers %}}.\n\n")
		}
	}
	return b.String()
}

// BenchmarkBodyHTML is the render of one body to HTML (what every body
// pays once, on first use).
func BenchmarkBodyHTML(b *testing.B) {
	for _, sc := range []bool{false, true} {
		src := benchBody(sc)
		b.Run(map[bool]string{false: "markdown", true: "shortcodes"}[sc], func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				NewMarkdown(src).HTML()
			}
		})
	}
}

// BenchmarkBodyTree is the making of one body's tree (its JSON), what a
// body pays once when a client first asks for ?body=tree.
func BenchmarkBodyTree(b *testing.B) {
	for _, sc := range []bool{false, true} {
		src := benchBody(sc)
		b.Run(map[bool]string{false: "markdown", true: "shortcodes"}[sc], func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewMarkdown(src).Tree(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBodyTreeServe is what each ?body=tree response pays per body
// once the tree is kept: Tree (the kept JSON), TreeWithMedia when no
// image names a media item (the kept JSON too), and when one does (a
// decode and an encode of the tree).
func BenchmarkBodyTreeServe(b *testing.B) {
	src := benchBody(true) + "![a](/uploads/2026/01/a.png)\n\n![b](https://example.org/b.png)\n"
	m := NewMarkdown(src)
	if _, err := m.Tree(); err != nil {
		b.Fatal(err)
	}
	item := json.RawMessage(`{"id":"abc","url":"/uploads/2026/01/a.png","width":64,"height":48}`)
	for _, c := range []struct {
		name string
		run  func() (json.RawMessage, error)
	}{
		{"Tree", m.Tree},
		{"NoMedia", func() (json.RawMessage, error) {
			return m.TreeWithMedia(func(string) json.RawMessage { return nil })
		}},
		{"Media", func() (json.RawMessage, error) {
			return m.TreeWithMedia(func(u string) json.RawMessage {
				if u == "/uploads/2026/01/a.png" {
					return item
				}
				return nil
			})
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
