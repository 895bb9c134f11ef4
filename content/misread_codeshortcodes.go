package content

import "strings"

// shortcodesInCode counts the shortcode tags of a Markdown source that
// stand inside code (a fenced block, or an inline code span): Hugo
// replaces every shortcode of a page's source, in code too (kind.sigs.k8s.io
// writes `go install sigs.k8s.io/kind@{{< stableVersion >}}`), folio shows
// one in code as written. A comment ({{</* … */>}}), Hugo's way to show a
// tag in code, is not counted.
func shortcodesInCode(src string) int {
	if !strings.Contains(src, "{{") {
		return 0
	}
	src = withoutComments(src)
	n := 0
	fence := ""
	for line := range strings.Lines(src) {
		trim := strings.TrimLeft(line, " \t")
		if fence != "" {
			if strings.HasPrefix(trim, fence) && strings.TrimSpace(strings.TrimLeft(trim, fence[:1])) == "" {
				fence = ""
				continue
			}
			n += shortcodeTags(line)
			continue
		}
		if f := fenceOpener(trim); f != "" {
			fence = f
			continue
		}
		parts := strings.Split(line, "`")
		for i := 1; i < len(parts)-1; i += 2 { // inside a span: between two backticks
			n += shortcodeTags(parts[i])
		}
	}
	return n
}

// fenceOpener is the run of ``` or ~~~ (three or more) a line opens a
// fenced code block with, "" for none.
func fenceOpener(trim string) string {
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(trim, c+c+c) {
			k := 3
			for k < len(trim) && trim[k] == c[0] {
				k++
			}
			return trim[:k]
		}
	}
	return ""
}

// shortcodeTags counts the openings of a shortcode tag ({{< or {{%, not a
// comment's {{</* or {{%/*) in s.
func shortcodeTags(s string) int {
	n := 0
	for i := 0; ; {
		k := strings.Index(s[i:], "{{")
		if k < 0 || i+k+2 >= len(s) {
			return n
		}
		i += k + 2
		if c := s[i]; c != '<' && c != '%' {
			continue
		}
		rest := strings.TrimLeft(s[i+1:], " ")
		if !strings.HasPrefix(rest, "/*") {
			n++
		}
	}
}

// withoutComments is src with its shortcode comments ({{</* … */>}},
// {{%/* … */%}}, over lines too) blanked, its newlines kept.
func withoutComments(src string) string {
	if !strings.Contains(src, "/*") {
		return src
	}
	var b strings.Builder
	for {
		i := strings.Index(src, "{{")
		if i < 0 || i+2 >= len(src) {
			break
		}
		c := src[i+2]
		rest := strings.TrimLeft(src[i+3:], " ")
		if (c != '<' && c != '%') || !strings.HasPrefix(rest, "/*") {
			b.WriteString(src[:i+2])
			src = src[i+2:]
			continue
		}
		end := strings.Index(src[i:], "*/")
		if end < 0 {
			break
		}
		b.WriteString(src[:i])
		b.WriteString(strings.Repeat("\n", strings.Count(src[i:i+end], "\n")))
		src = src[i+end+2:]
	}
	b.WriteString(src)
	return b.String()
}
