package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/folio-cms/folio/server"
)

// The hostile pass of issue 29 on the read side of the new features: a
// draft's or a private type's words must not come out of a body tree,
// a typed document, a prefix search, a list with ?body=tree, nor for a
// key that writes without reading.

func TestHostileNoLeakThroughNewReads(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":              "types:\n  posts:\n    public: true\n  memos: {}\n",
		"content/posts/pub.md":    "---\ntitle: Pub\n---\nA public post {{< param title >}}.\n",
		"content/posts/wip.md":    "---\ntitle: Wip quokkaword\ndraft: true\n---\nDraft quokkaword {{< details >}}quokkaword{{< /details >}}\n",
		"content/memos/secret.md": "---\ntitle: Secret zebracorn\n---\nPrivate zebracorn.\n",
	})
	ts := startServer(t, "file://"+repo.bare, withSearch)
	reader := ts.key(t, "reader", server.ScopeContentRead)
	writer := ts.key(t, "writer", server.ScopeContentWrite)
	secretWords := []string{"quokkaword", "zebracorn", "quokk", "zebrac"}
	leak := func(what string, r response) {
		t.Helper()
		for _, w := range []string{"quokkaword", "zebracorn"} {
			if strings.Contains(string(r.Body), w) {
				t.Errorf("%s: %d leaks %q: %s", what, r.Status, w, r.Body)
			}
		}
	}
	cases := []struct {
		path, key string
		status    int
	}{
		{"/api/v1/public/collections/posts/wip?body=tree", "", 404},
		{"/api/v1/public/collections/posts/wip?body=tree&draft=true", "", 0},
		{"/api/v1/public/collections/posts?body=tree", "", 200},
		{"/api/v1/public/collections/posts?body=tree&draft=true", "", 0},
		{"/api/v1/public/collections/memos?body=tree", "", 404},
		{"/api/v1/public/collections/memos/secret?body=tree", "", 404},
		{"/api/v1/public/collections/posts/wip?body=tree", reader, 404},
		{"/api/v1/content/posts/wip?body=tree", reader, 404},
		{"/api/v1/content/posts?body=tree&draft=true", reader, 403},
		{"/api/v1/content/posts/wip?body=tree&draft=true", reader, 403},
		{"/api/v1/content/posts/wip/history", reader, 0},
		{"/api/v1/content/posts?body=tree", writer, 403},
		{"/api/v1/content/memos/secret?body=tree", writer, 403},
		{"/api/v1/resolve?path=/posts/wip/", reader, 404},
		{"/api/v1/resolve?path=/posts/wip", reader, 404},
		{"/api/v1/resolve?path=/posts/wip/&body=tree", reader, 404},
		{"/api/v1/resolve?path=/posts/wip/&draft=true", reader, 403},
		{"/api/v1/resolve?path=/memos/secret/", writer, 403},
		{"/api/v1/resolve?path=/memos/secret/&preview=x", "", 401},
		{"/api/v1/resolve?path=/posts/pub/&body=tree", reader, 0},
		{"/api/v1/search?q=quokk", reader, 200},
		{"/api/v1/search?q=zebrac", writer, 403},
		{"/api/v1/openapi.json", writer, 200},
		{"/api/v1/openapi.json", "", 200},
		{"/api/v1/changes", writer, 403},
		{"/api/v1/schemas/memos", writer, 403},
	}
	for _, w := range secretWords {
		cases = append(cases, struct {
			path, key string
			status    int
		}{"/api/v1/public/search?q=" + w, "", 200})
	}
	for _, c := range cases {
		r := get(t, ts.URL+c.path, c.key)
		t.Logf("GET %s (key %v): %d", c.path, c.key != "", r.Status)
		if c.status != 0 && r.Status != c.status {
			t.Errorf("GET %s: %d %s, want %d", c.path, r.Status, r.Body, c.status)
		}
		if r.Status >= 500 {
			t.Errorf("GET %s: %d", c.path, r.Status)
		}
		if !strings.HasPrefix(c.path, "/api/v1/openapi.json") && c.path != "/api/v1/search?q=zebrac" {
			leak(c.path, r)
		}
	}
	// Positive controls: the index holds the memo (a reader finds it by
	// prefix), and the public search finds the public post.
	if r := get(t, ts.URL+"/api/v1/search?q=zebrac", reader); !strings.Contains(string(r.Body), `"type":"memos","id"`) {
		t.Errorf("the reader's prefix search misses the memo: %s", r.Body)
	}
	if r := get(t, ts.URL+"/api/v1/public/search?q=publ", ""); !strings.Contains(string(r.Body), `"slug":"pub"`) {
		t.Errorf("the public prefix search misses the public post: %s", r.Body)
	}
	// The draft's path is found with content:draft (so the 404s above
	// are the draft kept out, not a wrong path).
	drafter := ts.key(t, "drafter", server.ScopeContentRead, server.ScopeContentDraft)
	if r := get(t, ts.URL+"/api/v1/resolve?path=/posts/wip/&draft=true", drafter); r.Status != 200 {
		t.Errorf("resolve of the draft with content:draft: %d %s", r.Status, r.Body)
	}
	// The typed document without content:read names no private type.
	for _, k := range []string{"", writer} {
		if r := get(t, ts.URL+"/api/v1/openapi.json", k); strings.Contains(string(r.Body), "memos") {
			t.Errorf("openapi.json (key %v) names the private type memos", k != "")
		}
	}
	// The shortcode param of a public post reads its own front matter.
	if r := get(t, ts.URL+"/api/v1/public/collections/posts/pub", ""); !strings.Contains(string(r.Body), "A public post Pub") {
		t.Errorf("param: %s", r.Body)
	}
}

// A body of 20 nested shortcodes around 600 KB, written through the
// write API, is read back as HTML and as a tree within the nested-content
// budget: the inner levels past it are escaped text in both.
func TestHostileNestedBodyOverHTTP(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, writeSite)
	ts := startWriter(t, "file://"+repo.bare)
	writer := ts.key(t, "writer", server.ScopeContentWrite)
	reader := ts.key(t, "reader", server.ScopeContentRead)
	body := strings.Repeat("{{< details >}}\n", 20) + strings.Repeat("word ", 120_000) + "\n" + strings.Repeat("{{< /details >}}\n", 20)
	b, _ := json.Marshal(map[string]any{"slug": "deep", "title": "Deep", "body": body})
	if r := wr(t, "POST", ts.URL+"/api/v1/content/posts", writer, string(b)); r.Status != 201 {
		t.Fatalf("POST: %d %s", r.Status, r.Body)
	}
	eventually(t, "the new post", func() bool { return get(t, ts.URL+"/api/v1/content/posts/deep", reader).Status == 200 })
	for _, q := range []string{"", "?body=tree"} {
		r := get(t, ts.URL+"/api/v1/content/posts/deep"+q, reader)
		if r.Status != 200 {
			t.Fatalf("GET%s: %d %s", q, r.Status, r.Body)
		}
		cuts := []string{`{{&lt; details &gt;}}`, `{{\u0026lt; details \u0026gt;}}`}
		if q != "" {
			cuts = []string{`{{< details >}}`, `{{\u003c details \u003e}}`}
		}
		if !strings.Contains(string(r.Body), cuts[0]) && !strings.Contains(string(r.Body), cuts[1]) {
			i := strings.Index(string(r.Body), "details")
			t.Errorf("GET%s: no level past the budget is escaped text: %q", q, string(r.Body)[max(0, i-300):min(len(r.Body), i+2000)])
		}
	}
}
