package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/folio-cms/folio/content"
)

// What a Type models.
const (
	KindItems   = "items"   // the items of a content type
	KindPages   = "pages"   // the pages
	KindGlobals = "globals" // the globals file
)

// Type is the compiled model of one content type, of the pages or of the
// globals file.
type Type struct {
	Name   string // the content type; "pages" or "globals" for those
	Kind   string // KindItems, KindPages or KindGlobals
	Source string // the file that declares it
	// Fields are the declared fields; nil when the model is a JSON Schema
	// file.
	Fields           []*Field
	AdditionalFields string // "allow", "warn" or "reject"
	OnInvalid        string // "serve" or "reject"
	// Schema is the JSON Schema (2020-12) of a document's front matter,
	// what documents are validated against; Data that of the API's data
	// of a document (the declared fields but folio's own keys, defaults
	// filled in). Both are the file itself for a JSON Schema file.
	Schema, Data map[string]any

	sch      *jsonschema.Schema
	declared map[string]bool     // top-level field names
	defaults []*Field            // top-level fields with a default
	dates    []*Field            // top-level date and datetime fields
	unique   []string            // top-level unique fields
	refs     map[string][]string // top-level reference fields -> types
}

// Model is a site's content model: the compiled Type of every content type
// that declares one, of pages and of globals.
type Model struct {
	Types   map[string]*Type
	Pages   *Type // nil: pages declare no fields
	Globals *Type // nil: globals declare no fields
}

// Empty tells whether the model declares nothing.
func (m *Model) Empty() bool {
	return m == nil || (len(m.Types) == 0 && m.Pages == nil && m.Globals == nil)
}

// Of returns the model of the type of an item; nil when it has none.
func (m *Model) Of(typ string) *Type {
	if m == nil {
		return nil
	}
	return m.Types[typ]
}

// All lists the models in a stable order: the types by name, then pages
// and globals.
func (m *Model) All() []*Type {
	if m == nil {
		return nil
	}
	out := make([]*Type, 0, len(m.Types)+2)
	for _, n := range sortedKeys(m.Types) {
		out = append(out, m.Types[n])
	}
	if m.Pages != nil {
		out = append(out, m.Pages)
	}
	if m.Globals != nil {
		out = append(out, m.Globals)
	}
	return out
}

// decapPlaces are where a Decap/Sveltia CMS config is looked for when
// folio.yaml names none (schemaFrom).
var decapPlaces = []string{"static/admin/config.yml", "public/admin/config.yml", "admin/config.yml"}

// Compile builds the content model of a site: every type's fields in
// folio.yaml, JSON Schema files named there, and the Decap/Sveltia config
// for the types folio.yaml declares nothing for. A model that is wrong is
// reported as problems and ok is false: the caller then keeps the model
// it had. A site that declares nothing has an empty model.
func Compile(site *content.Site) (m *Model, problems []content.Problem, ok bool) {
	c := &compiler{site: site, m: &Model{Types: map[string]*Type{}}}
	c.build()
	if len(c.problems) > 0 {
		return nil, c.problems, false
	}
	c.compileAll()
	if len(c.problems) > 0 {
		return nil, c.problems, false
	}
	return c.m, nil, true
}

type compiler struct {
	site     *content.Site
	m        *Model
	problems []content.Problem
}

func (c *compiler) problem(path string, err error) {
	var de *declError
	line := 0
	if errors.As(err, &de) {
		line = de.line
	}
	c.problems = append(c.problems, content.Problem{Path: path, Line: line, Message: "content model: " + err.Error()})
}

