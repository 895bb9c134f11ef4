package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestDocsListEveryErrorCode fails when an error code of errors.go (a
// Code… constant) has no row in the error table of docs/api.md, the
// contract users read.
func TestDocsListEveryErrorCode(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	begin := strings.Index(text, "\n## Errors\n")
	if begin < 0 {
		t.Fatal("docs/api.md: no ## Errors section")
	}
	section := text[begin+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := 0
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Code") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				code, _ := strconv.Unquote(lit.Value)
				codes++
				if !strings.Contains(section, "| `"+code+"` |") {
					t.Errorf("docs/api.md's error table has no row for %s (%s in errors.go)", code, name.Name)
				}
			}
		}
	}
	if codes < 10 {
		t.Fatalf("found %d Code constants in errors.go: the test no longer reads them", codes)
	}
}
