package content

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// goldmark (v1.8.7, the newest) parses some inputs in time quadratic in
// the length of a paragraph: each "]" of a link that does not close (as in
// "[a](" repeated) scans the rest of the line for its destination, and
// each unclosed "`" the rest for its closer. A body of 200 KB of "[a]("
// took 18 s. linkGate bounds that work per body: it stands before
// goldmark's inline parsers on their trigger characters and counts, for
// every "]" and "`", the rest of its line; past linkWorkBudget, the rest
// of the body is rendered with its inline syntax (links, images, code
// spans, emphasis, autolinks) as plain text, which is linear (a "]" also
// counts the lines after it in its paragraph: linesAfter); the blocks
// (paragraphs, lists, headings…) stay. Ordinary bodies never come near
// the budget (a line of 500 characters with 20 links counts 5 KB; the
// budget is 16 times the body plus 1 MiB).
//
// The count depends on the source alone, so every render of a body, on
// every box, is the same HTML. The gate has no clock: a wall-clock
// backstop tripped on ordinary bodies whose render the scheduler held
// off the CPU (a first start of a big site on a loaded machine), and the
// rest of their links showed as source for the life of the process.

// linkWorkBudget is the work, in bytes scanned, a body of n bytes may
// spend on link destinations.
func linkWorkBudget(n int) int64 { return 16*int64(n) + 1<<20 }

var gateKey = parser.NewContextKey()

// gateState is one render's count.
type gateState struct {
	work, budget int64
	off          bool
}

// linkGate is an inline parser of the trigger characters of goldmark's
// inline parsers that parses nothing while the budget lasts (goldmark's
// parsers then run) and turns each of them into text once it is spent.
type linkGate struct{}

// linkGatePriority puts the gate before every inline parser (goldmark's
// code span parser has 100).
const linkGatePriority = 99

func (linkGate) Trigger() []byte { return []byte{'[', ']', '!', '`', '*', '_', '~', '<'} }

func (linkGate) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	st, _ := pc.Get(gateKey).(*gateState)
	if st == nil {
		return nil
	}
	line, seg := block.PeekLine()
	if len(line) == 0 {
		return nil
	}
	if !st.off {
		if line[0] == ']' || line[0] == '`' {
			st.work += int64(len(line))
		}
		if line[0] == ']' {
			st.work += linesAfter(parent, block)
		}
		if st.work <= st.budget {
			return nil
		}
		st.off = true
	}
	block.Advance(1)
	return ast.NewTextSegment(seg.WithStop(seg.Start + 1))
}

// linesAfter is how many lines of its block follow the reader's line: a
// "]" that may close a link reference makes goldmark read the label with
// the block reader's Value, which walks back from the block's last line to
// the label's, so a paragraph of n lines of "[a]" costs n²/2 line steps
// (32 KB of "[a]: b" lines, 4,700 lines, counts 11 M against a budget of
// 1.5 M). The lines are counted in bytes' stead: a line step is no cheaper
// than a byte scanned.
func linesAfter(parent ast.Node, block text.Reader) int64 {
	for n := parent; n != nil; n = n.Parent() {
		if n.Type() == ast.TypeBlock {
			line, _ := block.Position()
			return int64(max(n.Lines().Len()-line-1, 0))
		}
	}
	return 0
}

// renderContext is the parser context of one render of a body of n bytes.
func renderContext(n int) parser.Context {
	pc := parser.NewContext()
	pc.Set(gateKey, &gateState{budget: linkWorkBudget(n)})
	return pc
}

// linksGated tells whether the render with pc ran out of budget.
func linksGated(pc parser.Context) bool {
	st, _ := pc.Get(gateKey).(*gateState)
	return st != nil && st.off
}

// goldmark takes each link reference definition off the front of its
// paragraph by slicing the paragraph's lines anew: time quadratic in the
// definitions of one paragraph (128 KB of "[a]: b" lines took 2.6 s).
// refDefGate stands before goldmark's link reference transformer: a
// paragraph whose leading lines that may be definitions, times its lines,
// exceed maxRefDefWork is rendered as an ordinary paragraph (its
// definitions as text), which is linear. Thousands of definitions in one
// paragraph do not occur in real content; a blank line between them
// avoids this.
type refDefGate struct{}

// maxRefDefWork bounds leading definition-like lines × lines per paragraph.
const maxRefDefWork = 1 << 20

// refDefGatePriority is before goldmark's link reference transformer (100).
const refDefGatePriority = 99

func (refDefGate) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := node.Lines()
	n := lines.Len()
	if n < 1024 {
		return
	}
	src := reader.Source()
	defs := 0
	for i := range n {
		seg := lines.At(i)
		l := seg.Value(src)
		j := 0
		for j < len(l) && j < 3 && l[j] == ' ' {
			j++
		}
		if j >= len(l) || l[j] != '[' {
			break
		}
		defs++
	}
	if defs*n <= maxRefDefWork {
		return
	}
	// A new paragraph of the same lines in its place: the transformers
	// do not run on it (they stop once this one has no parent), the inline
	// parser does.
	p := ast.NewParagraph()
	p.SetLines(lines)
	node.Parent().ReplaceChild(node.Parent(), node, p)
}
