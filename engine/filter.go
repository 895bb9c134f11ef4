package engine

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/schema"
	"github.com/folio-cms/folio/media/fault"
)

// Bounds of a filtered list request (docs/content-model.md, "Filtering").
const (
	// MaxFilters is the number of conditions a request may hold.
	MaxFilters = 10
	// MaxFilterValues is the number of values of one in or nin.
	MaxFilterValues = 100
	// MaxFilterValueLen is the length, in bytes, of one value.
	MaxFilterValueLen = 256
	// MaxFilterDepth is the number of names of a dotted path below data.
	MaxFilterDepth = 8
	// MaxContainsValues is the number of distinct values of a field up to
	// which contains is answered: contains looks at each distinct value
	// of the field (not at each item); a field with more is refused.
	MaxContainsValues = 100_000
)

// FilterOps are the operators of filter[<field>][<op>].
var FilterOps = []string{"eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "contains", "startsWith", "exists"}

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

// fieldIndex indexes one field over a list (the items of a type in slug
// order, or the pages in list order): the field's distinct values in
// order, each with the positions of the documents that hold it, and the
// positions of the documents that hold any value.
type fieldIndex struct {
	kind  fkind
	keys  []filterKey
	posts [][]int32 // ascending
	has   []int32   // ascending
	n     int
}

// lazyIndex builds an index once, on first use.
type lazyIndex struct {
	once sync.Once
	idx  atomic.Pointer[fieldIndex]
}

// get returns the index, made by build on the first call.
func (l *lazyIndex) get(build func() *fieldIndex) *fieldIndex {
	l.once.Do(func() { l.idx.Store(build()) })
	return l.idx.Load()
}

// buildIndex indexes field f over n documents; values hands the
// builder each value document i holds at the field (b.value, or b.text
// and b.instant for the built-in fields, which box nothing).
//
// It allocates a few slices and maps, not one thing per document: each
// (document, value) pair is recorded as a group number, then the
// postings are cut from one array by a counting sort.
func buildIndex(f *filterField, n int, values func(i int, b *indexBuilder)) *fieldIndex {
	b := &indexBuilder{f: f, pos: make([]int32, 0, n), gid: make([]int32, 0, n)}
	b.add = b.value
	for i := range n {
		b.cur, b.got = int32(i), false
		values(i, b)
	}
	return b.done(n)
}

// indexBuilder gathers the values of one field over a list.
type indexBuilder struct {
	f        *filterField
	add      func(any) // b.value, made once
	cur      int32     // the document being read
	got      bool      // it has a value
	has      []int32
	keys     []filterKey // by group
	byText   map[string]int32
	byNum    map[float64]int32
	byTime   map[time.Time]int32
	pos, gid []int32 // one (document, group) pair per value
}

// value records a value of the current document; one not of the
// field's kind counts for exists only.
func (b *indexBuilder) value(v any) {
	if v == nil {
		return
	}
	b.present()
	if k, ok := b.f.keyOf(v); ok {
		b.key(k)
	}
}

// text and instant record a value of a built-in field.
func (b *indexBuilder) text(s string) {
	b.present()
	b.key(filterKey{s: s})
}

func (b *indexBuilder) instant(t time.Time) {
	b.present()
	b.key(filterKey{t: t.UTC().Round(0)})
}

func (b *indexBuilder) present() {
	if !b.got {
		b.has = append(b.has, b.cur)
		b.got = true
	}
}

func (b *indexBuilder) key(k filterKey) {
	var g int32
	var ok bool
	switch b.f.kind {
	case kText:
		if b.byText == nil {
			b.byText = map[string]int32{}
		}
		if g, ok = b.byText[k.s]; !ok {
			g = int32(len(b.keys))
			b.byText[k.s] = g
		}
	case kNumber, kBool:
		if b.byNum == nil {
			b.byNum = map[float64]int32{}
		}
		if g, ok = b.byNum[k.n]; !ok {
			g = int32(len(b.keys))
			b.byNum[k.n] = g
		}
	case kTime:
		if b.byTime == nil {
			b.byTime = map[time.Time]int32{}
		}
		if g, ok = b.byTime[k.t]; !ok {
			g = int32(len(b.keys))
			b.byTime[k.t] = g
		}
	default:
		return
	}
	if !ok {
		b.keys = append(b.keys, k)
	}
	b.pos = append(b.pos, b.cur)
	b.gid = append(b.gid, g)
}

func (b *indexBuilder) done(n int) *fieldIndex {
	kind := b.f.kind
	ng := len(b.keys)
	// Groups in key order.
	order := make([]int32, ng)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return compareKeys(kind, b.keys[x], b.keys[y]) })
	rankOf := make([]int32, ng)
	for r, g := range order {
		rankOf[g] = int32(r)
	}
	// Counting sort of the pairs by rank; documents stay ascending
	// within a group, a document listed twice (a list holding a value
	// twice) is kept once.
	start := make([]int32, ng+1)
	for _, g := range b.gid {
		start[rankOf[g]+1]++
	}
	for r := range ng {
		start[r+1] += start[r]
	}
	all := make([]int32, len(b.pos))
	fill := slices.Clone(start[:ng])
	for i, p := range b.pos {
		r := rankOf[b.gid[i]]
		if f := fill[r]; f > start[r] && all[f-1] == p {
			continue
		}
		all[fill[r]] = p
		fill[r]++
	}
	idx := &fieldIndex{kind: kind, n: n, has: b.has, keys: make([]filterKey, ng), posts: make([][]int32, ng)}
	for r, g := range order {
		idx.keys[r] = b.keys[g]
		idx.posts[r] = all[start[r]:fill[r]:fill[r]]
	}
	return idx
}

