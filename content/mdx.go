package content

import (
	"strings"
)

// MDX (.mdx: Markdown with JSX, Astro's and Next.js's docs format) is
// read as Markdown whose JSX elements (<Card title="x">…</Card>,
// <Aside type="tip" />: a name that starts with a capital letter or has
// a dot) are components, as shortcodes are; import and export lines
// (ESM) and JSX comments ({/* … */}) are left out of the body, and the
// lower-case HTML elements JSX allows are raw HTML, sanitized. Code
// (fenced blocks, `spans`) is left as it is. See docs/content.md "MDX".

// IsMDXExt tells whether a document file of extension ext is MDX.
func IsMDXExt(ext string) bool { return strings.EqualFold(ext, ".mdx") }

// NewMDX returns the body with MDX source src.
func NewMDX(src string) Markdown { return Markdown{b: &markdownBody{src: src, isMDX: true}} }

// NewLazyMDX is NewMDX with the source read by load, as NewLazyMarkdown.
func NewLazyMDX(load func() (string, error)) Markdown {
	return Markdown{b: &markdownBody{load: bodyFunc(load), isMDX: true}}
}

// IsMDX tells whether the body's source is MDX.
func (m Markdown) IsMDX() bool { return m.b != nil && m.b.isMDX }

// findMDX returns src with its ESM lines and JSX comments blanked (their
// newlines kept), and its top-level JSX elements.
func findMDX(src string) (string, []scSpan) {
	src = stripESM(src)
	code := codeRanges(src)
	var tags []scTag
	next := 0 // code[next] is the first range not before i (i only grows)
	inCode := func(i int) bool {
		for next < len(code) && code[next][1] <= i {
			next++
		}
		return next < len(code) && i >= code[next][0]
	}
	for i := 0; i < len(src); i++ {
		if src[i] != '<' || i+1 >= len(src) {
			continue
		}
		c := src[i+1]
		if !(c >= 'A' && c <= 'Z' || c == '/' && i+2 < len(src) && src[i+2] >= 'A' && src[i+2] <= 'Z') {
			continue
		}
		if inCode(i) {
			continue
		}
		t, ok := scanJSXTag(src, i)
		if !ok {
			// on from where it was found not to be a tag: no byte is
			// scanned twice
			if t.end > i+1 {
				i = t.end - 1
			}
			continue
		}
		tags = append(tags, t)
		i = t.end - 1
		if len(tags) > 4*maxComponents {
			break
		}
	}
	return src, pairTags(src, tags)
}

// stripESM blanks the import and export statements at the start of lines
// outside fenced code (each up to a line that ends it: a blank line, or
// one that ends with ; or closes its brackets) and JSX comments.
func stripESM(src string) string {
	if !strings.Contains(src, "import") && !strings.Contains(src, "export") && !strings.Contains(src, "{/*") {
		return src
	}
	b := []byte(src)
	blank := func(from, to int) {
		for k := from; k < to; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	var fence string
	for off := 0; off < len(b); {
		end := strings.IndexByte(src[off:], '\n')
		next := len(src)
		if end >= 0 {
			next = off + end + 1
		}
		line := src[off:next]
		t := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
		case strings.HasPrefix(line, "import ") || strings.HasPrefix(line, "export ") || strings.HasPrefix(line, "import{"):
			// the statement: brackets balanced, or up to a blank line
			depth, k := 0, off
			for k < len(src) {
				c := src[k]
				switch c {
				case '{', '(', '[':
					depth++
				case '}', ')', ']':
					depth--
				case '\n':
					if depth <= 0 {
						k++
						goto done
					}
					if k+1 < len(src) && src[k+1] == '\n' {
						k++
						goto done
					}
				}
				k++
			}
		done:
			blank(off, k)
			next = k
		}
		off = next
	}
	// JSX comments {/* … */}
	s := string(b)
	for i := 0; ; {
		k := strings.Index(s[i:], "{/*")
		if k < 0 {
			break
		}
		k += i
		e := strings.Index(s[k:], "*/}")
		if e < 0 {
			break
		}
		blank(k, k+e+3)
		i = k + e + 3
	}
	return string(b)
}

