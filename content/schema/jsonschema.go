package schema

import (
	"regexp"
	"strings"
)

// Draft is the JSON Schema dialect every model compiles to.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// slugPattern is a slug as content.ValidSlug takes it, for references.
const slugPattern = `[\p{L}\p{M}\p{N}._~-]+(?:/[\p{L}\p{M}\p{N}._~-]+)*`

// builtinKeys are folio's own front matter keys (content's commonKeys),
// which a model never has to declare and the API serves beside data, not
// in it; pageKeys are those of pages on top.
var (
	builtinKeys = []string{"id", "slug", "title", "draft", "published", "status", "publishedat", "publishdate",
		"date", "updatedat", "lastmod", "expiresat", "expirydate"}
	pageKeys = []string{"ishomepage", "seo", "sections", "description"}
)

func builtinPattern(pages bool) string {
	keys := builtinKeys
	if pages {
		keys = append(append([]string{}, keys...), pageKeys...)
	}
	return "^(?i:" + strings.Join(keys, "|") + ")$"
}

// isBuiltin tells whether a top-level key is one of folio's own.
func isBuiltin(k string, pages bool) bool {
	lk := strings.ToLower(k)
	for _, b := range builtinKeys {
		if lk == b {
			return true
		}
	}
	if pages {
		for _, b := range pageKeys {
			if lk == b {
				return true
			}
		}
	}
	return false
}

// sourceSchema is the JSON Schema of a document's front matter (the
// keys as written): what content is validated against.
func sourceSchema(t *Type) map[string]any {
	s := objectSchema(t.Fields, t.AdditionalFields == "reject", false)
	s["$schema"] = Draft
	if t.AdditionalFields == "reject" {
		s["patternProperties"] = map[string]any{builtinPattern(t.Kind == KindPages): true}
	}
	return s
}

// dataSchema is the JSON Schema of the API's data of a document: the
// declared fields but folio's own keys (served beside data), required
// when they are required or have a default (defaults are filled in),
// dates in RFC 3339.
func dataSchema(t *Type) map[string]any {
	var fields []*Field
	for _, f := range t.Fields {
		if !isBuiltin(f.Name, t.Kind == KindPages) {
			fields = append(fields, f)
		}
	}
	s := objectSchema(fields, false, true)
	s["$schema"] = Draft
	return s
}

func objectSchema(fields []*Field, closed, api bool) map[string]any {
	props := make(map[string]any, len(fields))
	var req []any
	for _, f := range fields {
		props[f.Name] = fieldSchema(f, closed, api)
		if (f.Required && (api || f.Default == nil)) || (api && f.Default != nil) {
			req = append(req, f.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(req) > 0 {
		s["required"] = req
	}
	if closed {
		s["additionalProperties"] = false
	}
	return s
}

func fieldSchema(f *Field, closed, api bool) map[string]any {
	s := map[string]any{}
	switch f.Kind {
	case "string", "text", "markdown", "slug", "url", "email", "date", "datetime", "media", "reference":
		s["type"] = "string"
	case "number":
		s["type"] = "number"
		if f.OrString {
			s["type"] = []any{"number", "string"}
			s["pattern"] = `^\s*-?[0-9]+(\.[0-9]+)?\s*$`
		}
	case "integer":
		s["type"] = "integer"
	case "boolean":
		s["type"] = "boolean"
	case "enum":
		s["enum"] = f.Values
	case "list":
		s["type"] = "array"
		if f.Variants != nil {
			s["items"] = variantsSchema(f, closed, api)
		} else if f.Of != nil {
			s["items"] = fieldSchema(f.Of, closed, api)
		}
	case "object":
		s = objectSchema(f.Fields, closed, api)
	case "oneOrList": // a Decap multiple select, relation or file
		one := fieldSchema(f.Of, closed, api)
		s["anyOf"] = []any{one, map[string]any{"type": "array", "items": one}}
	}
	switch f.Kind {
	case "slug":
		s["format"] = "slug"
	case "url":
		s["format"] = "uri"
	case "email":
		s["format"] = "email"
	case "date":
		s["format"] = "date"
	case "datetime":
		s["format"] = "date-time"
	case "media":
		s["format"] = "media"
		if f.Accept != nil {
			s["x-folio-accept"] = toAny(f.Accept)
		}
	case "reference":
		alts := make([]string, 0, len(f.To))
		for _, t := range f.To {
			alts = append(alts, regexp.QuoteMeta(t))
		}
		s["pattern"] = "^(?:(?:" + strings.Join(alts, "|") + ")/)?" + slugPattern + "$"
		s["x-folio-reference"] = toAny(f.To)
	}
	if f.Kind == "list" {
		if f.Min != nil {
			s["minItems"] = int64(*f.Min)
		}
		if f.Max != nil {
			s["maxItems"] = int64(*f.Max)
		}
	} else {
		if f.Min != nil {
			s["minimum"] = *f.Min
		}
		if f.Max != nil {
			s["maximum"] = *f.Max
		}
	}
	if f.MinLength != nil {
		s["minLength"] = int64(*f.MinLength)
	}
	if f.MaxLength != nil {
		s["maxLength"] = int64(*f.MaxLength)
	}
	if f.Pattern != "" {
		if p, ok := s["pattern"]; ok {
			s["allOf"] = []any{map[string]any{"pattern": p}, map[string]any{"pattern": f.Pattern}}
			delete(s, "pattern")
		} else {
			s["pattern"] = f.Pattern
		}
	}
	if f.Description != "" {
		s["description"] = f.Description
	}
	if f.Default != nil {
		s["default"] = f.Default
	}
	if f.Unique {
		s["x-folio-unique"] = true
	}
	return s
}

// variantsSchema is a list entry that is one of several objects, told
// apart by the value of TypeKey.
func variantsSchema(f *Field, closed, api bool) map[string]any {
	names := sortedKeys(f.Variants)
	one := make([]any, 0, len(names))
	for _, n := range names {
		o := objectSchema(f.Variants[n], closed, api)
		props := o["properties"].(map[string]any)
		props[f.TypeKey] = map[string]any{"const": n}
		req, _ := o["required"].([]any)
		o["required"] = append(req, f.TypeKey)
		one = append(one, o)
	}
	return map[string]any{"oneOf": one}
}

func toAny(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}
