package content

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// ungated is the renderer without the gate, to compare with.
func ungated(t testing.TB, src string) string {
	t.Helper()
	md := goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote), goldmark.WithParserOptions(parser.WithAutoHeadingID()))
	var b bytes.Buffer
	if err := md.Convert([]byte(src), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// gated renders src as a body is rendered and tells whether the work
// budget ran out.
func gated(t testing.TB, src string) (string, bool) {
	t.Helper()
	pc := renderContext(len(src))
	var b bytes.Buffer
	if err := markdownFor(nil).Convert([]byte(src), &b, parser.WithContext(pc)); err != nil {
		t.Fatal(err)
	}
	return b.String(), linksGated(pc)
}

// Ordinary Markdown, links and code spans included, renders exactly as
// goldmark renders it without the gate.
func TestLinkGateKeepsOrdinaryMarkdown(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("# Title\n\nSome *emphasis*, __strong__, ~~gone~~, `code`, <https://example.com>, www.example.org.\n\n")
	for i := range 2000 {
		doc.WriteString("A line with [a link](https://example.com/x?i=1 \"title\"), ![an image](/uploads/a.png), [ref][r], `a[i]` and [^n] ")
		if i%5 == 4 {
			doc.WriteString("\n\n")
		} else {
			doc.WriteString("\n")
		}
	}
	doc.WriteString("\n[r]: https://example.com/ref\n[^n]: A note.\n\n```go\nx := a[i][j]\n```\n")
	src := doc.String()
	got, off := gated(t, src)
	if off {
		t.Fatal("the budget ran out on ordinary Markdown")
	}
	if want := ungated(t, src); got != want {
		t.Fatal("the gate changed the HTML of ordinary Markdown")
	}
}

// Bodies that make goldmark's link and code span parsing quadratic run
// out of the work budget, which depends on the source alone: their inline
// syntax past that point is text, escaped.
//
// "[a]: b\n" is past refDefGate's threshold (1,024 definition-like lines
// in one paragraph), so its lines are a paragraph of "[a]" links, whose
// labels goldmark reads in time quadratic in the paragraph's lines
// (blockReader.Value): linesAfter counts that. Before it, the 200 KB body
// rendered whole with its links in about 70 s under -race.
func TestLinkGateStopsQuadraticBodies(t *testing.T) {
	for _, pat := range []string{"[a](", "![a](", "`a", "[a](<script>", "[a]: b\n"} {
		src := strings.Repeat(pat, (200<<10)/len(pat))
		html, off := gated(t, src)
		if !off {
			t.Errorf("%q × 200 KB: the budget did not run out", pat)
		}
		if strings.Contains(html, "<script>") {
			t.Errorf("%q: raw HTML passed through", pat)
		}
		again, _ := gated(t, src)
		if again != html {
			t.Errorf("%q: two renders differ", pat)
		}
	}
}

// FuzzMarkdownRenderTime checks render time, not only crashes: the input,
// repeated to 128 KB (superlinear parsing shows on repeated patterns),
// must render within renderTimeLimit. Before the gate, "[a](" repeated to
// 128 KB took about 6 s.
func FuzzMarkdownRenderTime(f *testing.F) {
	for _, s := range []string{"[a](", "![a](", "[a][", "[![", "[a](b \"\n", "`a", "*a", "_a", "~~a", "<a", "[^a]", "[a]: b\n", "[a]: b\nc\n", "> - [", "| a |\n|---|\n| [ |\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pat string) {
		if pat == "" || len(pat) > 256 {
			return
		}
		src := strings.Repeat(pat, (128<<10)/len(pat)+1)
		if markdownTooDeep([]byte(src)) > 0 {
			return // Parse refuses it
		}
		start := time.Now()
		NewMarkdown(src).HTML()
		if d, limit := time.Since(start), renderTimeLimit(len(src)); d > limit {
			t.Fatalf("%q × %d B rendered in %s (limit %s)", pat, len(src), d, limit)
		}
	})
}

// renderTimeLimit is the longest a body of n bytes may take to render in
// a test: about ten times what ordinary Markdown takes, plus a margin for
// a loaded machine under -race. (The renderer itself has no clock: see
// linkGate.)
func renderTimeLimit(n int) time.Duration {
	return 2*time.Second + 500*time.Millisecond + time.Duration(n)*4*time.Microsecond
}

// BenchmarkMarkdownPathological is the render of 200 KB of "[a](" (18 s
// before the gate).
func BenchmarkMarkdownPathological(b *testing.B) {
	src := strings.Repeat("[a](", 50<<10)
	for b.Loop() {
		NewMarkdown(src).HTML()
	}
}

// Link reference definitions keep working; thousands of them in one
// paragraph render as text rather than in quadratic time.
func TestRefDefGate(t *testing.T) {
	few := "[x](y) [a] [b]\n\n[a]: /one\n[b]: /two \"Two\"\n"
	if got, want := NewMarkdown(few).HTML(), ungated(t, few); got != want {
		t.Fatalf("definitions: got %s, want %s", got, want)
	}
	many := "[a]\n\n" + strings.Repeat("[a]: b\n", 3000)
	if html := NewMarkdown(many).HTML(); !strings.Contains(html, "[a]: b") {
		t.Fatalf("3000 definitions in one paragraph were parsed as definitions: %.200s", html)
	}
	spaced := "[a]\n\n" + strings.Repeat("[a]: b\n\n", 3000)
	if got, want := NewMarkdown(spaced).HTML(), ungated(t, spaced); got != want {
		t.Fatal("definitions apart changed")
	}
}