func (c *compiler) build() {
	cfg := c.site.Config
	cfgPath := c.site.ConfigPath
	cfgDoc := c.site.ModelFiles[cfgPath]
	fr := &fieldReader{doc: cfgDoc}
	decl := func(name, kind string, d *content.ModelDecl) {
		t := &Type{Name: name, Kind: kind, Source: cfgPath, AdditionalFields: or(d.AdditionalFields, "allow"), OnInvalid: or(d.OnInvalid, "serve")}
		if d.Schema != "" {
			doc, ok := c.site.ModelFiles[d.Schema]
			if !ok {
				c.problem(cfgPath, declErrorf(cfgDoc.LineOf(append(slices.Clone(d.At), "schema")...), "%s: schema file %s is not in the repository", strings.Join(d.At, "."), d.Schema))
				return
			}
			t.Source = d.Schema
			t.Schema, t.Data = doc.Meta(), doc.Meta()
			c.add(t)
			return
		}
		fields, err := fr.fields(d.Fields, append(slices.Clone(d.At), "fields"), 0)
		if err != nil {
			c.problem(cfgPath, err)
			return
		}
		t.Fields = fields
		c.add(t)
	}
	for _, name := range sortedKeys(cfg.Types) {
		if d := cfg.Types[name].Model; d != nil {
			decl(name, KindItems, d)
		}
	}
	if cfg.Pages != nil {
		decl(KindPages, KindPages, cfg.Pages)
	}
	if cfg.Globals != nil {
		decl(KindGlobals, KindGlobals, cfg.Globals)
	}
	// The Decap/Sveltia config: the one named, else the first found.
	from := cfg.SchemaFrom
	if from == "" {
		for _, p := range decapPlaces {
			if _, ok := c.site.ModelFiles[p]; ok {
				from = p
				break
			}
		}
	} else if _, ok := c.site.ModelFiles[from]; !ok {
		c.problem(cfgPath, declErrorf(cfgDoc.LineOf("schemaFrom"), "schemaFrom: %s is not in the repository (or could not be read)", from))
		return
	}
	if from != "" {
		types, err := readDecap(c.site.ModelFiles[from], from)
		if err != nil {
			c.problem(from, err)
			return
		}
		for _, t := range types {
			switch {
			case t.Kind == KindPages && c.m.Pages == nil, t.Kind == KindGlobals && c.m.Globals == nil,
				t.Kind == KindItems && c.m.Types[t.Name] == nil:
				c.add(t)
			}
		}
	}
	c.checkReferences()
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (c *compiler) add(t *Type) {
	switch t.Kind {
	case KindPages:
		c.m.Pages = t
	case KindGlobals:
		c.m.Globals = t
	default:
		c.m.Types[t.Name] = t
	}
}

// checkReferences reports a reference to a type the site does not have.
func (c *compiler) checkReferences() {
	known := func(typ string) bool {
		if typ == "pages" || c.m.Types[typ] != nil {
			return true
		}
		if _, ok := c.site.Config.Types[typ]; ok {
			return true
		}
		_, ok := c.site.Items[typ]
		return ok
	}
	for _, t := range c.m.All() {
		walkFields(t.Fields, func(f *Field) {
			for _, to := range f.To {
				if !known(to) {
					c.problem(t.Source, declErrorf(f.Line, "%s: reference to %q, which is not a content type of the site (nor pages)", f.Name, to))
				}
			}
		})
	}
}

func walkFields(fields []*Field, fn func(*Field)) {
	for _, f := range fields {
		fn(f)
		walkFields(f.Fields, fn)
		if f.Of != nil {
			walkFields([]*Field{f.Of}, fn)
		}
		for _, n := range sortedKeys(f.Variants) {
			walkFields(f.Variants[n], fn)
		}
	}
}

// compileAll compiles every type's JSON Schema with one compiler, the
// schemas/ files added as resources.
func (c *compiler) compileAll() {
	jc := newJSONCompiler()
	for _, p := range sortedKeys(c.site.ModelFiles) {
		if !strings.HasPrefix(p, "schemas/") {
			continue
		}
		v, err := jsonValue(c.site.ModelFiles[p].Meta())
		if err == nil {
			err = jc.AddResource(fileURL(p), v)
		}
		if err != nil {
			c.problem(p, fmt.Errorf("cannot load as JSON Schema: %v", err))
		}
	}
	for _, t := range c.m.All() {
		url := fileURL(t.Source)
		if t.Fields != nil || !strings.HasPrefix(t.Source, "schemas/") {
			t.Schema, t.Data = sourceSchema(t), dataSchema(t)
			url = "file:///folio/model/" + t.Kind + "/" + t.Name + ".json"
			v, err := jsonValue(t.Schema)
			if err == nil {
				err = jc.AddResource(url, v)
			}
			if err != nil {
				c.problem(t.Source, fmt.Errorf("%s: %v", t.Name, err))
				continue
			}
		}
		sch, err := jc.Compile(url)
		if err != nil {
			c.problem(t.Source, fmt.Errorf("%s: the JSON Schema does not load: %s", t.Name, schemaErr(err)))
			continue
		}
		t.sch = sch
		t.declared = map[string]bool{}
		for _, f := range t.Fields {
			t.declared[f.Name] = true
			if f.Default != nil {
				t.defaults = append(t.defaults, f)
			}
			if f.Kind == "date" || f.Kind == "datetime" {
				t.dates = append(t.dates, f)
			}
		}
		if t.Fields == nil {
			t.schemaFileFields()
		}
		t.unique, t.refs = t.findUnique(), t.findReferences()
	}
}

// schemaFileFields takes the top-level properties of a JSON Schema file as
// its declared fields, their defaults and dates.
func (t *Type) schemaFileFields() {
	props, _ := t.Schema["properties"].(map[string]any)
	for _, n := range sortedKeys(props) {
		t.declared[n] = true
		p, _ := props[n].(map[string]any)
		if p == nil {
			continue
		}
		f := &Field{Name: n, Default: p["default"]}
		if f.Default != nil {
			t.defaults = append(t.defaults, f)
		}
		switch p["format"] {
		case "date":
			f.Kind = "date"
			t.dates = append(t.dates, f)
		case "date-time":
			f.Kind = "datetime"
			t.dates = append(t.dates, f)
		}
	}
}

func schemaErr(err error) string {
	s := err.Error()
	s = strings.ReplaceAll(s, "file:///folio/model/", "")
	s = strings.ReplaceAll(s, "file:///", "")
	return s
}

func fileURL(p string) string { return "file:///" + p }

// jsonValue makes a decoded document a JSON value as the validator reads
// schemas: numbers json.Number.
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
