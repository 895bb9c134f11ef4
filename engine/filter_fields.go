package engine

// Filter fields: a condition's field resolved in the content model, its
// kind, and values as comparable keys.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/content/schema"
)

// FilterCond is one condition of a filtered list as the query wrote it:
// filter[Field][Op]=Value. For in and nin, Value holds the values joined
// by commas.
type FilterCond struct {
	Field, Op, Value string
}

// fkind is the kind of value a filter field compares.
type fkind uint8

const (
	kExists fkind = iota // anything: only exists applies
	kText
	kNumber
	kBool
	kTime
)

func (k fkind) String() string {
	return [...]string{"any", "text", "number", "boolean", "date"}[k]
}

// opsOf are the operators each kind takes.
func opsOf(k fkind) []string {
	switch k {
	case kText:
		return FilterOps
	case kNumber, kTime:
		return []string{"eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "exists"}
	case kBool:
		return []string{"eq", "ne", "in", "nin", "exists"}
	}
	return []string{"exists"}
}

// filterField is a resolved filter field: a built-in one or a path into
// an item's data.
type filterField struct {
	name     string   // canonical: "publishedAt", "data.address.city"
	builtin  string   // "publishedAt", "updatedAt", "slug", "title"; "" for data
	path     []string // below data
	kind     fkind
	orString bool // a number may be written as text of digits
}

// builtinFilters are the fields every list filters on, declared or not.
var builtinFilters = map[string]fkind{"publishedAt": kTime, "updatedAt": kTime, "slug": kText, "title": kText}

// ownKeys are the front matter keys folio reads itself: never in data.
var ownKeys = []string{"id", "slug", "title", "draft", "published", "status", "publishedat", "publishdate", "date",
	"updatedat", "lastmod", "expiresat", "expirydate"}

func badFilter(field, format string, args ...any) error {
	return &fault.Error{Code: fault.Invalid, Message: "filter[" + field + "]: " + fmt.Sprintf(format, args...)}
}

// resolveField finds a filter field: a built-in one, or data.<path> (or
// <path> alone, as sort= names data fields) through the fields the type's
// model t declares (nil: none). pages filter on the built-in fields only.
func resolveField(t *schema.Type, name string, pages bool) (filterField, error) {
	if k, ok := builtinFilters[name]; ok {
		return filterField{name: name, builtin: name, kind: k}, nil
	}
	if len(name) > 200 {
		return filterField{}, badFilter(name[:40]+"…", "field name too long")
	}
	rest := strings.TrimPrefix(name, "data.")
	path := strings.Split(rest, ".")
	if len(path) > MaxFilterDepth {
		return filterField{}, badFilter(name, "a path goes at most %d names deep", MaxFilterDepth)
	}
	for _, p := range path {
		if p == "" {
			return filterField{}, badFilter(name, "not a field: want publishedAt, updatedAt, slug, title or data.<field>[.<field>…]")
		}
	}
	if pages {
		return filterField{}, badFilter(name, "pages filter on publishedAt, updatedAt, slug and title only")
	}
	if slices.Contains(ownKeys, strings.ToLower(path[0])) {
		return filterField{}, badFilter(name, "%s is read by folio itself, it is not in data: filter on publishedAt, updatedAt, slug or title", path[0])
	}
	f := filterField{name: "data." + rest, path: path}
	var ok bool
	switch {
	case t == nil:
		ok = false
	case t.Fields != nil:
		f.kind, f.orString, ok = kindOfFields(t.Fields, path)
	default:
		f.kind, ok = kindOfSchema(t.Data, path)
	}
	if !ok {
		return filterField{}, badFilter(name, "not a declared field of this type (the content model declares the fields one filters on; built in: publishedAt, updatedAt, slug, title)")
	}
	return f, nil
}

// kindOfFields walks declared fields along path.
func kindOfFields(fields []*schema.Field, path []string) (fkind, bool, bool) {
	var f *schema.Field
	for i, name := range path {
		f = findField(fields, name)
		if f == nil {
			return 0, false, false
		}
		for f.Kind == "list" && f.Of != nil && (i < len(path)-1 || f.Of.Kind != "object") {
			f = f.Of // into the entries of a list
		}
		if i == len(path)-1 {
			break
		}
		switch {
		case f.Kind == "object":
			fields = f.Fields
		case f.Kind == "list" && f.Of != nil && f.Of.Kind == "object":
			fields = f.Of.Fields
		case f.Kind == "list" && len(f.Variants) > 0:
			fields = nil
			for _, v := range f.Variants {
				fields = append(fields, v...)
			}
		default:
			return 0, false, false
		}
	}
	return kindOfDeclared(f), f.OrString, true
}

func findField(fields []*schema.Field, name string) *schema.Field {
	for _, f := range fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func kindOfDeclared(f *schema.Field) fkind {
	switch f.Kind {
	case "string", "text", "url", "email", "slug", "reference", "media":
		return kText
	case "number", "integer":
		return kNumber
	case "boolean":
		return kBool
	case "date", "datetime":
		return kTime
	case "enum":
		return enumKind(f.Values)
	}
	return kExists // markdown, object, list of any, any
}

func enumKind(values []any) fkind {
	k := kExists
	for _, v := range values {
		var vk fkind
		switch v.(type) {
		case string:
			vk = kText
		case int, int64, float64:
			vk = kNumber
		case bool:
			vk = kBool
		default:
			return kExists
		}
		if k != kExists && vk != k {
			return kExists
		}
		k = vk
	}
	return k
}

// kindOfSchema walks a JSON Schema's properties along path (a type
// modelled by a JSON Schema file).
func kindOfSchema(s map[string]any, path []string) (fkind, bool) {
	for i, name := range path {
		s = arrayItems(s)
		props, _ := s["properties"].(map[string]any)
		p, ok := props[name].(map[string]any)
		if !ok {
			return 0, false
		}
		s = p
		if i == len(path)-1 {
			break
		}
	}
	if t := schemaType(s); t == "array" {
		s = arrayItems(s)
	}
	if e, ok := s["enum"].([]any); ok {
		return enumKind(e), true
	}
	switch schemaType(s) {
	case "string":
		if f := s["format"]; f == "date" || f == "date-time" {
			return kTime, true
		}
		return kText, true
	case "number", "integer":
		return kNumber, true
	case "boolean":
		return kBool, true
	}
	return kExists, true
}

func arrayItems(s map[string]any) map[string]any {
	for range 4 {
		if schemaType(s) != "array" {
			return s
		}
		it, ok := s["items"].(map[string]any)
		if !ok {
			return s
		}
		s = it
	}
	return s
}

// schemaType is the type of a schema: "string", or the one type but
// "null" of a list of types.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		out := ""
		for _, e := range t {
			if e == "null" {
				continue
			}
			if out != "" {
				return ""
			}
			out, _ = e.(string)
		}
		return out
	}
	return ""
}

