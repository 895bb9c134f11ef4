package content

import (
	"strings"
	"unicode"
)

// Hugo shortcodes ({{< name args >}}, {{% name args %}}, with or without
// a closing {{< /name >}}) and MDX components (<Card title="x">…</Card>)
// are read into components: a name, named and positional arguments, and
// the source between an opening and a closing tag. A body is rendered
// with each component replaced by a placeholder (see bodyExpand), so that
// goldmark sees the Markdown around it as Hugo's renderer does, and the
// components are put back in the HTML as <folio-component> elements (or,
// for Hugo's built-ins folio can render, as what Hugo makes of them), and
// in the body tree as component nodes. See docs/content.md "Shortcodes".

// component is one shortcode or JSX element of a body.
type component struct {
	name  string
	named []prop   // named arguments, in source order
	args  []string // positional arguments
	// syntax: "shortcode" ({{< >}}), "shortcode-markdown" ({{% %}}) or
	// "jsx"
	syntax string
	paired bool   // it had a closing tag
	inner  string // the source between the opening and the closing tag
	// block: the component stands alone on its lines
	block bool
	// raw is the component's source, tags and all: what it shows as in
	// code
	raw string
}

type prop struct {
	key string
	// val is the value as written: a string, or for a JSX expression
	// ({…}) its source, with expr set.
	val  string
	expr bool
}

const (
	syntaxShortcode   = "shortcode"
	syntaxShortcodeMD = "shortcode-markdown"
	syntaxJSX         = "jsx"
)

// maxComponents bounds the components of one body (each costs a render
// of its inner source); the rest stay text.
const maxComponents = 10000

// maxComponentDepth bounds the nesting of components.
const maxComponentDepth = 32

// scTag is one shortcode tag found in a source.
type scTag struct {
	start, end int // the tag's bytes
	name       string
	closing    bool // {{< /name >}}
	selfClose  bool // {{< name />}}
	markdown   bool // {{% %}}
	jsx        bool // an MDX element
	named      []prop
	args       []string
	// literal: a comment {{</* … */>}}, which Hugo writes as the
	// shortcode it holds, not run
	literal string
}

// scanShortcodeTag reads the shortcode tag at s[i:] (which starts with
// "{{<" or "{{%"); ok false when it is not one.
func scanShortcodeTag(s string, i int) (t scTag, ok bool) {
	open := s[i+2]
	closeDelim := ">}}"
	if open == '%' {
		closeDelim = "%}}"
		t.markdown = true
	}
	j := i + 3
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
		j++
	}
	// a comment: {{</* … */>}}
	if strings.HasPrefix(s[j:], "/*") {
		end := strings.Index(s[j+2:], "*/")
		if end < 0 {
			return t, false
		}
		k := j + 2 + end + 2
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if !strings.HasPrefix(s[k:], closeDelim) {
			return t, false
		}
		t.start, t.end = i, k+3
		t.literal = s[i:i+3] + s[j+2:j+2+end] + closeDelim
		return t, true
	}
	// the tag ends at the first close delimiter outside quotes; another
	// tag's opening ends the search (so that every byte is looked at
	// once: see findShortcodes)
	end := -1
	var quote byte
	for k := j; k < len(s); k++ {
		c := s[k]
		if c == '{' && k+2 < len(s) && s[k+1] == '{' && (s[k+2] == '<' || s[k+2] == '%') {
			t.end = k
			return t, false
		}
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				k++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '`':
			quote = c
		case c == closeDelim[0] && strings.HasPrefix(s[k:], closeDelim):
			end = k
		}
		if end >= 0 {
			break
		}
	}
	if end < 0 {
		t.end = len(s)
		return t, false
	}
	body := strings.TrimSpace(s[j:end])
	t.start, t.end = i, end+3
	if strings.HasPrefix(body, "/") {
		t.closing = true
		body = strings.TrimSpace(body[1:])
	}
	if strings.HasSuffix(body, "/") {
		t.selfClose = true
		body = strings.TrimSpace(body[:len(body)-1])
	}
	n := 0
	for n < len(body) && isShortcodeNameByte(body[n]) {
		n++
	}
	if n == 0 || (n < len(body) && !isSpaceByte(body[n])) {
		return t, false
	}
	t.name = body[:n]
	if t.closing {
		return t, strings.TrimSpace(body[n:]) == ""
	}
	t.named, t.args, ok = shortcodeArgs(body[n:])
	return t, ok
}

func isShortcodeNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c == '/' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// shortcodeArgs reads a shortcode's arguments: all named (key=value) or
// all positional, each a bare word, a "quoted string" (with \" escapes)
// or a `raw string`.
func shortcodeArgs(s string) (named []prop, args []string, ok bool) {
	i := 0
	for {
		for i < len(s) && isSpaceByte(s[i]) {
			i++
		}
		if i >= len(s) {
			return named, args, true
		}
		// key=
		key := ""
		k := i
		for k < len(s) && (s[k] == '_' || s[k] == '-' || unicode.IsLetter(rune(s[k])) || s[k] >= '0' && s[k] <= '9') {
			k++
		}
		if k > i && k < len(s) && s[k] == '=' {
			key = s[i:k]
			i = k + 1
		}
		val, n, vok := shortcodeValue(s[i:])
		if !vok {
			return nil, nil, false
		}
		i += n
		if key != "" {
			named = append(named, prop{key: key, val: val})
		} else {
			args = append(args, val)
		}
	}
}