// walkValues calls fn with each value at path below v, lists flattened
// at every level.
func walkValues(v any, path []string, fn func(any)) {
	switch x := v.(type) {
	case nil:
		return
	case []any:
		for _, e := range x {
			walkValues(e, path, fn)
		}
		return
	}
	if len(path) == 0 {
		fn(v)
		return
	}
	if m, ok := v.(map[string]any); ok {
		walkValues(m[path[0]], path[1:], fn)
	}
}

// itemValues hands b what an item holds at a filter field.
func itemValues(b *indexBuilder, f *filterField, it *content.Item) {
	switch f.builtin {
	case "publishedAt":
		b.instant(it.PublishedAt)
	case "updatedAt":
		b.instant(it.UpdatedAt)
	case "slug":
		b.text(it.Slug)
	case "title":
		b.text(it.Title)
	default:
		if v, ok := it.Data[f.path[0]]; ok {
			walkValues(v, f.path[1:], b.add)
		}
	}
}

// bitset is a set of positions.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int32)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) addAll(post []int32) {
	for _, p := range post {
		b.set(p)
	}
}

func (b bitset) and(o bitset) {
	for i := range b {
		b[i] &= o[i]
	}
}

// not complements the set over n positions.
func (b bitset) not(n int) {
	for i := range b {
		b[i] = ^b[i]
	}
	if r := n & 63; r != 0 && len(b) > 0 {
		b[len(b)-1] &= 1<<uint(r) - 1
	}
}

func (b bitset) count() int {
	c := 0
	for _, w := range b {
		c += bits.OnesCount64(w)
	}
	return c
}

// match is the set of positions a condition keeps. The cost is that of
// the postings it reads (the matching documents), plus, for contains,
// one look at each distinct value of the field.
func (idx *fieldIndex) match(c *cond) (bitset, error) {
	b := newBitset(idx.n)
	find := func(k filterKey) (int, bool) {
		return slices.BinarySearchFunc(idx.keys, k, func(a, b filterKey) int { return compareKeys(idx.kind, a, b) })
	}
	union := func(from, to int) {
		for i := from; i < to; i++ {
			b.addAll(idx.posts[i])
		}
	}
	switch c.op {
	case "exists":
		b.addAll(idx.has)
		if !c.exists {
			b.not(idx.n)
		}
	case "eq", "ne", "in", "nin":
		for _, k := range c.keys {
			if i, ok := find(k); ok {
				b.addAll(idx.posts[i])
			}
		}
		if c.op == "ne" || c.op == "nin" {
			b.not(idx.n)
		}
	case "gt", "gte":
		i, found := find(c.keys[0])
		if found && c.op == "gt" {
			i++
		}
		union(i, len(idx.keys))
	case "lt", "lte":
		i, found := find(c.keys[0])
		if found && c.op == "lte" {
			i++
		}
		union(0, i)
	case "startsWith":
		p := c.keys[0].s
		i, _ := find(c.keys[0])
		j := i
		for j < len(idx.keys) && strings.HasPrefix(idx.keys[j].s, p) {
			j++
		}
		union(i, j)
	case "contains":
		if len(idx.keys) > MaxContainsValues {
			return nil, badFilter(c.f.name, "contains: the field has more than %d distinct values; use eq, in or startsWith", MaxContainsValues)
		}
		s := c.keys[0].s
		for i, k := range idx.keys {
			if strings.Contains(k.s, s) {
				b.addAll(idx.posts[i])
			}
		}
	}
	return b, nil
}