// filterKey is a value of a filter field, as the index orders it.
type filterKey struct {
	s string
	n float64
	t time.Time
}

func compareKeys(k fkind, a, b filterKey) int {
	switch k {
	case kText:
		return strings.Compare(a.s, b.s)
	case kNumber, kBool:
		return cmp.Compare(a.n, b.n)
	case kTime:
		return a.t.Compare(b.t)
	}
	return 0
}

// keyOf is the key of a stored value for kind k; false when the value is
// not of the kind (it counts for exists only).
func (f *filterField) keyOf(v any) (filterKey, bool) {
	switch f.kind {
	case kText:
		if s, ok := v.(string); ok {
			return filterKey{s: s}, true
		}
	case kNumber:
		switch x := v.(type) {
		case int64:
			return filterKey{n: float64(x)}, true
		case int:
			return filterKey{n: float64(x)}, true
		case float64:
			if math.IsNaN(x) {
				return filterKey{}, false // orders nowhere: exists only
			}
			return filterKey{n: x}, true
		case string:
			if f.orString {
				if n, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil && !math.IsNaN(n) && !math.IsInf(n, 0) {
					return filterKey{n: n}, true
				}
			}
		}
	case kBool:
		if b, ok := v.(bool); ok {
			if b {
				return filterKey{n: 1}, true
			}
			return filterKey{n: 0}, true
		}
	case kTime:
		switch x := v.(type) {
		case string:
			if t, err := content.ParseDate(x); err == nil {
				return filterKey{t: t.UTC().Round(0)}, true
			}
		case time.Time:
			// One representation per instant: the index groups values
			// by ==.
			return filterKey{t: x.UTC().Round(0)}, true
		}
	}
	return filterKey{}, false
}