// shortcodeValue reads one value at the start of s and its length.
func shortcodeValue(s string) (string, int, bool) {
	if s == "" {
		return "", 0, true
	}
	switch s[0] {
	case '"':
		var b strings.Builder
		for k := 1; k < len(s); k++ {
			switch s[k] {
			case '\\':
				if k+1 < len(s) {
					k++
					b.WriteByte(s[k])
				}
			case '"':
				return b.String(), k + 1, true
			default:
				b.WriteByte(s[k])
			}
		}
		return "", 0, false
	case '`':
		end := strings.IndexByte(s[1:], '`')
		if end < 0 {
			return "", 0, false
		}
		return s[1 : 1+end], end + 2, true
	}
	k := 0
	for k < len(s) && !isSpaceByte(s[k]) {
		k++
	}
	return s[:k], k, true
}

// unparsedShortcodes counts the openings of src ({{< or {{%) that start
// no tag scanShortcodeTag reads: they are served as written.
func unparsedShortcodes(src string) int {
	_, n := scanTags(src)
	return n
}

// scSpan is a top-level component of a source, or a literal text that
// stands for a tag (a comment's shortcode).
type scSpan struct {
	start, end int
	comp       *component
	literal    string
}

// findShortcodes returns the top-level shortcodes of src in order: each
// opening tag paired with the nearest closing tag of its name that
// closes it (nesting counted), else standing alone. A closing tag that
// closes nothing stays text.
func findShortcodes(src string) []scSpan {
	if !strings.Contains(src, "{{") {
		return nil
	}
	tags, _ := scanTags(src)
	return pairTags(src, tags)
}

// scanTags reads src's shortcode tags in order, at most 4*maxComponents
// of them, and counts the openings ({{< or {{%) before the last that
// start no tag.
func scanTags(src string) (tags []scTag, unparsed int) {
	for i := 0; i+3 <= len(src); {
		k := strings.Index(src[i:], "{{")
		if k < 0 || i+k+3 > len(src) {
			break
		}
		i += k
		if c := src[i+2]; c != '<' && c != '%' {
			i += 2
			continue
		}
		t, ok := scanShortcodeTag(src, i)
		if !ok {
			// on from where the tag was found not to be one: a
			// failed scan stops at the next opening, so none is
			// skipped and no byte is scanned twice
			unparsed++
			i = max(i+3, t.end)
			continue
		}
		tags = append(tags, t)
		i = t.end
		if len(tags) > 4*maxComponents {
			break
		}
	}
	return tags, unparsed
}

// pairTags makes the components of a source's tags (in order).
func pairTags(src string, tags []scTag) []scSpan {
	if len(tags) == 0 {
		return nil
	}
	// pair them: partner[i] is the index of the closing tag of opener i.
	// A closing tag closes the latest open tag of its name; the ones
	// opened after that stand alone. Each tag is pushed and popped once.
	partner := make([]int, len(tags))
	var stack []int
	open := map[string]int{} // name -> open tags of that name on stack
	for i, t := range tags {
		partner[i] = -1
		switch {
		case t.literal != "" || t.selfClose:
		case !t.closing:
			stack = append(stack, i)
			open[t.name]++
		case open[t.name] > 0:
			for {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				open[tags[top].name]--
				if tags[top].name == t.name {
					partner[top] = i
					partner[i] = top
					break
				}
			}
		}
	}
	var out []scSpan
	for i := 0; i < len(tags); i++ {
		t := tags[i]
		if t.literal != "" {
			out = append(out, scSpan{start: t.start, end: t.end, literal: t.literal})
			continue
		}
		if t.closing {
			continue // closes nothing
		}
		c := &component{name: t.name, named: t.named, args: t.args, syntax: syntaxShortcode}
		if t.markdown {
			c.syntax = syntaxShortcodeMD
		}
		if t.jsx {
			c.syntax = syntaxJSX
		}
		end := t.end
		if p := partner[i]; p > i {
			c.paired = true
			c.inner = src[t.end:tags[p].start]
			if t.jsx {
				c.inner = dedent(c.inner)
			}
			end = tags[p].end
			i = p
		}
		c.block = standsAlone(src, t.start, end)
		c.raw = src[t.start:end]
		out = append(out, scSpan{start: t.start, end: end, comp: c})
		if len(out) >= maxComponents {
			break
		}
	}
	return out
}

// standsAlone tells whether src[start:end] is alone on its lines
// (blanks and a list or quote indentation before it aside).
func standsAlone(src string, start, end int) bool {
	// only the blanks next to it are looked at: a long line costs nothing
	i := start
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	if i > 0 && src[i-1] != '\n' {
		return false
	}
	j := end
	for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r') {
		j++
	}
	return j == len(src) || src[j] == '\n'
}

// dedent takes the indentation all of s's lines after the first share
// off them: JSX children are indented by their nesting, which is not
// Markdown's indentation.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) < 2 {
		return s
	}
	prefix, set := "", false
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ws := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if !set {
			prefix, set = ws, true
			continue
		}
		for !strings.HasPrefix(ws, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if prefix == "" {
		return s
	}
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.TrimPrefix(lines[i], prefix)
	}
	return strings.Join(lines, "\n")
}
