package content

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// fields reads the top-level keys of one document. Known keys are matched
// case-insensitively (Hugo lower-cases front matter keys, so "publishDate"
// and "publishdate" are the same key); every key not taken stays for Data.
type fields struct {
	m     map[string]any
	doc   *Doc              // its lines, read when a problem needs one
	low   map[string]string // lower-case key -> key as written, for known names
	taken map[string]bool
}

func newFields(doc *Doc, known []string) (*fields, error) {
	f := &fields{m: doc.Meta, doc: doc, low: map[string]string{}, taken: map[string]bool{}}
	want := make(map[string]bool, len(known))
	for _, k := range known {
		want[k] = true
	}
	for k := range doc.Meta {
		lk := strings.ToLower(k)
		if !want[lk] {
			continue
		}
		if prev, dup := f.low[lk]; dup {
			a, b := prev, k
			if b < a {
				a, b = b, a
			}
			return nil, problemAt(f.line(b), "keys %q and %q are the same key; keep one", a, b)
		}
		f.low[lk] = k
	}
	return f, nil
}

// get returns the value of known key name (lower-case) and takes it.
func (f *fields) get(name string) (any, bool) {
	k, ok := f.low[name]
	if !ok {
		return nil, false
	}
	f.taken[k] = true
	return f.m[k], true
}

// untake gives a key back to Data.
func (f *fields) untake(name string) { delete(f.taken, f.low[name]) }

// line is the file line of known key name (lower-case) or of a key as
// written; 0 when not known.
func (f *fields) line(name string) int {
	if k, ok := f.low[name]; ok {
		name = k
	}
	return f.doc.KeyLines()[name]
}

// rest returns the keys not taken, in a new map; values are shared with
// the Doc and must not be modified.
func (f *fields) rest() map[string]any {
	out := make(map[string]any, len(f.m)-len(f.taken)+1)
	for k, v := range f.m {
		if !f.taken[k] {
			out[k] = v
		}
	}
	return out
}

func (f *fields) errorf(name, format string, args ...any) error {
	return problemAt(f.line(name), "%s: %s", f.low[name], fmt.Sprintf(format, args...))
}

// text reads a plain value as a string: strings as they are, numbers and
// booleans as written. Maps and lists are an error.
func (f *fields) text(name string) (string, error) {
	v, ok := f.get(name)
	if !ok {
		return "", nil
	}
	s, ok := scalarText(v)
	if !ok {
		return "", f.errorf(name, "want a single value, found %s", kindOf(v))
	}
	return s, nil
}

func (f *fields) boolean(name string) (val, set bool, err error) {
	v, ok := f.get(name)
	if !ok || v == nil {
		return false, false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, false, f.errorf(name, "want true or false, found %s", kindOf(v))
	}
	return b, true, nil
}

// date reads the first of names that is set (they are aliases in order of
// precedence); the others are taken too.
func (f *fields) date(names ...string) (time.Time, bool, error) {
	var (
		t     time.Time
		found bool
	)
	for _, n := range names {
		v, ok := f.get(n)
		if !ok || v == nil || found {
			continue
		}
		d, err := parseDate(v)
		if err != nil {
			return time.Time{}, false, f.errorf(n, "%v", err)
		}
		t, found = d, true
	}
	return t, found, nil
}

func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano), true
	}
	return "", false
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a map"
	case []any:
		return "a list"
	case string:
		return "text"
	case nil:
		return "nothing"
	case bool:
		return "true/false"
	case int64, float64:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
