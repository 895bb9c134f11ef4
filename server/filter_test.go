package server_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/server"
)

// filterModel is the model of the random sites of TestFilterProperty.
const filterModel = `types:
  things:
    public: true
    fields:
      color:   {kind: enum, values: [red, green, blue, Red]}
      n:       integer
      price:   number
      ok:      boolean
      when:    date
      name:    string
      tags:    {kind: list, of: string}
      address:
        kind: object
        fields:
          city: string
          zip:  integer
      parts:   {kind: list, of: {kind: object, fields: {label: string}}}
      notes:   any
`

var (
	filterColors = []string{"red", "green", "blue", "Red"}
	filterWords  = []string{"alpha", "alp", "beta", "Beta", "gamma", "al pha", "é-clair", "zeta"}
	filterCities = []string{"Bern", "Basel", "Berlin", "Graz", "basel"}
)

// randomThing writes one item's file of a random site.
func randomThing(r *rand.Rand, i int) string {
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "title: %q\n", filterWords[r.IntN(len(filterWords))]+" "+strconv.Itoa(r.IntN(5)))
	fmt.Fprintf(&b, "publishedAt: 2024-0%d-%02dT10:00:00Z\n", 1+r.IntN(3), 1+r.IntN(28))
	if r.IntN(6) == 0 {
		b.WriteString("draft: true\n")
	}
	some := func() bool { return r.IntN(4) != 0 }
	if some() {
		fmt.Fprintf(&b, "color: %s\n", filterColors[r.IntN(len(filterColors))])
	}
	switch r.IntN(8) {
	case 0:
	case 1:
		b.WriteString("n: abc\n") // of the wrong kind: exists, matches no comparison
	default:
		fmt.Fprintf(&b, "n: %d\n", r.IntN(10)-3)
	}
	if some() {
		fmt.Fprintf(&b, "price: %.1f\n", float64(r.IntN(40))/4)
	}
	if some() {
		fmt.Fprintf(&b, "ok: %v\n", r.IntN(2) == 0)
	}
	if some() {
		fmt.Fprintf(&b, "when: 2024-02-%02d\n", 1+r.IntN(6))
	}
	if some() {
		fmt.Fprintf(&b, "name: %q\n", filterWords[r.IntN(len(filterWords))])
	}
	if some() {
		var tags []string
		for range r.IntN(4) {
			tags = append(tags, filterWords[r.IntN(len(filterWords))])
		}
		fmt.Fprintf(&b, "tags: [%s]\n", strings.Join(tags, ", "))
	}
	if some() {
		b.WriteString("address:\n")
		if some() {
			fmt.Fprintf(&b, "  city: %s\n", filterCities[r.IntN(len(filterCities))])
		}
		if some() {
			fmt.Fprintf(&b, "  zip: %d\n", 1000+r.IntN(4))
		}
		b.WriteString("  street: Main\n")
	}
	if r.IntN(3) == 0 {
		b.WriteString("parts:\n")
		for range 1 + r.IntN(3) {
			fmt.Fprintf(&b, "  - label: %s\n", filterWords[r.IntN(len(filterWords))])
		}
	}
	if r.IntN(3) == 0 {
		b.WriteString("notes: {a: 1}\n")
	}
	b.WriteString("---\n")
	fmt.Fprintf(&b, "Body %d\n", i)
	return b.String()
}

// filterFieldSpec is a field the property test filters on, with the
// kind its values compare as and values to try.
type filterFieldSpec struct {
	name string
	kind string // text, number, bool, date, any
	vals []string
}

