package content

import (
	"bytes"
	"encoding/json"
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
type Markdown struct{ b *markdownBody }

type markdownBody struct {
	src  string
	load func() (string, error) // nil when src is held
	once sync.Once
	html string
	err  error // the source could not be read (lazy bodies only)
	done atomic.Bool
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
	return Markdown{b: &markdownBody{load: load}}
}

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
		return m.b.load()
	}
	return m.b.src, nil
}

// Lazy tells whether the body reads its source on demand.
func (m Markdown) Lazy() bool { return m.b != nil && m.b.load != nil }

// HTML renders the body (once) and returns the HTML. Raw HTML is not passed
// through; see README "Markdown".
func (m Markdown) HTML() string {
	if m.b == nil {
		return ""
	}
	m.b.once.Do(m.b.render)
	return m.b.html
}

// Rendered tells whether the HTML was made already.
func (m Markdown) Rendered() bool { return m.b == nil || m.b.done.Load() }

func (b *markdownBody) render() {
	defer b.done.Store(true)
	defer func() {
		// goldmark has never panicked on fuzzed input, but a body is
		// rendered while a request is being served: a panic must not
		// leave the page unserved. The body is then empty.
		if recover() != nil {
			b.html = ""
		}
	}()
	src := b.src
	if b.load != nil {
		var err error
		if src, err = b.load(); err != nil {
			b.err = err
			return
		}
	}
	// Parse refused sources nested too deeply; a body from elsewhere (a
	// persisted cache) is checked again, as goldmark's time depends on it.
	if markdownTooDeep([]byte(src)) > 0 {
		return
	}
	var buf bytes.Buffer
	buf.Grow(len(src) + len(src)/4)
	// Writing to a bytes.Buffer cannot fail, so neither can Convert.
	// renderContext bounds the work of links (see linkGate).
	if err := markdown().Convert([]byte(src), &buf, parser.WithContext(renderContext(len(src)))); err != nil {
		return
	}
	b.html = buf.String()
}

// String is the HTML.
func (m Markdown) String() string { return m.HTML() }

// MarshalJSON encodes the HTML as a JSON string without HTML escaping;
// encoding/json escapes <, > and & afterwards when its encoder is set to,
// so the result is what the HTML as a string would encode to. A lazy
// body whose source could not be read is an error, not an empty body.
func (m Markdown) MarshalJSON() ([]byte, error) {
	html := m.HTML()
	if m.b != nil && m.b.err != nil {
		return nil, m.b.err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(html); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
