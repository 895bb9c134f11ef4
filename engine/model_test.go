package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/content"
)

const modelYAML = `types:
  posts:
    onInvalid: reject
    fields:
      title: {kind: string, required: true}
      price: number
      featured: {kind: boolean, default: false}
      day: date
`

// itemBody is the served JSON of one item of the published view; "" when
// the view does not serve it.
func itemBody(t *testing.T, e *Engine, typ, slug string) string {
	t.Helper()
	tl, ok := e.View(false).Type(typ)
	if !ok {
		return ""
	}
	r, ok := tl.Item(slug)
	if !ok {
		return ""
	}
	b, _, _ := r.Body()
	return string(b)
}

func problems(e *Engine) string {
	var out []string
	for _, p := range e.Status().Problems {
		if strings.HasPrefix(p.Message, "no title:") {
			continue // the test documents without a title are for the model
		}
		out = append(out, p.String())
	}
	return strings.Join(out, "\n")
}

// TestModel_Pushes pushes edits that break and repair documents and the
// model itself, and checks what is served and reported after each.
func TestModel_Pushes(t *testing.T) {
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	r.Commit(srcDay(0), map[string]string{
		"folio.yaml":         modelYAML,
		"content/posts/a.md": "---\ntitle: A\nprice: 12\nday: 2024-01-02 10:00\n---\nA\n",
		"content/posts/b.md": "---\ntitle: B\n---\nB\n",
	})
	r.Push(false)
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if p := problems(e); p != "" {
		t.Fatalf("problems: %s", p)
	}
	a := itemBody(t, e, "posts", "a")
	if !strings.Contains(a, `"featured":false`) || !strings.Contains(a, `"day":"2024-01-02"`) || !strings.Contains(a, `"price":12`) {
		t.Fatalf("a = %s", a)
	}
	push := func(files map[string]string, rm ...string) string {
		t.Helper()
		for _, p := range rm {
			srcGit(t, r.Dir, "rm", "-q", p)
		}
		c := r.Commit(srcDay(1), files)
		r.Push(false)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		return c
	}

	// A bad edit of a: the last valid version stays served.
	c1 := push(map[string]string{"content/posts/a.md": "---\ntitle: A2\nprice: twelve\n---\nA2\n"})
	if p := problems(e); p != "content/posts/a.md:3: price: got string, want number" {
		t.Fatalf("problems: %q", p)
	}
	if a2 := itemBody(t, e, "posts", "a"); a2 != a {
		t.Fatalf("a after a bad edit = %s, want the last valid %s", a2, a)
	}
	held := e.Status().Held
	if len(held) != 1 || held[0].Path != "content/posts/a.md" || held[0].Since != c1 || !held[0].Served {
		t.Fatalf("held = %+v", held)
	}
	// Another push: still held since c1. A new document that is never
	// valid is left out.
	push(map[string]string{"content/posts/b.md": "---\ntitle: B2\n---\nB\n", "content/posts/c.md": "---\nprice: 3\n---\nC\n"})
	held = e.Status().Held
	if len(held) != 2 || held[0].Since != c1 || held[1].Path != "content/posts/c.md" || held[1].Served {
		t.Fatalf("held = %+v", held)
	}
	if itemBody(t, e, "posts", "c") != "" || !strings.Contains(itemBody(t, e, "posts", "b"), `"title":"B2"`) {
		t.Fatalf("c served, or b not updated")
	}
	// a repaired: its new version is served.
	push(map[string]string{"content/posts/a.md": "---\ntitle: A3\nprice: 13.5\n---\nA3\n"})
	if a3 := itemBody(t, e, "posts", "a"); !strings.Contains(a3, `"title":"A3"`) || !strings.Contains(a3, `"featured":false`) {
		t.Fatalf("a = %s", a3)
	}
	if held = e.Status().Held; len(held) != 1 || held[0].Path != "content/posts/c.md" {
		t.Fatalf("held = %+v", held)
	}
	// A broken model: a problem, and the last model stays in force.
	push(map[string]string{"folio.yaml": strings.Replace(modelYAML, "price: number", "price: numbr", 1)})
	p := problems(e)
	if !strings.Contains(p, "folio.yaml:6: content model: fields.price.kind: unknown kind numbr") ||
		!strings.Contains(p, "content/posts/c.md:1: title: required, missing") {
		t.Fatalf("problems: %s", p)
	}
	if itemBody(t, e, "posts", "c") != "" || !strings.Contains(itemBody(t, e, "posts", "a"), `"featured":false`) {
		t.Fatalf("the previous model is not in force")
	}
	// A folio.yaml that does not parse: the last model stays in force too.
	push(map[string]string{"folio.yaml": modelYAML + "  oops: [\n"})
	p = problems(e)
	if !strings.Contains(p, "folio.yaml: content model: this file does not load") || itemBody(t, e, "posts", "c") != "" {
		t.Fatalf("problems: %s", p)
	}
	// The model repaired, onInvalid: serve: c is served, and reported.
	push(map[string]string{"folio.yaml": strings.Replace(modelYAML, "reject", "serve", 1)})
	if p := problems(e); p != "content/posts/c.md:1: title: required, missing" {
		t.Fatalf("problems: %q", p)
	}
	if itemBody(t, e, "posts", "c") == "" || len(e.Status().Held) != 0 {
		t.Fatalf("c not served, or still held")
	}
	// No model at all: nothing checked, no defaults.
	push(nil, "folio.yaml")
	if p := problems(e); p != "" || strings.Contains(itemBody(t, e, "posts", "a"), "featured") {
		t.Fatalf("problems %q, a = %s", p, itemBody(t, e, "posts", "a"))
	}
}