var filterFields = []filterFieldSpec{
	{"title", "text", []string{"alpha 1", "beta 2", "al", "gamma", "Beta 0", "z", "alpha"}},
	{"slug", "text", []string{"t03", "t1", "t", "t10", "p0", "p03"}},
	{"publishedAt", "date", []string{"2024-02-01", "2024-02-10T10:00:00Z", "2024-01-15T10:00:00+02:00", "2024-03-28"}},
	{"data.color", "text", []string{"red", "Red", "blue", "re", "purple"}},
	{"color", "text", []string{"green", "red"}},
	{"data.n", "number", []string{"0", "-3", "2", "6.5", "1e0"}},
	{"data.price", "number", []string{"0", "2.5", "5", "9.75"}},
	{"data.ok", "bool", []string{"true", "false"}},
	{"data.when", "date", []string{"2024-02-03", "2024-02-01T00:00:00Z", "2024-02-06"}},
	{"data.name", "text", []string{"alpha", "al", "Beta", "é", "zeta"}},
	{"data.tags", "text", []string{"alpha", "beta", "al", "gamma", "é-clair"}},
	{"data.address.city", "text", []string{"Bern", "Basel", "B", "basel"}},
	{"data.address.zip", "number", []string{"1000", "1002", "1003"}},
	{"data.parts.label", "text", []string{"alpha", "zeta", "be"}},
	{"data.notes", "any", nil},
	{"data.address", "any", nil},
}

func opsForKind(kind string) []string {
	switch kind {
	case "text":
		return []string{"eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "contains", "startsWith", "exists"}
	case "number", "date":
		return []string{"eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "exists"}
	case "bool":
		return []string{"eq", "ne", "in", "nin", "exists"}
	}
	return []string{"exists"}
}

type filterCase struct {
	field filterFieldSpec
	op    string
	value string
}

// valuesAt is what a served item holds at a filter field, lists
// flattened, nulls left out.
func valuesAt(item map[string]any, field string) []any {
	if !strings.Contains(field, ".") && field != "title" && field != "slug" && field != "publishedAt" {
		field = "data." + field
	}
	var out []any
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		if v == nil {
			return
		}
		if l, ok := v.([]any); ok {
			for _, e := range l {
				walk(e, path)
			}
			return
		}
		if len(path) == 0 {
			out = append(out, v)
			return
		}
		if m, ok := v.(map[string]any); ok {
			walk(m[path[0]], path[1:])
		}
	}
	walk(item, strings.Split(field, "."))
	return out
}

func parseFilterDate(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// compareAs compares a served value with a filter value as kind; ok is
// false when the served value is not of the kind.
func compareAs(kind string, v any, s string) (int, bool) {
	switch kind {
	case "text":
		x, ok := v.(string)
		if !ok {
			return 0, false
		}
		return strings.Compare(x, s), true
	case "number":
		x, ok := v.(float64)
		if !ok {
			return 0, false
		}
		f, _ := strconv.ParseFloat(s, 64)
		switch {
		case x < f:
			return -1, true
		case x > f:
			return 1, true
		}
		return 0, true
	case "bool":
		x, ok := v.(bool)
		if !ok {
			return 0, false
		}
		if strconv.FormatBool(x) == s {
			return 0, true
		}
		return 1, true
	case "date":
		x, ok := v.(string)
		if !ok {
			return 0, false
		}
		a, ok := parseFilterDate(x)
		if !ok {
			return 0, false
		}
		b, _ := parseFilterDate(s)
		return a.Compare(b), true
	}
	return 0, false
}

// bruteMatch is the filter semantics of docs/content-model.md, written
// plainly over a served item.
func bruteMatch(item map[string]any, c filterCase) bool {
	vals := valuesAt(item, c.field.name)
	some := func(pred func(v any) bool) bool { return slices.ContainsFunc(vals, pred) }
	eqOne := func(s string) bool {
		return some(func(v any) bool { d, ok := compareAs(c.field.kind, v, s); return ok && d == 0 })
	}
	switch c.op {
	case "exists":
		return (len(vals) > 0) == (c.value == "true")
	case "eq":
		return eqOne(c.value)
	case "ne":
		return !eqOne(c.value)
	case "in", "nin":
		in := slices.ContainsFunc(strings.Split(c.value, ","), eqOne)
		return in == (c.op == "in")
	case "gt", "gte", "lt", "lte":
		return some(func(v any) bool {
			d, ok := compareAs(c.field.kind, v, c.value)
			if !ok {
				return false
			}
			switch c.op {
			case "gt":
				return d > 0
			case "gte":
				return d >= 0
			case "lt":
				return d < 0
			}
			return d <= 0
		})
	case "contains":
		return some(func(v any) bool { s, ok := v.(string); return ok && strings.Contains(s, c.value) })
	case "startsWith":
		return some(func(v any) bool { s, ok := v.(string); return ok && strings.HasPrefix(s, c.value) })
	}
	panic(c.op)
}

type listBody struct {
	Items  []map[string]any `json:"items"`
	Total  int              `json:"total"`
	Limit  int              `json:"limit"`
	Offset int              `json:"offset"`
}

func getList(t *testing.T, u, key string) listBody {
	t.Helper()
	res := get(t, u, key)
	if res.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, res.Status, res.Body)
	}
	var l listBody
	if err := json.Unmarshal(res.Body, &l); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return l
}

