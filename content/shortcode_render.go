package content

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"path"
	"regexp"
	"strconv"
	"strings"

	ghtml "github.com/yuin/goldmark/renderer/html"
)

// bodyEnv is what a body renders with besides its source: the site's
// Markdown settings and the document's front matter (for param).
type bodyEnv struct {
	markup *Markup
	// doc is the document whose front matter the param shortcode reads
	// (its Doc, not a map: one holds its keys in the item's Data).
	doc *Doc
	// links is the site the ref shortcodes resolve in, self the
	// repository path of the body's file (reflinks.go).
	links *siteLinks
	self  string
	// run is what one render sets (nil: none, as in the env an item
	// keeps with its body): 48 bytes, with its body 64, for every item
	// a restart reads, not 64 and 80.
	run *bodyRun
}

// bodyRun is what one render of a body sets in the copy of its env it
// renders with; copies of that env share it.
type bodyRun struct {
	mdx bool // the source is MDX (mdx.go)
	// nest is the render's budget of nested source (withNestBudget);
	// hasNest false: none.
	nest    int64
	hasNest bool
	// deps collects what the render resolved (nil: not collected).
	deps *[]refDep
}

// mdx tells whether the source is MDX.
func (e *bodyEnv) mdx() bool { return e != nil && e.run != nil && e.run.mdx }

// deps is where the render collects what it resolved; nil: nowhere.
func (e *bodyEnv) deps() *[]refDep {
	if e == nil || e.run == nil {
		return nil
	}
	return e.run.deps
}

// withRun is a copy of e (nil: folio's defaults) whose run is a copy of
// e's changed by set.
func (e *bodyEnv) withRun(set func(*bodyRun)) *bodyEnv {
	var c bodyEnv
	if e != nil {
		c = *e
	}
	r := bodyRun{}
	if c.run != nil {
		r = *c.run
	}
	set(&r)
	c.run = &r
	return &c
}

// A component's inner content is parsed again at each level it nests
// in: 32 levels of a body made 32 parses of it (660 KB of nested
// {{< details >}} took 2.6 s to render). A render may parse
// nestFactor times its body's length plus nestFloor bytes of inner
// content; past that, inner content is escaped text, as past
// maxComponentDepth.
const (
	nestFactor = 4
	nestFloor  = 1 << 20
)

// withNestBudget is a copy of e for one render of a body of n bytes,
// with its own budget of nested source.
func (e *bodyEnv) withNestBudget(n int, deps *[]refDep) *bodyEnv {
	return e.withRun(func(r *bodyRun) {
		r.nest, r.hasNest, r.deps = int64(n)*nestFactor+nestFloor, true, deps
	})
}

// spendNested takes n bytes of inner content from the render's budget:
// false when it is spent.
func (e *bodyEnv) spendNested(n int) bool {
	if e == nil || e.run == nil || !e.run.hasNest {
		return true
	}
	if e.run.nest < int64(n) {
		e.run.nest = 0
		return false
	}
	e.run.nest -= int64(n)
	return true
}

func (e *bodyEnv) key() string {
	if e == nil {
		return ""
	}
	return e.markup.cacheKey()
}

// md is the settings the render uses: an MDX body's HTML elements are
// raw HTML passed through, sanitized (JSX has no other way to write them).
func (e *bodyEnv) md() *Markup {
	if e == nil {
		return nil
	}
	if e.mdx() {
		var m Markup
		if e.markup != nil {
			m = *e.markup
		}
		m.Unsafe, m.mdx = true, true
		return &m
	}
	return e.markup
}

// placeholder characters: a component stands in the Markdown as
// phOpen + its index + phClose (private-use characters, which Markdown
// leaves alone); a source's own are replaced by U+FFFD first.
const (
	phOpen  = '\uE000'
	phClose = '\uE001'
	phBlock = '\uE002' // a component's block (componentBlockNode)
)

// expandedBody is a body's source with its components replaced by
// placeholders.
type expandedBody struct {
	src   string
	comps []*component
}

var phRe = regexp.MustCompile("\uE000([0-9]+)\uE001")

