package server

import (
	"net/url"
	"slices"
	"strings"

	"github.com/folio-cms/folio/engine"
)

// filterParams reads the filter[<field>][<op>]=<value> parameters of a
// list request; nil when there are none (the common case costs one look
// at each parameter name). Repeated in and nin parameters of a field add
// values; any other repeated condition is one more condition (conditions
// AND together). A malformed name is 400.
func filterParams(q url.Values) ([]engine.FilterCond, error) {
	var out []engine.FilterCond
	for name, vals := range q {
		if name != "filter" && !strings.HasPrefix(name, "filter[") {
			continue
		}
		field, op, ok := parseFilterName(name)
		if !ok {
			if len(name) > 80 {
				name = name[:80] + "…"
			}
			return nil, badRequest("%s: a filter is written filter[<field>][<op>]=<value>, with <op> one of %s", name, strings.Join(engine.FilterOps, ", "))
		}
		if op == "in" || op == "nin" {
			out = append(out, engine.FilterCond{Field: field, Op: op, Value: strings.Join(vals, ",")})
			continue
		}
		for _, v := range vals {
			out = append(out, engine.FilterCond{Field: field, Op: op, Value: v})
		}
		if len(out) > engine.MaxFilters {
			return nil, badRequest("filter: at most %d conditions", engine.MaxFilters)
		}
	}
	// A stable order: the first failing condition is the same on every
	// request.
	slices.SortFunc(out, func(a, b engine.FilterCond) int {
		if c := strings.Compare(a.Field, b.Field); c != 0 {
			return c
		}
		if c := strings.Compare(a.Op, b.Op); c != 0 {
			return c
		}
		return strings.Compare(a.Value, b.Value)
	})
	return out, nil
}

// parseFilterName splits "filter[<field>][<op>]".
func parseFilterName(name string) (field, op string, ok bool) {
	rest, ok := strings.CutPrefix(name, "filter[")
	if !ok {
		return "", "", false
	}
	field, rest, ok = strings.Cut(rest, "][")
	if !ok || field == "" {
		return "", "", false
	}
	op, ok = strings.CutSuffix(rest, "]")
	if !ok || op == "" || strings.ContainsAny(op, "[]") || strings.ContainsAny(field, "[]") {
		return "", "", false
	}
	return field, op, true
}

// listWindow is the page of a type's list that pg asks for, in the order
// of sort, filtered by conds when there are any: its items, the number
// of items of the whole list, the canonical sort and conditions.
func listWindow(v *engine.View, t *engine.TypeList, conds []engine.FilterCond, sort string, pg page) ([]*engine.Resource, int, string, string, error) {
	if len(conds) > 0 {
		return v.FilterItems(t, conds, sort, pg.Offset, pg.Limit)
	}
	items, canon, err := t.Sorted(sort)
	if err != nil {
		return nil, 0, "", "", err
	}
	from, to := pg.window(len(items))
	return items[from:to], len(items), canon, "", nil
}

// pagesWindow is listWindow for the page list (no sort).
func pagesWindow(v *engine.View, conds []engine.FilterCond, pg page) ([]*engine.Resource, int, string, error) {
	if len(conds) > 0 {
		return v.FilterPages(conds, pg.Offset, pg.Limit)
	}
	n := v.PageCount()
	from, to := pg.window(n)
	return v.PagesWindow(from, to), n, "", nil
}
