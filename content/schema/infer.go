package schema

import (
	"bytes"
	"fmt"
	"net/mail"
	"net/url"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/content"
)

// Inference bounds: a field is an enum when its values are strings of at
// most enumLabelLen bytes, at most enumMax of them distinct, each seen on
// average at least twice, in at least enumMinDocs documents that fill it in,
// at least two distinct; text when a value has a line break or is longer
// than textLen.
const (
	enumMax      = 12
	enumMinDocs  = 4
	enumLabelLen = 40
	textLen      = 200
)

// Infer proposes a content model for the site: a fields: block per content
// type, for pages and for globals, from the documents of files (the files
// the site was assembled from). A field's kind is what every value has
// (any when they disagree); it is required when every document has it; an
// enum when a few string values repeat; a reference when every value names
// an item ("<type>/<slug>", or the slug of an item of one type); media,
// url, email, date or datetime when every value is one. A key without a
// value counts as absent. The model validates every document it was
// inferred from. The result is YAML for folio.yaml.
func Infer(site *content.Site, files []content.File) ([]byte, error) {
	slugs := map[string]map[string]bool{} // type -> slugs
	for typ, items := range site.Items {
		m := make(map[string]bool, len(items))
		for _, it := range items {
			m[it.Slug] = true
		}
		slugs[typ] = m
	}
	inf := &inferrer{slugs: slugs}
	// The documents are found by the files the site was assembled from
	// (Meta.Path), so that a site with locales (content/en/docs/a.md is
	// a docs item) is read as it is served: its default locale's.
	docOf := make(map[string]*content.Doc, len(files))
	for _, f := range files {
		if f.Doc != nil && f.Err == nil {
			docOf[f.Path] = f.Doc
		}
	}
	byType := map[string][]*content.Doc{}
	for typ, items := range site.Items {
		for _, it := range items {
			if d := docOf[it.Meta.Path]; d != nil {
				byType[typ] = append(byType[typ], d)
			}
		}
	}
	var pages []*content.Doc
	for _, pg := range site.Pages {
		if d := docOf[pg.Meta.Path]; d != nil {
			pages = append(pages, d)
		}
	}
	globals := docOf[site.GlobalsPath]
	root := &yaml.Node{Kind: yaml.MappingNode}
	if len(byType) > 0 {
		types := &yaml.Node{Kind: yaml.MappingNode}
		for _, typ := range sortedKeys(byType) {
			types.Content = append(types.Content, scalar(typ), inf.typeNode(byType[typ], false))
		}
		root.Content = append(root.Content, scalar("types"), types)
	}
	if len(pages) > 0 {
		root.Content = append(root.Content, scalar("pages"), inf.typeNode(pages, true))
	}
	if globals != nil {
		root.Content = append(root.Content, scalar("globals"), inf.typeNode([]*content.Doc{globals}, false))
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("infer: %w", err)
	}
	enc.Close()
	return buf.Bytes(), nil
}

type inferrer struct {
	slugs map[string]map[string]bool
}

// typeNode is {fields: {...}} for the documents of one type.
func (inf *inferrer) typeNode(docs []*content.Doc, pages bool) *yaml.Node {
	objs := make([]map[string]any, 0, len(docs))
	bodies := 0
	for _, d := range docs {
		objs = append(objs, d.Meta())
		if d.HasBody {
			bodies++
		}
	}
	fields := inf.object(objs, 0)
	for _, f := range fields {
		if lk := strings.ToLower(f.Name); lk == "id" || lk == "slug" {
			f.Kind, f.To, f.Values = "string", nil, nil
		}
	}
	if bodies > 0 {
		if _, declared := findField(fields, "body"); !declared {
			fields = append(fields, &Field{Name: "body", Kind: "markdown", Required: bodies == len(docs)})
		}
	}
	if pages {
		// A page's sections and seo are folio's own structures.
		var kept []*Field
		for _, f := range fields {
			if lk := strings.ToLower(f.Name); lk != "sections" && lk != "seo" {
				kept = append(kept, f)
			}
		}
		fields = kept
	}
	sort.Slice(fields, func(i, j int) bool { return fields[i].Name < fields[j].Name })
	kind := KindItems
	if pages {
		kind = KindPages
	}
	fields = verify(fields, docs, kind)
	fm := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range fields {
		fm.Content = append(fm.Content, scalar(f.Name), fieldNode(f))
	}
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("fields"), fm}}
}

