package repr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/folio-cms/folio/engine"
)

// The top-level fields of each kind of resource, in the order their JSON
// has them.
var (
	ItemFields        = []string{"id", "type", "title", "slug", "data", "publishedAt", "updatedAt", "path", "titleFromFile", "locale", "fallback", "translations"}
	PageFields        = []string{"id", "slug", "title", "isHomepage", "sections", "seo", "publishedAt", "updatedAt", "data", "path", "titleFromFile", "locale", "fallback", "translations"}
	PageSummaryFields = []string{"id", "slug", "title", "isHomepage", "publishedAt", "updatedAt", "path", "titleFromFile", "locale", "fallback", "translations"}
)

// ErrUnknownField is a `fields` entry that names no top-level field.
var ErrUnknownField = errors.New("unknown field")

// Fields is a parsed `fields` parameter (or the list default that leaves
// out data.body): which parts of a resource's JSON to serve.
type Fields struct {
	key   string   // canonical form: sorted, deduplicated paths ("-" first when omitting)
	omit  bool     // the paths are left out, everything else kept
	order []string // top-level order of the output; nil: sorted
	root  *fieldNode
}

type fieldNode struct {
	all  bool // the whole value
	kids map[string]*fieldNode
}

// Key is the canonical form of f, for ETags; "" for nil (everything).
func (f *Fields) Key() string {
	if f == nil {
		return ""
	}
	return f.key
}

// maxFieldPaths and maxFieldDepth bound what a client can ask for.
const (
	maxFieldPaths = 64
	maxFieldDepth = 8
)

// ParseFields reads `fields`: comma-separated names, each a top-level
// field of allowed (order) or, with dots, a path into an object-valued
// field ("data.excerpt", "seo.title"). allowed nil accepts any top-level
// name (globals, whose keys vary by site: a name the resource lacks is
// then simply absent). An empty raw is nil: everything. An unknown
// top-level name is ErrUnknownField.
func ParseFields(raw string, allowed []string) (*Fields, error) {
	if raw == "" {
		return nil, nil
	}
	f := &Fields{order: allowed, root: &fieldNode{}}
	var paths []string
	for p := range strings.SplitSeq(raw, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("%w: empty name in %q", ErrUnknownField, raw)
		}
		segs := strings.Split(p, ".")
		if len(segs) > maxFieldDepth || slices.Contains(segs, "") {
			return nil, fmt.Errorf("%w: %q is not a field or a dotted path (at most %d parts)", ErrUnknownField, p, maxFieldDepth)
		}
		if allowed != nil && !slices.Contains(allowed, segs[0]) {
			return nil, fmt.Errorf("%w: %q (known: %s)", ErrUnknownField, segs[0], strings.Join(allowed, ", "))
		}
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
		if len(paths) > maxFieldPaths {
			return nil, fmt.Errorf("%w: more than %d fields", ErrUnknownField, maxFieldPaths)
		}
		f.root.add(segs)
	}
	slices.Sort(paths)
	f.key = strings.Join(paths, ",")
	return f, nil
}

func (n *fieldNode) add(segs []string) {
	for _, s := range segs {
		if n.all {
			return
		}
		if n.kids == nil {
			n.kids = map[string]*fieldNode{}
		}
		k := n.kids[s]
		if k == nil {
			k = &fieldNode{}
			n.kids[s] = k
		}
		n = k
	}
	n.all, n.kids = true, nil
}

// WithoutBody is the list default of a type with `listBody: false`: every
// field but data.body.
var WithoutBody = &Fields{key: "-data.body", omit: true, order: ItemFields,
	root: &fieldNode{kids: map[string]*fieldNode{"data": {kids: map[string]*fieldNode{"body": {all: true}}}}}}

// maxProjections bounds the projections a resource keeps (the field
// sets are the client's choice); beyond it they are made per request.
const maxProjections = 8

type projections struct {
	m sync.Map // Fields.key -> *Resource
	n atomic.Int32
}

// Project returns res narrowed to f (res itself for nil), with an ETag
// of its own that also names the field set, and res's surrogate keys.
// The first few field sets asked of a resource are kept with it, so they
// are encoded and compressed once too.
func Project(res *engine.Resource, f *Fields) (*engine.Resource, error) {
	if f == nil {
		return res, nil
	}
	body, _, err := res.Body()
	if err != nil {
		return nil, err
	}
	proj := &keptOf(res).proj
	if p, ok := proj.m.Load(f.key); ok {
		return p.(*engine.Resource), nil
	}
	var out []byte
	if f.omit {
		out = omitFields(body, f.root, f.order)
	} else {
		out, _ = keepFields(body, f.root, f.order)
	}
	p, err := res.WithBody(out, engine.ETag(append([]byte(f.key+"\x00"), out...)))
	if err != nil {
		return nil, err
	}
	if proj.n.Load() >= maxProjections {
		return p, nil
	}
	if got, loaded := proj.m.LoadOrStore(f.key, p); loaded {
		return got.(*engine.Resource), nil
	}
	proj.n.Add(1)
	return p, nil
}

// keepFields writes the parts of the JSON object raw that n names, keys in
// order (sorted when nil, as encoding/json writes maps); false when raw is
// not an object.
func keepFields(raw []byte, n *fieldNode, order []string) ([]byte, bool) {
	if n.all {
		return raw, true
	}
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	keys := order
	if keys == nil {
		keys = make([]string, 0, len(n.kids))
		for k := range n.kids {
			keys = append(keys, k)
		}
		slices.Sort(keys)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for _, k := range keys {
		kid, ok := n.kids[k]
		if !ok {
			continue
		}
		v, ok := m[k]
		if !ok {
			continue
		}
		sub, ok := keepFields(v, kid, nil)
		if !ok {
			continue
		}
		writeMember(&b, k, sub)
	}
	b.WriteByte('}')
	return b.Bytes(), true
}

// omitFields writes the JSON object raw without the parts n names.
func omitFields(raw []byte, n *fieldNode, order []string) []byte {
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return raw
	}
	keys := order
	if keys == nil {
		keys = make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			continue
		}
		if kid := n.kids[k]; kid != nil {
			if kid.all {
				continue
			}
			v = omitFields(v, kid, nil)
		}
		writeMember(&b, k, v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func writeMember(b *bytes.Buffer, k string, v []byte) {
	if b.Len() > 1 {
		b.WriteByte(',')
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.Encode(k) // a string always encodes
	b.Truncate(b.Len() - 1)
	b.WriteByte(':')
	b.Write(v)
}
