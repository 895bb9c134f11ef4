package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

func TestHistoryAndChanges(t *testing.T) {
	t.Parallel()
	long := func(w string) string {
		return strings.Repeat(w+" is one line of a post long enough to follow renames\n", 10)
	}
	repo := newRepo(t, map[string]string{
		"content/posts/a.md": "---\ntitle: A\ndate: 2024-01-01\ntags: [x]\n---\n" + long("a"),
		"pages/about.yaml":   "title: About\n",
		"globals.yaml":       "siteName: One\n",
	})
	first := git(t, repo.work, "rev-parse", "HEAD")
	second := repo.commit("edit a", map[string]string{"content/posts/a.md": "---\ntitle: A2\ndate: 2024-01-01\ntags: [x, y]\n---\n" + long("a")})
	git(t, repo.work, "mv", "content/posts/a.md", "content/posts/b.md")
	third := repo.commit("rename a to b", nil)
	fourth := repo.commit("globals", map[string]string{"globals.yaml": "siteName: Two\n"})
	ts := startServer(t, repo.bare)
	reader := ts.reader(t)
	drafter := ts.key(t, "drafter", server.ScopeContentRead, server.ScopeContentDraft)

	type entry struct{ Commit, Author, Email, Message, Change, Path, From string }
	var h struct {
		Items                []entry
		Total, Limit, Offset int
	}
	read := func(url, key string) {
		t.Helper()
		var r response
		eventually(t, "history", func() bool {
			r = get(t, url, key)
			return r.Status != http.StatusServiceUnavailable
		})
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", url, r.Status, r.Body)
		}
		h.Items = nil
		if err := json.Unmarshal(r.Body, &h); err != nil {
			t.Fatal(err)
		}
	}
	read(ts.URL+"/api/v1/content/posts/b/history", reader)
	var got []string
	for _, e := range h.Items {
		got = append(got, e.Commit[:7]+":"+e.Change)
		if e.Email != "" || e.Author != "Test" {
			t.Errorf("entry %+v: author e-mail shown without content:draft", e)
		}
	}
	if want := third[:7] + ":renamed " + second[:7] + ":modified " + first[:7] + ":added"; strings.Join(got, " ") != want || h.Total != 3 {
		t.Fatalf("history = %v (total %d), want %s", got, h.Total, want)
	}
	if h.Items[0].From != "content/posts/a.md" || h.Items[0].Message != "rename a to b" {
		t.Fatalf("rename entry = %+v", h.Items[0])
	}
	read(ts.URL+"/api/v1/content/posts/b/history?limit=1&offset=1", drafter)
	if len(h.Items) != 1 || h.Items[0].Commit != second || h.Items[0].Email != "test@localhost" || h.Total != 3 {
		t.Fatalf("page 2 = %+v", h)
	}
	read(ts.URL+"/api/v1/pages/about/history", reader)
	if h.Total != 1 || h.Items[0].Commit != first {
		t.Fatalf("page history = %+v", h)
	}
	read(ts.URL+"/api/v1/globals/history", reader)
	if h.Total != 2 || h.Items[0].Commit != fourth {
		t.Fatalf("globals history = %+v", h)
	}
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/nope/history", reader), http.StatusNotFound, server.CodeNotFound)
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/b/history?limit=x", reader), http.StatusBadRequest, server.CodeBadRequest)

	// A version by commit, and the diff between two.
	preview := ts.key(t, "preview", server.ScopeContentRead, server.ScopeContentPreview)
	r := get(t, ts.URL+"/api/v1/content/posts/a?ref="+first, preview)
	if r.Status != http.StatusOK || r.json(t)["title"] != "A" {
		t.Fatalf("a at first: %d %s", r.Status, r.Body)
	}
	r = get(t, ts.URL+"/api/v1/content/posts/a/diff?from="+first+"&to="+second, preview)
	if r.Status != http.StatusOK {
		t.Fatalf("diff: %d %s", r.Status, r.Body)
	}
	var d struct {
		From, To string
		Changes  []struct {
			Field, Change string
			From, To      any
		}
	}
	if err := json.Unmarshal(r.Body, &d); err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, c := range d.Changes {
		fields = append(fields, c.Field+":"+c.Change)
	}
	if d.From != first || d.To != second || strings.Join(fields, " ") != "data.tags:modified title:modified" {
		t.Fatalf("diff = %+v", d)
	}
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/a/diff?from="+first, reader), http.StatusForbidden, server.CodeForbidden)
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/a/diff", preview), http.StatusBadRequest, server.CodeBadRequest)
	wantError(t, get(t, ts.URL+"/api/v1/content/posts/zz/diff?from="+first, preview), http.StatusNotFound, server.CodeNotFound)

	// Changes since a commit.
	r = get(t, ts.URL+"/api/v1/changes?since="+first[:8], reader)
	if r.Status != http.StatusOK {
		t.Fatalf("changes: %d %s", r.Status, r.Body)
	}
	var cs struct {
		Since, Commit string
		Items         []struct{ Change, Path, From, Kind, Type, Slug string }
		Keys          []string
	}
	if err := json.Unmarshal(r.Body, &cs); err != nil {
		t.Fatal(err)
	}
	var items []string
	for _, it := range cs.Items {
		items = append(items, it.Change+":"+it.Path+":"+it.Kind+":"+it.Slug)
	}
	if cs.Since != first || cs.Commit != fourth || strings.Join(items, " ") != "renamed:content/posts/b.md:item:b modified:globals.yaml:globals:" {
		t.Fatalf("changes = %+v", cs)
	}
	if !strings.Contains(strings.Join(cs.Keys, " "), "globals") || !strings.Contains(strings.Join(cs.Keys, " "), "type:posts") {
		t.Fatalf("changes keys = %v", cs.Keys)
	}
	// Only a modified document: its keys alone.
	r = get(t, ts.URL+"/api/v1/changes?since="+third, reader)
	cs.Items, cs.Keys = nil, nil
	if err := json.Unmarshal(r.Body, &cs); err != nil {
		t.Fatal(err)
	}
	if len(cs.Items) != 1 || cs.Items[0].Kind != "globals" || strings.Join(cs.Keys, " ") != "globals" {
		t.Fatalf("changes since the rename = %+v", cs)
	}
	wantError(t, get(t, ts.URL+"/api/v1/changes", reader), http.StatusBadRequest, server.CodeBadRequest)
	// A name that is no commit of the published history is the same 403
	// to a key without content:preview, whether it exists or not.
	wantError(t, get(t, ts.URL+"/api/v1/changes?since=nope", reader), http.StatusForbidden, server.CodeForbidden)
	wantError(t, get(t, ts.URL+"/api/v1/changes?since=nope", preview), http.StatusNotFound, server.CodeRefNotFound)
}