func findField(fs []*Field, name string) (*Field, bool) {
	for _, f := range fs {
		if f.Name == name {
			return f, true
		}
	}
	return nil, false
}

// object infers the fields of a set of maps.
func (inf *inferrer) object(objs []map[string]any, depth int) []*Field {
	values := map[string][]any{}
	for _, o := range objs {
		for k, v := range o {
			if v != nil {
				values[k] = append(values[k], v)
			}
		}
	}
	var out []*Field
	for _, k := range sortedKeys(values) {
		if !validFieldName(k) {
			continue // not declarable: left to additionalFields: allow
		}
		f := inf.field(values[k], len(objs), depth)
		f.Name = k
		f.Required = len(values[k]) == len(objs)
		out = append(out, f)
	}
	return out
}

// field infers the kind of a set of values (no nil among them); docs is
// the number of documents (or objects) they come from.
func (inf *inferrer) field(vs []any, docs, depth int) *Field {
	if depth >= maxFieldDepth-1 {
		return &Field{Kind: "any"}
	}
	kinds := map[string]int{}
	for _, v := range vs {
		switch v.(type) {
		case bool:
			kinds["boolean"]++
		case int64:
			kinds["integer"]++
		case float64:
			kinds["number"]++
		case string:
			kinds["string"]++
		case []any:
			kinds["list"]++
		case map[string]any:
			kinds["object"]++
		default:
			kinds["any"]++
		}
	}
	if kinds["integer"] > 0 && kinds["number"] > 0 && len(kinds) == 2 {
		return &Field{Kind: "number"}
	}
	if len(kinds) != 1 {
		return &Field{Kind: "any"}
	}
	switch {
	case kinds["boolean"] > 0:
		return &Field{Kind: "boolean"}
	case kinds["integer"] > 0:
		return &Field{Kind: "integer"}
	case kinds["number"] > 0:
		return &Field{Kind: "number"}
	case kinds["list"] > 0:
		var elems []any
		nulls := false
		for _, v := range vs {
			for _, e := range v.([]any) {
				if e == nil {
					nulls = true
					continue
				}
				elems = append(elems, e)
			}
		}
		if nulls || len(elems) == 0 {
			return &Field{Kind: "list"}
		}
		of := inf.field(elems, len(vs), depth+1)
		of.Required = false
		return &Field{Kind: "list", Of: of}
	case kinds["object"] > 0:
		objs := make([]map[string]any, len(vs))
		for i, v := range vs {
			objs[i] = v.(map[string]any)
		}
		return &Field{Kind: "object", Fields: inf.object(objs, depth+1)}
	case kinds["string"] > 0:
		ss := make([]string, len(vs))
		for i, v := range vs {
			ss[i] = v.(string)
		}
		return inf.strings(ss, docs)
	}
	return &Field{Kind: "any"}
}

// strings infers the kind of string values.
func (inf *inferrer) strings(ss []string, docs int) *Field {
	all := func(ok func(string) bool) bool {
		for _, s := range ss {
			if !ok(s) {
				return false
			}
		}
		return true
	}
	switch {
	case all(libraryMedia):
		return &Field{Kind: "media"}
	case all(func(s string) bool { _, err := content.ParseDate(s); return err == nil && len(s) == 10 }):
		return &Field{Kind: "date"}
	case all(func(s string) bool { _, err := content.ParseDate(s); return err == nil }):
		return &Field{Kind: "datetime"}
	case all(isHTTP):
		return &Field{Kind: "url"}
	case all(func(s string) bool { a, err := mail.ParseAddress(s); return err == nil && a.Address == s }):
		return &Field{Kind: "email"}
	}
	if to := inf.references(ss); to != nil {
		return &Field{Kind: "reference", To: to}
	}
	long := false
	for _, s := range ss {
		long = long || len(s) > textLen || strings.ContainsAny(s, "\n\r")
	}
	if long {
		return &Field{Kind: "text"}
	}
	if vals := enumOf(ss); vals != nil {
		return &Field{Kind: "enum", Values: vals}
	}
	return &Field{Kind: "string"}
}

