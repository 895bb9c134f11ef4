package schema

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/folio-cms/folio/content"
)

// newJSONCompiler is a JSON Schema 2020-12 compiler that asserts formats,
// with folio's: date and date-time as front matter dates are written
// (content.ParseDate), slug, media (a media reference). It loads no
// resource it was not given: a $ref to anything but a file under
// schemas/ fails.
func newJSONCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	c.RegisterFormat(&jsonschema.Format{Name: "date", Validate: validDate})
	c.RegisterFormat(&jsonschema.Format{Name: "date-time", Validate: validDate})
	c.RegisterFormat(&jsonschema.Format{Name: "slug", Validate: validSlug})
	c.RegisterFormat(&jsonschema.Format{Name: "media", Validate: validMedia})
	return c
}

type noLoader struct{}

func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("%s is not a file under schemas/ of the repository (no other schema is loaded)", strings.TrimPrefix(u, "file:///"))
}

func validDate(v any) error {
	if _, ok := v.(string); !ok {
		return nil
	}
	if _, err := content.ParseDate(v); err != nil {
		return errors.New("not a date: use RFC 3339 (2006-01-02T15:04:05Z07:00), 2006-01-02 or 2006-01-02 15:04:05")
	}
	return nil
}

func validSlug(v any) error {
	if s, ok := v.(string); ok && !content.ValidSlug(s) {
		return errors.New("not a slug (letters, digits, '.', '_', '~' and '-', segments joined by '/')")
	}
	return nil
}

// validMedia takes what names a media file: a library item ("media:<id>",
// an /uploads/ path: libraryMedia), an absolute http(s) URL, or a path on
// the site itself ("/img/a.jpg": a Hugo site's static file, as a Decap
// config's public_folder names them).
func validMedia(v any) error {
	s, ok := v.(string)
	if !ok || libraryMedia(s) {
		return nil
	}
	if u, err := url.Parse(s); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" ||
		err == nil && u.Scheme == "" && u.Host == "" && strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//") && len(s) > 1 {
		return nil
	}
	return errors.New("not a media reference: use media:<id>, /uploads/<key>, a path on the site (/img/a.jpg) or an http(s) URL")
}

// libraryMedia tells whether s names an item of the media library:
// "media:<id>" or an /uploads/ path.
func libraryMedia(s string) bool {
	r, ok := content.ParseRef(s, func(string) bool { return false })
	return ok && r.Kind == content.RefMedia
}

// Violation is one way a document breaks its model.
type Violation struct {
	Line    int    // the line of the offending key; 0 when not known
	Field   string // dotted path of the field ("address.city", "tags.2")
	Message string
	// Warn is a field the model does not declare, with additionalFields:
	// warn: reported, never a reason to reject the document.
	Warn bool
}

func (v Violation) String() string {
	if v.Field == "" {
		return v.Message
	}
	return v.Field + ": " + v.Message
}

var printer = message.NewPrinter(language.English)

// maxViolations bounds the violations reported per document.
const maxViolations = 20

// Validate checks a document's front matter (and Markdown body, as the
// field body) against the model. It is safe for concurrent use.
func (t *Type) Validate(doc *content.Doc) []Violation {
	if t == nil || t.sch == nil || doc == nil {
		return nil
	}
	meta := doc.Meta() // one map, made once when the Doc shares its item's
	inst := meta
	nulls := false
	for _, v := range meta {
		if v == nil {
			nulls = true
			break
		}
	}
	if nulls || (doc.HasBody && t.declared["body"]) {
		// A key without a value ("tags:") is as if absent.
		inst = make(map[string]any, len(meta)+1)
		for k, v := range meta {
			if v != nil {
				inst[k] = v
			}
		}
	}
	if doc.HasBody && t.declared["body"] {
		// The body stays in the repository until served: only its
		// presence is checked.
		inst["body"] = "(Markdown body)"
	}
	var out []Violation
	if err := t.sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return []Violation{{Message: err.Error()}}
		}
		out = flatten(ve, doc, out)
	}
	if t.AdditionalFields == "warn" && t.Fields != nil {
		for _, k := range sortedKeys(meta) {
			if !t.declared[k] && !isBuiltin(k, t.Kind == KindPages) && !(k == "body" && doc.HasBody) {
				out = append(out, Violation{Line: doc.LineOf(k), Field: k, Message: "not a declared field", Warn: true})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Violation) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.Field, b.Field)
	})
	if len(out) > maxViolations {
		n := len(out) - maxViolations
		// The errors are kept before the warnings. The count is a warning when every violation it stands for is
		// one: 21 undeclared keys under additionalFields: warn are no
		// error.
		slices.SortStableFunc(out, func(a, b Violation) int {
			switch {
			case a.Warn == b.Warn:
				return 0
			case b.Warn:
				return -1
			}
			return 1
		})
		warn := true
		for _, v := range out[maxViolations:] {
			warn = warn && v.Warn
		}
		out = append(out[:maxViolations], Violation{Message: fmt.Sprintf("and %d more", n), Warn: warn})
	}
	return out
}