// parseValue reads one value of a condition for the field's kind.
func (f *filterField) parseValue(op, s string) (filterKey, error) {
	if len(s) > MaxFilterValueLen {
		return filterKey{}, badFilter(f.name, "%s: a value is at most %d bytes", op, MaxFilterValueLen)
	}
	switch f.kind {
	case kText:
		if s == "" && (op == "contains" || op == "startsWith") {
			return filterKey{}, badFilter(f.name, "%s: want a value", op)
		}
		return filterKey{s: s}, nil
	case kNumber:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return filterKey{}, badFilter(f.name, "%s: %q is not a number", op, s)
		}
		return filterKey{n: n}, nil
	case kBool:
		switch s {
		case "true":
			return filterKey{n: 1}, nil
		case "false":
			return filterKey{n: 0}, nil
		}
		return filterKey{}, badFilter(f.name, "%s: %q is not true or false", op, s)
	case kTime:
		t, err := content.ParseDate(s)
		if err != nil {
			return filterKey{}, badFilter(f.name, "%s: %q is not a date (RFC 3339, or 2006-01-02)", op, s)
		}
		return filterKey{t: t.UTC().Round(0)}, nil
	}
	return filterKey{}, badFilter(f.name, "%s: this field takes exists only", op)
}

// cond is a parsed condition.
type cond struct {
	f      filterField
	op     string
	keys   []filterKey // eq, ne, gt…: one; in, nin: several
	exists bool
	canon  string
}

// parseConds resolves and checks the conditions against the model of
// the list's type (nil: none).
func parseConds(t *schema.Type, conds []FilterCond, pages bool) ([]cond, error) {
	if len(conds) > MaxFilters {
		return nil, &fault.Error{Code: fault.Invalid, Message: fmt.Sprintf("filter: at most %d conditions", MaxFilters)}
	}
	out := make([]cond, 0, len(conds))
	for _, c := range conds {
		f, err := resolveField(t, c.Field, pages)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(FilterOps, c.Op) {
			return nil, badFilter(f.name, "unknown operator %q (known: %s)", c.Op, strings.Join(FilterOps, ", "))
		}
		if !slices.Contains(opsOf(f.kind), c.Op) {
			return nil, badFilter(f.name, "operator %s does not apply to a field of kind %s (it takes %s)", c.Op, f.kind, strings.Join(opsOf(f.kind), ", "))
		}
		pc := cond{f: f, op: c.Op}
		switch c.Op {
		case "exists":
			switch c.Value {
			case "true", "1", "":
				pc.exists = true
			case "false", "0":
			default:
				return nil, badFilter(f.name, "exists: want true or false, not %q", c.Value)
			}
			pc.canon = strconv.FormatBool(pc.exists)
		case "in", "nin":
			vals := strings.Split(c.Value, ",")
			if len(vals) > MaxFilterValues {
				return nil, badFilter(f.name, "%s: at most %d values", c.Op, MaxFilterValues)
			}
			for _, s := range vals {
				k, err := f.parseValue(c.Op, s)
				if err != nil {
					return nil, err
				}
				pc.keys = append(pc.keys, k)
			}
			pc.canon = c.Value
		default:
			k, err := f.parseValue(c.Op, c.Value)
			if err != nil {
				return nil, err
			}
			pc.keys = []filterKey{k}
			pc.canon = c.Value
		}
		out = append(out, pc)
	}
	return out, nil
}

// canonical is the conditions as one string, order-independent, for
// ETags.
func canonical(cs []cond) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.f.name + "\x01" + c.op + "\x01" + c.canon
	}
	slices.Sort(parts)
	return strings.Join(parts, "\x02")
}