// TestModel_CrossDocument: unique values and references by bare slug are
// checked across documents.
func TestModel_CrossDocument(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{
		"folio.yaml": "types:\n  posts:\n    fields:\n      sku: {kind: string, unique: true}\n" +
			"      author: {kind: reference, to: team}\n      reviewers: {kind: list, of: {kind: reference, to: [team, pages]}}\n",
		"content/team/maria.md": "---\ntitle: Maria\n---\n",
		"pages/about.md":        "---\ntitle: About\n---\n",
		"content/posts/a.md":    "---\ntitle: A\nsku: X1\nauthor: maria\nreviewers: [maria, about]\n---\n",
		"content/posts/b.md":    "---\ntitle: B\nsku: X1\nauthor: nobody\nreviewers: [maria, ghost]\n---\n",
	})
	r.Push(false)
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	want := "content/posts/b.md:3: sku: \"X1\" is the value of content/posts/a.md already (unique)\n" +
		"content/posts/b.md:4: author: no team has the slug \"nobody\"\n" +
		"content/posts/b.md:5: reviewers: no team or pages has the slug \"ghost\""
	if p := problems(e); p != want {
		t.Fatalf("problems:\n%s\nwant\n%s", p, want)
	}
}

// TestModel_ManyDocuments: a load with many documents validates them in
// parallel (run with -race) and reports each violation once.
func TestModel_ManyDocuments(t *testing.T) {
	files := []string{"folio.yaml", "types:\n  posts:\n    fields:\n      n: {kind: integer, required: true}\n"}
	for i := range 600 {
		v := strconv.Itoa(i)
		if i%3 == 0 {
			v = "x" + v
		}
		files = append(files, fmt.Sprintf("content/posts/p%03d.md", i), "---\ntitle: P\nn: "+v+"\n---\n")
	}
	var fs []content.File
	for i := 0; i < len(files); i += 2 {
		doc, err := content.Parse(files[i], []byte(files[i+1]))
		fs = append(fs, content.File{Path: files[i], Doc: doc, Err: err})
	}
	probs := CheckFiles(fs, nil)
	if len(probs) != 200 || probs[0].String() != "content/posts/p000.md:3: n: got string, want integer" {
		t.Fatalf("%d problems, first %v", len(probs), probs[0])
	}
}

// TestModel_Sortable: every declared scalar field is a sort field, without
// sortable: in folio.yaml.
func TestModel_Sortable(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{
		"folio.yaml":         "types:\n  posts:\n    fields:\n      price: number\n      tags: {kind: list, of: string}\n",
		"content/posts/a.md": "---\ntitle: A\nprice: 3\n---\n",
		"content/posts/b.md": "---\ntitle: B\nprice: 1\n---\n",
		"content/posts/c.md": "---\ntitle: C\nprice: 2\n---\n",
	})
	r.Push(false)
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tl, _ := e.View(false).Type("posts")
	rs, _, err := tl.Sorted("-price")
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, res := range rs {
		body, _, _ := res.Body()
		order = append(order, string(body[strings.Index(string(body), `"title":`)+9]))
	}
	if strings.Join(order, "") != "ACB" {
		t.Fatalf("order by -price = %v", order)
	}
	if _, _, err := tl.Sorted("tags"); err == nil {
		t.Fatal("a list is a sort field")
	}
}

// TestHTMLDocumentFromCache: an .html document's body is HTML, sanitized,
// on the first load and after a restart from the parsed-document cache
// (which reads the body from the blob again).
func TestHTMLDocumentFromCache(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{
		"content/docs/ct-logs.html": "---\ntitle: CT logs\n---\n<p class=\"x\">Logs <script>alert(1)</script>*not emphasis*</p>\n",
		"content/docs/faq.md":       "---\ntitle: FAQ\n---\n*emphasis* <b>raw</b>\n",
	})
	r.Push(false)
	cache := t.TempDir()
	for _, run := range []string{"first", "restart"} {
		e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		tl, _ := e.View(false).Type("docs")
		for slug, want := range map[string]string{
			"ct-logs": `"body":"<p class=\"x\">Logs *not emphasis*</p>\n"`,
			"faq":     `"body":"<p><em>emphasis</em> <!-- raw HTML omitted -->raw<!-- raw HTML omitted --></p>\n"`,
		} {
			res, ok := tl.Item(slug)
			if !ok {
				t.Fatalf("%s: no item %s", run, slug)
			}
			body, _, _ := res.Body()
			if !strings.Contains(string(body), want) {
				t.Errorf("%s: %s = %s, want %s in it", run, slug, body, want)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
