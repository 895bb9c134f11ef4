package content

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// Markup is a site's Markdown settings: what its generator's Markdown
// renderer does that folio's default does not. A Hugo site's come from
// markup.goldmark in its configuration (hugo.toml, config.toml, or
// config/_default/markup.toml), Hugo's defaults filled in; a site without
// a Hugo configuration has the zero Markup. Params are the site's params
// (Hugo's params key), which the param shortcode reads. See
// docs/content.md "Markdown settings". A Markup is never modified after
// it is made.
type Markup struct {
	// Unsafe passes raw HTML through (markup.goldmark.renderer.unsafe),
	// sanitized as an HTML file's body is.
	Unsafe bool
	// HeadingAttributes reads {#id .class} after a heading
	// (markup.goldmark.parser.attribute.title; Hugo's default: on).
	HeadingAttributes bool
	// BlockAttributes reads a {.class} line after a block
	// (markup.goldmark.parser.attribute.block).
	BlockAttributes bool
	// DefinitionLists reads "Term\n: definition"
	// (markup.goldmark.extensions.definitionList; Hugo's default: on).
	DefinitionLists bool
	// Params are the site's params, for {{< param >}}.
	Params map[string]any
	// key identifies the settings and params, for the render a body keeps
	key string
	// mdx: an MDX body's render (no indented code, as in MDX)
	mdx bool
}

// flags is the goldmark instance the settings need.
func (m *Markup) flags() uint8 {
	if m == nil {
		return 0
	}
	var f uint8
	if m.Unsafe {
		f |= 1
	}
	if m.HeadingAttributes {
		f |= 2
	}
	if m.BlockAttributes {
		f |= 4
	}
	if m.DefinitionLists {
		f |= 8
	}
	if m.mdx {
		f |= 16
	}
	return f
}

// cacheKey identifies m's rendering; "" for the defaults.
func (m *Markup) cacheKey() string {
	if m == nil {
		return ""
	}
	return m.key
}

func (m *Markup) param(name string) (any, bool) {
	if m == nil {
		return nil, false
	}
	return lookupParam(m.Params, name)
}

// lookupParam finds a dotted name in params, keys case-insensitively as
// Hugo's are.
func lookupParam(params map[string]any, name string) (any, bool) {
	var cur any = params
	for _, seg := range strings.Split(name, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		v, _, found := lowerKey(m, seg)
		if !found {
			return nil, false
		}
		cur = v
	}
	return cur, cur != nil
}

// readMarkup reads a Hugo site's Markdown settings from its
// configuration files among files (sorted by path); nil when the site has
// no Hugo configuration.
func readMarkup(files []File) *Markup {
	var mains, markups, params []*Doc
	for i := range files {
		f := &files[i]
		kind, ok := hugoConfigFile(f.Path)
		if !ok || f.Doc == nil {
			continue
		}
		switch kind {
		case "main":
			// hugo.* before config.*, the root before config/_default/
			if strings.HasPrefix(path.Base(f.Path), "hugo.") {
				mains = append([]*Doc{f.Doc}, mains...)
			} else {
				mains = append(mains, f.Doc)
			}
		case "markup":
			markups = append(markups, f.Doc)
		case "params":
			params = append(params, f.Doc)
		}
	}
	if len(mains)+len(markups)+len(params) == 0 {
		return nil
	}
	m := &Markup{HeadingAttributes: true, DefinitionLists: true}
	var goldmarkCfg []map[string]any
	for _, d := range mains {
		if mk, ok := mapAt(d.Meta(), "markup", "goldmark"); ok {
			goldmarkCfg = append(goldmarkCfg, mk)
		}
		if p, ok := mapAt(d.Meta(), "params"); ok && m.Params == nil {
			m.Params = p
		}
	}
	for _, d := range markups {
		if mk, ok := mapAt(d.Meta(), "goldmark"); ok {
			goldmarkCfg = append(goldmarkCfg, mk)
		} else if mk, ok := mapAt(d.Meta(), "markup", "goldmark"); ok {
			goldmarkCfg = append(goldmarkCfg, mk)
		}
	}
	if m.Params == nil {
		for _, d := range params {
			m.Params = d.Meta()
			break
		}
	}
	// the first file that sets a key wins
	setBool := func(dst *bool, keys ...string) {
		for _, g := range goldmarkCfg {
			if v, ok := valueAt(g, keys...); ok {
				if b, isBool := v.(bool); isBool {
					*dst = b
					return
				}
			}
		}
	}
	setBool(&m.Unsafe, "renderer", "unsafe")
	setBool(&m.HeadingAttributes, "parser", "attribute", "title")
	setBool(&m.BlockAttributes, "parser", "attribute", "block")
	setBool(&m.DefinitionLists, "extensions", "definitionList")
	pj, _ := json.Marshal(m.Params) // sorted keys: the same params, the same key
	m.key = fmt.Sprintf("%d:%s", m.flags(), pj)
	return m
}

