package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

const schemaSiteModel = `types:
  posts:
    public: true
    fields:
      title: {kind: string, required: true}
      price: {kind: number, min: 0}
      featured: {kind: boolean, default: false}
      day: date
      author: {kind: reference, to: team}
      cover: media
  team:
    fields:
      name: {kind: string, required: true}
`

// TestSchemas: the content model is served as JSON Schema, typed in the
// OpenAPI document (public types without a key, all with content:read),
// and items carry their defaults and dates in RFC 3339.
func TestSchemas(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":            schemaSiteModel,
		"content/team/maria.md": "---\ntitle: Maria\nname: Maria\n---\n",
		"content/posts/a.md":    "---\ntitle: A\nprice: 3\nday: 2024-02-03 10:00\nauthor: team/maria\n---\nA\n",
	})
	ts := startServer(t, repo.bare)
	key := ts.reader(t)

	wantError(t, get(t, ts.URL+"/api/v1/schemas", ""), http.StatusUnauthorized, "UNAUTHORIZED")
	list := get(t, ts.URL+"/api/v1/schemas", key)
	if list.Status != 200 {
		t.Fatalf("schemas: %d %s", list.Status, list.Body)
	}
	var sl struct {
		Schemas []struct {
			Type   string
			Schema map[string]any
		}
	}
	if err := json.Unmarshal(list.Body, &sl); err != nil || len(sl.Schemas) != 2 || sl.Schemas[0].Type != "posts" || sl.Schemas[1].Type != "team" {
		t.Fatalf("schemas = %s (%v)", list.Body, err)
	}
	one := get(t, ts.URL+"/api/v1/schemas/posts", key)
	m := one.json(t)
	props, _ := m["properties"].(map[string]any)
	if one.Status != 200 || m["$schema"] != "https://json-schema.org/draft/2020-12/schema" || props["price"] == nil || props["title"] != nil {
		t.Fatalf("schema of posts: %d %s", one.Status, one.Body)
	}
	wantError(t, get(t, ts.URL+"/api/v1/schemas/nope", key), http.StatusNotFound, "NOT_FOUND")

	item := get(t, ts.URL+"/api/v1/content/posts/a", key)
	if !strings.Contains(string(item.Body), `"featured":false`) || !strings.Contains(string(item.Body), `"day":"2024-02-03"`) {
		t.Fatalf("item: %s", item.Body)
	}

	// The typed document loads and validates, and the item is an Item_posts.
	for _, tc := range []struct {
		key       string
		withTeam  bool
		cacheCtrl string
	}{{"", false, "public"}, {key, true, "private"}} {
		res := get(t, ts.URL+"/api/v1/openapi.json", tc.key)
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		if err := doc.Validate(loader.Context); err != nil {
			t.Fatalf("typed document does not validate: %v", err)
		}
		if !strings.HasPrefix(res.Header.Get("Cache-Control"), tc.cacheCtrl) {
			t.Errorf("Cache-Control = %q", res.Header.Get("Cache-Control"))
		}
		sch := doc.Components.Schemas["Item_posts"]
		if sch == nil || doc.Components.Schemas["Data_posts"] == nil || doc.Components.Schemas["ItemList_posts"] == nil {
			t.Fatalf("no Item_posts, Data_posts or ItemList_posts in the document")
		}
		if (doc.Components.Schemas["Item_team"] != nil) != tc.withTeam {
			t.Fatalf("Item_team present = %v, want %v", !tc.withTeam, tc.withTeam)
		}
		var v any
		if err := json.Unmarshal(item.Body, &v); err != nil {
			t.Fatal(err)
		}
		if err := sch.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			t.Fatalf("item is not an Item_posts: %v", err)
		}
		bad := strings.Replace(string(item.Body), `"price":3`, `"price":"3"`, 1)
		json.Unmarshal([]byte(bad), &v)
		if err := sch.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err == nil {
			t.Fatalf("an item with a text price is an Item_posts")
		}
	}
}