func slugsOf(items []map[string]any) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it["slug"].(string)
	}
	return out
}

// TestFilterProperty compares filtered lists, over HTTP, with a brute-
// force filter of the whole list in the same order, on random sites,
// random conditions (one to three, AND), sorts and windows, in the
// published view (which must hold no draft), the draft view and the
// public surface. Each seed pushes edits during the rounds: the ordinary
// run makes 100 rounds with a push after 50 (one push, each list asked
// before and after it), -tags long 600 with one every 150 (make
// test-long).
func TestFilterProperty(t *testing.T) {
	t.Parallel()
	rounds, pushEvery := 100, 50
	if longTests {
		rounds, pushEvery = 600, 150
	}
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 20))
			files := map[string]string{"folio.yaml": filterModel}
			n := 40 + r.IntN(50)
			for i := range n {
				files[fmt.Sprintf("content/things/t%02d.md", i)] = randomThing(r, i)
			}
			for i := range 10 + r.IntN(20) {
				files[fmt.Sprintf("pages/p%02d.md", i)] = fmt.Sprintf("---\ntitle: %q\npublishedAt: 2024-0%d-%02d\ndraft: %v\n---\n",
					filterWords[r.IntN(len(filterWords))], 1+r.IntN(3), 1+r.IntN(28), r.IntN(5) == 0)
			}
			repo := newRepo(t, files)
			ts := startServer(t, repo.bare)
			key := ts.reader(t)
			drafts := ts.key(t, "drafts", server.ScopeContentRead, server.ScopeContentDraft)
			sorts := []string{"", "title", "-publishedAt", "n", "-data.price", "slug", "-when"}
			routes := []struct{ base, key, extra string }{
				{ts.URL + "/api/v1/content/things", key, ""},
				{ts.URL + "/api/v1/content/things", drafts, "&draft=true"},
				{ts.URL + "/api/v1/public/collections/things", "", ""},
				{ts.URL + "/api/v1/pages", key, ""},
				{ts.URL + "/api/v1/pages", drafts, "&draft=true"},
			}
			// Rounds, then a push of a few edits (the reload patches the
			// lists, their sorts and indexes, from the last ones), again.
			next := n
			for round := range rounds {
				if round > 0 && round%pushEvery == 0 {
					edits := map[string]string{}
					for range 1 + r.IntN(4) {
						switch i := r.IntN(next + 2); {
						case i < next:
							edits[fmt.Sprintf("content/things/t%02d.md", i)] = randomThing(r, i)
						case i == next:
							edits[fmt.Sprintf("content/things/t%02d.md", r.IntN(next))] = "" // deleted
						default:
							edits[fmt.Sprintf("content/things/t%02d.md", next)] = randomThing(r, next)
							next++
						}
					}
					commit := repo.commit("edits", edits)
					eventually(t, "the push", func() bool { return ts.Engine.Published().Commit == commit })
				}
				rt := routes[round%len(routes)]
				pages := strings.HasSuffix(rt.base, "/pages")
				sort := sorts[r.IntN(len(sorts))]
				if pages {
					sort = "" // pages come homepage first, then by slug
				}
				sortQ := ""
				if sort != "" {
					sortQ = "&sort=" + url.QueryEscape(sort)
				}
				all := getList(t, rt.base+"?limit=100"+sortQ+rt.extra, rt.key)
				if all.Total != len(all.Items) {
					t.Fatalf("unfiltered: total %d, %d items", all.Total, len(all.Items))
				}
				var cs []filterCase
				q := url.Values{}
				for range 1 + r.IntN(3) {
					f := filterFields[r.IntN(len(filterFields))]
					if pages {
						f = filterFields[r.IntN(3)] // title, slug, publishedAt
					}
					ops := opsForKind(f.kind)
					c := filterCase{field: f, op: ops[r.IntN(len(ops))]}
					switch {
					case c.op == "exists":
						c.value = strconv.FormatBool(r.IntN(2) == 0)
					case c.op == "in" || c.op == "nin":
						var vs []string
						for range 1 + r.IntN(3) {
							vs = append(vs, f.vals[r.IntN(len(f.vals))])
						}
						c.value = strings.Join(vs, ",")
					case f.kind == "bool":
						c.value = f.vals[r.IntN(2)]
					default:
						c.value = f.vals[r.IntN(len(f.vals))]
					}
					if q.Has("filter[" + f.name + "][" + c.op + "]") {
						continue // repeated conditions: TestFilterBadInput
					}
					cs = append(cs, c)
					q.Add("filter["+f.name+"]["+c.op+"]", c.value)
				}
				var want []string
				for _, it := range all.Items {
					ok := true
					for _, c := range cs {
						ok = ok && bruteMatch(it, c)
					}
					if ok {
						want = append(want, it["slug"].(string))
					}
				}
				// The same query twice, at two pages: the second is
				// answered from the matches the first one kept.
				for range 2 {
					limit, offset := 1+r.IntN(30), r.IntN(len(want)+3)
					u := rt.base + "?" + q.Encode() + sortQ + "&limit=" + strconv.Itoa(limit) + "&offset=" + strconv.Itoa(offset) + rt.extra
					got := getList(t, u, rt.key)
					wantPage := want[min(offset, len(want)):min(offset+limit, len(want))]
					if got.Total != len(want) || !slices.Equal(slugsOf(got.Items), wantPage) {
						t.Fatalf("%s\ntotal %d, want %d\ngot  %v\nwant %v (of %v)", u, got.Total, len(want), slugsOf(got.Items), wantPage, want)
					}
					for _, it := range got.Items {
						if rt.extra == "" && it["status"] != nil {
							t.Fatalf("%s: the published view serves a status: %v", u, it)
						}
					}
				}
			}
			// The sorts the reloads patched are those a server loading the
			// last commit afresh makes.
			fresh := startServer(t, repo.bare)
			fkey := fresh.reader(t)
			for _, sort := range sorts[1:] {
				q := "/api/v1/content/things?limit=100&sort=" + url.QueryEscape(sort)
				a, b := getList(t, ts.URL+q, key), getList(t, fresh.URL+q, fkey)
				if !slices.Equal(slugsOf(a.Items), slugsOf(b.Items)) {
					t.Fatalf("sort %s: patched %v, fresh %v", sort, slugsOf(a.Items), slugsOf(b.Items))
				}
			}
		})
	}
}