func mapAt(m map[string]any, keys ...string) (map[string]any, bool) {
	v, ok := valueAt(m, keys...)
	if !ok {
		return nil, false
	}
	mm, ok := v.(map[string]any)
	return mm, ok
}

func valueAt(m map[string]any, keys ...string) (any, bool) {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		v, _, found := lowerKey(mm, k)
		if !found {
			return nil, false
		}
		cur = v
	}
	return cur, true
}

// sameMarkup tells whether two settings render alike.
func sameMarkup(a, b *Markup) bool { return a.cacheKey() == b.cacheKey() }

// markdowns are the goldmark instances, one per combination of flags,
// each built on first use and shared: goldmark's parsers and renderers
// are stateless and Convert is safe for concurrent use (yuin/goldmark
// author in gohugoio/hugo#6484). Raw HTML is not passed through unless
// the site says so (goldmark's default, and Hugo's), and dangerous link
// schemes such as javascript: are dropped. See docs/content.md "Markdown".
var markdowns [32]struct {
	once sync.Once
	md   goldmark.Markdown
}

// markdownFor is the goldmark instance of m's settings.
func markdownFor(m *Markup) goldmark.Markdown {
	f := m.flags()
	slot := &markdowns[f]
	slot.once.Do(func() { slot.md = newMarkdown(f) })
	return slot.md
}

// newMarkdown builds a goldmark instance: folio's default (GFM,
// footnotes, heading ids, GitHub alerts, the link gates) and the flags'
// extras.
func newMarkdown(f uint8) goldmark.Markdown {
	exts := []goldmark.Extender{extension.GFM, extension.Footnote, alertExtension{}, componentBlocks{}}
	if f&8 != 0 {
		exts = append(exts, extension.DefinitionList)
	}
	popts := []parser.Option{parser.WithAutoHeadingID(),
		parser.WithInlineParsers(util.Prioritized(linkGate{}, linkGatePriority)),
		parser.WithParagraphTransformers(util.Prioritized(refDefGate{}, refDefGatePriority))}
	if f&2 != 0 {
		popts = append(popts, parser.WithAttribute())
	}
	if f&4 != 0 {
		exts = append(exts, blockAttributes{})
	}
	var mopts []goldmark.Option
	if f&16 != 0 {
		// MDX has no indented code: indentation is JSX nesting, and a
		// block starts at any indentation (goldmark opens none on a
		// line indented 4 or more but code, and the rest of the body
		// was lost)
		var blocks []util.PrioritizedValue
		for _, p := range parser.DefaultBlockParsers() {
			if _, code := p.Value.(interface{ CanAcceptIndentedLine() bool }); code && p.Priority == 500 {
				continue // NewCodeBlockParser
			}
			blocks = append(blocks, util.Prioritized(anyIndent{p.Value.(parser.BlockParser)}, p.Priority))
		}
		mopts = append(mopts, goldmark.WithParser(parser.NewParser(parser.WithBlockParsers(blocks...),
			parser.WithInlineParsers(parser.DefaultInlineParsers()...),
			parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))))
	}
	var ropts []renderer.Option
	if f&1 != 0 {
		ropts = append(ropts, renderer.WithNodeRenderers(util.Prioritized(sanitizedRawHTML{}, 100)))
	}
	// never html.WithUnsafe: it would pass javascript: links too; raw
	// HTML is sanitizedRawHTML's
	return goldmark.New(append(mopts, goldmark.WithExtensions(exts...), goldmark.WithParserOptions(popts...),
		goldmark.WithRendererOptions(ropts...))...)
}

// sanitizedRawHTML renders raw HTML (a block, or inline tags) through the
// HTML file policy (sanitizeHTML), each piece by itself, so that a body
// tree's html nodes (bodytree.go) render to the same text.
type sanitizedRawHTML struct{}

func (sanitizedRawHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(sanitizeHTML(rawHTMLOf(n, src)))
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(sanitizeHTML(rawHTMLOf(n, src)))
		}
		return ast.WalkSkipChildren, nil
	})
}

// rawHTMLOf is the source text of a raw HTML node.
func rawHTMLOf(n ast.Node, src []byte) string {
	var b strings.Builder
	switch n := n.(type) {
	case *ast.HTMLBlock:
		for i := range n.Lines().Len() {
			s := n.Lines().At(i)
			b.Write(s.Value(src))
		}
		if n.HasClosure() {
			b.Write(n.ClosureLine.Value(src))
		}
	case *ast.RawHTML:
		for i := range n.Segments.Len() {
			s := n.Segments.At(i)
			b.Write(s.Value(src))
		}
	}
	return b.String()
}

// anyIndent is a block parser that opens at any indentation, as MDX's
// blocks do (it has no indented code).
type anyIndent struct{ parser.BlockParser }

func (anyIndent) CanAcceptIndentedLine() bool { return true }

// SetOption passes the parser's options (a heading's automatic id) on.
func (a anyIndent) SetOption(name parser.OptionName, v any) {
	if o, ok := a.BlockParser.(parser.SetOptioner); ok {
		o.SetOption(name, v)
	}
}
