package write

// The change a write makes to a file: read back, merged with what
// changed since its base.

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
)

// roundTrip checks that the new file reads back as the change meant:
// each key set to its value, each removed key gone, the body as given. A
// value that the format cannot hold as it is (a delimiter line inside a
// TOML multi-line string, say) is refused rather than written wrong. doc
// is data parsed, or nil.
func roundTrip(p string, data []byte, doc *content.Doc, ch change) error {
	if doc == nil {
		var err error
		if doc, err = content.Parse(p, data); err != nil {
			return &ValidationError{[]FieldProblem{{"", "the document would not parse: " + problemMessage(err)}}}
		}
	}
	var fields []FieldProblem
	for _, k := range ch.keys() {
		if v, ok := doc.Value(k); !ok || !sameValue(v, ch.set[k]) {
			fields = append(fields, FieldProblem{k, "this value cannot be written in the document's format as it is"})
		}
	}
	for k := range ch.remove {
		if _, ok := doc.Value(k); ok {
			fields = append(fields, FieldProblem{k, "the key cannot be removed (it is given twice?)"})
		}
	}
	if ch.body != nil && isMarkdownPath(p) {
		f, err := splitFile(p, data, FormatYAML)
		if err != nil || strings.TrimRight(string(f.body), "\n") != strings.TrimRight(*ch.body, "\n") {
			fields = append(fields, FieldProblem{"body", "the body cannot be written as it is (it would be read back differently)"})
		}
	}
	if len(fields) > 0 {
		return &ValidationError{fields}
	}
	return nil
}

// metaOf is the front matter of a file as folio reads it; nil for none.
func metaOf(p string, data []byte) (map[string]any, error) {
	if data == nil {
		return map[string]any{}, nil
	}
	doc, err := content.Parse(p, data)
	if err != nil {
		return nil, err
	}
	if doc.Meta() == nil {
		return map[string]any{}, nil
	}
	return doc.Meta(), nil
}

// fileKey is the key of the file that API field name writes: the file's
// own spelling of it or of an alias (date for publishedAt, …), else name.
func fileKey(name string, meta map[string]any) string {
	group := []string{strings.ToLower(name)}
	switch strings.ToLower(name) {
	case "publishedat":
		group = []string{"publishedat", "publishdate", "date"}
		if pk := keyFold(meta, "published"); pk != "" {
			if _, flag := meta[pk].(bool); !flag && meta[pk] != nil {
				// Hugo's published: <date>, ranked as the reader ranks it
				group = []string{"publishedat", "publishdate", "published", "date"}
			}
		}
	case "expiresat":
		group = []string{"expiresat", "expirydate"}
	case "updatedat":
		group = []string{"updatedat", "lastmod"}
	}
	for _, g := range group {
		for k := range meta {
			if strings.ToLower(k) == g {
				return k
			}
		}
	}
	return name
}

// pageBuiltins are the keys of a page the API always shows.
var pageBuiltins = map[string]bool{"isHomepage": true, "seo": true, "sections": true}

// isZero tells an empty value: false, "", an empty list, a map of empty
// values.
func isZero(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		for _, e := range v {
			if !isZero(e) {
				return false
			}
		}
		return true
	}
	return false
}

// keptOnReplace are the keys (lower case) a Replace keeps unless given.
var keptOnReplace = map[string]bool{"id": true, "draft": true, "published": true, "status": true, "updatedat": true, "lastmod": true}

