package content

import (
	"bytes"
	"strings"

	"github.com/adrg/frontmatter"
)

type fmKind int

const (
	fmYAML fmKind = iota + 1
	fmTOML
	fmJSON
)

// fmCapture receives the raw front matter from adrg/frontmatter; it is
// decoded by this package so that problems get file lines and limits.
type fmCapture struct {
	kind   fmKind
	src    []byte
	delims bool // src includes the delimiter lines (JSON "{ ... }")
	dashes bool // closed by a line of more than three dashes (fmSplit), as Hugo closes it
}

func capture(kind fmKind, delims bool) frontmatter.UnmarshalFunc {
	return func(data []byte, v any) error {
		*v.(*fmCapture) = fmCapture{kind: kind, src: data, delims: delims}
		return nil
	}
}

func fmFormats() []*frontmatter.Format {
	jsonBraces := frontmatter.NewFormat("{", "}", capture(fmJSON, true))
	jsonBraces.UnmarshalDelims = true
	jsonBraces.RequiresNewLine = true
	return []*frontmatter.Format{
		frontmatter.NewFormat("---", "---", capture(fmYAML, false)),
		frontmatter.NewFormat("---yaml", "---", capture(fmYAML, false)),
		frontmatter.NewFormat("+++", "+++", capture(fmTOML, false)),
		frontmatter.NewFormat("---toml", "---", capture(fmTOML, false)),
		frontmatter.NewFormat(";;;", ";;;", capture(fmJSON, false)),
		frontmatter.NewFormat("---json", "---", capture(fmJSON, false)),
		jsonBraces,
	}
}

// fmOpeners are the first lines that start a front matter.
var fmOpeners = []string{"---", "---yaml", "+++", "---toml", ";;;", "---json"}

// parseMarkdown reads a Markdown file, or with isHTML an HTML one (front
// matter the same, the body HTML); fmFast and body: see parseFile.
func parseMarkdown(data []byte, fmFast, isHTML, isMDX bool, body func(off int) Markdown) (*Doc, error) {
	bodyFn := body
	var fm fmCapture
	// adrg/frontmatter copies the whole file, body included, through a
	// buffer of its own: when the front matter's closing line is plain to
	// see, it is cut out of data here instead, as adrg/frontmatter would
	// (it reads line by line and stops at the first closing line, so the
	// front matter is the same); the body is then the rest of data. When
	// there is none, the whole file is parsed.
	var rest []byte
	var err error
	if f, end := fmSplit(data); end > 0 && (fmFast || f.dashes) {
		// (a front matter closed by a line of dashes is Hugo's, which
		// adrg/frontmatter would not close there)
		fm, rest = f, data[end:]
	}
	if rest == nil {
		if rest, err = frontmatter.Parse(bytes.NewReader(data), &fm, fmFormats()...); err != nil {
			return nil, problemAt(0, "front matter: %v", err)
		}
	}
	openLine, opener := firstLine(data)
	if fm.kind == 0 {
		for _, o := range fmOpeners {
			if opener == o {
				return nil, problemAt(openLine, "front matter opened with %q is never closed", o)
			}
		}
		if lang, ok := codeFrontMatter(opener); ok {
			// Eleventy's ---js (gray-matter's ---<language>): its
			// keys (a title, draft: true) are code; served as a body, a
			// draft would be published. Declarations of values are read
			// (jsfrontmatter.go), other code is a problem.
			src, body, closed := codeFrontMatterSplit(data)
			if !closed {
				return nil, problemAt(openLine, "front matter opened with %q is never closed", opener)
			}
			m, read := map[string]any(nil), false
			if lang == "JavaScript" {
				m, read = jsFrontMatter(src)
			}
			if !read {
				return nil, problemAt(openLine, "front matter in %s (%q) is not read: folio reads YAML (---), TOML (+++), JSON, and JavaScript that only declares values (const title = \"…\";); this file is left out", lang, opener)
			}
			if _, err := normTree(m, 0); err != nil {
				return nil, problemAt(openLine, "front matter in JavaScript: %v", err)
			}
			return markdownDoc(data, m, nil, body, isHTML, isMDX, bodyFn)
		}
	}
	meta := map[string]any{}
	var lines map[string]int
	if fm.kind != 0 {
		offset := openLine
		if fm.delims {
			offset--
		}
		switch fm.kind {
		case fmYAML:
			lines = map[string]int{}
			meta, err = decodeYAML(fm.src, offset, lines, true)
		case fmTOML:
			meta, err = decodeTOML(fm.src, offset)
		case fmJSON:
			meta, err = decodeJSON(fm.src, offset)
		}
		if err != nil {
			return nil, err
		}
	}
	return markdownDoc(data, meta, lines, rest, isHTML, isMDX, body)
}

