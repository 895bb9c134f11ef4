package content

import (
	"bytes"
	"path"
	"strings"
	"unicode/utf8"
)

// MaxFileSize is the largest content file folio parses; a larger one is a
// problem. Callers check it before reading a file's bytes.
const MaxFileSize = 4 << 20

// Relevant tells whether a repository path is a content file that Assemble
// uses (globals, folio.yaml, pages/..., content/<type>/...), so a source can
// skip reading every other blob.
//
// A path with any segment starting with "." or "_" is never relevant: that
// leaves out dotfiles, Hugo's "_index.md" list pages of a type and Jekyll's
// "_drafts"-style folders. The one exception is the _index file of a Hugo
// branch bundle (see branchBundle). Extensions are matched case-insensitively.
// Type folder names are not checked here: Assemble reports a bad one.
func Relevant(p string) bool {
	return relevantPlain(p) || localeRelevant(p) || astroRelevant(p) || permalinksFile(p) || eleventyConfigFile(p) || AstroConfigFile(p)
}

// relevantPlain is Relevant for a site without locales. (It reads the
// segments in place: every file of a site is asked at every load, and a
// slice of them each was garbage among the documents kept.)
func relevantPlain(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") {
		return false
	}
	n := strings.Count(p, "/") + 1
	first, _, _ := strings.Cut(p, "/")
	last := p[strings.LastIndexByte(p, '/')+1:]
	for i, rest := 0, p; ; i++ {
		s, tail, more := strings.Cut(rest, "/")
		if s == "" || s[0] == '.' || (s[0] == '_' && !(i == n-1 && branchBundle(first, last, n))) {
			return false
		}
		if !more {
			break
		}
		rest = tail
	}
	if ModelFile(p) {
		return true
	}
	ext := strings.ToLower(path.Ext(p))
	switch n {
	case 1:
		base := strings.TrimSuffix(strings.ToLower(p), ext)
		return (base == "globals" || base == "folio") && isDataExt(ext)
	}
	switch first {
	case "pages":
		return isDocExt(ext)
	case "content":
		// content/<type>/<file>: a file right inside content/ has no type.
		return n >= 3 && isDocExt(ext)
	}
	return false
}

// branchBundle tells whether a path of n segments, the first first and
// the last last, is the _index file of a
// Hugo branch bundle below a type or pages/ (content/authors/jo/_index.md,
// pages/docs/_index.md): that file is the document of its folder, as x/index.md
// is. A type's or pages/' own _index.md (content/posts/_index.md, Hugo's
// list page of the section) is not.
func branchBundle(first, last string, n int) bool {
	if !strings.HasPrefix(last, "_index.") {
		return false
	}
	switch first {
	case "content":
		return n >= 4
	case "pages":
		return n >= 3
	}
	return false
}

// ModelFile tells whether a repository path may hold a content model that
// folio.yaml does not: a JSON Schema (or YAML) file under schemas/, or a
// Decap/Sveltia CMS config, a file config.yml (or .yaml) in a folder
// admin/ at most two folders deep (admin/, static/admin/, public/admin/).
func ModelFile(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return false
	}
	if !strings.HasPrefix(p, "schemas/") && !strings.Contains(p, "admin/") {
		return false // neither case below, with no allocation (every file of a site is asked)
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		if s == "" || s[0] == '.' || s[0] == '_' {
			return false
		}
	}
	ext := strings.ToLower(path.Ext(p))
	if segs[0] == "schemas" && len(segs) >= 2 {
		return ext == ".json" || ext == ".yaml" || ext == ".yml"
	}
	n := len(segs)
	base := strings.ToLower(segs[n-1])
	return n >= 2 && n <= 4 && segs[n-2] == "admin" && (base == "config.yml" || base == "config.yaml")
}

func isDataExt(ext string) bool {
	switch ext {
	case ".yaml", ".yml", ".json", ".toml":
		return true
	}
	return false
}

func isMarkdownExt(ext string) bool { return ext == ".md" || ext == ".markdown" || ext == ".mdx" }

func isDocExt(ext string) bool { return isDataExt(ext) || isMarkdownExt(ext) || IsHTMLExt(ext) }

// Parse parses one file: front matter (YAML, TOML or JSON) and a Markdown
// body for .md/.markdown files (an HTML body for .html/.htm, Hugo's HTML
// content files), a whole document for .yaml/.yml/.json/.toml.
// The result does not depend on path beyond its extension.
//
// Errors are Problem values carrying path and, when known, the line.
func Parse(p string, data []byte) (*Doc, error) { return parseFile(p, data, true, nil) }

// ParseLazy is Parse for a caller that can read the file again when its
// body is needed: a body (Markdown, MDX or HTML) that is the tail of data
// from offset off is body(off), a lazy body (LazyBodyOf), instead of a
// copy of it held by the Doc. The checks on the body (its nesting) are
// the same.
func ParseLazy(p string, data []byte, body func(off int) Markdown) (*Doc, error) {
	return parseFile(p, data, true, body)
}

// parseFile is Parse; fmFast gives the front matter parser only the part
// of a Markdown file up to the front matter's closing line (see
// parseMarkdown). Tests turn it off to compare with the whole-file parse.
// body: see ParseLazy (nil: the body is a copy).
func parseFile(p string, data []byte, fmFast bool, body func(off int) Markdown) (*Doc, error) {
	if AstroConfigFile(p) && len(data) <= MaxFileSize {
		return parseAstroConfig(string(data)), nil // its glob() collections (astroglob.go)
	}
	doc, err := parse(strings.ToLower(path.Ext(p)), data, fmFast, body)
	if err == nil {
		doc.refHint = refHintOf(doc.Meta())
		doc.packLines()
	}
	if err != nil {
		pr, ok := err.(Problem)
		if !ok {
			pr = Problem{Message: err.Error()}
		}
		pr.Path = p
		return nil, pr
	}
	return doc, nil
}

func parse(ext string, data []byte, fmFast bool, body func(off int) Markdown) (*Doc, error) {
	if len(data) > MaxFileSize {
		return nil, problemAt(0, "file is %d bytes, over the limit of %d", len(data), MaxFileSize)
	}
	if bom := []byte("\uFEFF"); body != nil && bytes.HasPrefix(data, bom) {
		at := body // offsets in the file as given
		body = func(off int) Markdown { return at(off + len(bom)) }
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // editors on Windows add a BOM
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, problemAt(lineAt(data, i), "binary file: contains a NUL byte")
	}
	if !utf8.Valid(data) {
		return nil, problemAt(lineAt(data, invalidUTF8(data)), "not valid UTF-8 text")
	}
	var (
		meta map[string]any
		err  error
	)
	switch {
	case isMarkdownExt(ext), IsHTMLExt(ext):
		return parseMarkdown(data, fmFast, IsHTMLExt(ext), IsMDXExt(ext), body)
	case ext == ".yaml" || ext == ".yml":
		lines := map[string]int{}
		if meta, err = decodeYAML(data, 0, lines, true); err == nil {
			d := NewDoc(meta)
			d.Lines = lines
			return d, nil
		}
	case ext == ".json":
		meta, err = decodeJSON(data, 0)
	case ext == ".toml":
		if meta, err = decodeTOML(data, 0); err == nil {
			d := NewDoc(meta)
			d.Lines = tomlLines(data)
			return d, nil
		}
	default:
		return nil, problemAt(0, "unsupported file type %q", ext)
	}
	if err != nil {
		return nil, err
	}
	return NewDoc(meta), nil
}

func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}