// selection is the set of positions all conditions keep.
func selection(cs []cond, n int, index func(f *filterField) *fieldIndex) (bitset, error) {
	var all bitset
	for i := range cs {
		m, err := index(&cs[i].f).match(&cs[i])
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = m
		} else {
			all.and(m)
		}
	}
	if all == nil {
		all = newBitset(n)
		all.not(n)
	}
	return all, nil
}

func indexKey(f *filterField) string {
	k := strconv.Itoa(int(f.kind)) + f.name
	if f.orString {
		k += "\x00s"
	}
	return k
}

// FilterItems returns the page [offset, offset+limit) of the items that
// match every condition of the items of t (a list of v), in the order of sort (as Sorted takes it), the
// number of matching items, the canonical sort and the canonical
// conditions (for ETags). A condition on a field the type's model does
// not declare, with an unknown operator or a value not of the field's
// kind is a fault.Invalid error naming the field.
//
// Each field's index is built on the first request that filters on it,
// once per list (a reload builds the lists of the types it changed
// afresh, and keeps the others with their indexes).
func (v *View) FilterItems(t *TypeList, conds []FilterCond, sort string, offset, limit int) (page []*Resource, total int, canonSort, canonConds string, err error) {
	var model *schema.Type
	if v.snap != nil {
		model = v.snap.Model.Of(t.Name)
	}
	cs, err := parseConds(model, conds, false)
	if err != nil {
		return nil, 0, "", "", err
	}
	sl, canonSort, err := t.sortedList(sort)
	if err != nil {
		return nil, 0, "", "", err
	}
	n := len(t.items)
	sel, err := selection(cs, n, func(f *filterField) *fieldIndex {
		key := indexKey(f)
		li, _ := t.indexes.LoadOrStore(key, &lazyIndex{})
		return li.(*lazyIndex).get(func() *fieldIndex {
			if t.prev != nil {
				if old := t.prev.indexes[key]; old != nil {
					return t.patchIndex(old, f)
				}
			}
			return buildIndex(f, n, func(i int, b *indexBuilder) { itemValues(b, f, t.items[i].item) })
		})
	})
	if err != nil {
		return nil, 0, "", "", err
	}
	total = sel.count()
	return sl.window(sel, total, offset, limit), total, canonSort, canonical(cs), nil
}

// window picks the page [offset, offset+limit) of the selected positions
// in the list's order: by walking the order when matches are dense
// enough to fill the page soon, else by ranking the matches.
func (sl *sortedList) window(sel bitset, total, offset, limit int) []*Resource {
	n := len(sl.perm)
	if offset >= total || limit <= 0 {
		return []*Resource{}
	}
	want := min(offset+limit, total)
	out := make([]*Resource, 0, min(limit, total-offset))
	if want < total && float64(want)*float64(n)/float64(total) < float64(total)*8+float64(n)/64 {
		seen := 0
		for rank, pos := range sl.perm {
			if !sel.has(pos) {
				continue
			}
			if seen >= offset {
				out = append(out, sl.res[rank])
				if len(out) == limit {
					break
				}
			}
			seen++
		}
		return out
	}
	rank := sl.ranks()
	ranks := make([]int32, 0, total)
	for w, word := range sel {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			ranks = append(ranks, rank[w*64+b])
			word &= word - 1
		}
	}
	slices.Sort(ranks)
	for _, r := range ranks[offset:want] {
		out = append(out, sl.res[r])
	}
	return out
}

