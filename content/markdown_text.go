package content

import (
	"html"
	"strings"
	"unsafe"
)

// PlainText is the readable text of s, a Markdown or plain string: words
// and the punctuation between them, with Hugo shortcodes ({{< … >}},
// {{% … %}}; the text between a pair is kept), HTML tags and comments,
// link destinations, reference definitions, URLs and Markdown markup left
// out, entities decoded and whitespace collapsed. It is what search
// indexes and quotes from. It is not rendered Markdown (no goldmark run):
// one pass over the bytes, so that indexing a large site costs little
// more than reading it.
func PlainText(s string) string {
	if s == "" {
		return ""
	}
	b := AppendPlainText(make([]byte, 0, len(s)), s)
	return unsafe.String(unsafe.SliceData(b), len(b)) // as strings.Builder: b is not used again
}

// AppendPlainText appends the PlainText of s to dst and returns the
// extended slice: a search index's build reuses one buffer for the text
// of document after document.
func AppendPlainText(dst []byte, s string) []byte {
	start := len(dst)
	b := dst
	space := true     // the output ends with a space (or is empty)
	lineStart := true // only spaces since the last newline
	lineIndent := 0   // spaces since the last newline
	sep := func() {
		if !space {
			b = append(b, ' ')
			space = true
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\n' {
			sep()
			lineStart, lineIndent = true, 0
			i++
			continue
		}
		if lineStart && c == '[' && lineIndent <= 3 {
			if n := refDefEnd(s[i:]); n > 0 {
				sep()
				i += n
				continue
			}
		}
		if c == ' ' || c == '\t' {
			lineIndent++
		} else {
			lineStart = false
		}
		switch c {
		case ' ', '\t', '\r', '\v', '\f':
			sep()
			i++
			continue
		case '{':
			if n := shortcodeEnd(s[i:]); n > 0 {
				sep()
				i += n
				continue
			}
		case '<':
			if n := tagEnd(s[i:]); n > 0 {
				sep()
				i += n
				continue
			}
		case ']':
			if strings.HasPrefix(s[i:], "](") {
				if j := strings.IndexAny(s[i+2:], ")\n"); j >= 0 && s[i+2+j] == ')' {
					sep()
					i += 2 + j + 1
					continue
				}
			}
			sep()
			i++
			continue
		case '&':
			if j := strings.IndexByte(s[i:min(i+12, len(s))], ';'); j > 1 {
				if u := html.UnescapeString(s[i : i+j+1]); u != s[i:i+j+1] {
					b = append(b, u...)
					space = false
					i += j + 1
					continue
				}
			}
		case '*', '#', '`', '|', '>', '~', '[', '\\', '!':
			if c != '!' || strings.HasPrefix(s[i:], "![") {
				sep()
				i++
				continue
			}
		}
		if space && isASCIILetter(c) {
			if n := urlEnd(s[i:]); n > 0 {
				sep()
				i += n
				continue
			}
		}
		b = append(b, c)
		space = false
		i++
	}
	for len(b) > start && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// shortcodeEnd is the length of the Hugo shortcode s starts with, 0 when
// it starts with none.
func shortcodeEnd(s string) int {
	var closer string
	switch {
	case strings.HasPrefix(s, "{{<"):
		closer = ">}}"
	case strings.HasPrefix(s, "{{%"):
		closer = "%}}"
	default:
		return 0
	}
	j := strings.Index(s[3:], closer)
	if j < 0 {
		return 0
	}
	return 3 + j + len(closer)
}

// tagEnd is the length of the HTML tag, comment or autolink s starts
// with, 0 when none.
func tagEnd(s string) int {
	if strings.HasPrefix(s, "<!--") {
		if j := strings.Index(s[4:], "-->"); j >= 0 {
			return 4 + j + 3
		}
		return 0
	}
	k := 1
	if len(s) > 1 && s[1] == '/' {
		k = 2
	}
	if len(s) <= k || !isASCIILetter(s[k]) {
		return 0
	}
	j := strings.IndexAny(s[1:], "<>\n")
	if j < 0 || s[1+j] != '>' {
		return 0
	}
	return 1 + j + 1
}

// refDefEnd is the length of the reference definition ("[label]: url
// …", up to the end of the line) s starts with, 0 when none.
func refDefEnd(s string) int {
	j := strings.IndexAny(s, "]\n")
	if j < 1 || s[j] != ']' || !strings.HasPrefix(s[j:], "]:") {
		return 0
	}
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		return k
	}
	return len(s)
}

// urlEnd is the length of the URL ("scheme://…" up to a space) s starts
// with, 0 when none.
func urlEnd(s string) int {
	k := 1
	for k < len(s) && k < 32 && (isASCIILetter(s[k]) || '0' <= s[k] && s[k] <= '9' || s[k] == '+' || s[k] == '.' || s[k] == '-') {
		k++
	}
	if !strings.HasPrefix(s[k:], "://") {
		return 0
	}
	if j := strings.IndexAny(s, " \t\n\r"); j >= 0 {
		return j
	}
	return len(s)
}

// Text is the readable text of the Markdown body (see PlainText).
func (m Markdown) Text() string {
	if m.IsHTML() {
		return PlainText(m.HTML()) // sanitized: no script or style text
	}
	return PlainText(m.Source())
}
