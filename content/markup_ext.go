package content

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// GitHub alerts: a block quote whose first line is [!NOTE], [!TIP],
// [!IMPORTANT], [!WARNING] or [!CAUTION] renders as GitHub renders it:
//
//	<div class="markdown-alert markdown-alert-note">
//	<p class="markdown-alert-title">Note</p>
//	…
//	</div>

// KindAlert is the node kind of an alert.
var kindAlert = ast.NewNodeKind("Alert")

// alertNode is an alert: its children are the block quote's, the marker
// line gone.
type alertNode struct {
	ast.BaseBlock
	kind string // note, tip, important, warning, caution
}

func (n *alertNode) Kind() ast.NodeKind { return kindAlert }
func (n *alertNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"kind": n.kind}, nil)
}

var alertKinds = []string{"note", "tip", "important", "warning", "caution"}

// alertTitle is the title GitHub shows for an alert kind.
func alertTitle(kind string) string { return strings.ToUpper(kind[:1]) + kind[1:] }

type alertExtension struct{}

func (alertExtension) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(alertTransformer{}, 500)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(alertRenderer{}, 500)))
}

type alertTransformer struct{}

func (alertTransformer) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var quotes []*ast.Blockquote
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if q, ok := n.(*ast.Blockquote); ok && entering {
			quotes = append(quotes, q)
		}
		return ast.WalkContinue, nil
	})
	for _, q := range quotes {
		p, ok := q.FirstChild().(*ast.Paragraph)
		if !ok || p.Lines().Len() == 0 {
			continue
		}
		first := p.Lines().At(0)
		marker := strings.TrimSpace(string(first.Value(src)))
		kind := ""
		for _, k := range alertKinds {
			if strings.EqualFold(marker, "[!"+k+"]") {
				kind = k
			}
		}
		if kind == "" {
			continue
		}
		// drop the inline nodes of the marker line
		for c := p.FirstChild(); c != nil; {
			next := c.NextSibling()
			t, isText := c.(*ast.Text)
			if !isText || t.Segment.Start >= first.Stop {
				break
			}
			p.RemoveChild(p, c)
			if t.SoftLineBreak() || t.HardLineBreak() {
				break
			}
			c = next
		}
		a := &alertNode{kind: kind}
		if p.ChildCount() == 0 {
			q.RemoveChild(q, p)
		} else {
			lines := text.NewSegments()
			for i := 1; i < p.Lines().Len(); i++ {
				lines.Append(p.Lines().At(i))
			}
			p.SetLines(lines)
		}
		for c := q.FirstChild(); c != nil; {
			next := c.NextSibling()
			a.AppendChild(a, c)
			c = next
		}
		q.Parent().ReplaceChild(q.Parent(), q, a)
	}
}

type alertRenderer struct{}

func (alertRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindAlert, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		a := n.(*alertNode)
		if entering {
			_, _ = w.WriteString(alertOpen(a.kind))
		} else {
			_, _ = w.WriteString("</div>\n")
		}
		return ast.WalkContinue, nil
	})
}

// alertOpen is an alert's opening HTML, its title included.
func alertOpen(kind string) string {
	return `<div class="markdown-alert markdown-alert-` + kind + "\">\n<p class=\"markdown-alert-title\">" + alertTitle(kind) + "</p>\n"
}

// Block attributes (Hugo's markup.goldmark.parser.attribute.block): a
// line {.class #id key=value} right after a block (a paragraph, a list,
// a table, a block quote…) sets that block's attributes.

var kindAttrBlock = ast.NewNodeKind("AttributeBlock")

type attrBlockNode struct {
	ast.BaseBlock
	attrs parser.Attributes
}

func (n *attrBlockNode) Kind() ast.NodeKind         { return kindAttrBlock }
func (n *attrBlockNode) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

type blockAttributes struct{}

func (blockAttributes) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(
		parser.WithBlockParsers(util.Prioritized(attrBlockParser{}, 100)),
		parser.WithASTTransformers(util.Prioritized(attrBlockTransformer{}, 100)))
}