// markdownDoc is the Doc of data, a Markdown (or HTML, MDX) file whose
// front matter is meta and whose body is rest, the tail of data.
func markdownDoc(data []byte, meta map[string]any, lines map[string]int, rest []byte, isHTML, isMDX bool, body func(off int) Markdown) (*Doc, error) {
	doc := NewDoc(meta)
	doc.Lines, doc.Line = lines, lineAt(data, len(data)-len(rest))
	if len(bytes.TrimSpace(rest)) == 0 {
		return doc, nil
	}
	// The nesting check is what bounds goldmark's time, so it runs here,
	// at load, although the body is rendered on first use.
	if !isHTML {
		if l := markdownTooDeep(rest); l > 0 {
			return nil, problemAt(doc.Line+l-1, "Markdown nested more than %d levels deep (block quotes, lists or indentation)", maxMarkdownDepth)
		}
	}
	doc.HasBody = true
	switch off := len(data) - len(rest); {
	case body != nil && bytes.Equal(data[off:], rest):
		doc.Body = body(off) // the caller reads it again: no copy
	case isHTML:
		doc.Body = NewHTML(string(rest))
	case isMDX:
		doc.Body = NewMDX(string(rest))
	default:
		doc.Body = NewMarkdown(string(rest))
	}
	return doc, nil
}

// codeFrontMatter tells whether opener, a file's first line, opens a
// front matter in a language folio does not read: "---" followed by the
// language's name (Eleventy's "---js", "---javascript"; gray-matter's
// "---coffee"), and which language.
func codeFrontMatter(opener string) (string, bool) {
	lang, ok := strings.CutPrefix(opener, "---")
	if !ok || lang == "" || len(lang) > 16 {
		return "", false
	}
	for _, c := range lang {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return "", false
		}
	}
	switch strings.ToLower(lang) {
	case "js", "javascript":
		return "JavaScript", true
	case "yaml", "toml", "json":
		return "", false // ---YAML: not an opener adrg/frontmatter knows (case), as before
	}
	return lang, true
}

// codeFrontMatterSplit splits data, a file whose first non-blank line
// opens a front matter in code (---js), at the first later line "---":
// the front matter's text and the body after it; false when no line
// closes it.
func codeFrontMatterSplit(data []byte) (src string, body []byte, closed bool) {
	i := bytes.IndexByte(data, '\n')
	for i >= 0 && len(bytes.TrimSpace(data[:i])) == 0 { // blank lines before the opener
		j := bytes.IndexByte(data[i+1:], '\n')
		if j < 0 {
			return "", nil, false
		}
		i += j + 1
	}
	if i < 0 {
		return "", nil, false
	}
	start := i + 1
	for off := start; off < len(data); {
		next := len(data)
		if j := bytes.IndexByte(data[off:], '\n'); j >= 0 {
			next = off + j + 1
		}
		if string(bytes.TrimSpace(data[off:next])) == "---" {
			return string(data[start:off]), data[next:], true
		}
		off = next
	}
	return "", nil, false
}

// fmEnd returns the offset just past the first line that closes a front
// matter opened by the first non-blank line with ---, +++ or ;;; (also
// ---yaml, ---toml, ---json), or 0.
func fmEnd(data []byte) int {
	_, end := fmSplit(data)
	return end
}