// FilterPages returns the page [offset, offset+limit) of the page
// summaries, in list order, that match every condition (built-in fields
// only), their number and the canonical conditions.
func (v *View) FilterPages(conds []FilterCond, offset, limit int) (page []*Resource, total int, canonConds string, err error) {
	cs, err := parseConds(nil, conds, true)
	if err != nil {
		return nil, 0, "", err
	}
	n := len(v.pages)
	sel, err := selection(cs, n, func(f *filterField) *fieldIndex {
		li, _ := v.pageIndexes.LoadOrStore(indexKey(f), &lazyIndex{})
		return li.(*lazyIndex).get(func() *fieldIndex {
			return buildIndex(f, n, func(i int, b *indexBuilder) {
				p, _ := docValue(v.pages[i].full.value).(*content.Page)
				if p == nil {
					return
				}
				switch f.builtin {
				case "publishedAt":
					b.instant(p.PublishedAt)
				case "updatedAt":
					b.instant(p.UpdatedAt)
				case "slug":
					b.text(p.Slug)
				case "title":
					b.text(p.Title)
				}
			})
		})
	})
	if err != nil {
		return nil, 0, "", err
	}
	total = sel.count()
	page = []*Resource{}
	seen := 0
	for w, word := range sel {
		for word != 0 && len(page) < limit {
			b := bits.TrailingZeros64(word)
			if seen >= offset {
				page = append(page, v.pages[w*64+b].summary)
			}
			seen++
			word &= word - 1
		}
	}
	return page, total, canonical(cs), nil
}

// sortedList is one order of a type's items: the resources in order, and
// the position (in slug order) of each; ranks, the inverse, is made on
// first use.
type sortedList struct {
	res      []*Resource
	perm     []int32
	rankOnce sync.Once
	rank     []int32
}

func (sl *sortedList) ranks() []int32 {
	sl.rankOnce.Do(func() {
		sl.rank = make([]int32, len(sl.perm))
		for r, p := range sl.perm {
			sl.rank[p] = int32(r)
		}
	})
	return sl.rank
}

// sortField reads a sort parameter that names a data field as
// data.<field> (as filters do) as the bare name.
func sortField(s string) string {
	desc := strings.HasPrefix(s, "-")
	if f, ok := strings.CutPrefix(strings.TrimPrefix(s, "-"), "data."); ok {
		if desc {
			return "-" + f
		}
		return f
	}
	return s
}

// FilterField is a field a type's lists filter on, for documentation
// (the OpenAPI document): its name in filter[<name>], the kind its
// values compare as and the operators it takes.
type FilterField struct {
	Name string
	Kind string // "text", "number", "boolean", "date" or "any"
	Ops  []string
}

// FilterFields lists the fields the lists of a type with model t (nil:
// none) filter on: the built-in ones, then every declared path below
// data, in the order of the model.
func FilterFields(t *schema.Type) []FilterField {
	var out []FilterField
	for _, name := range []string{"publishedAt", "updatedAt", "slug", "title"} {
		k := builtinFilters[name]
		out = append(out, FilterField{Name: name, Kind: k.String(), Ops: opsOf(k)})
	}
	if t == nil {
		return out
	}
	add := func(path []string) {
		f, err := resolveField(t, "data."+strings.Join(path, "."), false)
		if err == nil {
			out = append(out, FilterField{Name: f.name, Kind: f.kind.String(), Ops: opsOf(f.kind)})
		}
	}
	var walkFields func(fields []*schema.Field, path []string)
	walkFields = func(fields []*schema.Field, path []string) {
		if len(path) >= MaxFilterDepth {
			return
		}
		for _, f := range fields {
			p := append(slices.Clone(path), f.Name)
			add(p)
			for f.Kind == "list" && f.Of != nil {
				f = f.Of
			}
			if f.Kind == "object" {
				walkFields(f.Fields, p)
			}
		}
	}
	var walkSchema func(s map[string]any, path []string)
	walkSchema = func(s map[string]any, path []string) {
		if len(path) >= MaxFilterDepth {
			return
		}
		props, _ := arrayItems(s)["properties"].(map[string]any)
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			p := append(slices.Clone(path), n)
			add(p)
			if ps, ok := props[n].(map[string]any); ok {
				walkSchema(ps, p)
			}
		}
	}
	if t.Fields != nil {
		walkFields(t.Fields, nil)
	} else {
		walkSchema(t.Data, nil)
	}
	return out
}

// listPrev is what a list that a reload patched from its predecessor
// (patchView) takes over: the predecessor's items, and the sorts and
// filter indexes it had built by then. A sort or index asked of the new
// list is that of the predecessor patched (the items gone taken out,
// positions moved, the items added put in: a pass over its arrays, no
// item read but the added ones) rather than made afresh. Only one
// generation back: the predecessor's own predecessor is never kept.
type listPrev struct {
	items   []*itemEntry
	sorted  map[string]*sortedList
	indexes map[string]*fieldIndex

	once   sync.Once
	posMap []int32 // the predecessor's positions to the list's; -1: gone
	added  []int32 // the list's positions of the entries the predecessor lacked, ascending
}

