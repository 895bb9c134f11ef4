package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestFields(t *testing.T) {
	files := map[string]string{}
	for k, v := range siteFiles {
		files[k] = v
	}
	files["content/posts/a.md"] = "---\ntitle: Alpha\ndate: 2026-01-10\nauthor: Ann\nexcerpt: First.\nhero: {image: /a.jpg, alt: An A}\n---\nAlpha body.\n"
	files["folio.yaml"] = "types:\n  posts:\n    public: true\n    sortable: [rating]\n  notes:\n    listBody: false\n"
	files["content/notes/n1.md"] = "---\ntitle: Note\ndate: 2026-01-10\nmood: calm\n---\nThe note's body.\n"
	repo := newRepo(t, files)
	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	keysOf := func(m map[string]any) string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return strings.Join(ks, ",")
	}

	t.Run("Item", func(t *testing.T) {
		r := get(t, ts.URL+"/api/v1/content/posts/a?fields=slug,title,publishedAt,data.excerpt,data.hero.alt,data.missing", key)
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		want := `{"title":"Alpha","slug":"a","data":{"excerpt":"First.","hero":{"alt":"An A"}},"publishedAt":"2026-01-10T00:00:00Z"}`
		if string(r.Body) != want {
			t.Fatalf("body\n%s\nwant\n%s", r.Body, want)
		}
		full := get(t, ts.URL+"/api/v1/content/posts/a", key)
		other := get(t, ts.URL+"/api/v1/content/posts/a?fields=slug,title", key)
		tags := map[string]bool{full.Header.Get("ETag"): true, r.Header.Get("ETag"): true, other.Header.Get("ETag"): true}
		if len(tags) != 3 {
			t.Errorf("ETags not distinct per field set: %v", tags)
		}
		// The same field set in another order or repeated is the same
		// representation.
		same := get(t, ts.URL+"/api/v1/content/posts/a?fields=title,slug,title", key)
		if same.Header.Get("ETag") != other.Header.Get("ETag") || string(same.Body) != string(other.Body) {
			t.Errorf("reordered fields: %s %s", same.Header.Get("ETag"), same.Body)
		}
		if nm := get(t, ts.URL+"/api/v1/content/posts/a?fields=slug,title", key, "If-None-Match", other.Header.Get("ETag")); nm.Status != 304 {
			t.Errorf("If-None-Match: %d", nm.Status)
		}
		if nm := get(t, ts.URL+"/api/v1/content/posts/a?fields=slug", key, "If-None-Match", other.Header.Get("ETag")); nm.Status != 200 {
			t.Errorf("If-None-Match of another field set: %d", nm.Status)
		}
		if r.Header.Get("Surrogate-Key") != full.Header.Get("Surrogate-Key") || r.Header.Get("Surrogate-Key") == "" {
			t.Errorf("Surrogate-Key %q, full %q", r.Header.Get("Surrogate-Key"), full.Header.Get("Surrogate-Key"))
		}
		if m := get(t, ts.URL+"/api/v1/content/posts/a?fields=data", key).json(t); keysOf(m) != "data" || keysOf(m["data"].(map[string]any)) != "author,body,excerpt,hero" {
			t.Errorf("fields=data: %v", m)
		}
		if m := get(t, ts.URL+"/api/v1/public/collections/posts/a?fields=slug", "").json(t); keysOf(m) != "slug" {
			t.Errorf("public item: %v", m)
		}
	})
	t.Run("Lists", func(t *testing.T) {
		r := get(t, ts.URL+"/api/v1/content/posts?fields=slug,data.excerpt", key)
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		m := r.json(t)
		items := m["items"].([]any)
		if len(items) != 2 || m["total"] != 2.0 {
			t.Fatalf("list %s", r.Body)
		}
		if got := string(mustJSON(t, items[1])); got != `{"data":{"excerpt":"First."},"slug":"a"}` {
			t.Errorf("item %s", got)
		}
		if keysOf(items[0].(map[string]any)) != "data,slug" {
			t.Errorf("item %v", items[0])
		}
		full := get(t, ts.URL+"/api/v1/content/posts", key)
		if full.Header.Get("ETag") == r.Header.Get("ETag") {
			t.Error("list ETag does not depend on fields")
		}
		pub := get(t, ts.URL+"/api/v1/public/collections/posts?fields=title", "").json(t)
		if keysOf(pub["items"].([]any)[0].(map[string]any)) != "title" {
			t.Errorf("public list %v", pub)
		}
		pages := get(t, ts.URL+"/api/v1/pages?fields=slug", key).json(t)
		if keysOf(pages["items"].([]any)[0].(map[string]any)) != "slug" || pages["total"] != 3.0 {
			t.Errorf("page list %v", pages)
		}
	})
	t.Run("PageAndGlobals", func(t *testing.T) {
		if m := get(t, ts.URL+"/api/v1/pages/home?fields=title,seo.title", key).json(t); keysOf(m) != "seo,title" || keysOf(m["seo"].(map[string]any)) != "title" {
			t.Errorf("page %v", m)
		}
		if m := get(t, ts.URL+"/api/v1/globals?fields=siteName,footer,nothing", key).json(t); keysOf(m) != "footer,siteName" {
			t.Errorf("globals %v", m)
		}
	})
	t.Run("ListBodyFalse", func(t *testing.T) {
		m := get(t, ts.URL+"/api/v1/content/notes", key).json(t)
		it := m["items"].([]any)[0].(map[string]any)
		data := it["data"].(map[string]any)
		if _, ok := data["body"]; ok || data["mood"] != "calm" || it["title"] != "Note" || it["slug"] != "n1" || it["publishedAt"] == nil {
			t.Fatalf("listBody: false list item %v", it)
		}
		with := get(t, ts.URL+"/api/v1/content/notes?fields=slug,data.body", key).json(t)
		if d := with["items"].([]any)[0].(map[string]any)["data"].(map[string]any); !strings.Contains(d["body"].(string), "The note") {
			t.Errorf("fields=data.body: %v", d)
		}
		one := get(t, ts.URL+"/api/v1/content/notes/n1", key).json(t)
		if _, ok := one["data"].(map[string]any)["body"]; !ok {
			t.Error("the single item lost its body")
		}
		// Other types keep the body in lists (the default).
		a := get(t, ts.URL+"/api/v1/content/posts?sort=slug", key).json(t)["items"].([]any)[0].(map[string]any)
		if _, ok := a["data"].(map[string]any)["body"]; !ok {
			t.Error("posts list lost the body")
		}
	})
	t.Run("Gzip", func(t *testing.T) {
		plain := get(t, ts.URL+"/api/v1/content/posts?fields=slug,data", key, "Accept-Encoding", "identity")
		gz := get(t, ts.URL+"/api/v1/content/posts?fields=slug,data", key, "Accept-Encoding", "gzip")
		if gz.Header.Get("Content-Encoding") != "gzip" || string(decodeBody(t, gz)) != string(plain.Body) {
			t.Fatalf("gzip of a projected list: %q", gz.Header.Get("Content-Encoding"))
		}
	})
	t.Run("Bad", func(t *testing.T) {
		for _, u := range []string{
			"/api/v1/content/posts?fields=slug,bogus",
			"/api/v1/content/posts/a?fields=sections",
			"/api/v1/pages/home?fields=body.excerpt",
			"/api/v1/pages?fields=sections",
			"/api/v1/public/collections/posts?fields=nope",
			"/api/v1/content/posts?fields=slug,,title",
			"/api/v1/content/posts?fields=data..x",
		} {
			r := get(t, ts.URL+u, key)
			wantError(t, r, 400, "BAD_REQUEST")
			if !strings.Contains(string(r.Body), "fields") {
				t.Errorf("%s: message %s", u, r.Body)
			}
		}
	})
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
