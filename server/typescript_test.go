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
	t.Parallel()
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

// TestTypeScriptClient_TypedPaths: a client generated from the document
// reads a post through /api/v1/content/posts/{slug} (and the list and
// public paths) typed, with no cast to a component: the correct reads
// compile, and each read of a field as the wrong type does not.
func TestTypeScriptClient_TypedPaths(t *testing.T) {
	t.Parallel()
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
	tool := func(name string, args ...string) ([]byte, error) {
		cmd := exec.Command(filepath.Join(tools, "node_modules", ".bin", name), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		return cmd.CombinedOutput()
	}
	if out, err := tool("openapi-typescript", "openapi.json", "-o", "folio.ts"); err != nil {
		t.Fatalf("openapi-typescript: %v\n%s", err, out)
	}
	post := get(t, ts.URL+"/api/v1/content/posts/hello-world", key)
	posts := get(t, ts.URL+"/api/v1/public/collections/posts?filter[author][eq]=x", "")
	if post.Status != 200 || posts.Status != 200 {
		t.Fatalf("post %d, posts %d", post.Status, posts.Status)
	}
	// fetchJSON is what a client library (openapi-fetch) does: the type
	// of the answer is the path's own, looked up by the path template.
	program := func(reads string) string {
		return `import type { paths } from "./folio";
type JSONOf<P extends keyof paths> = paths[P] extends { get: { responses: { 200: { content: { "application/json": infer R } } } } } ? R : never;
type Query<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? Q : never;
declare function fetchJSON<P extends keyof paths>(path: P, query?: Query<P>): Promise<JSONOf<P>>;

// The server's answers are values of the paths' types.
const served: JSONOf<"/api/v1/content/posts/{slug}"> = ` + string(post.Body) + `;
const servedList: JSONOf<"/api/v1/public/collections/posts"> = ` + string(posts.Body) + `;

export async function read() {
  const post = await fetchJSON("/api/v1/content/posts/{slug}");
  const list = await fetchJSON("/api/v1/content/posts", { filter: { "data.author": { eq: "maria" } } });
  const pub = await fetchJSON("/api/v1/public/collections/posts");
` + reads + `
  return { post, list, pub, served, servedList };
}
`
	}
	// One tsc run: the correct reads compile, and each wrong one is an
	// error on its own line (an @ts-expect-error with no error under it
	// fails the compile as "Unused '@ts-expect-error' directive"). Five
	// runs, one a file, took 16 s of CPU under a loaded -race suite.
	client := program(`  const title: string = post.title;
  const author: string = post.data.author;
  const tags: string[] | undefined = list.items[0].data.tags;
  const excerpt: string | undefined = pub.items[0].data.excerpt;
  const type: "posts" = post.type;
  // @ts-expect-error author-number: an author is text
  const authorNumber: number = post.data.author;
  // @ts-expect-error list-tags: tags are text
  const listTags: number[] | undefined = list.items[0].data.tags;
  // @ts-expect-error public-excerpt: an excerpt is text
  const publicExcerpt: number = pub.items[0].data.excerpt;
  // @ts-expect-error no-such-field: a post has no field nope
  const nope: string = post.data.nope;
  void [title, author, tags, excerpt, type, authorNumber, listTags, publicExcerpt, nope];`)
	if err := os.WriteFile(filepath.Join(dir, "client.ts"), []byte(client), 0o644); err != nil {
		t.Fatal(err)
	}
	tsc := []string{"--noEmit", "--strict", "--target", "es2020", "--module", "es2020", "--moduleResolution", "bundler"}
	if out, err := tool("tsc", append(tsc, "client.ts")...); err != nil {
		t.Fatalf("tsc: %v (a wrong read tsc accepts shows as an unused '@ts-expect-error')\n%s", err, out)
	}
}