// enumOf returns the values of an enum when ss look like one, else nil:
// labels (no value longer than enumLabelLen) of which a few repeat, counted
// without the empty string, which a team leaves in a field it has not
// filled in (a list of summaries that are mostly "" is not an enum). An
// empty string seen is kept among the values, so that the model still
// validates the document that has it.
func enumOf(ss []string) []any {
	distinct := map[string]bool{}
	filled, empty := 0, false
	for _, s := range ss {
		if s == "" {
			empty = true
			continue
		}
		if len(s) > enumLabelLen {
			return nil
		}
		distinct[s] = true
		filled++
	}
	if filled < enumMinDocs || len(distinct) < 2 || len(distinct) > enumMax || 2*len(distinct) > filled {
		return nil
	}
	var vals []any
	if empty {
		vals = append(vals, "")
	}
	for _, v := range sortedKeys(distinct) {
		vals = append(vals, v)
	}
	return vals
}

// references returns the types that every value names an item of
// ("<type>/<slug>", or the bare slug of an item of one type); nil when
// some value names none.
func (inf *inferrer) references(ss []string) []string {
	to := map[string]bool{}
	var bare []string
	for _, s := range ss {
		if typ, slug, ok := strings.Cut(s, "/"); ok && inf.slugs[typ][slug] {
			to[typ] = true
			continue
		}
		bare = append(bare, s)
	}
	if len(bare) > 0 {
		// bare slugs: all of them items of one and the same type
		var found string
		for _, typ := range sortedKeys(inf.slugs) {
			ok := true
			for _, s := range bare {
				if !inf.slugs[typ][s] {
					ok = false
					break
				}
			}
			if ok {
				found = typ
				break
			}
		}
		if found == "" {
			return nil
		}
		to[found] = true
	}
	if len(to) == 0 {
		return nil
	}
	return sortedKeys(to)
}

func isHTTP(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

// fieldNode writes a field as folio.yaml declares it: its kind alone, or a
// flow map of its options, or a block map when it has fields.
func fieldNode(f *Field) *yaml.Node {
	opts := []*yaml.Node{scalar("kind"), scalar(f.Kind)}
	if f.Required {
		opts = append(opts, scalar("required"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	}
	if len(f.Values) > 0 {
		l := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, v := range f.Values {
			n := &yaml.Node{}
			n.Encode(v)
			l.Content = append(l.Content, n)
		}
		opts = append(opts, scalar("values"), l)
	}
	if len(f.To) > 0 {
		l := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, t := range f.To {
			l.Content = append(l.Content, scalar(t))
		}
		opts = append(opts, scalar("to"), l)
	}
	if f.Of != nil {
		opts = append(opts, scalar("of"), fieldNode(f.Of))
	}
	if f.Kind == "object" {
		fm := &yaml.Node{Kind: yaml.MappingNode}
		for _, sub := range f.Fields {
			fm.Content = append(fm.Content, scalar(sub.Name), fieldNode(sub))
		}
		opts = append(opts, scalar("fields"), fm)
		return &yaml.Node{Kind: yaml.MappingNode, Content: opts}
	}
	if len(opts) == 2 {
		return scalar(f.Kind)
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: opts}
	if f.Of != nil && f.Of.Kind == "object" {
		n.Style = 0
	}
	return n
}

// verify validates docs against the inferred fields and makes every field
// that some document breaks (a format the validator reads more strictly,
// a nested required key) an any, until all of them validate.
func verify(fields []*Field, docs []*content.Doc, kind string) []*Field {
	for pass := 0; pass < 4; pass++ {
		t := &Type{Name: "inferred", Kind: kind, Fields: fields, AdditionalFields: "allow"}
		jc := newJSONCompiler()
		const url = "file:///folio/inferred.json"
		v, err := jsonValue(sourceSchema(t))
		if err == nil {
			err = jc.AddResource(url, v)
		}
		if err == nil {
			t.sch, err = jc.Compile(url)
		}
		if err != nil {
			return relaxAll(fields)
		}
		t.declared = map[string]bool{}
		for _, f := range fields {
			t.declared[f.Name] = true
		}
		bad := map[string]bool{}
		for _, d := range docs {
			for _, v := range t.Validate(d) {
				if v.Field == "" {
					return relaxAll(fields)
				}
				top, _, _ := strings.Cut(v.Field, ".")
				bad[top] = true
			}
		}
		if len(bad) == 0 {
			return fields
		}
		for i, f := range fields {
			if bad[f.Name] {
				fields[i] = &Field{Name: f.Name, Kind: "any", Required: f.Required}
			}
		}
	}
	return relaxAll(fields)
}

func relaxAll(fields []*Field) []*Field {
	out := make([]*Field, len(fields))
	for i, f := range fields {
		out[i] = &Field{Name: f.Name, Kind: "any", Required: f.Required}
	}
	return out
}