// TestFilterBadInput: every malformed or unfit filter is a 400 in the
// contract's shape that names the field, on the items, public and page
// lists.
func TestFilterBadInput(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":           filterModel,
		"content/things/a.md":  "---\ntitle: A\nn: 1\n---\nA\n",
		"pages/about.md":       "---\ntitle: About\n---\nAbout\n",
		"content/plain/one.md": "---\ntitle: One\nx: 1\n---\n",
	})
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	many := url.Values{}
	for i := range 11 {
		many.Add("filter[data.n][eq]", strconv.Itoa(i))
	}
	manyIn := make([]string, 101)
	for i := range manyIn {
		manyIn[i] = strconv.Itoa(i)
	}
	cases := []struct{ path, query, field string }{
		{"/api/v1/content/things", "filter[data.nope][eq]=1", "data.nope"},
		{"/api/v1/content/things", "filter[nope][eq]=1", "filter[nope]"},
		{"/api/v1/content/things", "filter[data.n][like]=1", "data.n"},
		{"/api/v1/content/things", "filter[data.n][gt]=abc", "data.n"},
		{"/api/v1/content/things", "filter[data.n][contains]=1", "data.n"},
		{"/api/v1/content/things", "filter[data.n][in]=1,x", "data.n"},
		{"/api/v1/content/things", "filter[data.n][in]=" + strings.Join(manyIn, ","), "data.n"},
		{"/api/v1/content/things", "filter[data.when][gte]=yesterday", "data.when"},
		{"/api/v1/content/things", "filter[publishedAt][lt]=2024-13-01", "publishedAt"},
		{"/api/v1/content/things", "filter[data.ok][eq]=yes", "data.ok"},
		{"/api/v1/content/things", "filter[data.ok][gt]=true", "data.ok"},
		{"/api/v1/content/things", "filter[data.notes][eq]=1", "data.notes"},
		{"/api/v1/content/things", "filter[data.address.nope][eq]=1", "data.address.nope"},
		{"/api/v1/content/things", "filter[data.name.x][eq]=1", "data.name.x"},
		{"/api/v1/content/things", "filter[data.a.b.c.d.e.f.g.h.i][eq]=1", "data.a.b.c.d.e.f.g.h.i"},
		{"/api/v1/content/things", "filter[data.][eq]=1", "data."},
		{"/api/v1/content/things", "filter[data.name][eq]=" + strings.Repeat("x", 257), "data.name"},
		{"/api/v1/content/things", "filter[data.name][contains]=", "data.name"},
		{"/api/v1/content/things", "filter[data.name][exists]=maybe", "data.name"},
		{"/api/v1/content/things", "filter[date][gt]=2024-01-01", "filter[date]"},
		{"/api/v1/content/things", "filter[data.name]=x", "filter[data.name]"},
		{"/api/v1/content/things", "filter=x", "filter"},
		{"/api/v1/content/things", "filter[data.name][eq][x]=1", "filter[data.name][eq][x]"},
		{"/api/v1/content/things", many.Encode(), "filter"},
		{"/api/v1/content/plain", "filter[data.x][eq]=1", "data.x"},
		{"/api/v1/public/collections/things", "filter[data.n][gt]=abc", "data.n"},
		{"/api/v1/pages", "filter[data.x][eq]=1", "data.x"},
		{"/api/v1/pages", "filter[title][gt]=", ""},
		{"/api/v1/pages", "filter[publishedAt][eq]=soon", "publishedAt"},
	}
	for _, c := range cases {
		k := key
		if strings.HasPrefix(c.path, "/api/v1/public/") {
			k = ""
		}
		res := get(t, ts.URL+c.path+"?"+c.query, k, outsideSpec, "1")
		if c.field == "" {
			if res.Status != http.StatusOK {
				t.Errorf("%s?%s: %d %s, want 200", c.path, c.query, res.Status, res.Body)
			}
			continue
		}
		wantError(t, res, http.StatusBadRequest, "BAD_REQUEST")
		if !strings.Contains(string(res.Body), c.field) {
			t.Errorf("%s?%s: %s does not name %s", c.path, c.query, res.Body, c.field)
		}
	}
	// Built-in fields filter without a model; the sort names data fields
	// either way.
	l := getList(t, ts.URL+"/api/v1/content/plain?filter[title][eq]=One", key)
	if l.Total != 1 {
		t.Fatalf("plain by title: %+v", l)
	}
	l = getList(t, ts.URL+"/api/v1/pages?filter[slug][startsWith]=ab&filter[title][contains]=bou", key)
	if l.Total != 1 || l.Items[0]["slug"] != "about" {
		t.Fatalf("pages: %+v", l)
	}
	// A condition given twice is two conditions (the OpenAPI document's
	// deepObject has one value per name: outside it); in values add up.
	repo.commit("tags", map[string]string{"content/things/b.md": "---\ntitle: B\ntags: [x, y]\n---\n", "content/things/c.md": "---\ntitle: C\ntags: [x]\n---\n"})
	eventually(t, "b and c", func() bool { return getList(t, ts.URL+"/api/v1/content/things", key).Total == 3 })
	for q, want := range map[string]int{"filter[tags][eq]=x&filter[tags][eq]=y": 1, "filter[tags][in]=x&filter[tags][in]=y": 2, "filter[tags][nin]=y&filter[tags][nin]=z": 2} {
		res := get(t, ts.URL+"/api/v1/content/things?"+q, key, outsideSpec, "1")
		var l listBody
		if res.Status != 200 || json.Unmarshal(res.Body, &l) != nil || l.Total != want {
			t.Fatalf("%s: %d %s, want total %d", q, res.Status, res.Body, want)
		}
	}
	l = getList(t, ts.URL+"/api/v1/pages?filter[slug][ne]=about", key)
	if l.Total != 0 {
		t.Fatalf("pages ne: %+v", l)
	}
}

