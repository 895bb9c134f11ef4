package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/folio-cms/folio/content"
)

// readDecap reads the collections of a Decap CMS / Sveltia CMS config.yml
// into models (see docs/content-model.md for what maps to what):
//
//   - a folder collection whose folder is content/<type> models <type>
//     (any other folder: the collection's name); folder pages models the
//     pages;
//   - a file collection's file that is the globals file (globals.yaml,
//     .yml, .json or .toml) models the globals; its other files are not
//     modelled (folio has one model for all pages);
//   - Decap fields are required unless they say required: false.
func readDecap(doc *content.Doc, path string) ([]*Type, error) {
	r := &decapReader{doc: doc, path: path}
	cols, ok := doc.Get("collections").([]any)
	if !ok {
		return nil, declErrorf(doc.LineOf("collections"), "not a Decap/Sveltia CMS config: want a list of collections")
	}
	var out []*Type
	seen := map[string]int{}
	for i, cv := range cols {
		at := []string{"collections", strconv.Itoa(i)}
		c, ok := cv.(map[string]any)
		if !ok {
			return nil, declErrorf(doc.LineOf(at...), "collections[%d]: want a map with name and fields", i)
		}
		name, _ := c["name"].(string)
		if name == "" {
			return nil, declErrorf(doc.LineOf(at...), "collections[%d]: a collection needs a name", i)
		}
		add := func(t *Type, line int) error {
			key := t.Kind + "\x00" + t.Name
			if first, dup := seen[key]; dup {
				return declErrorf(line, "collection %q models %s %s, which collection %d does already", name, t.Kind, t.Name, first)
			}
			seen[key] = i
			out = append(out, t)
			return nil
		}
		if folder, ok := c["folder"].(string); ok {
			t := &Type{Name: name, Kind: KindItems, Source: path, AdditionalFields: "allow", OnInvalid: "serve"}
			folder = content.SiteFolder(strings.Trim(folder, "/"))
			if typ, ok := strings.CutPrefix(folder, "content/"); ok && content.ValidType(typ) {
				t.Name = typ
			} else if folder == "pages" {
				t.Name, t.Kind = KindPages, KindPages
			} else if !content.ValidType(name) {
				return nil, declErrorf(doc.LineOf(append(at, "name")...), "collection %q: not a valid content type name", name)
			}
			fields, err := r.fields(c["fields"], append(at, "fields"), 0)
			if err != nil {
				return nil, err
			}
			t.Fields = fields
			if err := add(t, doc.LineOf(at...)); err != nil {
				return nil, err
			}
			continue
		}
		files, ok := c["files"].([]any)
		if !ok {
			return nil, declErrorf(doc.LineOf(at...), "collection %q: want folder or files", name)
		}
		for j, fv := range files {
			fat := append(slices.Clone(at), "files", strconv.Itoa(j))
			f, ok := fv.(map[string]any)
			if !ok {
				return nil, declErrorf(doc.LineOf(fat...), "collection %q: files[%d]: want a map with file and fields", name, j)
			}
			file, _ := f["file"].(string)
			base := strings.ToLower(strings.Trim(file, "/"))
			switch base {
			case "globals.yaml", "globals.yml", "globals.json", "globals.toml":
			default:
				continue // not modelled: see the doc comment
			}
			fields, err := r.fields(f["fields"], append(fat, "fields"), 0)
			if err != nil {
				return nil, err
			}
			t := &Type{Name: KindGlobals, Kind: KindGlobals, Source: path, Fields: fields, AdditionalFields: "allow", OnInvalid: "serve"}
			if err := add(t, doc.LineOf(fat...)); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

type decapReader struct {
	doc  *content.Doc
	path string
}

func (r *decapReader) fields(v any, at []string, depth int) ([]*Field, error) {
	if depth > maxFieldDepth {
		return nil, declErrorf(r.doc.LineOf(at...), "fields nest more than %d levels deep", maxFieldDepth)
	}
	if v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, declErrorf(r.doc.LineOf(at...), "fields: want a list of fields")
	}
	var out []*Field
	names := map[string]bool{}
	for i, fv := range l {
		fat := append(slices.Clone(at), strconv.Itoa(i))
		f, err := r.field(fv, fat, depth)
		if err != nil {
			return nil, err
		}
		if f == nil {
			continue
		}
		if names[f.Name] {
			return nil, declErrorf(f.Line, "field %q appears twice", f.Name)
		}
		names[f.Name] = true
		out = append(out, f)
	}
	return out, nil
}

// field maps one Decap field to a folio field; nil for a widget that
// stores nothing folio checks (unknown widgets are not checked).
func (r *decapReader) field(v any, at []string, depth int) (*Field, error) {
	line := r.doc.LineOf(at...)
	m, ok := v.(map[string]any)
	if !ok {
		return nil, declErrorf(line, "a field must be a map with name and widget")
	}
	name, _ := m["name"].(string)
	if !validFieldName(name) {
		return nil, declErrorf(line, "field name %v: want letters, digits, '_' and '-'", m["name"])
	}
	widget, _ := m["widget"].(string)
	if widget == "" {
		widget = "string"
	}
	f := &Field{Name: name, Line: line, Required: true, Default: m["default"]}
	if b, ok := m["required"].(bool); ok {
		f.Required = b
	}
	if h, ok := m["hint"].(string); ok {
		f.Description = h
	}
	if p, ok := m["pattern"].([]any); ok && len(p) > 0 {
		if s, ok := p[0].(string); ok {
			if _, err := regexp.Compile(s); err != nil {
				return nil, declErrorf(r.doc.LineOf(append(at, "pattern")...), "field %q: pattern does not compile: %v", name, err)
			}
			f.Pattern = s
		}
	}
	minMax := func() {
		if n, ok := number(m["min"]); ok {
			f.Min = &n
		}
		if n, ok := number(m["max"]); ok {
			f.Max = &n
		}
	}
	multiple, _ := m["multiple"].(bool)
	switch widget {
	case "string", "color", "map", "uuid", "compute":
		f.Kind = "string"
	case "text":
		f.Kind = "text"
	case "markdown", "richtext":
		f.Kind = "markdown"
	case "number":
		f.Kind = "number"
		switch m["value_type"] {
		case "int":
			f.Kind = "integer"
		case "float":
		default:
			f.OrString = true
		}
		minMax()
	case "boolean":
		f.Kind = "boolean"
	case "datetime", "date":
		f.Kind = "datetime"
		if widget == "date" || m["time_format"] == false || m["type"] == "date" {
			f.Kind = "date"
		}
	case "select":
		f.Kind = "enum"
		opts, _ := m["options"].([]any)
		if len(opts) == 0 {
			return nil, declErrorf(line, "field %q: a select needs options", name)
		}
		for _, o := range opts {
			if om, ok := o.(map[string]any); ok {
				o = om["value"]
			}
			f.Values = append(f.Values, o)
		}
	case "relation":
		f.Kind = "reference"
		col, _ := m["collection"].(string)
		if col == "" {
			return nil, declErrorf(line, "field %q: a relation needs a collection", name)
		}
		f.To = []string{col}
	case "image", "file":
		f.Kind = "media"
		if widget == "image" {
			f.Accept = []string{"image"}
		}
	case "object":
		f.Kind = "object"
		fields, err := r.fields(m["fields"], append(slices.Clone(at), "fields"), depth+1)
		if err != nil {
			return nil, err
		}
		f.Fields = fields
	case "list":
		f.Kind = "list"
		minMax()
		switch {
		case m["types"] != nil:
			types, ok := m["types"].([]any)
			if !ok {
				return nil, declErrorf(line, "field %q: types: want a list of object fields", name)
			}
			f.TypeKey = "type"
			if k, ok := m["typeKey"].(string); ok && k != "" {
				f.TypeKey = k
			}
			f.Variants = map[string][]*Field{}
			for i, tv := range types {
				tat := append(slices.Clone(at), "types", strconv.Itoa(i))
				tm, ok := tv.(map[string]any)
				tn, _ := tm["name"].(string)
				if !ok || tn == "" {
					return nil, declErrorf(r.doc.LineOf(tat...), "field %q: types[%d]: want an object field with a name", name, i)
				}
				fields, err := r.fields(tm["fields"], append(tat, "fields"), depth+1)
				if err != nil {
					return nil, err
				}
				f.Variants[tn] = fields
			}
		case m["fields"] != nil:
			fields, err := r.fields(m["fields"], append(slices.Clone(at), "fields"), depth+1)
			if err != nil {
				return nil, err
			}
			f.Of = &Field{Kind: "object", Fields: fields}
		case m["field"] != nil:
			of, err := r.field(m["field"], append(slices.Clone(at), "field"), depth+1)
			if err != nil {
				return nil, err
			}
			if of != nil {
				of.Name, of.Required, of.Default = "", false, nil
			}
			f.Of = of
		default:
			// a list of text entries, or text of comma-separated values
			f.Kind = "any"
		}
	case "hidden", "code", "keyvalue":
		// stored as given (hidden), as text or an object (code): not checked
		f.Kind = "any"
	default:
		return nil, nil // a custom widget: not checked
	}
	if multiple && (f.Kind == "enum" || f.Kind == "reference" || f.Kind == "media") {
		// multiple: a list of such values, or a single one
		one := *f
		one.Name, one.Required, one.Default, one.Line = "", false, nil, 0
		f = &Field{Name: name, Kind: "any", Line: line, Required: f.Required, Default: f.Default, Description: f.Description,
			Of: &one}
		f.Kind = "oneOrList"
	}
	return f, nil
}

// String is for problems: a field and where it is declared.
func (f *Field) String() string { return fmt.Sprintf("%s (%s)", f.Name, f.Kind) }
