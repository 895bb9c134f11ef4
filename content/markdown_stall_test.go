package content

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// stall is an inline parser that holds the first render that meets a "["
// off the CPU for d, as the scheduler does to a render on a loaded machine
// (a first start of a big site: the parse cache written, the search
// built, every request rendering at once); it parses nothing.
type stall struct {
	once *sync.Once
	d    time.Duration
}

func (stall) Trigger() []byte { return []byte{'['} }

func (s stall) Parse(ast.Node, text.Reader, parser.Context) ast.Node {
	s.once.Do(func() { time.Sleep(s.d) })
	return nil
}

// A render held up for longer than a render of its size takes renders the
// same HTML: the Markdown renderer's limits depend on the source alone.
// Before, a wall-clock backstop (250 ms plus 2 µs a byte) turned the rest
// of such a body's links into their source ("[is](/posts/…)"), and the
// body kept that HTML for the life of the process: on a first start of the
// 10k site, a few bodies served in the first seconds showed it.
func TestMarkdownRenderDoesNotDependOnTheClock(t *testing.T) {
	var doc strings.Builder
	for i := range 200 {
		fmt.Fprintf(&doc, "Line %d is [a link](/posts/p-%d), *emphasis* and `code`.\n\n", i, i)
	}
	src := []byte(doc.String())
	var want bytes.Buffer
	if err := markdownFor(nil).Convert(src, &want, parserContext(len(src))); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(want.Bytes(), []byte("](/posts/")) {
		t.Fatal("a render left a link as source")
	}

	md := newMarkdown(0)
	md.Parser().AddOptions(parser.WithInlineParsers(util.Prioritized(stall{once: new(sync.Once), d: 300*time.Millisecond + time.Duration(len(src))*2*time.Microsecond}, linkGatePriority-1)))
	var got bytes.Buffer
	if err := md.Convert(src, &got, parserContext(len(src))); err != nil {
		t.Fatal(err)
	}
	if g, w := got.String(), want.String(); g != w {
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		t.Fatalf("a render held up differs from byte %d on: %.120q", i, g[i:])
	}
}