// TestFilterDrafts: the published view's indexes hold no draft, whatever
// the filter; the draft view's hold them, with their status.
func TestFilterDrafts(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":             filterModel,
		"content/things/pub.md":  "---\ntitle: Pub\ncolor: red\n---\n",
		"content/things/hid.md":  "---\ntitle: Hid\ncolor: red\ndraft: true\n---\n",
		"content/things/soon.md": "---\ntitle: Soon\ncolor: red\npublishedAt: 2999-01-01\n---\n",
	})
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	drafts := ts.key(t, "drafts", server.ScopeContentRead, server.ScopeContentDraft)
	for _, q := range []string{"filter[data.color][eq]=red", "filter[slug][in]=hid,soon,pub", "filter[title][exists]=true",
		"filter[data.color][ne]=blue", "filter[publishedAt][gt]=2000-01-01", "filter[title][contains]=i"} {
		for _, base := range []string{"/api/v1/content/things?", "/api/v1/public/collections/things?"} {
			k := key
			if strings.Contains(base, "public") {
				k = ""
			}
			l := getList(t, ts.URL+base+q, k)
			for _, s := range slugsOf(l.Items) {
				if s != "pub" {
					t.Fatalf("%s%s: serves %s: %v", base, q, s, slugsOf(l.Items))
				}
			}
			if l.Total > 1 {
				t.Fatalf("%s%s: total %d", base, q, l.Total)
			}
		}
	}
	l := getList(t, ts.URL+"/api/v1/content/things?draft=true&filter[data.color][eq]=red&sort=slug", drafts)
	if !slices.Equal(slugsOf(l.Items), []string{"hid", "pub", "soon"}) || l.Items[0]["status"] != "draft" {
		t.Fatalf("draft view: %v", l.Items)
	}
	// Public surface refuses drafts with filters too.
	wantError(t, get(t, ts.URL+"/api/v1/public/collections/things?draft=true&filter[data.color][eq]=red", "", outsideSpec, "1"), http.StatusBadRequest, "BAD_REQUEST")
}