// phBlockRe is a component's block (componentBlockNode).
var phBlockRe = regexp.MustCompile("\uE002([0-9]+)\uE001\n")

// codeRe is a code element of goldmark's HTML.
var codeRe = regexp.MustCompile(`(?s)<code[^>]*>.*?</code>`)

// rawOf is the source of the component of placeholder m.
func rawOf(m string, comps []*component) string {
	i, err := strconv.Atoi(phRe.FindStringSubmatch(m)[1])
	if err != nil || i >= len(comps) {
		return ""
	}
	return comps[i].raw
}

// phEncodedRe is a placeholder in a URL, percent-encoded by goldmark.
var phEncodedRe = regexp.MustCompile("%EE%80%80([0-9]+)%EE%80%81")

// expandBody finds the shortcodes (and in MDX the JSX elements) of src,
// writes the built-ins that are text (ref, relref, param, highlight) in
// their place, and puts a placeholder for every other one.
func expandBody(src string, env *bodyEnv) expandedBody {
	if strings.ContainsAny(src, string([]rune{phOpen, phClose, phBlock})) {
		src = strings.NewReplacer(string(phOpen), "\uFFFD", string(phClose), "\uFFFD", string(phBlock), "\uFFFD").Replace(src)
	}
	var spans []scSpan
	if env.mdx() {
		src, spans = findMDX(src)
	} else {
		spans = findShortcodes(src)
	}
	if len(spans) == 0 {
		return expandedBody{src: src}
	}
	var b strings.Builder
	b.Grow(len(src))
	var comps []*component
	last := 0
	prevBlock := false // the span before was a component's block
	prevCol0 := false  // that started its line
	for _, sp := range spans {
		if prevBlock && env.mdx() && nextLineFull(src[last:], prevCol0) {
			b.WriteByte('\n')
		}
		b.WriteString(src[last:sp.start])
		last = sp.end
		prevBlock = sp.comp != nil && sp.comp.block && sp.comp.flowJSX()
		prevCol0 = sp.start == 0 || src[sp.start-1] == '\n'
		if sp.comp == nil {
			b.WriteString(sp.literal)
			continue
		}
		if text, ok := builtinText(sp.comp, env); ok {
			b.WriteString(text)
			continue
		}
		b.WriteRune(phOpen)
		b.WriteString(strconv.Itoa(len(comps)))
		b.WriteRune(phClose)
		comps = append(comps, sp.comp)
	}
	if prevBlock && env.mdx() && nextLineFull(src[last:], prevCol0) {
		b.WriteByte('\n')
	}
	b.WriteString(src[last:])
	return expandedBody{src: b.String(), comps: comps}
}

// flowJSX tells whether a JSX element is a block in MDX, given it
// stands alone on its lines: it closes itself, or its opening tag ends
// its line (<Card>Inline *text*</Card> is inline, in a paragraph).
func (c *component) flowJSX() bool {
	if c.syntax != syntaxJSX || !c.paired {
		return true
	}
	in := strings.TrimLeft(c.inner, " \t\r")
	return in == "" || in[0] == '\n'
}

// nextLineFull tells whether rest, the source after a component's block,
// goes on with a line that is not blank. In MDX a JSX element on lines
// of its own is a block that ends with its line: the next line starts
// another block (a paragraph, the next <TabItem>), which a blank line
// written between them makes it in Markdown too; else goldmark reads
// the two as one paragraph and the element inline. col0: the element
// starts its line (so is in no list item).
func nextLineFull(rest string, col0 bool) bool {
	i := 0
	for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t' || rest[i] == '\r') {
		i++
	}
	if i >= len(rest) || rest[i] != '\n' {
		return false
	}
	next := rest[i+1:]
	if j := strings.IndexByte(next, '\n'); j >= 0 {
		next = next[:j]
	}
	next = strings.TrimSpace(next)
	if col0 {
		return next != ""
	}
	// in a list item, or a quote: a blank line before the next item
	// would make the list loose, or end the quote
	if next == "" || next[0] == '>' || strings.IndexByte("-*+", next[0]) >= 0 && (len(next) == 1 || next[1] == ' ' || next[1] == '\t') {
		return false
	}
	k := 0
	for k < len(next) && next[k] >= '0' && next[k] <= '9' {
		k++
	}
	return !(k > 0 && k < len(next) && (next[k] == '.' || next[k] == ')'))
}

