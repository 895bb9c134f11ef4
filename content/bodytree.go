package content

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// A body tree is a body as nodes a front end maps onto its own
// components, in the shape of mdast (the syntax tree of remark, which
// Nuxt Content and MDX build on): {"type": "root", "children": […]}.
// Node types: paragraph, heading (depth, id), text (value), emphasis,
// strong, delete, inlineCode (value), code (lang, value), link (url,
// title), image (url, alt, title; media: the media library item its
// url names, see TreeWithMedia), list (ordered, start, spread),
// listItem (checked), blockquote, thematicBreak, break, table (align),
// tableRow, tableCell, alert (kind), html (value: HTML folio serves
// there, sanitized), and component (name, props, args, syntax, inline,
// html for the built-ins folio renders). Block nodes may carry
// attributes ([[name, value], …], in the order they are written).
// TreeHTML renders a tree back to the HTML the body serves.

// TreeNode is one node of a body tree.
type TreeNode struct {
	Type     string      `json:"type"`
	Children []*TreeNode `json:"children,omitempty"`
	Value    *string     `json:"value,omitempty"`
	Depth    int         `json:"depth,omitempty"`
	ID       string      `json:"id,omitempty"`
	URL      *string     `json:"url,omitempty"`
	Title    *string     `json:"title,omitempty"`
	Alt      *string     `json:"alt,omitempty"`
	Lang     string      `json:"lang,omitempty"`
	Ordered  bool        `json:"ordered,omitempty"`
	Start    *int        `json:"start,omitempty"`
	Spread   *bool       `json:"spread,omitempty"`
	Checked  *bool       `json:"checked,omitempty"`
	Align    []string    `json:"align,omitempty"`
	// TextAlign: a table cell's alignment (left, right, center)
	TextAlign string         `json:"textAlign,omitempty"`
	Kind      string         `json:"kind,omitempty"`
	Name      string         `json:"name,omitempty"`
	Props     map[string]any `json:"props,omitempty"`
	Args      []string       `json:"args,omitempty"`
	Syntax    string         `json:"syntax,omitempty"`
	Inline    bool           `json:"inline,omitempty"`
	HTML      string         `json:"html,omitempty"`
	Attrs     [][2]string    `json:"attributes,omitempty"`
	// Media: an image's media library item, when its URL names one
	// (TreeWithMedia); never kept in the cached tree.
	Media json.RawMessage `json:"media,omitempty"`
	// tightList: a list item of a tight list (TreeHTML)
	tightList bool
}

func strp(s string) *string { return &s }

// Tree is the body as a tree (see TreeNode), encoded as JSON; made on
// first use and kept, as the HTML is. An HTML body is one html node.
func (m Markdown) Tree() (json.RawMessage, error) {
	r, err := m.tree()
	if err != nil {
		return nil, err
	}
	return json.RawMessage(r.text), nil
}

// emptyTree is the tree of no body.
var emptyTree = &rendered{text: `{"type":"root"}`}

// tree is the kept tree, made on first use, with where its image nodes
// are (TreeWithMedia).
func (m Markdown) tree() (*rendered, error) {
	b := m.b
	if b == nil {
		return emptyTree, nil
	}
	key := m.env.key()
	if r := b.tree(); r != nil && r.key == key && m.env.depsHold(r.deps) {
		return r, nil
	}
	rs := b.renders()
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r := rs.tree.Load(); r != nil && r.key == key && m.env.depsHold(r.deps) {
		return r, nil
	}
	var deps []refDep
	root, err := b.buildTree(m.bodyEnv(), &deps)
	if err != nil {
		return nil, err
	}
	j, err := json.Marshal(root)
	if err != nil {
		return nil, err
	}
	r := &rendered{key: key, text: string(j), images: imagesOf(j), deps: deps}
	rs.tree.Store(r)
	m.noteLinks(deps)
	return r, nil
}