// TestFilterAfterPush: a real git push that changes a filtered field
// (one item: the reload patches the list; many: it rebuilds it) shows in
// the filtered list, and an unchanged type keeps answering.
func TestFilterAfterPush(t *testing.T) {
	t.Parallel()
	files := map[string]string{"folio.yaml": filterModel + "  others:\n    fields:\n      n: integer\n"}
	for i := range 100 {
		files[fmt.Sprintf("content/things/t%03d.md", i)] = fmt.Sprintf("---\ntitle: T%d\ncolor: %s\nn: %d\n---\n", i, filterColors[i%3], i)
	}
	files["content/others/o.md"] = "---\ntitle: O\nn: 5\n---\n"
	repo := newRepo(t, files)
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	count := func(q string) int { return getList(t, ts.URL+"/api/v1/content/"+q, key).Total }
	if n := count("things?filter[data.color][eq]=blue"); n != 33 {
		t.Fatalf("blue: %d", n)
	}
	if n := count("others?filter[data.n][eq]=5"); n != 1 {
		t.Fatalf("others: %d", n)
	}
	// One item turns blue, one goes: a patched list.
	repo.commit("one blue", map[string]string{
		"content/things/t000.md": "---\ntitle: T0\ncolor: blue\nn: 0\n---\n",
		"content/things/t002.md": "",
	})
	eventually(t, "the filtered list to follow the push", func() bool {
		return count("things?filter[data.color][eq]=blue") == 33 && count("things?filter[data.color][eq]=red") == 33
	})
	l := getList(t, ts.URL+"/api/v1/content/things?filter[data.color][eq]=blue&sort=n&limit=2", key)
	if !slices.Equal(slugsOf(l.Items), []string{"t000", "t005"}) {
		t.Fatalf("after the push: %v", slugsOf(l.Items))
	}
	if n := count("others?filter[data.n][eq]=5"); n != 1 {
		t.Fatalf("others after the push: %d", n)
	}
	// Every item changes: a list built afresh.
	all := map[string]string{}
	for i := range 100 {
		if i != 2 {
			all[fmt.Sprintf("content/things/t%03d.md", i)] = fmt.Sprintf("---\ntitle: T%d\ncolor: green\nn: %d\n---\n", i, -i)
		}
	}
	repo.commit("all green", all)
	eventually(t, "every item green", func() bool { return count("things?filter[data.color][eq]=green") == 99 })
	if n := count("things?filter[data.n][lt]=-90"); n != 9 {
		t.Fatalf("n < -90: %d", n)
	}
}

