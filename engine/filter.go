package engine

import (
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/schema"
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

// FilterItems returns the page [offset, offset+limit) of the items that
// match every condition of the items of t (a list of v), in the order of sort (as Sorted takes it), the
// number of matching items, the canonical sort and the canonical
// conditions (for ETags). A condition on a field the type's model does
// not declare, with an unknown operator or a value not of the field's
// kind is a fault.Invalid error naming the field.
//
// Each field's index is built on the first request that filters on it,
// once per list (a reload builds the lists of the types it changed
// afresh, and keeps the others with their indexes). The matches of the
// recent queries are kept in the list's order (matchCache): a later page
// of the same query, at any offset, costs its own items only.
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
	canonConds = canonical(cs)
	key := canonSort + "\x00" + canonConds
	if ranks, ok := t.matches.get(key); ok {
		return sl.pageOf(ranks, offset, limit), len(ranks), canonSort, canonConds, nil
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
	if total > matchCacheRanks {
		return sl.window(sel, total, offset, limit), total, canonSort, canonConds, nil
	}
	ranks := sl.matchRanks(sel, total)
	t.matches.put(key, ranks)
	return sl.pageOf(ranks, offset, limit), total, canonSort, canonConds, nil
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