// codeRanges are the byte ranges of fenced code blocks and code spans.
func codeRanges(src string) [][2]int {
	var out [][2]int
	fenceStart := -1
	fence := ""
	for off := 0; off < len(src); {
		end := strings.IndexByte(src[off:], '\n')
		next := len(src)
		if end >= 0 {
			next = off + end + 1
		}
		t := strings.TrimSpace(src[off:next])
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				out = append(out, [2]int{fenceStart, next})
				fence = ""
			}
		} else if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence, fenceStart = t[:3], off
		} else {
			// code spans on the line; a run of backticks that found no
			// closer tells that no later run of its length will
			line := src[off:next]
			var unclosed map[int]bool
			for i := 0; i < len(line); i++ {
				if line[i] != '`' {
					continue
				}
				n := 1
				for i+n < len(line) && line[i+n] == '`' {
					n++
				}
				closer := -1
				if !unclosed[n] {
					closer = strings.Index(line[i+n:], strings.Repeat("`", n))
				}
				if closer < 0 {
					if unclosed == nil {
						unclosed = map[int]bool{}
					}
					unclosed[n] = true
					i += n - 1
					continue
				}
				out = append(out, [2]int{off + i, off + i + n + closer + n})
				i += n + closer + n - 1
			}
		}
		off = next
	}
	if fence != "" {
		out = append(out, [2]int{fenceStart, len(src)})
	}
	return out
}

// scanJSXTag reads the JSX tag at s[i:] ("<Name …>", "<Name … />" or
// "</Name>").
func scanJSXTag(s string, i int) (t scTag, ok bool) {
	t.jsx = true
	j := i + 1
	if s[j] == '/' {
		t.closing = true
		j++
	}
	n := j
	for n < len(s) && (isJSXNameByte(s[n]) || s[n] == '.') {
		n++
	}
	if n == j {
		return t, false
	}
	t.name = s[j:n]
	k := n
	for {
		for k < len(s) && isSpaceByte(s[k]) {
			k++
		}
		if k >= len(s) {
			t.end = k
			return t, false
		}
		switch {
		case s[k] == '>':
			t.start, t.end = i, k+1
			return t, true
		case s[k] == '/' && k+1 < len(s) && s[k+1] == '>' && !t.closing:
			t.selfClose = true
			t.start, t.end = i, k+2
			return t, true
		case t.closing:
			t.end = k
			return t, false
		case s[k] == '{':
			// a spread {...props}
			e := jsxExprEnd(s, k)
			if e < 0 {
				t.end = min(len(s), k+maxJSXExpr)
				return t, false
			}
			k = e
			continue
		}
		a := k
		for k < len(s) && (isJSXNameByte(s[k]) || s[k] == ':') {
			k++
		}
		if k == a {
			t.end = k
			return t, false
		}
		name := s[a:k]
		if k < len(s) && s[k] == '=' {
			k++
			if k >= len(s) {
				t.end = k
				return t, false
			}
			switch s[k] {
			case '"', '\'':
				e := strings.IndexByte(s[k+1:], s[k])
				if e < 0 {
					t.end = len(s) // no string closes after k
					return t, false
				}
				t.named = append(t.named, prop{key: name, val: s[k+1 : k+1+e]})
				k += e + 2
			case '{':
				e := jsxExprEnd(s, k)
				if e < 0 {
					t.end = min(len(s), k+maxJSXExpr)
					return t, false
				}
				t.named = append(t.named, prop{key: name, val: strings.TrimSpace(s[k+1 : e-1]), expr: true})
				k = e
			default:
				t.end = k
				return t, false
			}
		} else {
			t.named = append(t.named, prop{key: name, val: "true", expr: true})
		}
	}
}

// maxJSXExpr is the longest JSX expression read.
const maxJSXExpr = 64 << 10

func isJSXNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// jsxExprEnd is the offset just past the {…} expression at s[k], braces
// and string literals counted; -1 when it does not close.
func jsxExprEnd(s string, k int) int {
	depth := 0
	for i := k; i < len(s) && i-k < maxJSXExpr; i++ {
		switch c := s[i]; c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '"', '\'', '`':
			e := strings.IndexByte(s[i+1:], c)
			if e < 0 {
				return -1
			}
			i += e + 1
		}
	}
	return -1
}