// TestFilterOpenAPI: the typed OpenAPI document has, per modelled type,
// Filter_<type>: the fields its lists filter on, with their operators.
func TestFilterOpenAPI(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"folio.yaml": filterModel, "content/things/a.md": "---\ntitle: A\n---\n"})
	ts := startServer(t, repo.bare)
	doc := get(t, ts.URL+"/api/v1/openapi.json", "").json(t)
	f, _ := doc["components"].(map[string]any)["schemas"].(map[string]any)["Filter_things"].(map[string]any)
	props, _ := f["properties"].(map[string]any)
	for name, ops := range map[string][]string{"publishedAt": {"gte", "exists"}, "data.n": {"lt", "in"}, "data.address.city": {"startsWith"},
		"data.parts.label": {"contains"}, "data.tags": {"eq"}, "data.notes": {"exists"}} {
		p, _ := props[name].(map[string]any)
		got, _ := p["properties"].(map[string]any)
		for _, op := range ops {
			if got[op] == nil {
				t.Errorf("Filter_things.%s: no %s in %v", name, op, p)
			}
		}
	}
	if p, _ := props["data.notes"].(map[string]any); p != nil && p["properties"].(map[string]any)["eq"] != nil {
		t.Errorf("data.notes takes eq: %v", p)
	}
	if props["data.nope"] != nil || props["data.address.street"] != nil {
		t.Errorf("undeclared fields in Filter_things: %v", props)
	}
}

// TestFilterJSONSchema: a type modelled by a JSON Schema file filters on
// its properties, with their kinds.
func TestFilterJSONSchema(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml": "types:\n  products:\n    schema: schemas/product.json\n",
		"schemas/product.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
  "properties": {"price": {"type": ["number", "null"]}, "tags": {"type": "array", "items": {"type": "string"}},
    "released": {"type": "string", "format": "date"}, "size": {"enum": [1, 2, 3]},
    "dims": {"type": "object", "properties": {"w": {"type": "integer"}}}}}`,
		"content/products/a.md": "---\ntitle: A\nprice: 10\ntags: [x, y]\nreleased: 2024-05-01\nsize: 2\ndims: {w: 3}\n---\n",
		"content/products/b.md": "---\ntitle: B\nprice: 20.5\ntags: [y]\nreleased: 2023-05-01\nsize: 3\n---\n",
	})
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	for q, want := range map[string][]string{
		"filter[data.price][gt]=10":                 {"b"},
		"filter[data.tags][eq]=x":                   {"a"},
		"filter[data.released][lt]=2024-01-01":      {"b"},
		"filter[data.size][in]=2,3":                 {"a", "b"},
		"filter[data.dims.w][gte]=3":                {"a"},
		"filter[data.dims][exists]=false":           {"b"},
		"filter[data.tags][nin]=x&sort=-data.price": {"b"},
	} {
		l := getList(t, ts.URL+"/api/v1/content/products?sort=slug&"+q, key)
		if !slices.Equal(slugsOf(l.Items), want) {
			t.Errorf("%s: %v, want %v", q, slugsOf(l.Items), want)
		}
	}
	wantError(t, get(t, ts.URL+"/api/v1/content/products?filter[data.size][eq]=big", key, outsideSpec, "1"), http.StatusBadRequest, "BAD_REQUEST")
	wantError(t, get(t, ts.URL+"/api/v1/content/products?filter[data.colour][eq]=red", key, outsideSpec, "1"), http.StatusBadRequest, "BAD_REQUEST")
}
