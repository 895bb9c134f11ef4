// Package schema is folio's content model: the fields a content type, the
// pages or the globals file declare (in folio.yaml, in a JSON Schema file
// or in a Decap/Sveltia CMS config), compiled to JSON Schema 2020-12 and
// checked with a JSON Schema validator. See docs/content-model.md.
package schema

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/folio-cms/folio/content"
)

// Kinds are the kinds of field folio.yaml declares.
var Kinds = []string{"string", "text", "markdown", "number", "integer", "boolean", "date", "datetime",
	"enum", "list", "object", "reference", "media", "url", "email", "slug", "any"}

// Field is one declared field.
type Field struct {
	Name        string
	Kind        string // one of Kinds
	Required    bool
	Default     any // nil: none
	Min, Max    *float64
	MinLength   *int
	MaxLength   *int
	Pattern     string
	Unique      bool
	Description string
	Values      []any    // enum: the values allowed
	Of          *Field   // list: the kind of its entries (nil: any)
	Fields      []*Field // object: its fields, by name
	// Variants, for a list of objects told apart by TypeKey (a Decap
	// list with types), are the fields of each variant by its name.
	Variants map[string][]*Field
	TypeKey  string
	To       []string // reference: the types it may name ("pages" for pages)
	Accept   []string // media: the kinds of file accepted ("image", "video/mp4"...)
	// OrString: a number may also be written as text of digits (a Decap
	// number widget without value_type saves text).
	OrString bool
	// Additional: an object's keys beyond Fields are allowed (true unless
	// the type rejects additional fields).
	Line int // where it is declared; 0 when not known
}

// maxFieldDepth bounds how deeply objects and lists nest in a model.
const maxFieldDepth = 16

// declError is a problem with a model declaration, at a line of path.
type declError struct {
	line int
	msg  string
}

func (e *declError) Error() string { return e.msg }

func declErrorf(line int, format string, args ...any) error {
	return &declError{line: line, msg: fmt.Sprintf(format, args...)}
}

// fieldReader reads a folio.yaml fields: block; doc is folio.yaml, for lines.
type fieldReader struct {
	doc *content.Doc
}

