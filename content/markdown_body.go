package content

import (
	"bytes"
	"encoding/json"
	"sync"
	"sync/atomic"
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
type Markdown struct{ b *markdownBody }

type markdownBody struct {
	src  string
	once sync.Once
	html string
	done atomic.Bool
}

// NewMarkdown returns the body with Markdown source src. The source must
// already have passed Parse's checks (UTF-8, nesting depth) when it came
// from a file; bodies persisted by a cache come back that way.
func NewMarkdown(src string) Markdown { return Markdown{b: &markdownBody{src: src}} }

// Source is the Markdown text.
func (m Markdown) Source() string {
	if m.b == nil {
		return ""
	}
	return m.b.src
}

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
	// Parse refused sources nested too deeply; a body from elsewhere (a
	// persisted cache) is checked again, as goldmark's time depends on it.
	if markdownTooDeep([]byte(b.src)) > 0 {
		return
	}
	var buf bytes.Buffer
	buf.Grow(len(b.src) + len(b.src)/4)
	// Writing to a bytes.Buffer cannot fail, so neither can Convert.
	if err := markdown().Convert([]byte(b.src), &buf); err != nil {
		return
	}
	b.html = buf.String()
}

// String is the HTML.
func (m Markdown) String() string { return m.HTML() }

// MarshalJSON encodes the HTML as a JSON string without HTML escaping;
// encoding/json escapes <, > and & afterwards when its encoder is set to,
// so the result is what the HTML as a string would encode to.
func (m Markdown) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m.HTML()); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