// arg is a component's named argument key, else its positional argument
// pos (-1: none).
func (c *component) arg(key string, pos int) string {
	for _, p := range c.named {
		if p.key == key {
			return p.val
		}
	}
	if pos >= 0 && pos < len(c.args) {
		return c.args[pos]
	}
	return ""
}

// builtinText is what Hugo's built-in shortcodes that make text make of
// c: ref and relref the target's path, param the value, highlight a
// fenced code block.
func builtinText(c *component, env *bodyEnv) (string, bool) {
	if c.syntax == syntaxJSX {
		return "", false
	}
	switch c.name {
	case "ref", "relref":
		return refHref(c.arg("path", 0), env), true
	case "param":
		name := c.arg("name", 0)
		v, ok := pageParam(env, name)
		if !ok {
			return "", true
		}
		s := paramText(v)
		if c.syntax == syntaxShortcode {
			s = escapeMarkdown(s)
		}
		return s, true
	case "highlight":
		lang := c.arg("lang", 0)
		code := strings.Trim(c.inner, "\n")
		if !c.block {
			fence := "`"
			for strings.Contains(code, fence) {
				fence += "`"
			}
			return fence + " " + code + " " + fence, true
		}
		fence := "```"
		for strings.Contains(code, fence) {
			fence += "`"
		}
		return fence + lang + "\n" + code + "\n" + fence, true
	}
	return "", false
}

// pageParam is Hugo's .Param: the page's front matter (or its params
// map), else the site's params.
func pageParam(env *bodyEnv, name string) (any, bool) {
	if name == "" || env == nil {
		return nil, false
	}
	var page map[string]any
	if env.doc != nil {
		page = env.doc.Meta()
	}
	if v, ok := lookupParam(page, name); ok {
		return v, true
	}
	if p, ok := page["params"].(map[string]any); ok {
		if v, ok := lookupParam(p, name); ok {
			return v, true
		}
	}
	return env.markup.param(name)
}

func paramText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool, int, int64, float64:
		return fmt.Sprint(v)
	}
	return ""
}

