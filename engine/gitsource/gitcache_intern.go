package gitsource

// A site's documents repeat the same front-matter keys (title, date,
// tags) and many of the same short values (an author, a category, a
// tag), and a restart decodes them from the parse cache one document at
// a time: made anew each time they cost a string per key, and a string
// and its box (the 16-byte header an `any` holding a string points to)
// per value. An interner makes each one once per cache file, and the
// documents share it (strings are immutable, and so is a boxed one).

const (
	// internMaxLen: longer values are taken for unique (a title, an
	// excerpt, a URL) and not looked up; keys are interned up to
	// internMaxKey bytes.
	internMaxLen = 32
	internMaxKey = 64
	// internMaxEntries bounds the tables (held while one cache file is
	// decoded, then dropped): past it, new strings are made as before.
	internMaxEntries = 1 << 16
)

// interner holds the strings, and the boxed strings, of one decode.
type interner struct {
	strs map[string]string
	vals map[string]any
}

func newInterner() *interner {
	return &interner{strs: map[string]string{}, vals: map[string]any{}}
}

// str is string(b), the same string for the same bytes.
func (in *interner) str(b []byte) string {
	if len(b) > internMaxKey {
		return string(b)
	}
	if s, ok := in.strs[string(b)]; ok { // no allocation for the lookup
		return s
	}
	s := string(b)
	if len(in.strs) < internMaxEntries {
		in.strs[s] = s
	}
	return s
}

// value is string(b) in an `any`, the same box for the same bytes when
// they are short.
func (in *interner) value(b []byte) any {
	if len(b) > internMaxLen {
		return string(b)
	}
	if v, ok := in.vals[string(b)]; ok {
		return v
	}
	var v any = in.str(b)
	if len(in.vals) < internMaxEntries {
		in.vals[v.(string)] = v
	}
	return v
}