func (b *markdownBody) buildTree(env *bodyEnv, deps *[]refDep) (root *TreeNode, err error) {
	defer func() {
		if v := recover(); v != nil {
			root, err = nil, fmt.Errorf("%w: %v\n%s", ErrRenderPanic, v, debug.Stack())
		}
	}()
	src := b.src
	if b.load != nil {
		if src, err = b.load.BodySource(); err != nil {
			return nil, err
		}
	}
	root = &TreeNode{Type: "root"}
	if b.isHTML {
		root.Children = []*TreeNode{{Type: "html", Value: strp(sanitizeHTML(src))}}
		return root, nil
	}
	if markdownTooDeep([]byte(src)) > 0 {
		return root, nil
	}
	e := env.withNestBudget(len(src), deps)
	root.Children = bodyTree(src, e, 0)
	return root, nil
}

// bodyTree is the tree of a Markdown source's blocks.
func bodyTree(src string, env *bodyEnv, depth int) []*TreeNode {
	exp := expandBody(src, env)
	md := markdownFor(env.md())
	source := []byte(exp.src)
	doc := md.Parser().Parse(text.NewReader(source), parserContext(len(source)))
	tb := &treeBuilder{src: source, comps: exp.comps, env: env, depth: depth}
	return tb.children(doc)
}

type treeBuilder struct {
	src   []byte
	comps []*component
	env   *bodyEnv
	depth int
}

func (tb *treeBuilder) children(n ast.Node) []*TreeNode {
	var out []*TreeNode
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = append(out, tb.node(c)...)
	}
	return out
}

// goldmarkHTML is goldmark's rendering of one node, for the nodes the
// tree keeps as HTML.
func (tb *treeBuilder) goldmarkHTML(n ast.Node) string {
	var buf bytes.Buffer
	_ = markdownFor(tb.env.md()).Renderer().Render(&buf, tb.src, n)
	return fillComponents(buf.String(), tb.comps, tb.env, tb.depth)
}

// textOf is the text goldmark writes for a value (backslash escapes and
// entities resolved), unescaped.
func textOf(v []byte) string {
	if bytes.IndexByte(v, '&') < 0 && bytes.IndexByte(v, '\\') < 0 {
		return string(v) // nothing to resolve: the common case
	}
	var buf bytes.Buffer
	w := bufio.NewWriterSize(&buf, len(v)+16)
	ghtml.DefaultWriter.Write(w, v)
	_ = w.Flush()
	return html.UnescapeString(buf.String())
}

func attrsOf(n ast.Node, filter util.BytesFilter) [][2]string {
	var out [][2]string
	for _, a := range n.Attributes() {
		if filter != nil && !filter.Contains(a.Name) && !bytes.HasPrefix(a.Name, []byte("data-")) {
			continue // as goldmark's RenderAttributes
		}
		var v string
		switch x := a.Value.(type) {
		case []byte:
			v = string(x)
		case string:
			v = x
		default:
			v = fmt.Sprint(x)
		}
		out = append(out, [2]string{string(a.Name), v})
	}
	return out
}

