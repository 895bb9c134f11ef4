package content

import "errors"

// MaxFileSize is the largest content file folio parses; a larger one is a
// problem. Callers check it before reading a file's bytes.
const MaxFileSize = 4 << 20

// Relevant tells whether a repository path is a content file that Assemble
// uses (globals, folio.yaml, pages/..., content/<type>/...), so a source can
// skip reading every other blob.
func Relevant(path string) bool {
	return false // TODO(content): implemented by the content package owner
}

// Parse parses one file: front matter (YAML, TOML or JSON) and a Markdown
// body for .md/.markdown files, a whole document for .yaml/.yml/.json/.toml.
// The result does not depend on path beyond its extension.
func Parse(path string, data []byte) (*Doc, error) {
	return nil, errors.New("not implemented")
}

// Assemble builds a Site from parsed files and reports a problem for each
// file left out.
func Assemble(files []File) (*Site, []Problem) {
	return &Site{Items: map[string][]*Item{}}, nil
}
