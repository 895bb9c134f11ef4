package server_test

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// decapWidgets reads the generated config.yml of ts: each collection's
// widgets by name, as an editor's key (content:read) reads it.
func decapWidgets(t *testing.T, ts *testServer) map[string]map[string]map[string]any {
	t.Helper()
	r := get(t, ts.URL+"/admin/content/config.yml", ts.reader(t))
	if r.Status != 200 {
		t.Fatalf("config.yml: %d %s", r.Status, r.Body)
	}
	var cfg struct {
		Collections []struct {
			Name   string
			Fields []map[string]any
		}
	}
	if err := yaml.Unmarshal(r.Body, &cfg); err != nil {
		t.Fatalf("%v\n%s", err, r.Body)
	}
	out := map[string]map[string]map[string]any{}
	for _, c := range cfg.Collections {
		out[c.Name] = map[string]map[string]any{}
		for _, f := range c.Fields {
			out[c.Name][f["name"].(string)] = f
		}
	}
	return out
}

// TestDecapConfigConstraints: the generated config carries the model's
// constraints that Decap checks before a save: lengths and patterns as
// Decap's pattern ([regex, message], the regex in JavaScript's syntax),
// number bounds and value types, enums as selects, list bounds,
// required.
func TestDecapConfigConstraints(t *testing.T) {
	t.Parallel()
	site := map[string]string{
		"folio.yaml": `types:
  posts:
    fields:
      title: {kind: string, required: true, maxLength: 120}
      summary: {kind: text, minLength: 10, maxLength: 300}
      code: {kind: string, pattern: "^[A-Z]{3}-\\d+$"}
      shout: {kind: string, pattern: "(?i)^hello", maxLength: 20}
      multi: {kind: string, pattern: "(?m)^x$"}
      rating: {kind: integer, min: 0, max: 5}
      price: {kind: number, min: 0.5}
      status: {kind: enum, values: [draft, review, done], required: true}
      tags: {kind: list, of: {kind: string, maxLength: 20}, max: 5}
      day: {kind: date}
`,
		"content/posts/hello.md": "---\ntitle: Hello\nstatus: draft\n---\nHello.\n",
	}
	ts := startServer(t, newRepo(t, site).bare)
	w := decapWidgets(t, ts)["posts"]
	pattern := func(name string) []any {
		p, _ := w[name]["pattern"].([]any)
		return p
	}
	cases := map[string][]any{
		"title":   {`^(?:[\uD800-\uDBFF][\uDC00-\uDFFF]|[^\uD800-\uDFFF]){0,120}$`, "at most 120 characters"},
		"summary": {`^(?:[\uD800-\uDBFF][\uDC00-\uDFFF]|[^\uD800-\uDFFF]){10,300}$`, "10 to 300 characters"},
		"code":    {`^[A-Z]{3}\-[0-9]+$`, `must match ^[A-Z]{3}-\d+$`},
		"shout":   {`^(?=[\s\S]*?(?:^[Hh][Ee][Ll][Ll][Oo]))(?:[\uD800-\uDBFF][\uDC00-\uDFFF]|[^\uD800-\uDFFF]){0,20}$`, "at most 20 characters, and must match (?i)^hello"},
	}
	for name, want := range cases {
		if got := pattern(name); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("%s: pattern %q, want %q", name, got, want)
		}
	}
	if p := pattern("multi"); p != nil {
		t.Errorf("multi: a pattern JavaScript cannot write without flags is in the config: %q", p)
	}
	if r := w["rating"]; r["widget"] != "number" || r["value_type"] != "int" || r["min"] != 0 || r["max"] != 5 {
		t.Errorf("rating: %v", r)
	}
	if r := w["price"]; r["widget"] != "number" || r["value_type"] != "float" || r["min"] != 0.5 || r["max"] != nil {
		t.Errorf("price: %v", r)
	}
	if r := w["status"]; r["widget"] != "select" || r["required"] == false || len(r["options"].([]any)) != 3 {
		t.Errorf("status: %v", r)
	}
	if r := w["tags"]; r["widget"] != "list" || r["max"] != 5 || r["field"].(map[string]any)["pattern"] == nil {
		t.Errorf("tags: %v", r)
	}
	if r := w["day"]; r["widget"] != "datetime" || r["time_format"] != false || r["date_format"] != "YYYY-MM-DD" {
		t.Errorf("day: %v", r)
	}
	if r := w["title"]; r["required"] == false {
		t.Errorf("title: %v", r)
	}
}