func (tb *treeBuilder) node(n ast.Node) []*TreeNode {
	switch n := n.(type) {
	case *componentBlockNode:
		if i, err := strconv.Atoi(n.index); err == nil && i < len(tb.comps) {
			return []*TreeNode{tb.component(tb.comps[i], true)}
		}
		return nil
	case *ast.Paragraph:
		return []*TreeNode{{Type: "paragraph", Children: tb.children(n), Attrs: attrsOf(n, ghtml.ParagraphAttributeFilter)}}
	case *ast.TextBlock:
		return []*TreeNode{{Type: "paragraph", Children: tb.children(n)}}
	case *ast.Heading:
		id, _ := n.AttributeString("id")
		idb, _ := id.([]byte)
		return []*TreeNode{{Type: "heading", Depth: n.Level, ID: string(idb), Children: tb.children(n), Attrs: attrsOf(n, ghtml.HeadingAttributeFilter)}}
	case *ast.ThematicBreak:
		return []*TreeNode{{Type: "thematicBreak", Attrs: attrsOf(n, ghtml.ThematicAttributeFilter)}}
	case *ast.Blockquote:
		return []*TreeNode{{Type: "blockquote", Children: tb.children(n), Attrs: attrsOf(n, ghtml.BlockquoteAttributeFilter)}}
	case *alertNode:
		return []*TreeNode{{Type: "alert", Kind: n.kind, Children: tb.children(n)}}
	case *ast.List:
		t := &TreeNode{Type: "list", Ordered: n.IsOrdered(), Spread: new(bool), Children: tb.children(n), Attrs: attrsOf(n, ghtml.ListAttributeFilter)}
		*t.Spread = !n.IsTight
		if n.IsOrdered() {
			t.Start = new(int)
			*t.Start = n.Start
		}
		return []*TreeNode{t}
	case *ast.ListItem:
		t := &TreeNode{Type: "listItem", Children: tb.children(n), Attrs: attrsOf(n, ghtml.ListItemAttributeFilter)}
		return []*TreeNode{t}
	case *east.TaskCheckBox:
		c := n.IsChecked
		return []*TreeNode{{Type: "checkbox", Checked: &c}}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var b strings.Builder
		lines := n.Lines()
		for i := range lines.Len() {
			s := lines.At(i)
			b.Write(s.Value(tb.src))
		}
		t := &TreeNode{Type: "code", Value: strp(fillText(b.String(), tb.comps, tb.env, tb.depth))}
		if f, ok := n.(*ast.FencedCodeBlock); ok {
			if l := f.Language(tb.src); l != nil {
				t.Lang = textOf(l)
			}
		}
		return []*TreeNode{t}
	case *ast.HTMLBlock, *ast.RawHTML:
		return []*TreeNode{{Type: "html", Value: strp(tb.goldmarkHTML(n))}}
	case *ast.Text:
		out := tb.text(string(n.Segment.Value(tb.src)), n.IsRaw())
		if n.HardLineBreak() {
			out = append(out, &TreeNode{Type: "break"})
		} else if n.SoftLineBreak() {
			out = append(out, &TreeNode{Type: "text", Value: strp("\n")})
		}
		return out
	case *ast.String:
		return tb.text(string(n.Value), n.IsRaw())
	case *ast.Emphasis:
		ty := "emphasis"
		if n.Level == 2 {
			ty = "strong"
		}
		return []*TreeNode{{Type: ty, Children: tb.children(n)}}
	case *east.Strikethrough:
		return []*TreeNode{{Type: "delete", Children: tb.children(n)}}
	case *ast.CodeSpan:
		var b strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				v := t.Segment.Value(tb.src)
				if bytes.HasSuffix(v, []byte("\n")) {
					b.Write(v[:len(v)-1])
					b.WriteByte(' ')
				} else {
					b.Write(v)
				}
			} else if s, ok := c.(*ast.String); ok {
				b.Write(s.Value)
			}
		}
		return []*TreeNode{{Type: "inlineCode", Value: strp(fillText(b.String(), tb.comps, tb.env, tb.depth))}}
	case *ast.Link:
		t := &TreeNode{Type: "link", URL: strp(linkURL(n.Destination)), Title: titleOf(n.Title), Children: tb.children(n)}
		return []*TreeNode{t}
	case *ast.Image:
		var alt bytes.Buffer
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			alt.Write(plainTextOf(c, tb.src))
		}
		t := &TreeNode{Type: "image", URL: strp(linkURL(n.Destination)), Alt: strp(textOf(alt.Bytes())), Title: titleOf(n.Title)}
		return []*TreeNode{t}
	case *ast.AutoLink:
		url := n.URL(tb.src)
		label := n.Label(tb.src)
		if n.AutoLinkType == ast.AutoLinkEmail && !bytes.HasPrefix(bytes.ToLower(url), []byte("mailto:")) {
			url = append([]byte("mailto:"), url...)
		}
		return []*TreeNode{{Type: "link", URL: strp(string(util.URLEscape(url, false))), Children: []*TreeNode{{Type: "text", Value: strp(string(label))}}}}
	case *east.Table:
		t := &TreeNode{Type: "table", Attrs: attrsOf(n, nil)}
		for _, a := range n.Alignments {
			s := ""
			if a != east.AlignNone {
				s = a.String()
			}
			t.Align = append(t.Align, s)
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			row := &TreeNode{Type: "tableRow"}
			for cell := c.FirstChild(); cell != nil; cell = cell.NextSibling() {
				tc := &TreeNode{Type: "tableCell", Children: tb.children(cell)}
				if c, ok := cell.(*east.TableCell); ok && c.Alignment != east.AlignNone {
					tc.TextAlign = c.Alignment.String()
				}
				row.Children = append(row.Children, tc)
			}
			t.Children = append(t.Children, row)
		}
		if len(t.Children) > 0 {
			t.Children[0].Kind = "header"
		}
		return []*TreeNode{t}
	}
	// anything else (footnotes, definition lists): its HTML
	return []*TreeNode{{Type: "html", Value: strp(tb.goldmarkHTML(n))}}
}

