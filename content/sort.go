package content

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SortItems sorts items in place by field (as ParseSort returns it),
// descending when desc. See CompareItems for the order.
func SortItems(items []*Item, field string, desc bool) {
	slices.SortFunc(items, func(a, b *Item) int { return CompareItems(a, b, field, desc) })
}

// CompareItems orders two items by field: publishedAt and updatedAt by
// time, title and slug as text (case-insensitive first), any other field
// by Item.Data[field]: numbers before text before true/false; items with
// no such value (or a map or list) come last in both directions. Ties are
// broken by slug, then id, ascending, so the order is total and stable
// across reloads.
func CompareItems(a, b *Item, field string, desc bool) int {
	var c int
	switch field {
	case "publishedAt":
		c = a.PublishedAt.Compare(b.PublishedAt)
	case "updatedAt":
		c = a.UpdatedAt.Compare(b.UpdatedAt)
	case "title":
		c = compareText(a.Title, b.Title)
	case "slug":
		c = compareText(a.Slug, b.Slug)
	default:
		va, vb := sortValue(a.Data[field]), sortValue(b.Data[field])
		ra, rb := rank(va), rank(vb)
		if ra == rankNone || rb == rankNone {
			if ra != rb {
				return cmp.Compare(ra, rb) // missing last, whatever desc says
			}
		} else if ra != rb {
			c = cmp.Compare(ra, rb)
		} else {
			c = compareValues(va, vb)
		}
	}
	if desc {
		c = -c
	}
	if c != 0 {
		return c
	}
	if c = strings.Compare(a.Slug, b.Slug); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

const (
	rankNumber = iota
	rankText
	rankBool
	rankNone
)

// sortValue is a data value as it sorts: a Markdown body by its HTML, the
// text it is served as.
func sortValue(v any) any {
	if m, ok := v.(Markdown); ok {
		return m.HTML()
	}
	return v
}

func rank(v any) int {
	switch v.(type) {
	case int64, float64, int:
		return rankNumber
	case string:
		return rankText
	case bool:
		return rankBool
	}
	return rankNone
}

func compareValues(a, b any) int {
	switch x := a.(type) {
	case string:
		return compareText(x, b.(string))
	case bool:
		y := b.(bool)
		if x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	}
	return compareNumbers(a, b)
}

func compareNumbers(a, b any) int {
	ai, aInt := asInt(a)
	bi, bInt := asInt(b)
	if aInt && bInt {
		return cmp.Compare(ai, bi)
	}
	return cmp.Compare(asFloat(a), asFloat(b))
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	}
	return 0, false
}

func asFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case int:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// compareText compares case-insensitively, then byte-wise to break ties,
// without allocating.
func compareText(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ra, na := utf8.DecodeRuneInString(a[i:])
		rb, nb := utf8.DecodeRuneInString(b[j:])
		if ra != rb {
			if la, lb := unicode.ToLower(ra), unicode.ToLower(rb); la != lb {
				return cmp.Compare(la, lb)
			}
		}
		i, j = i+na, j+nb
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}