// escapeMarkdown backslash-escapes the ASCII punctuation of s, so that it
// reads as the text it is.
func escapeMarkdown(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && (c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~') {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// hugoRefPath is the path Hugo's default permalinks give the page ref
// names: "docs/install.md#step-2" is /docs/install/#step-2, a section's
// _index.md its folder. It is a ref's href when the site has no
// document at that path (refHref).
func hugoRefPath(ref string) string {
	ref = strings.TrimSpace(ref)
	anchor := ""
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		ref, anchor = ref[:i], ref[i:]
	}
	if ref == "" {
		return anchor
	}
	p := strings.Trim(ref, "/")
	ext := path.Ext(p)
	switch strings.ToLower(ext) {
	case ".md", ".markdown", ".html", ".htm", ".mdx":
		p = strings.TrimSuffix(p, ext)
	}
	base := path.Base(p)
	if base == "_index" || base == "index" {
		p = path.Dir(p)
	}
	p = strings.ToLower(strings.ReplaceAll(p, " ", "-"))
	if p == "." || p == "" {
		return "/" + anchor
	}
	return "/" + p + "/" + anchor
}

// renderBodyHTML renders a Markdown source with its components.
func renderBodyHTML(src string, env *bodyEnv, depth int) string {
	exp := expandBody(src, env)
	var buf bytes.Buffer
	buf.Grow(len(exp.src) + len(exp.src)/4)
	// Writing to a bytes.Buffer cannot fail, so neither can Convert.
	_ = markdownFor(env.md()).Convert([]byte(exp.src), &buf, parserContext(len(exp.src)))
	if len(exp.comps) == 0 {
		return buf.String()
	}
	return fillComponents(buf.String(), exp.comps, env, depth)
}

// fillComponents puts the components' HTML in place of their
// placeholders: a paragraph of a placeholder alone is the component's
// block, any other placeholder the component inline; one in a URL is
// dropped (a custom shortcode's output cannot be known there).
func fillComponents(out string, comps []*component, env *bodyEnv, depth int) string {
	out = phEncodedRe.ReplaceAllString(out, "")
	// in code, a component is the source it was written as
	out = codeRe.ReplaceAllStringFunc(out, func(code string) string {
		return phRe.ReplaceAllStringFunc(code, func(m string) string {
			return escapeText(rawOf(m, comps))
		})
	})
	htmlOf := func(m string, block bool) string {
		re := phRe
		if block {
			re = phBlockRe
		}
		i, err := strconv.Atoi(re.FindStringSubmatch(m)[1])
		if err != nil || i >= len(comps) {
			return ""
		}
		return componentHTML(comps[i], env, depth, block)
	}
	out = phBlockRe.ReplaceAllStringFunc(out, func(m string) string {
		return htmlOf(m, true) + "\n"
	})
	return phRe.ReplaceAllStringFunc(out, func(m string) string { return htmlOf(m, false) })
}

// innerHTML renders a component's inner source; inline, a single
// paragraph is unwrapped (as Hugo's markdownify does).
func innerHTML(c *component, env *bodyEnv, depth int, block bool) string {
	if strings.TrimSpace(c.inner) == "" {
		return ""
	}
	if lang := c.codeLang(); lang != "" {
		return codeHTML(lang, c.code())
	}
	if depth >= maxComponentDepth || !env.spendNested(len(c.inner)) {
		return html.EscapeString(c.inner)
	}
	in := renderBodyHTML(c.inner, env, depth+1)
	if !block {
		in = unwrapParagraph(in)
	}
	return in
}

func unwrapParagraph(s string) string {
	t := strings.TrimSuffix(s, "\n")
	if strings.HasPrefix(t, "<p>") && strings.HasSuffix(t, "</p>") && strings.Count(t, "<p>") == 1 {
		return t[3 : len(t)-4]
	}
	return s
}

// componentHTML is a component's HTML: the HTML of the built-ins folio
// renders (figure, youtube, vimeo, details), else a <folio-component>
// element that names it and carries its arguments as JSON, with its
// inner content rendered inside.
func componentHTML(c *component, env *bodyEnv, depth int, block bool) string {
	if h, ok := builtinHTML(c, env, depth, block); ok {
		return h
	}
	var b strings.Builder
	b.WriteString(`<folio-component name="`)
	b.WriteString(html.EscapeString(c.name))
	b.WriteString(`"`)
	if len(c.named) > 0 {
		b.WriteString(` data-props="`)
		b.WriteString(html.EscapeString(propsJSON(c)))
		b.WriteString(`"`)
	}
	if len(c.args) > 0 {
		j, _ := json.Marshal(c.args)
		b.WriteString(` data-args="`)
		b.WriteString(html.EscapeString(string(j)))
		b.WriteString(`"`)
	}
	b.WriteString(">")
	in := innerHTML(c, env, depth, block)
	if block && in != "" {
		b.WriteString("\n")
	}
	b.WriteString(in)
	b.WriteString("</folio-component>")
	return b.String()
}

// props is a component's named arguments as a map: strings, and a JSX
// expression as {"expression": source} unless it is a JSON value.
func (c *component) props() map[string]any {
	if len(c.named) == 0 {
		return nil
	}
	m := make(map[string]any, len(c.named))
	for _, p := range c.named {
		if !p.expr {
			m[p.key] = p.val
			continue
		}
		var v any
		if json.Unmarshal([]byte(p.val), &v) == nil {
			m[p.key] = v
		} else {
			m[p.key] = map[string]any{"expression": p.val}
		}
	}
	return m
}

func propsJSON(c *component) string {
	j, _ := json.Marshal(c.props())
	return string(j)
}

var embedIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// builtinHTML is the HTML of Hugo's built-ins that make HTML, as Hugo's
// own templates do.
func builtinHTML(c *component, env *bodyEnv, depth int, block bool) (string, bool) {
	if c.syntax == syntaxJSX {
		return "", false
	}
	attr := func(s string) string { return html.EscapeString(s) }
	switch c.name {
	case "figure":
		src := safeURL(c.arg("src", -1))
		if src == "" {
			return "", false
		}
		var b strings.Builder
		b.WriteString("<figure")
		if cl := c.arg("class", -1); cl != "" {
			b.WriteString(` class="` + attr(cl) + `"`)
		}
		b.WriteString(">")
		link := safeURL(c.arg("link", -1))
		if link != "" {
			b.WriteString(`<a href="` + attr(link) + `">`)
		}
		b.WriteString(`<img src="` + attr(src) + `"`)
		alt := c.arg("alt", -1)
		if alt == "" {
			alt = c.arg("caption", -1)
		}
		if alt != "" {
			b.WriteString(` alt="` + attr(alt) + `"`)
		}
		for _, k := range []string{"width", "height"} {
			if v := c.arg(k, -1); v != "" {
				b.WriteString(" " + k + `="` + attr(v) + `"`)
			}
		}
		b.WriteString(">")
		if link != "" {
			b.WriteString("</a>")
		}
		title, caption := c.arg("title", -1), c.arg("caption", -1)
		if title != "" || caption != "" {
			b.WriteString("<figcaption>")
			if title != "" {
				b.WriteString("<h4>" + html.EscapeString(title) + "</h4>")
			}
			if caption != "" {
				b.WriteString("<p>" + unwrapParagraph(strings.TrimSuffix(renderBodyHTML(caption, env, maxComponentDepth), "\n")) + "</p>")
			}
			b.WriteString("</figcaption>")
		}
		b.WriteString("</figure>")
		return b.String(), true
	case "youtube", "vimeo":
		id := c.arg("id", 0)
		if !embedIDRe.MatchString(id) {
			return "", false
		}
		src := "https://www.youtube-nocookie.com/embed/" + id
		if c.name == "vimeo" {
			src = "https://player.vimeo.com/video/" + id
		}
		title := c.arg("title", -1)
		if title == "" {
			title = strings.ToUpper(c.name[:1]) + c.name[1:] + " video"
		}
		return `<div class="folio-embed folio-embed-` + c.name + `"><iframe src="` + src + `" title="` + attr(title) +
			`" allow="fullscreen; picture-in-picture" allowfullscreen loading="lazy"></iframe></div>`, true
	case "details":
		var b strings.Builder
		b.WriteString("<details")
		if v := c.arg("open", -1); v == "true" {
			b.WriteString(" open")
		}
		b.WriteString("><summary>")
		s := c.arg("summary", -1)
		if s == "" {
			s = "Details"
		}
		b.WriteString(html.EscapeString(s))
		b.WriteString("</summary>\n")
		b.WriteString(innerHTML(c, env, depth, block))
		b.WriteString("</details>")
		return b.String(), true
	}
	return "", false
}

// safeURL is u unless it is a scheme that runs script (javascript:,
// vbscript:, data: but images), as goldmark drops such links.
func safeURL(u string) string {
	u = strings.TrimSpace(u)
	if u == "" || ghtml.IsDangerousURL([]byte(u)) {
		return ""
	}
	return u
}

// codeLang is the language of a shortcode whose inner content is code:
// a paired one with a lang argument (Docsy's tab, code-toggle and the
// like highlight their content); "" for others.
func (c *component) codeLang() string {
	if c.syntax == syntaxJSX || !c.paired {
		return ""
	}
	return c.arg("lang", -1)
}

// code is the inner content as code: its comment shortcodes
// ({{</* x */>}}) written as the shortcodes they hold, nothing run.
func (c *component) code() string {
	in := strings.Trim(c.inner, "\n")
	var b strings.Builder
	last := 0
	for _, sp := range findShortcodes(in) {
		if sp.comp != nil {
			continue
		}
		b.WriteString(in[last:sp.start])
		b.WriteString(sp.literal)
		last = sp.end
	}
	b.WriteString(in[last:])
	return b.String() + "\n"
}

// codeHTML is a code block as goldmark writes one.
func codeHTML(lang, code string) string {
	return `<pre><code class="language-` + escapeText(lang) + `">` + escapeText(code) + "</code></pre>\n"
}