// plainTextOf is the text of an image's description, as goldmark
// writes it in alt.
func plainTextOf(n ast.Node, src []byte) []byte {
	var b bytes.Buffer
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.Bytes()
}

// titleOf is a link's title; nil when it has none.
func titleOf(t []byte) *string {
	if t == nil {
		return nil
	}
	return strp(textOf(t))
}

// linkURL is a destination as goldmark writes it ("" for a dangerous one).
func linkURL(dest []byte) string {
	if ghtml.IsDangerousURL(dest) {
		return ""
	}
	return phEncodedRe.ReplaceAllString(string(util.URLEscape(dest, true)), "")
}

// fillText is a code's text with its placeholders' component HTML.
func fillText(s string, comps []*component, env *bodyEnv, depth int) string {
	if !strings.ContainsRune(s, phOpen) {
		return s
	}
	return phRe.ReplaceAllStringFunc(s, func(m string) string { return rawOf(m, comps) })
}

// text splits a text at its placeholders into text and component nodes.
func (tb *treeBuilder) text(s string, raw bool) []*TreeNode {
	val := func(v string) string {
		if raw {
			return v
		}
		return textOf([]byte(v))
	}
	if !strings.ContainsRune(s, phOpen) {
		return []*TreeNode{{Type: "text", Value: strp(val(s))}}
	}
	var out []*TreeNode
	last := 0
	for _, m := range phRe.FindAllStringSubmatchIndex(s, -1) {
		if m[0] > last {
			out = append(out, &TreeNode{Type: "text", Value: strp(val(s[last:m[0]]))})
		}
		i, _ := strconv.Atoi(s[m[2]:m[3]])
		if i < len(tb.comps) {
			out = append(out, tb.component(tb.comps[i], false))
		}
		last = m[1]
	}
	if last < len(s) {
		out = append(out, &TreeNode{Type: "text", Value: strp(val(s[last:]))})
	}
	return out
}

func (tb *treeBuilder) component(c *component, block bool) *TreeNode {
	t := &TreeNode{Type: "component", Name: c.name, Props: c.props(), Args: c.args, Syntax: c.syntax, Inline: !block}
	// details is a tree of its inner content: its HTML is not made (it
	// would render the whole subtree at every level).
	if c.name != "details" {
		if h, ok := builtinHTML(c, tb.env, tb.depth, block); ok {
			t.HTML = h
			return t
		}
	}
	if strings.TrimSpace(c.inner) == "" {
		return t
	}
	if lang := c.codeLang(); lang != "" {
		t.Children = []*TreeNode{{Type: "code", Lang: lang, Value: strp(c.code())}}
		return t
	}
	if tb.depth >= maxComponentDepth || !tb.env.spendNested(len(c.inner)) {
		t.Children = []*TreeNode{{Type: "text", Value: strp(c.inner)}}
		return t
	}
	kids := bodyTree(c.inner, tb.env, tb.depth+1)
	if !block && len(kids) == 1 && kids[0].Type == "paragraph" && len(kids[0].Attrs) == 0 {
		kids = kids[0].Children
	}
	t.Children = kids
	return t
}
