package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

// A write body is measured before it is decoded or encoded (issue 29): a
// body nested deeper than the content parser reads is a 400, one of more
// tokens than a document may have a 413, one whose values alone are over
// the file limit a 413, each in the error shape and with nothing
// committed; a body within the limits is still written.
func TestWriteBodyLimitsBeforeEncoding(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	ts := startWriter(t, "file://"+repo.bare)
	editor := ts.key(t, "ed", server.ScopeContentRead, server.ScopeContentWrite)
	head := git(t, repo.bare, "rev-parse", "main")

	nested := func(depth int) string {
		return `{"title": "deep", "data": {"x": ` + strings.Repeat(`{"a": `, depth) + `1` + strings.Repeat(`}`, depth) + `}}`
	}
	// 150 levels: a few KB of JSON that YAML would indent 150 deep.
	r := wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello", editor, nested(150))
	wantError(t, r, http.StatusBadRequest, "BAD_REQUEST")
	if !strings.Contains(string(r.Body), "nested more than 100 levels") {
		t.Fatalf("deep body: %s", r.Body)
	}
	// Arrays count as levels too, and so does a globals or page write.
	r = wr(t, "PATCH", ts.URL+"/api/v1/globals", editor, `{"x": `+strings.Repeat("[", 120)+strings.Repeat("]", 120)+`}`)
	wantError(t, r, http.StatusBadRequest, "BAD_REQUEST")

	// 150,000 tiny values: 300 KB of JSON, 600 KB of YAML, within the
	// file limit, but a data set's worth of decoded and encoded values.
	r = wr(t, "POST", ts.URL+"/api/v1/content/posts", editor, `{"title": "many", "list": [`+strings.Repeat("1,", 150_000)+`1]}`)
	wantError(t, r, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
	if !strings.Contains(string(r.Body), "values and keys") {
		t.Fatalf("many values: %s", r.Body)
	}
	// Two 2.2 MB strings: under the body limit, over the file limit
	// whatever the format: refused before encoding.
	big := strings.Repeat("x", 2200<<10)
	r = wr(t, "POST", ts.URL+"/api/v1/content/posts", editor, `{"title": "big", "a": "`+big+`", "b": "`+big+`"}`)
	wantError(t, r, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
	if !strings.Contains(string(r.Body), "keys and values alone") {
		t.Fatalf("big values: %s", r.Body)
	}
	if git(t, repo.bare, "rev-parse", "main") != head {
		t.Fatal("a refused body was committed")
	}

	// Within the limits: 100 levels and 90,000 values are written.
	r = wr(t, "PATCH", ts.URL+"/api/v1/content/posts/hello", editor, nested(97))
	if r.Status != http.StatusOK {
		t.Fatalf("97 levels: %d %s", r.Status, r.Body)
	}
	r = wr(t, "POST", ts.URL+"/api/v1/content/posts", editor, `{"title": "many", "list": [`+strings.Repeat("1,", 90_000)+`1]}`)
	if r.Status != http.StatusCreated {
		t.Fatalf("90,000 values: %d %.300s", r.Status, r.Body)
	}
}