type attrBlockParser struct{}

func (attrBlockParser) Trigger() []byte { return []byte{'{'} }

func (attrBlockParser) Open(_ ast.Node, reader text.Reader, _ parser.Context) (ast.Node, parser.State) {
	line, _ := reader.PeekLine()
	if t := bytes.TrimSpace(line); len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return nil, parser.NoChildren
	}
	attrs, ok := parser.ParseAttributes(reader)
	if !ok {
		return nil, parser.NoChildren
	}
	if rest, _ := reader.PeekLine(); len(bytes.TrimSpace(rest)) != 0 {
		return nil, parser.NoChildren
	}
	reader.AdvanceLine()
	return &attrBlockNode{attrs: attrs}, parser.NoChildren
}

func (attrBlockParser) Continue(ast.Node, text.Reader, parser.Context) parser.State {
	return parser.Close
}
func (attrBlockParser) Close(ast.Node, text.Reader, parser.Context) {}
func (attrBlockParser) CanInterruptParagraph() bool                 { return true }
func (attrBlockParser) CanAcceptIndentedLine() bool                 { return false }

type attrBlockTransformer struct{}

func (attrBlockTransformer) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var found []*attrBlockNode
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if a, ok := n.(*attrBlockNode); ok && entering {
			found = append(found, a)
		}
		return ast.WalkContinue, nil
	})
	for _, a := range found {
		if prev := a.PreviousSibling(); prev != nil && prev.Type() == ast.TypeBlock {
			for _, at := range a.attrs {
				if bytes.Equal(at.Name, []byte("class")) {
					if old, ok := prev.AttributeString("class"); ok {
						if ob, isBytes := old.([]byte); isBytes {
							if nb, isNew := at.Value.([]byte); isNew {
								prev.SetAttribute(at.Name, append(append(append([]byte{}, ob...), ' '), nb...))
								continue
							}
						}
					}
				}
				prev.SetAttribute(at.Name, at.Value)
			}
		}
		a.Parent().RemoveChild(a.Parent(), a)
	}
}

// A paragraph that is only a component's placeholder is the component's
// block: componentBlockTransformer makes it a componentBlockNode, which
// renders as phBlock + index + phClose and a newline, for
// fillComponents (and the tree) to put the component's block in.

var kindComponentBlock = ast.NewNodeKind("ComponentBlock")

type componentBlockNode struct {
	ast.BaseBlock
	index string // the placeholder's index, as written
}

func (n *componentBlockNode) Kind() ast.NodeKind { return kindComponentBlock }
func (n *componentBlockNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"index": n.index}, nil)
}

type componentBlocks struct{}

func (componentBlocks) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(componentBlockTransformer{}, 900)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(componentBlockRenderer{}, 500)))
}

type componentBlockTransformer struct{}

func (componentBlockTransformer) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	if !bytes.ContainsRune(src, phOpen) {
		return
	}
	var found []*ast.Paragraph
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if p, ok := n.(*ast.Paragraph); ok && entering {
			if p.ChildCount() == 1 && p.Attributes() == nil {
				if t, ok := p.FirstChild().(*ast.Text); ok && phRe.Match(t.Segment.Value(src)) {
					if m := phRe.FindSubmatchIndex(t.Segment.Value(src)); m[0] == 0 && m[1] == t.Segment.Len() {
						found = append(found, p)
					}
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for _, p := range found {
		v := p.FirstChild().(*ast.Text).Segment.Value(src)
		m := phRe.FindSubmatch(v)
		p.Parent().ReplaceChild(p.Parent(), p, &componentBlockNode{index: string(m[1])})
	}
}

type componentBlockRenderer struct{}

func (componentBlockRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindComponentBlock, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(string(phBlock) + n.(*componentBlockNode).index + string(phClose) + "\n")
		}
		return ast.WalkContinue, nil
	})
}
