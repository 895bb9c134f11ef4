package server_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nodeTools is the folder whose node_modules/.bin has openapi-typescript
// and tsc (FOLIO_NODE_TOOLS; .ci/run installs them there); the test skips
// without it, and fails in CI.
func nodeTools(t *testing.T) string {
	dir := os.Getenv("FOLIO_NODE_TOOLS")
	if dir == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("FOLIO_NODE_TOOLS is not set (.ci/run installs openapi-typescript and typescript)")
		}
		t.Skip("FOLIO_NODE_TOOLS not set: no openapi-typescript and tsc")
	}
	for _, b := range []string{"openapi-typescript", "tsc"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", b)); err != nil {
			t.Fatalf("FOLIO_NODE_TOOLS: %v", err)
		}
	}
	return dir
}

// TestTypeScriptClient generates TypeScript from the OpenAPI document the
// server serves for the fixture site (openapi-typescript) and type-checks
// a small client with tsc: the declared kinds must come out as TypeScript
// types, and the responses the server sends must be values of them (the
// JSON bodies are type-checked as literals), so a wrong schema fails.
func TestTypeScriptClient(t *testing.T) {
	tools := nodeTools(t)
	ts := startServer(t, newRepo(t, fixtureSite(t)).bare)
	key := ts.reader(t)
	dir := t.TempDir()
	doc := get(t, ts.URL+"/api/v1/openapi.json", key)
	if doc.Status != 200 {
		t.Fatalf("openapi.json: %d", doc.Status)
	}
	if err := os.WriteFile(filepath.Join(dir, "openapi.json"), doc.Body, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(tools, "node_modules", ".bin", name), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	run("openapi-typescript", "openapi.json", "-o", "folio.ts")

	posts := get(t, ts.URL+"/api/v1/content/posts", key)
	products := get(t, ts.URL+"/api/v1/content/products", key)
	post := get(t, ts.URL+"/api/v1/content/posts/hello-world", key)
	client := `import type { components } from "./folio";
type S = components["schemas"];

// The server's responses are values of the generated types.
const posts: S["ItemList_posts"] = ` + string(posts.Body) + `;
const products: S["ItemList_products"] = ` + string(products.Body) + `;
const post: S["Item_posts"] = ` + string(post.Body) + `;

// The declared kinds are typed.
const price: number = products.items[0].data.price;
const rating: number | undefined = products.items[0].data.rating;
const colors: ("black" | "blue" | "green" | "grey" | "orange" | "red")[] | undefined = products.items[0].data.colors;
const author: string = post.data.author;
const tags: string[] | undefined = posts.items[0].data.tags;
// @ts-expect-error a price is a number, not text
const wrong: string = products.items[0].data.price;
// @ts-expect-error colors are an enum
const color: S["Data_products"]["colors"] = ["purple"];

export { price, rating, colors, author, tags, wrong, color };
`
	if err := os.WriteFile(filepath.Join(dir, "client.ts"), []byte(client), 0o644); err != nil {
		t.Fatal(err)
	}
	run("tsc", "--noEmit", "--strict", "--target", "es2020", "--module", "es2020", "--moduleResolution", "bundler", "client.ts")
}
