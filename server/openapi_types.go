package server

import "strings"

// The typed document describes each modelled type T with its own paths,
// copies of the generic ones with T in place of {type}:
// /api/v1/content/T and /api/v1/content/T/{slug} (and, for a public
// type, /api/v1/public/collections/T and …/T/{slug}). Their reads answer
// ItemList_T and Item_T, their filter parameter names T's fields and its
// locale parameter the site's locales, so a client generated from the
// document (openapi-typescript) is typed with no cast. A concrete path
// is matched before a templated one, so the generic paths still describe
// the types without a model.

// typedPathBases are the generic paths copied per type; public says the
// copy is for the public types only.
var typedPathBases = []struct {
	base   string // the path with {type}
	public bool
}{
	{"/api/v1/content/{type}", false},
	{"/api/v1/content/{type}/{slug}", false},
	{"/api/v1/public/collections/{type}", true},
	{"/api/v1/public/collections/{type}/{slug}", true},
}

// typedPathsInfo is what the per-type paths of one type need.
type typedPathsInfo struct {
	name    string
	public  bool
	filter  map[string]any // Filter_T's properties
	locales []string       // the site's locale codes; nil without
}

// addTypedPaths adds the paths of type t to paths, copied from the
// generic ones already there, and its filter parameter to params.
func addTypedPaths(paths, params map[string]any, t typedPathsInfo) {
	// The filter of the lists: Filter_T's fields (referred to, not
	// copied: a big model's filter is its largest part), and any other
	// (<field> for data.<field>, and what the server refuses with 400).
	fields := make(map[string]any, len(t.filter))
	for name := range t.filter {
		fields[name] = ref("Filter_" + t.name + "/properties/" + pointerToken(name))
	}
	params["filter_"+t.name] = map[string]any{
		"name": "filter", "in": "query", "style": "deepObject", "explode": true,
		"description": "The conditions `filter[<field>][<op>]=<value>` on the fields of " + t.name +
			" (Filter_" + t.name + "; see the `filter` of the generic lists; `data.<field>` is also written `<field>`).",
		"schema": map[string]any{"type": "object", "properties": fields, "additionalProperties": ref("FilterOps")},
	}
	for _, b := range typedPathBases {
		if b.public && !t.public {
			continue
		}
		item, _ := paths[b.base].(map[string]any)
		if item == nil {
			continue
		}
		out := make(map[string]any, len(item))
		for method, v := range item {
			op, ok := v.(map[string]any)
			if !ok {
				out[method] = v
				continue
			}
			out[method] = typedOperation(op, t)
		}
		paths[strings.Replace(b.base, "{type}", t.name, 1)] = out
	}
}

// typedOperation is a copy of a generic operation for type t: no type
// parameter, its own operationId, typed filter and locale parameters and
// typed read responses.
func typedOperation(op map[string]any, t typedPathsInfo) map[string]any {
	out := make(map[string]any, len(op))
	for k, v := range op {
		out[k] = v
	}
	if id, ok := op["operationId"].(string); ok {
		out["operationId"] = id + "_" + t.name
	}
	if s, ok := op["summary"].(string); ok {
		out["summary"] = s + " (" + t.name + ")"
	}
	if params, ok := op["parameters"].([]any); ok {
		np := make([]any, 0, len(params))
		for _, p := range params {
			switch paramRef(p) {
			case "type":
				continue
			case "contentFilter":
				p = map[string]any{"$ref": "#/components/parameters/filter_" + t.name}
			case "locale":
				if len(t.locales) > 0 {
					enum := make([]any, len(t.locales))
					for i, c := range t.locales {
						enum[i] = c
					}
					p = map[string]any{
						"name": "locale", "in": "query",
						"description": "A locale of the site (default: its default locale); see /api/v1/locales.",
						"schema":      map[string]any{"type": "string", "enum": enum},
					}
				}
			}
			np = append(np, p)
		}
		out["parameters"] = np
	}
	if res, ok := op["responses"].(map[string]any); ok {
		if ok200, ok := res["200"].(map[string]any); ok {
			if typed := typedResponse(ok200, t.name); typed != nil {
				nr := make(map[string]any, len(res))
				for k, v := range res {
					nr[k] = v
				}
				nr["200"] = typed
				out["responses"] = nr
			}
		}
	}
	return out
}

// typedResponse is a copy of a 200 response whose JSON is an Item or an
// ItemList, as an Item_T or ItemList_T; nil for any other.
func typedResponse(r map[string]any, typ string) map[string]any {
	content, _ := r["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	schema, _ := media["schema"].(map[string]any)
	var name string
	switch schema["$ref"] {
	case "#/components/schemas/Item":
		name = "Item_" + typ
	case "#/components/schemas/ItemList":
		name = "ItemList_" + typ
	default:
		return nil
	}
	nm := make(map[string]any, len(media))
	for k, v := range media {
		nm[k] = v
	}
	nm["schema"] = ref(name)
	nc := make(map[string]any, len(content))
	for k, v := range content {
		nc[k] = v
	}
	nc["application/json"] = nm
	out := make(map[string]any, len(r))
	for k, v := range r {
		out[k] = v
	}
	out["content"] = nc
	return out
}

// pointerToken escapes s as a JSON Pointer token (RFC 6901).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// paramRef is the name of the component a parameter refers to ("" for
// an inline one).
func paramRef(p any) string {
	m, _ := p.(map[string]any)
	s, _ := m["$ref"].(string)
	name, _ := strings.CutPrefix(s, "#/components/parameters/")
	return name
}