// fields reads the map of field names to kinds or options at path.
func (r *fieldReader) fields(v any, path []string, depth int) ([]*Field, error) {
	if depth > maxFieldDepth {
		return nil, declErrorf(r.doc.LineOf(path...), "fields nest more than %d levels deep", maxFieldDepth)
	}
	m, ok := v.(map[string]any)
	if v == nil {
		return nil, nil
	}
	if !ok {
		return nil, declErrorf(r.doc.LineOf(path...), "%s: want a map of field names to kinds or options", dotted(path))
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]*Field, 0, len(m))
	for _, name := range names {
		if !validFieldName(name) {
			return nil, declErrorf(r.doc.LineOf(append(path, name)...), "%q is not a field name (letters, digits, '_' and '-', at most 64)", name)
		}
		f, err := r.field(name, m[name], append(slices.Clone(path), name), depth)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func validFieldName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// fieldKeys are the options a field takes.
var fieldKeys = []string{"kind", "required", "default", "min", "max", "minLength", "maxLength", "pattern",
	"unique", "description", "values", "of", "fields", "to", "accept"}

// field reads one field: a kind ("string") or a map of options.
func (r *fieldReader) field(name string, v any, path []string, depth int) (*Field, error) {
	line := r.doc.LineOf(path...)
	f := &Field{Name: name, Line: line}
	if s, ok := v.(string); ok {
		v = map[string]any{"kind": s}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, declErrorf(line, "%s: want a kind (%s) or a map of options", dotted(path), strings.Join(Kinds, ", "))
	}
	at := func(k string) int {
		if l := r.doc.LineOf(append(path, k)...); l > 0 {
			return l
		}
		return line
	}
	bad := func(k, format string, args ...any) error {
		return declErrorf(at(k), "%s.%s: %s", dotted(path), k, fmt.Sprintf(format, args...))
	}
	kind, _ := m["kind"].(string)
	if !slices.Contains(Kinds, kind) {
		return nil, bad("kind", "unknown kind %v (known: %s)", m["kind"], strings.Join(Kinds, ", "))
	}
	f.Kind = kind
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		var err error
		switch k {
		case "kind":
		case "required", "unique":
			b, ok := v.(bool)
			if !ok {
				return nil, bad(k, "want true or false")
			}
			if k == "required" {
				f.Required = b
			} else {
				f.Unique = b
			}
		case "default":
			f.Default = v
		case "min", "max":
			n, ok := number(v)
			if !ok {
				return nil, bad(k, "want a number")
			}
			if k == "min" {
				f.Min = &n
			} else {
				f.Max = &n
			}
		case "minLength", "maxLength":
			n, ok := number(v)
			if !ok || n < 0 || n != math.Trunc(n) || n > math.MaxInt32 {
				return nil, bad(k, "want a whole number, 0 or more")
			}
			i := int(n)
			if k == "minLength" {
				f.MinLength = &i
			} else {
				f.MaxLength = &i
			}
		case "pattern":
			s, ok := v.(string)
			if !ok {
				return nil, bad(k, "want a regular expression")
			}
			if _, err := regexp.Compile(s); err != nil {
				return nil, bad(k, "does not compile: %v", err)
			}
			f.Pattern = s
		case "description":
			s, ok := v.(string)
			if !ok {
				return nil, bad(k, "want text")
			}
			f.Description = s
		case "values":
			l, ok := v.([]any)
			if !ok || len(l) == 0 {
				return nil, bad(k, "want a list of the values allowed")
			}
			f.Values = l
		case "of":
			if f.Of, err = r.field("", v, append(path, k), depth+1); err != nil {
				return nil, err
			}
		case "fields":
			if f.Fields, err = r.fields(v, append(path, k), depth+1); err != nil {
				return nil, err
			}
		case "to", "accept":
			l, err := stringList(v)
			if err != nil || len(l) == 0 {
				return nil, bad(k, "want a name or a list of names")
			}
			if k == "to" {
				f.To = l
			} else {
				f.Accept = l
			}
		default:
			return nil, bad(k, "unknown option (known: %s)", strings.Join(fieldKeys, ", "))
		}
	}
	switch {
	case f.Kind == "enum" && len(f.Values) == 0:
		return nil, declErrorf(line, "%s: an enum needs values: [...]", dotted(path))
	case f.Kind == "reference" && len(f.To) == 0:
		return nil, declErrorf(line, "%s: a reference needs to: <type> (or a list of types, or pages)", dotted(path))
	case f.Kind != "enum" && f.Values != nil:
		return nil, bad("values", "only an enum takes values")
	case f.Kind != "list" && f.Of != nil:
		return nil, bad("of", "only a list takes of")
	case f.Kind != "object" && f.Fields != nil:
		return nil, bad("fields", "only an object takes fields")
	case f.Kind != "reference" && f.To != nil:
		return nil, bad("to", "only a reference takes to")
	case f.Kind != "media" && f.Accept != nil:
		return nil, bad("accept", "only a media field takes accept")
	}
	return f, nil
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

func stringList(v any) ([]string, error) {
	if s, ok := v.(string); ok {
		return []string{s}, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("not a list")
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok || s == "" {
			return nil, fmt.Errorf("not a name")
		}
		out = append(out, s)
	}
	return out, nil
}

// dotted writes a declaration path for a message: the path below the
// type, "fields.address.fields.city".
func dotted(path []string) string {
	if len(path) > 2 && path[0] == "types" {
		path = path[2:]
	} else if len(path) > 1 && (path[0] == "pages" || path[0] == "globals") {
		path = path[1:]
	}
	var b strings.Builder
	for i, p := range path {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}
