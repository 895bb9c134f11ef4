package content

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/yuin/goldmark/parser"
)

// Markdown is a Markdown body that is rendered to HTML on first use, once:
// Parse keeps the source (after checking it against the nesting limit, so
// the render is bounded), and the HTML is made the first time it is asked
// for, typically when the document is first encoded as JSON. A Markdown
// value is a handle: copies share the one render, so a document cached by
// blob is rendered at most once however many snapshots serve it.
//
// It encodes as a JSON string of the HTML, exactly as a string holding the
// HTML would. The zero value is an empty body.
//
// A body made by NewLazyMarkdown does not hold its source at all: it reads
// it when it is rendered or asked for (a server of a large site keeps its
// bodies in the Git repository they came from, not in memory).
type Markdown struct {
	b *markdownBody
	// env is the site's settings and the document's front matter the
	// body renders with (WithSite); nil: folio's defaults.
	env *bodyEnv
}

type markdownBody struct {
	src  string
	load BodySource // nil when src is held
	// isHTML: the source is HTML (a Hugo .html content file), which is
	// sanitized rather than rendered (see NewHTML).
	isHTML bool
	// isMDX: the source is MDX (mdx.go)
	isMDX bool
	// r is what was rendered of the body, made on its first render: a
	// restart keeps a body for every document of the site and renders
	// few of them, so the lock and the two renders are not kept for
	// every one (16 bytes less a body; see bodyRenders).
	r atomic.Pointer[bodyRenders]
}

// bodyRenders is what a body's renders made. mu serialises the render;
// out is set once it succeeded, with the settings it was made with (a
// body cached by blob serves sites whose settings may differ). A render
// that failed (a lazy source that could not be read, a panic) keeps
// nothing, so the next use tries again. tree is the body tree, made the
// same way (bodytree.go).
type bodyRenders struct {
	mu   sync.Mutex
	out  atomic.Pointer[rendered]
	tree atomic.Pointer[rendered]
}

// renders is the body's bodyRenders, made by the first caller.
func (b *markdownBody) renders() *bodyRenders {
	if r := b.r.Load(); r != nil {
		return r
	}
	b.r.CompareAndSwap(nil, new(bodyRenders))
	return b.r.Load()
}

// out is the kept HTML render; nil when none.
func (b *markdownBody) out() *rendered {
	if r := b.r.Load(); r != nil {
		return r.out.Load()
	}
	return nil
}

// tree is the kept tree render; nil when none.
func (b *markdownBody) tree() *rendered {
	if r := b.r.Load(); r != nil {
		return r.tree.Load()
	}
	return nil
}

// rendered is a body's HTML (or tree JSON) made with the settings of key.
type rendered struct {
	key  string
	text string
	// deps: the links (ref shortcodes) it resolved, which must resolve
	// the same for it to be used again (reflinks.go)
	deps []refDep
	// images: a tree's image nodes (bodytree_media.go)
	images []treeImage
}

// WithSite is the body as it renders in a site of Markdown settings mk,
// in a document of front matter page (for the param shortcode). The
// returned value shares the body's source and renders.
func (m Markdown) WithSite(mk *Markup, page map[string]any) Markdown {
	if m.b == nil || (mk == nil && page == nil) {
		return m
	}
	m.env = &bodyEnv{markup: mk}
	if page != nil {
		m.env.doc = NewDoc(page)
	}
	return m
}

// inSite is the body of file as the Assembler reads it: WithSite of the
// site's settings and the file's front matter, its ref shortcodes
// resolved in the site's links, from the file (reflinks.go).
func (m Markdown) inSite(file File) Markdown {
	if m.b == nil || (file.markup == nil && file.links == nil && !file.Doc.HasMeta()) {
		return m
	}
	m.env = &bodyEnv{markup: file.markup, doc: file.Doc, links: file.links, self: file.RealPath()}
	return m
}

// NewMarkdown returns the body with Markdown source src. The source must
// already have passed Parse's checks (UTF-8, nesting depth) when it came
// from a file; bodies persisted by a cache come back that way.
func NewMarkdown(src string) Markdown { return Markdown{b: &markdownBody{src: src}} }

// NewLazyMarkdown returns a body whose source load reads, each time it
// is needed (rendering, Source), so that it is not held in memory. load
// must return the same text every time, and text that passed Parse's
// checks; an error makes the body fail to render (see MarshalJSON).
func NewLazyMarkdown(load func() (string, error)) Markdown {
	return Markdown{b: &markdownBody{load: bodyFunc(load)}}
}

// NewHTML returns the body with HTML source src, the body of a Hugo
// .html content file. It is served sanitized, as raw HTML in Markdown is
// not passed through either: elements and attributes that run script or
// load from elsewhere unasked (script, style, iframe, on* handlers,
// javascript: links) are dropped, the text and structure kept (see
// docs/content.md "HTML files").
func NewHTML(src string) Markdown { return Markdown{b: &markdownBody{src: src, isHTML: true}} }

// NewLazyHTML is NewHTML with the source read by load, as NewLazyMarkdown.
func NewLazyHTML(load func() (string, error)) Markdown {
	return Markdown{b: &markdownBody{load: bodyFunc(load), isHTML: true}}
}

