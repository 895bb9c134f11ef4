package server

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/julienschmidt/httprouter"

	"github.com/folio-cms/folio/content/schema"
	"github.com/folio-cms/folio/engine"
)

// schemaEntry is one model of GET /api/v1/schemas.
type schemaEntry struct {
	Type             string         `json:"type"`
	Kind             string         `json:"kind"` // items, pages or globals
	Source           string         `json:"source"`
	OnInvalid        string         `json:"onInvalid"`
	AdditionalFields string         `json:"additionalFields"`
	Schema           map[string]any `json:"schema"`      // the JSON Schema of the API's data
	FrontMatter      map[string]any `json:"frontMatter"` // the JSON Schema documents are validated against
}

type schemaList struct {
	Schemas []schemaEntry `json:"schemas"`
}

func entryOf(t *schema.Type) schemaEntry {
	return schemaEntry{Type: t.Name, Kind: t.Kind, Source: t.Source, OnInvalid: t.OnInvalid,
		AdditionalFields: t.AdditionalFields, Schema: t.Data, FrontMatter: t.Schema}
}

// listSchemas serves the content model of the published branch: the JSON
// Schema of every type that declares one, and of pages and globals.
func (s *contentHandlers) listSchemas(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	snap := s.engine.Published()
	out := schemaList{Schemas: []schemaEntry{}}
	for _, t := range snap.Model.All() {
		out.Schemas = append(out.Schemas, entryOf(t))
	}
	return serveJSON(w, r, out, cachePrivate, keyHdr{})
}

// getSchema serves one content type's JSON Schema (that of its data).
func (s *contentHandlers) getSchema(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	typ := p.ByName("type")
	t := s.engine.Published().Model.Of(typ)
	if t == nil {
		return notFound("content type %q declares no content model", typ)
	}
	return serveJSON(w, r, t.Data, cachePrivate, keyHdr{})
}

// typedOpenAPI is the OpenAPI document of one snapshot: the static one
// with a component schema and paths per modelled type. Without a key
// with content:read it has the public types' only. Each is built on its
// first request (a big model's takes a while: see BenchmarkTypedOpenAPI).
type typedOpenAPI struct {
	snap              *engine.Snapshot
	pubOnce, fullOnce sync.Once
	pub, full         openapiBody
}

// openapiFor returns the document for the published snapshot, built once
// per snapshot that has a model.
func (s *contentHandlers) openapiFor(full bool) openapiBody {
	snap := s.engine.Published()
	if snap.Model.Empty() {
		return s.openapiDoc()
	}
	c := s.typedDoc.Load()
	if c == nil || c.snap != snap {
		next := &typedOpenAPI{snap: snap}
		if !s.typedDoc.CompareAndSwap(c, next) {
			if now := s.typedDoc.Load(); now != nil && now.snap == snap {
				next = now
			}
		}
		c = next
	}
	if full {
		c.fullOnce.Do(func() { c.full = s.buildTyped(snap, true) })
		return c.full
	}
	c.pubOnce.Do(func() { c.pub = s.buildTyped(snap, false) })
	return c.pub
}

// buildTyped adds to the static document, for each modelled type T (the
// public ones unless full): Data_T, the JSON Schema of its data; Item_T,
// an Item whose data is a Data_T; ItemList_T, a list of Item_T; its own
// paths (addTypedPaths); and Globals_model when the globals declare
// fields.
func (s *contentHandlers) buildTyped(snap *engine.Snapshot, full bool) openapiBody {
	var doc map[string]any
	if err := json.Unmarshal(s.openapiDoc().body, &doc); err != nil {
		return s.openapiDoc()
	}
	comps, _ := doc["components"].(map[string]any)
	schemas, _ := comps["schemas"].(map[string]any)
	if schemas == nil {
		return s.openapiDoc()
	}
	paths, _ := doc["paths"].(map[string]any)
	params, _ := comps["parameters"].(map[string]any)
	var locales []string
	if i18n := snap.Site.I18n; i18n != nil {
		locales = i18n.Codes()
	}
	m := snap.Model
	names := make([]string, 0, len(m.Types))
	for n := range m.Types {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !full && !snap.Site.Config.Types[n].Public {
			continue
		}
		t := m.Types[n]
		schemas["Data_"+n] = openapiSchema(t.Data)
		schemas["Item_"+n] = withProps(schemas["Item"], map[string]any{
			"type": map[string]any{"type": "string", "const": n},
			"data": ref("Data_" + n),
		}, "An item of type "+n+", its data as the content model declares.")
		filter := filterSchema(t)
		schemas["Filter_"+n] = filter
		schemas["ItemList_"+n] = withProps(schemas["ItemList"], map[string]any{
			"items": map[string]any{"type": "array", "items": ref("Item_" + n)},
		}, "A list of items of type "+n+".")
		if paths != nil && params != nil {
			props, _ := filter["properties"].(map[string]any)
			addTypedPaths(paths, params, typedPathsInfo{name: n, public: snap.Site.Config.Types[n].Public,
				filter: props, locales: locales})
		}
	}
	if full && m.Globals != nil {
		schemas["Data_globals"] = openapiSchema(m.Globals.Data)
		schemas["Globals_model"] = map[string]any{"allOf": []any{ref("Globals"), ref("Data_globals")}}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return s.openapiDoc()
	}
	return openapiBody{body: b, etag: engine.ETag(b)}
}

// filterSchema is the filter parameter of the lists of a type: each
// field it filters on, with its operators (engine.FilterFields).
func filterSchema(t *schema.Type) map[string]any {
	props := map[string]any{}
	for _, f := range engine.FilterFields(t) {
		ops := map[string]any{}
		for _, op := range f.Ops {
			ops[op] = map[string]any{"type": "string"}
		}
		props[f.Name] = map[string]any{"type": "object", "additionalProperties": false, "properties": ops,
			"description": "Compares as " + f.Kind + "; operators: " + strings.Join(f.Ops, ", ") + "."}
	}
	return map[string]any{"type": "object", "additionalProperties": false, "properties": props,
		"description": "The conditions filter[<field>][<op>]=<value> the lists of this type take (the `filter` parameter)."}
}

// withProps is a copy of an object schema (Item, ItemList) with some of its
// properties replaced: a copy rather than an allOf, so that generated
// types do not intersect the typed data with the generic one.
func withProps(base any, props map[string]any, desc string) map[string]any {
	b, _ := base.(map[string]any)
	out := make(map[string]any, len(b)+1)
	for k, v := range b {
		out[k] = v
	}
	bp, _ := b["properties"].(map[string]any)
	np := make(map[string]any, len(bp))
	for k, v := range bp {
		np[k] = v
	}
	for k, v := range props {
		np[k] = v
	}
	out["properties"] = np
	out["description"] = desc
	return out
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

// openapiSchema is a model's JSON Schema as an OpenAPI 3.1 component: no
// $schema, and each reference or media field a Reference (a string, or
// with expand what it names).
func openapiSchema(s map[string]any) map[string]any {
	out, _ := openapiValue(s, 0).(map[string]any)
	delete(out, "$schema")
	return out
}

func openapiValue(v any, depth int) any {
	if depth > 64 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		if _, isRef := x["x-folio-reference"]; isRef || x["format"] == "media" {
			out := ref("Reference")
			if d, ok := x["description"]; ok {
				out["description"] = d
			}
			return out
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = openapiValue(e, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = openapiValue(e, depth+1)
		}
		return out
	}
	return v
}
