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
//
// Every page and item of a site is read through one (a restart reads them
// all), so it keeps the few known keys a document has in a slice rather
// than in maps made for each document.
type fields struct {
	fm    *frontMatter // the document's keys
	doc   *Doc         // its lines, read when a problem needs one
	n     int          // known[:n] are the known names the document has
	known [maxKnownKeys]knownKey
}

// maxKnownKeys bounds the known names of a keySet: a document has each at
// most once, so they fit fields' array (no slice into itself, which would
// put every fields on the heap).
const maxKnownKeys = 20

// knownKey is a known name (lower case) a document has, the key as
// written, and whether it was taken.
type knownKey struct {
	low, key string
	taken    bool
}

// keySet is a list of known names, lower case, to look keys up in.
type keySet struct {
	names  map[string]bool
	maxLen int // of the names (all ASCII)
}

func newKeySet(names []string) *keySet {
	if len(names) > maxKnownKeys {
		panic("content: more known keys than maxKnownKeys")
	}
	ks := &keySet{names: make(map[string]bool, len(names))}
	for _, n := range names {
		ks.names[n] = true
		ks.maxLen = max(ks.maxLen, len(n))
	}
	return ks
}

// lower is the known name key k is, lower-cased; false when none.
func (ks *keySet) lower(k string) (string, bool) {
	if ks.names[k] {
		return k, true
	}
	ascii, upper := true, false
	for i := 0; i < len(k); i++ {
		c := k[i]
		ascii = ascii && c < 0x80
		upper = upper || ('A' <= c && c <= 'Z')
	}
	if ascii && (!upper || len(k) > ks.maxLen) {
		return "", false // lower case already, or too long to lower into a name
	}
	lk := strings.ToLower(k)
	return lk, ks.names[lk]
}

// init reads doc's keys into f, which the caller declares on its stack.
// (A fields made on the heap for each document, 280 bytes, was garbage of
// the size class of the items' Data maps, 288: it left half of each of
// their spans free after a start.)
func (f *fields) init(doc *Doc, known *keySet) error {
	*f = fields{fm: doc.fm.Load(), doc: doc}
	if f.fm == nil {
		f.fm = &frontMatter{}
	}
	for k := range f.fm.all {
		lk, ok := known.lower(k)
		if !ok {
			continue
		}
		if i := f.find(lk); i >= 0 {
			a, b := f.known[i].key, k
			if b < a {
				a, b = b, a
			}
			return problemAt(f.line(b), "keys %q and %q are the same key; keep one", a, b)
		}
		f.known[f.n] = knownKey{low: lk, key: k}
		f.n++
	}
	return nil
}

// find is the index in f.known of known name (lower case); -1 when the
// document does not have it.
func (f *fields) find(name string) int {
	for i := range f.n {
		if f.known[i].low == name {
			return i
		}
	}
	return -1
}

// get returns the value of known key name (lower-case) and takes it.
func (f *fields) get(name string) (any, bool) {
	i := f.find(name)
	if i < 0 {
		return nil, false
	}
	f.known[i].taken = true
	return f.fm.value(f.known[i].key)
}

// untake gives a key back to Data.
func (f *fields) untake(name string) {
	if i := f.find(name); i >= 0 {
		f.known[i].taken = false
	}
}

// written is known name as the document writes it; "" when it does not.
func (f *fields) written(name string) string {
	if i := f.find(name); i >= 0 {
		return f.known[i].key
	}
	return ""
}

// line is the file line of known key name (lower-case) or of a key as
// written; 0 when not known.
func (f *fields) line(name string) int {
	if i := f.find(name); i >= 0 {
		name = f.known[i].key
	}
	return f.doc.KeyLines()[name]
}

// rest returns the keys not taken, in a new map; values are shared with
// the Doc and must not be modified.
func (f *fields) rest() map[string]any {
	taken := 0
	for _, k := range f.known[:f.n] {
		if k.taken {
			taken++
		}
	}
	out := make(map[string]any, f.fm.len()-taken+1)
	for k, v := range f.fm.all {
		if taken == 0 || !f.taken(k) {
			out[k] = v
		}
	}
	return out
}

// taken tells whether key k (as written) was taken.
func (f *fields) taken(k string) bool {
	for _, kk := range f.known[:f.n] {
		if kk.taken && kk.key == k {
			return true
		}
	}
	return false
}

func (f *fields) errorf(name, format string, args ...any) error {
	return problemAt(f.line(name), "%s: %s", f.written(name), fmt.Sprintf(format, args...))
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