// toChange turns a write into a change of the file whose front matter is
// meta.
func toChange(o op, d Doc, meta map[string]any) change {
	ch := change{set: map[string]any{}, remove: map[string]bool{}, body: d.Body}
	given := map[string]bool{}
	order := []string{"title", "slug", "publishedAt", "draft"}
	order = append(order, slices.Sorted(maps.Keys(d.Fields))...)
	for _, name := range order {
		v, ok := d.Fields[name]
		if !ok {
			continue
		}
		k := fileKey(name, meta)
		if given[k] {
			continue
		}
		if d.Kind == KindPage && pageBuiltins[name] && !hasFold(meta, name) && isZero(v) {
			continue // what the API shows for a page that sets none
		}
		if s, ok := v.(string); ok && strings.EqualFold(name, "slug") && !hasFold(meta, "slug") && strings.Trim(s, "/") == d.Slug && d.Kind != KindGlobals {
			continue // the file's path gives it already
		}
		given[k] = true
		if b, ok := v.(bool); ok && strings.EqualFold(name, "draft") && !hasFold(meta, "draft") {
			// The file says published: or status: instead; draft is
			// written as the file says it.
			if pk := keyFold(meta, "published"); pk != "" {
				if _, flag := meta[pk].(bool); flag {
					ch.set[pk], given[pk] = !b, true
					continue
				} // else Hugo's published: <date>, which stays: draft is written
			}
			if sk := keyFold(meta, "status"); sk != "" {
				ch.set[sk], given[sk] = map[bool]string{true: "draft", false: "published"}[b], true
				continue
			}
		}
		if v == nil {
			ch.remove[k] = true
			continue
		}
		ch.set[k] = v
		ch.order = append(ch.order, k)
	}
	if o == opReplace {
		for name := range d.unchanged {
			given[fileKey(name, meta)] = true
		}
		for k := range meta {
			if !given[k] && !keptOnReplace[strings.ToLower(k)] {
				ch.remove[k] = true
			}
		}
		if d.Body == nil {
			empty := ""
			ch.body = &empty
		}
	}
	return ch
}

// rebaseChange turns a write planned against the client's base into a
// change of the current file (old): the keys and body the write changes
// relative to base, refused when one of them also changed since base.
func (pn planner) rebaseChange(ctx context.Context, p, baseBlob string, old []byte, meta map[string]any, ch change, o op, d Doc) (change, error) {
	baseData, err := pn.repo.readBlob(ctx, baseBlob)
	if err != nil {
		return ch, err
	}
	baseMeta, err := metaOf(p, baseData)
	if err != nil {
		return ch, nil // the base does not parse: apply as planned
	}
	baseFile, err := splitFile(p, baseData, FormatYAML)
	if err != nil {
		return ch, nil
	}
	curFile, _ := splitFile(p, old, FormatYAML)
	intent := toChange(o, d, baseMeta)
	var conflicts []string
	for k, v := range intent.set {
		if bv, ok := baseMeta[k]; ok && sameValue(bv, v) {
			delete(intent.set, k)
			continue
		}
		if changedSince(baseMeta, meta, k) && !(hasKey(meta, k) && sameValue(meta[k], v)) {
			conflicts = append(conflicts, k)
		}
	}
	for k := range intent.remove {
		if _, ok := baseMeta[k]; !ok {
			delete(intent.remove, k)
			continue
		}
		if changedSince(baseMeta, meta, k) && hasKey(meta, k) {
			conflicts = append(conflicts, k)
		}
	}
	if intent.body != nil {
		if string(baseFile.body) == *intent.body || string(baseFile.body) == *intent.body+"\n" {
			intent.body = nil
		} else if curFile != nil && string(curFile.body) != string(baseFile.body) && string(curFile.body) != *intent.body {
			conflicts = append(conflicts, "body")
		}
	}
	if len(conflicts) > 0 {
		slices.Sort(conflicts)
		return ch, fault.New(fault.Conflict, "%s changed since it was read, in the fields this write changes too (%s): read it again", p, strings.Join(conflicts, ", "))
	}
	return intent, nil
}

// keyFold is the key of m equal to k but for case; "" when none.
func keyFold(m map[string]any, k string) string {
	for mk := range m {
		if strings.EqualFold(mk, k) {
			return mk
		}
	}
	return ""
}

func hasFold(m map[string]any, k string) bool { return keyFold(m, k) != "" }

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

func changedSince(base, cur map[string]any, k string) bool {
	bv, bok := base[k]
	cv, cok := cur[k]
	if bok != cok {
		return true
	}
	return bok && !sameValue(bv, cv)
}