// Invalid tells whether vs holds a violation that is not a warning.
func Invalid(vs []Violation) bool {
	for _, v := range vs {
		if !v.Warn {
			return true
		}
	}
	return false
}

func flatten(e *jsonschema.ValidationError, doc *content.Doc, out []Violation) []Violation {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			out = flatten(c, doc, out)
		}
		return out
	}
	loc := e.InstanceLocation
	line := func(path []string) int {
		if l := doc.LineOf(path...); l > 0 {
			return l
		}
		if doc.KeyLines() != nil {
			return 1
		}
		return 0
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			p := append(slices.Clone(loc), m)
			out = append(out, Violation{Line: line(loc), Field: fieldPath(p), Message: "required, missing"})
		}
		return out
	case *kind.AdditionalProperties:
		for _, m := range k.Properties {
			p := append(slices.Clone(loc), m)
			out = append(out, Violation{Line: line(p), Field: fieldPath(p), Message: "not a declared field (additionalFields: reject)"})
		}
		return out
	case *kind.Group, *kind.Schema, *kind.Reference:
		return out
	}
	return append(out, Violation{Line: line(loc), Field: fieldPath(loc), Message: plain(e.ErrorKind)})
}

func fieldPath(p []string) string { return strings.Join(p, ".") }

// Apply returns data as the API serves it: each missing field that has a
// default with its default, each date and datetime field in RFC 3339
// (2006-01-02 for a date; UTC, 2006-01-02T15:04:05Z for a datetime).
// data itself is not modified; changed is false when it is returned as
// is.
func (t *Type) Apply(data map[string]any) (out map[string]any, changed bool) {
	if t == nil {
		return data, false
	}
	out = data
	set := func(k string, v any) {
		if !changed {
			// a copy of the map as a whole (no key hashed again)
			out = maps.Clone(data)
			if out == nil {
				out = make(map[string]any, len(t.defaults))
			}
			changed = true
		}
		out[k] = v
	}
	for _, f := range t.defaults {
		if v, ok := data[f.Name]; (!ok || v == nil) && !isBuiltin(f.Name, t.Kind == KindPages) {
			set(f.Name, f.Default)
		}
	}
	for _, f := range t.dates {
		v, ok := out[f.Name]
		if !ok {
			continue
		}
		s, isStr := v.(string)
		if !isStr {
			continue
		}
		d, err := content.ParseDate(s)
		if err != nil {
			continue
		}
		norm := d.Format(time.RFC3339Nano)
		if f.Kind == "date" {
			norm = d.Format(time.DateOnly)
		}
		if norm != s {
			set(f.Name, norm)
		}
	}
	return out, changed
}

// itoa is strconv.Itoa, for paths.
var itoa = strconv.Itoa

// Fills tells whether Apply may change an item's data: the type has
// defaults or date fields.
func (t *Type) Fills() bool { return t != nil && (len(t.defaults) > 0 || len(t.dates) > 0) }

// Unique lists the top-level fields declared unique: no two documents of
// the type may have the same value (checked across documents, by the
// engine).
func (t *Type) Unique() []string {
	if t == nil {
		return nil
	}
	return t.unique
}

func (t *Type) findUnique() []string {
	var out []string
	for _, f := range t.Fields {
		if f.Unique {
			out = append(out, f.Name)
		}
	}
	return out
}

// References lists the top-level reference fields (single or lists of
// references) with the types they may name; the engine checks that a
// bare slug names an item of one of them.
func (t *Type) References() map[string][]string {
	if t == nil {
		return nil
	}
	return t.refs
}

func (t *Type) findReferences() map[string][]string {
	var out map[string][]string
	set := func(k string, v []string) {
		if out == nil {
			out = map[string][]string{}
		}
		out[k] = v
	}
	for _, f := range t.Fields {
		switch {
		case f.Kind == "reference":
			set(f.Name, f.To)
		case (f.Kind == "list" || f.Kind == "oneOrList") && f.Of != nil && f.Of.Kind == "reference":
			set(f.Name, f.Of.To)
		}
	}
	return out
}