// TestDecapConfigDateKey: the generated config's date widget is bound to
// the key the site's documents use (Hugo's date or publishDate, Astro's
// pubDate), not always publishedAt, so a post opens with its date; a
// date written without a time is edited as one.
func TestDecapConfigDateKey(t *testing.T) {
	t.Parallel()
	site := map[string]string{
		"folio.yaml":               "types:\n  posts: {}\n  notes: {}\n  events: {}\n  articles: {}\n",
		"content/articles/a.md":    "---\ntitle: A\npubDate: 2024-03-04T05:06:07Z\n---\nAstro style.\n",
		"content/posts/a.md":       "---\ntitle: A\ndate: 2024-01-02\n---\nA.\n",
		"content/posts/b.md":       "---\ntitle: B\ndate: '2024-02-03'\n---\nB.\n",
		"content/notes/a.md":       "---\ntitle: A\npublishDate: 2024-01-02T10:00:00+01:00\n---\nA.\n",
		"content/notes/b.md":       "---\ntitle: B\n---\nB.\n",
		"content/events/launch.md": "---\ntitle: Launch\n---\nSoon.\n",
		"pages/about.md":           "---\ntitle: About\ndate: 2023-05-06T07:08:09Z\n---\nAbout.\n",
	}
	ts := startServer(t, newRepo(t, site).bare)
	ws := decapWidgets(t, ts)
	for _, c := range []struct {
		coll, key, other string
		dateOnly         bool
	}{
		{"posts", "date", "publishedAt", true},
		{"notes", "publishDate", "publishedAt", false},
		{"events", "publishedAt", "date", false},
		{"pages", "date", "publishedAt", false},
		{"articles", "pubDate", "publishedAt", false},
	} {
		w := ws[c.coll][c.key]
		if w == nil || w["widget"] != "datetime" {
			t.Errorf("%s: no datetime widget %q: %v", c.coll, c.key, ws[c.coll])
			continue
		}
		if ws[c.coll][c.other] != nil {
			t.Errorf("%s: a second date widget %q", c.coll, c.other)
		}
		if only := w["time_format"] == false && w["date_format"] == "YYYY-MM-DD"; only != c.dateOnly {
			t.Errorf("%s: %q date only %v, want %v: %v", c.coll, c.key, only, c.dateOnly, w)
		}
	}
	if !strings.Contains(ws["notes"]["publishDate"]["label"].(string), "Publish") {
		t.Errorf("notes: label %v", ws["notes"]["publishDate"]["label"])
	}
}

// BenchmarkDecapConfigYAML is the editor page's config.yml on a site of
// 1,000 posts: generated from the model, with the date key read from a
// sample of the posts.
func BenchmarkDecapConfigYAML(b *testing.B) {
	site := map[string]string{"folio.yaml": "types:\n  posts:\n    fields:\n      title: {kind: string, required: true, maxLength: 120}\n"}
	for i := range 1000 {
		site[fmt.Sprintf("content/posts/post-%04d.md", i)] = fmt.Sprintf("---\ntitle: Post %d\ndate: 2024-01-01\n---\nWords.\n", i)
	}
	ts := startServer(b, newRepo(b, site).bare)
	key := ts.reader(b)
	b.ResetTimer()
	for b.Loop() {
		if r := get(b, ts.URL+"/admin/content/config.yml", key); r.Status != 200 {
			b.Fatalf("%d %s", r.Status, r.Body)
		}
	}
}
