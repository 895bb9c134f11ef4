package write

import (
	"strconv"
	"strings"
)

// readOnlyFields are the API's keys of a document that a write ignores:
// folio derives them (id, type, updatedAt from the commit, url).
var readOnlyFields = map[string]bool{"id": true, "type": true, "updatedAt": true, "url": true, "status": true, "locale": true, "translations": true}

// FromAPI builds a Doc from a document in the API's JSON shape:
// {title, slug, publishedAt, …, data: {…}, body: "<markdown>"}. The keys
// of data become the document's own keys; data.body (the rendered HTML
// the API serves) is ignored: the Markdown body is body. id, type and
// updatedAt are read-only and ignored.
func FromAPI(kind Kind, typ, slug string, v map[string]any) (Doc, error) {
	d := Doc{Kind: kind, Type: typ, Slug: slug, Fields: map[string]any{}}
	for k, val := range v {
		switch {
		case k == "body":
			switch b := val.(type) {
			case nil:
				empty := ""
				d.Body = &empty
			case string:
				d.Body = &b
			default:
				return d, &ValidationError{[]FieldProblem{{"body", "want the Markdown body as a string"}}}
			}
		case k == "data":
			if val == nil {
				continue
			}
			m, ok := val.(map[string]any)
			if !ok {
				return d, &ValidationError{[]FieldProblem{{"data", "want an object"}}}
			}
			for dk, dv := range m {
				if dk == "body" {
					continue
				}
				if _, dup := v[dk]; dup && dk != "data" {
					return d, &ValidationError{[]FieldProblem{{"data." + dk, "given twice: at the top level and in data"}}}
				}
				if err := checkKey(dk); err != nil {
					return d, err
				}
				d.Fields[dk] = dv
			}
		case readOnlyFields[k]:
		default:
			if err := checkKey(k); err != nil {
				return d, err
			}
			d.Fields[k] = val
		}
	}
	if kind == KindGlobals {
		d.Body = nil
	}
	if kind == KindPage {
		pageSections(d.Fields, v["id"])
	}
	return d, nil
}

// pageSections takes a page's sections as the API serves them back to
// what a file says: no order (the position is the order), no id when it
// is the one derived from the page id and the position.
func pageSections(fields map[string]any, pageID any) {
	list, ok := fields["sections"].([]any)
	if !ok {
		return
	}
	id, _ := pageID.(string)
	out := make([]any, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			out[i] = e
			continue
		}
		c := make(map[string]any, len(m))
		for k, v := range m {
			c[k] = v
		}
		delete(c, "order")
		if sid, ok := c["id"].(string); ok && id != "" && sid == id+"-"+strconv.Itoa(i) {
			delete(c, "id")
		}
		out[i] = c
	}
	fields["sections"] = out
}

// checkKey refuses a key that no front matter format can hold sensibly.
func checkKey(k string) error {
	if k == "" || len(k) > 200 {
		return &ValidationError{[]FieldProblem{{k, "a key must have 1 to 200 characters"}}}
	}
	for _, r := range k {
		if r < ' ' || r == 0x7f {
			return &ValidationError{[]FieldProblem{{strings.ToValidUTF8(k, "?"), "a key may not contain control characters"}}}
		}
	}
	return nil
}