// prevCaches is what the list patched from ptl may take over; nil when
// ptl built no sort and no index.
func prevCaches(ptl *TypeList) *listPrev {
	p := &listPrev{items: ptl.items, sorted: map[string]*sortedList{}, indexes: map[string]*fieldIndex{}}
	ptl.sorted.Range(func(k, v any) bool {
		p.sorted[k.(string)] = v.(*sortedList)
		return true
	})
	ptl.indexes.Range(func(k, v any) bool {
		if idx := v.(*lazyIndex).idx.Load(); idx != nil {
			p.indexes[k.(string)] = idx
		}
		return true
	})
	if len(p.sorted)+len(p.indexes) == 0 {
		return nil
	}
	return p
}

// mapping compares the predecessor's items with the list's (both by
// slug; an entry kept is the same pointer), once.
func (p *listPrev) mapping(items []*itemEntry) {
	p.once.Do(func() {
		old := p.items
		p.posMap = make([]int32, len(old))
		i, j := 0, 0
		for i < len(old) || j < len(items) {
			switch {
			case i < len(old) && j < len(items) && old[i] == items[j]:
				p.posMap[i] = int32(j)
				i++
				j++
			case j == len(items) || (i < len(old) && old[i].item.Slug <= items[j].item.Slug):
				p.posMap[i] = -1
				i++
			default:
				p.added = append(p.added, int32(j))
				j++
			}
		}
	})
}

// patchSorted is the order old (of the predecessor) for the list's items.
func (t *TypeList) patchSorted(old *sortedList, field string, desc bool) *sortedList {
	p := t.prev
	p.mapping(t.items)
	perm := make([]int32, 0, len(t.items))
	for _, op := range old.perm {
		if np := p.posMap[op]; np >= 0 {
			perm = append(perm, np)
		}
	}
	for _, a := range p.added {
		it := t.items[a].item
		k, _ := slices.BinarySearchFunc(perm, a, func(x, _ int32) int { return content.CompareItems(t.items[x].item, it, field, desc) })
		perm = slices.Insert(perm, k, a)
	}
	res := make([]*Resource, len(perm))
	for i, q := range perm {
		res[i] = t.items[q].res
	}
	return &sortedList{res: res, perm: perm}
}

// patchIndex is old (the predecessor's index of f) for the list's items.
func (t *TypeList) patchIndex(old *fieldIndex, f *filterField) *fieldIndex {
	p := t.prev
	p.mapping(t.items)
	remap := func(post []int32, dst []int32) []int32 {
		for _, op := range post {
			if np := p.posMap[op]; np >= 0 {
				dst = append(dst, np)
			}
		}
		return dst
	}
	total := 0
	for _, post := range old.posts {
		total += len(post)
	}
	all := make([]int32, 0, total) // never grows: the postings are cut from it
	idx := &fieldIndex{kind: old.kind, n: len(t.items), keys: make([]filterKey, 0, len(old.keys)), posts: make([][]int32, 0, len(old.posts))}
	for r, post := range old.posts {
		from := len(all)
		all = remap(post, all)
		if len(all) > from { // a value no item holds any more is dropped
			idx.keys = append(idx.keys, old.keys[r])
			idx.posts = append(idx.posts, all[from:len(all):len(all)])
		}
	}
	idx.has = remap(old.has, make([]int32, 0, len(old.has)+len(p.added)))
	if len(p.added) == 0 {
		return idx
	}
	add := buildIndex(f, len(p.added), func(i int, b *indexBuilder) { itemValues(b, f, t.items[p.added[i]].item) })
	at := func(post []int32) []int32 {
		out := make([]int32, len(post))
		for i, a := range post {
			out[i] = p.added[a]
		}
		return out
	}
	for r, k := range add.keys {
		news := at(add.posts[r])
		i, found := slices.BinarySearchFunc(idx.keys, k, func(a, b filterKey) int { return compareKeys(idx.kind, a, b) })
		if found {
			idx.posts[i] = mergePositions(idx.posts[i], news)
			continue
		}
		idx.keys = slices.Insert(idx.keys, i, k)
		idx.posts = slices.Insert(idx.posts, i, news)
	}
	idx.has = mergePositions(idx.has, at(add.has))
	return idx
}

// mergePositions merges two ascending lists into a new one.
func mergePositions(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] < b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