// fmSplit finds a front matter opened by the first non-blank line with
// ---, +++ or ;;; (also ---yaml, ---toml, ---json) and closed by a later
// line: it returns the front matter as adrg/frontmatter hands it to the
// format's unmarshal function (the lines between the two, a slice of
// data) and the offset just past the closing line, or end 0 when there
// is no such front matter.
func fmSplit(data []byte) (fm fmCapture, end int) {
	var closer string
	start, off := 0, 0
	for off < len(data) {
		i := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if i >= 0 {
			next = off + i + 1
		}
		t := bytes.TrimSpace(data[off:next])
		if closer == "" {
			switch string(t) {
			case "":
				off = next
				continue
			case "---", "---yaml":
				closer, fm.kind = "---", fmYAML
			case "---toml":
				closer, fm.kind = "---", fmTOML
			case "---json":
				closer, fm.kind = "---", fmJSON
			case "+++":
				closer, fm.kind = "+++", fmTOML
			case ";;;":
				closer, fm.kind = ";;;", fmJSON
			default:
				return fmCapture{}, 0
			}
			start, off = next, next
			continue
		}
		if string(t) == closer {
			fm.src = data[start:off]
			return fm, next
		}
		if closer == "---" && len(t) > 3 && bytes.Count(t, []byte("-")) == len(t) {
			// Hugo closes a YAML front matter at the first line that
			// starts with ---; the rest of the line is the body's
			// (falco.org's tuning.md closes its own with ----------)
			fm.src, fm.dashes = data[start:off], true
			return fm, off + bytes.IndexByte(data[off:next], '-') + 3
		}
		off = next
	}
	return fmCapture{}, 0
}

// firstLine returns the 1-based number and trimmed text of the first
// non-blank line, the one adrg/frontmatter looks at for a delimiter.
func firstLine(data []byte) (int, string) {
	line := 1
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		l := data
		if i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if t := bytes.TrimSpace(l); len(t) > 0 {
			return line, string(t)
		}
		line++
	}
	return line, ""
}

// maxMarkdownDepth bounds block nesting in Markdown. goldmark's block parser
// is quadratic (and worse for lists) in nesting depth: 16,000 nested block
// quotes take a third of a second and 1,600 nested list levels take
// seconds, so a 4 MiB file could hold the parser for hours.
const maxMarkdownDepth = 64

// markdownTooDeep returns the first line whose block nesting, estimated from
// its prefix, exceeds maxMarkdownDepth, or 0. Every ">" and list marker at
// the start of a line counts one level and every two columns of indentation
// count one level (a nested list item is indented at least two columns).
// Lines inside ``` or ~~~ fences are skipped so that indented code is fine.
func markdownTooDeep(data []byte) int {
	line := 0
	var fence byte
	for len(data) > 0 {
		line++
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		depth, cols, i := 0, 0, 0
	prefix:
		for i < len(l) {
			switch c := l[i]; {
			case c == ' ':
				cols++
				i++
			case c == '\t':
				cols += 4
				i++
			case c == '>':
				depth++
				i++
			case (c == '-' || c == '*' || c == '+') && i+1 < len(l) && (l[i+1] == ' ' || l[i+1] == '\t'):
				depth++
				i++
			case c >= '0' && c <= '9':
				j := i
				for j < len(l) && l[j] >= '0' && l[j] <= '9' {
					j++
				}
				if j+1 < len(l) && (l[j] == '.' || l[j] == ')') && (l[j+1] == ' ' || l[j+1] == '\t') {
					depth++
					i = j + 1
					continue
				}
				break prefix
			default:
				break prefix
			}
		}
		rest := l[i:]
		if len(rest) >= 3 && (rest[0] == '`' || rest[0] == '~') && rest[1] == rest[0] && rest[2] == rest[0] {
			switch fence {
			case 0:
				fence = rest[0]
			case rest[0]:
				fence = 0
			}
			continue
		}
		if fence != 0 {
			continue
		}
		if depth+cols/2 > maxMarkdownDepth {
			return line
		}
	}
	return 0
}
