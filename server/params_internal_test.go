package server

import (
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// TestQueryParsedOnce: a GET's query is parsed once per request (serve
// calls parseQuery) and every later query(r) returns that one map, with
// the same values as URL.Query; a request with a body is left to parse
// its own, and one without a query gets nil.
func TestQueryParsedOnce(t *testing.T) {
	r := httptest.NewRequest("GET", "/api/v1/content/posts?filter%5Bdata.category%5D%5Beq%5D=gear&sort=-publishedAt&limit=20&a=1&a=2", nil)
	parseQuery(r)
	q1, q2 := query(r), query(r)
	if reflect.ValueOf(q1).Pointer() != reflect.ValueOf(q2).Pointer() {
		t.Fatal("query(r) parsed the query again")
	}
	if !reflect.DeepEqual(q1, r.URL.Query()) || q1.Get("filter[data.category][eq]") != "gear" || len(q1["a"]) != 2 {
		t.Fatalf("query(r) = %v, URL.Query() = %v", q1, r.URL.Query())
	}
	if n := testing.AllocsPerRun(100, func() { _ = query(r) }); n != 0 {
		t.Errorf("query(r) allocates %v times after parseQuery", n)
	}
	if r.FormValue("limit") != "20" {
		t.Errorf("FormValue(limit) = %q", r.FormValue("limit"))
	}

	post := httptest.NewRequest("POST", "/api/v1/content/posts?a=1", strings.NewReader("a=2"))
	post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	parseQuery(post)
	if post.Form != nil {
		t.Fatal("parseQuery filled the Form of a POST")
	}
	if got := query(post); got.Get("a") != "1" || len(got["a"]) != 1 {
		t.Errorf("POST query = %v", got)
	}

	bare := httptest.NewRequest("GET", "/api/v1/content/posts", nil)
	parseQuery(bare)
	if query(bare) != nil || bare.Form != nil {
		t.Errorf("no query: %v, Form %v", query(bare), bare.Form)
	}
}