// BodyOf returns the body of a document file of extension ext with
// source src: HTML for .html and .htm, else Markdown.
func BodyOf(ext, src string) Markdown {
	if IsHTMLExt(ext) {
		return NewHTML(src)
	}
	if IsMDXExt(ext) {
		return NewMDX(src)
	}
	return NewMarkdown(src)
}

// LazyBodyOf is BodyOf with the source read by load.
func LazyBodyOf(ext string, load func() (string, error)) Markdown {
	if IsHTMLExt(ext) {
		return NewLazyHTML(load)
	}
	if IsMDXExt(ext) {
		return NewLazyMDX(load)
	}
	return NewLazyMarkdown(load)
}

// IsHTML tells whether the body's source is HTML (NewHTML).
func (m Markdown) IsHTML() bool { return m.b != nil && m.b.isHTML }

// Source is the Markdown text; "" when a lazy body cannot read it (see
// SourceErr).
func (m Markdown) Source() string {
	s, _ := m.SourceErr()
	return s
}

// SourceErr is the Markdown text, read again by a lazy body, or why it
// could not be read.
func (m Markdown) SourceErr() (string, error) {
	if m.b == nil {
		return "", nil
	}
	if m.b.load != nil {
		return m.b.load.BodySource()
	}
	return m.b.src, nil
}

// Lazy tells whether the body reads its source on demand.
func (m Markdown) Lazy() bool { return m.b != nil && m.b.load != nil }

// HTML renders the body (once) and returns the HTML; "" when it cannot be
// rendered (see Render). Raw HTML is not passed through; see docs/content.md
// "Markdown".
func (m Markdown) HTML() string {
	html, _ := m.Render()
	return html
}

// Render renders the body (once) and returns the HTML, or why it could
// not be made: a lazy body's source could not be read, or the renderer
// panicked (the error holds the panic and its stack). A failure is not
// kept: the next call tries again.
func (m Markdown) Render() (string, error) {
	b := m.b
	if b == nil {
		return "", nil
	}
	key := m.env.key()
	if r := b.out(); r != nil && r.key == key && m.env.depsHold(r.deps) {
		return r.text, nil
	}
	rs := b.renders()
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r := rs.out.Load(); r != nil && r.key == key && m.env.depsHold(r.deps) {
		return r.text, nil
	}
	html, deps, err := b.render(m.bodyEnv())
	if err != nil {
		return "", err
	}
	rs.out.Store(&rendered{key: key, text: html, deps: deps})
	m.noteLinks(deps)
	return html, nil
}

// noteLinks tells the site a render of m resolved links, so that it
// reads m's file again when they resolve otherwise (reflinks.go).
func (m Markdown) noteLinks(deps []refDep) {
	if len(deps) > 0 && m.env != nil && m.env.links != nil {
		m.env.links.note(m.env.self, m)
	}
}

// bodyEnv is the env a render uses: m's, marked MDX for an MDX body.
func (m Markdown) bodyEnv() *bodyEnv {
	if !m.b.isMDX {
		return m.env
	}
	return m.env.withRun(func(r *bodyRun) { r.mdx = true })
}

// Rendered tells whether the HTML was made already.
func (m Markdown) Rendered() bool {
	if m.b == nil {
		return true
	}
	r := m.b.out()
	return r != nil && r.key == m.env.key() && m.env.depsHold(r.deps)
}

func (b *markdownBody) render(env *bodyEnv) (html string, deps []refDep, err error) {
	defer func() {
		// goldmark has never panicked on fuzzed input, but a body is
		// rendered while a request is being served: a panic becomes an
		// error, which the caller reports with the file's path.
		if v := recover(); v != nil {
			html, deps, err = "", nil, fmt.Errorf("%w: %v\n%s", ErrRenderPanic, v, debug.Stack())
		}
	}()
	src := b.src
	if b.load != nil {
		if src, err = b.load.BodySource(); err != nil {
			return "", nil, err
		}
	}
	if b.isHTML {
		return sanitizeHTML(src), nil, nil
	}
	// Parse refused sources nested too deeply; a body from elsewhere (a
	// persisted cache) is checked again, as goldmark's time depends on it.
	if markdownTooDeep([]byte(src)) > 0 {
		return "", nil, nil
	}
	// renderContext bounds the work of links (see linkGate).
	e := env.withNestBudget(len(src), &deps)
	html = renderBodyHTML(src, e, 0)
	return html, deps, nil
}

// parserContext is the parser option of one render of n bytes.
func parserContext(n int) parser.ParseOption { return parser.WithContext(renderContext(n)) }

// ErrRenderPanic is the error of a render that panicked.
var ErrRenderPanic = errors.New("markdown renderer panicked")

// String is the HTML.
func (m Markdown) String() string { return m.HTML() }

// MarshalJSON encodes the HTML as a JSON string without HTML escaping;
// encoding/json escapes <, > and & afterwards when its encoder is set to,
// so the result is what the HTML as a string would encode to. A body that
// could not be rendered (see Render) is an error, not an empty body.
func (m Markdown) MarshalJSON() ([]byte, error) {
	html, err := m.Render()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(html); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
