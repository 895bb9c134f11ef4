package write

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
)

// The limits of a document a write may be given, checked before the
// write takes its lock and before anything is encoded: encoding a value
// costs memory in proportion to its values and, in YAML, to its depth
// (each level indents every line below it), so a small body nested
// thousands deep, or a big one of many tiny objects, would cost far more
// than the content file it makes (issue 29).
const (
	// MaxTokens bounds the JSON tokens of a document: objects, arrays,
	// keys, strings, numbers, true, false and null. A content file of
	// content.MaxFileSize with long values stays far below it; a list of
	// small objects that would need more is a data set, not a document
	// (push it). Each token costs some hundreds of bytes of memory on
	// its way to the file (decoded, a YAML node, an event the YAML
	// emitter keeps to the end of the document, parsed back): at the
	// limit, a write adds about 150 MB (docs/performance.md, worstwrite).
	MaxTokens = 100_000
)

// errTooDeep is a document nested deeper than the content parser reads.
var errTooDeep = fault.New(fault.Invalid, "the document is nested more than %d levels deep (the content parser's limit)", content.MaxDepth)

// errTooManyTokens is a document of more than MaxTokens tokens.
var errTooManyTokens = fault.New(fault.TooLarge, "the document has more than %d JSON values and keys (a write's limit)", MaxTokens)

// measure is what checkSize finds of a document's values.
type measure struct {
	tokens int
	// least is the fewest bytes any front matter format writes them in:
	// every key and string once, each number or literal a byte at least.
	least int
	deep  bool
}

func (m *measure) value(v any, depth int) {
	if m.deep || m.tokens > MaxTokens {
		return
	}
	m.tokens++
	switch v := v.(type) {
	case map[string]any:
		if depth >= content.MaxDepth {
			m.deep = true
			return
		}
		for k, c := range v {
			m.tokens++
			m.least += len(k)
			m.value(c, depth+1)
		}
	case []any:
		if depth >= content.MaxDepth {
			m.deep = true
			return
		}
		for _, c := range v {
			m.value(c, depth+1)
		}
	case string:
		m.least += len(v)
	case json.Number:
		m.least += len(v)
	default:
		m.least++
	}
}

// checkSize refuses a document nested deeper than content.MaxDepth, of
// more than MaxTokens values and keys, or whose keys and values alone
// are over content.MaxFileSize, before it is encoded.
func checkSize(d Doc) error {
	var m measure
	m.value(d.Fields, 0)
	if d.Body != nil {
		m.least += len(*d.Body)
	}
	switch {
	case m.deep:
		return errTooDeep
	case m.tokens > MaxTokens:
		return errTooManyTokens
	case m.least > content.MaxFileSize:
		return fault.New(fault.TooLarge, "the document's keys and values alone are over %d bytes, the limit of a content file", content.MaxFileSize)
	}
	return nil
}

// errOverCap is what a capBuffer returns past its cap.
var errOverCap = errors.New("over the size limit of a content file")

// capBuffer is a buffer that takes at most content.MaxFileSize bytes:
// encoders write into it and stop at the limit, rather than building a
// file of any size first and measuring it after.
// Once over, it stays over: every later write fails too.
type capBuffer struct {
	buf  []byte
	over bool
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if c.over || len(c.buf)+len(p) > content.MaxFileSize {
		c.over = true
		return 0, errOverCap
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

func (c *capBuffer) WriteString(s string) (int, error) {
	if c.over || len(c.buf)+len(s) > content.MaxFileSize {
		c.over = true
		return 0, errOverCap
	}
	c.buf = append(c.buf, s...)
	return len(s), nil
}

func (c *capBuffer) Bytes() []byte { return c.buf }
func (c *capBuffer) Len() int      { return len(c.buf) }

// tooLargeEncoded is the error of an encoding that reached the cap.
func tooLargeEncoded(format string) error {
	return fault.New(fault.TooLarge, "the file would be over %d bytes, the limit of a content file (encoding it as %s stopped there)", content.MaxFileSize, format)
}

// overCap tells whether err is (or wraps, or says) errOverCap: yaml.v3
// reports a writer's error as text.
func overCap(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, errOverCap) {
		return true
	}
	return strings.Contains(err.Error(), errOverCap.Error())
}

// indentedAtLeast is a lower bound of the size of raw (a JSON value)
// indented by json.Indent with a prefix and an indent of two spaces: its
// bytes but spaces, and a new line indented by its depth after each
// comma. editJSON checks it before it indents a
// value, whose indentation grows with its depth times its values.
func indentedAtLeast(raw []byte) int {
	n, depth := 0, 1
	inString, escaped := false, false
	for _, c := range raw {
		if inString {
			n++
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			n += 1 + 2*depth
		}
		n++
	}
	return n
}
