package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/server"
)

// A Hugo docs site as Docsy sites write them: built-in and custom
// shortcodes, nested, with inner Markdown, both delimiters; goldmark
// settings in hugo.toml; and an MDX page of an Astro Starlight site.
var bodySite = map[string]string{
	"hugo.toml": `baseURL = "https://example.org/"
title = "Docs"
[params]
vers = "1.2.3"
[markup.goldmark.renderer]
unsafe = true
[markup.goldmark.parser.attribute]
block = true
`,
	"content/docs/intro.md": `---
title: Intro
---
# Getting started {#start}

Install version {{% param vers %}}; see [the guide]({{< ref "docs/guide.md#setup" >}}).

{{< alert color="warning" title="Heads up" >}}
Read **this** first.

{{< tabpane >}}
{{% tab "Go" %}}
` + "```go\nfmt.Println(1)\n```" + `
{{% /tab %}}
{{< /tabpane >}}
{{< /alert >}}

Press {{< kbd >}}Ctrl{{< /kbd >}} to go on. Write {{</* alert */>}} for an alert.

{{< figure src="/img/a.png" caption="A *diagram*" >}}

{{< youtube w7Ft2ymGmfc >}}

> [!NOTE]
> Useful information.

Term
: Its definition.

<div class="box" onclick="steal()">raw <b>HTML</b><script>alert(1)</script></div>

A lead paragraph.
{.lead}

| a | b |
|:--|--:|
| 1 | ` + "`c`" + ` |
`,
	"pages/about.md": "---\ntitle: About\n---\nHello {{< alert >}}*you*{{< /alert >}}.\n",
	"content/docs/guide.mdx": `---
title: Guide
---
import { Card, Aside } from '@astrojs/starlight/components';
export const version = {
  major: 1,
};

# Guide

<Card title="Star" icon={"star"}>
  Inner **Markdown**.
</Card>

<Aside type="tip" />

{/* a comment */}

Text with ` + "`<Code />`" + ` in code.
`,
}

func TestBodies_ShortcodesMDXAndSettings(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, bodySite)
	ts := startServer(t, repo.bare)
	key := ts.reader(t)

	r := get(t, ts.URL+"/api/v1/content/docs/intro", key)
	if r.Status != http.StatusOK {
		t.Fatalf("intro: %d %s", r.Status, r.Body)
	}
	body, _ := r.json(t)["data"].(map[string]any)["body"].(string)
	for _, want := range []string{
		`<h1 id="start">Getting started</h1>`,
		`Install version 1.2.3; see <a href="/docs/guide/#setup">the guide</a>.`,
		`<folio-component name="alert" data-props="{&#34;color&#34;:&#34;warning&#34;,&#34;title&#34;:&#34;Heads up&#34;}">`,
		`<p>Read <strong>this</strong> first.</p>`,
		`<folio-component name="tab" data-args="[&#34;Go&#34;]">`,
		`<pre><code class="language-go">fmt.Println(1)`,
		`Press <folio-component name="kbd">Ctrl</folio-component> to go on. Write {{&lt; alert &gt;}} for an alert.`,
		`<figure><img src="/img/a.png" alt="A *diagram*"><figcaption><p>A <em>diagram</em></p></figcaption></figure>`,
		`<iframe src="https://www.youtube-nocookie.com/embed/w7Ft2ymGmfc"`,
		`<div class="markdown-alert markdown-alert-note">`,
		"<dl>\n<dt>Term</dt>\n<dd>Its definition.</dd>\n</dl>",
		`<div class="box">raw <b>HTML</b></div>`,
		`<p class="lead">A lead paragraph.</p>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("intro body lacks %q:\n%s", want, body)
		}
	}
	for _, bad := range []string{"{{&lt; alert color", "{{%", "onclick", "<script", "[!NOTE]", "{.lead}"} {
		if strings.Contains(body, bad) {
			t.Errorf("intro body holds %q:\n%s", bad, body)
		}
	}

	mdx := get(t, ts.URL+"/api/v1/content/docs/guide", key)
	if mdx.Status != http.StatusOK {
		t.Fatalf("guide.mdx: %d %s", mdx.Status, mdx.Body)
	}
	mbody, _ := mdx.json(t)["data"].(map[string]any)["body"].(string)
	for _, want := range []string{
		"<h1 id=\"guide\">Guide</h1>",
		`<folio-component name="Card" data-props="{&#34;icon&#34;:&#34;star&#34;,&#34;title&#34;:&#34;Star&#34;}">` + "\n<p>Inner <strong>Markdown</strong>.</p>\n</folio-component>",
		`<folio-component name="Aside" data-props="{&#34;type&#34;:&#34;tip&#34;}"></folio-component>`,
		"<code>&lt;Code /&gt;</code>",
	} {
		if !strings.Contains(mbody, want) {
			t.Errorf("guide body lacks %q:\n%s", want, mbody)
		}
	}
	for _, bad := range []string{"import", "export", "a comment", "raw HTML omitted"} {
		if strings.Contains(mbody, bad) {
			t.Errorf("guide body holds %q:\n%s", bad, mbody)
		}
	}

	// the tree: valid by the OpenAPI schema, and renders back to the HTML
	doc, _ := loadSpec(t)
	schema := doc.Components.Schemas["BodyTree"].Value
	for slug, html := range map[string]string{"intro": body, "guide": mbody} {
		tr := get(t, ts.URL+"/api/v1/content/docs/"+slug+"?body=tree", key)
		if tr.Status != http.StatusOK {
			t.Fatalf("%s tree: %d %s", slug, tr.Status, tr.Body)
		}
		var item struct {
			Data struct {
				Body json.RawMessage `json:"body"`
			} `json:"data"`
		}
		if err := json.Unmarshal(tr.Body, &item); err != nil {
			t.Fatal(err)
		}
		var v any
		_ = json.Unmarshal(item.Data.Body, &v)
		if err := schema.VisitJSON(v); err != nil {
			t.Errorf("%s: tree does not match BodyTree: %v", slug, err)
		}
		back, err := content.TreeHTML(item.Data.Body)
		if err != nil {
			t.Fatal(err)
		}
		if back != html {
			t.Errorf("%s: tree renders to\n%s\nnot\n%s", slug, back, html)
		}
		if !strings.Contains(string(item.Data.Body), `"type":"component"`) {
			t.Errorf("%s: tree without component nodes: %s", slug, item.Data.Body)
		}
	}
	// in a list, with fields
	l := get(t, ts.URL+"/api/v1/content/docs?body=tree&fields=slug,data.body", key)
	if l.Status != http.StatusOK || !strings.Contains(string(l.Body), `"body":{"type":"root"`) {
		t.Errorf("list with body=tree: %d %.300s", l.Status, l.Body)
	}
	// a page's richText section
	pg := get(t, ts.URL+"/api/v1/pages/about?body=tree", key)
	var page struct {
		Sections []struct {
			Data struct {
				HTML json.RawMessage `json:"html"`
			} `json:"data"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(pg.Body, &page); err != nil || len(page.Sections) != 1 {
		t.Fatalf("page: %v %s", err, pg.Body)
	}
	if back, _ := content.TreeHTML(page.Sections[0].Data.HTML); back != "<p>Hello <folio-component name=\"alert\"><em>you</em></folio-component>.</p>\n" {
		t.Errorf("page tree renders to %q: %s", back, page.Sections[0].Data.HTML)
	}
	wantError(t, get(t, ts.URL+"/api/v1/content/docs/intro?body=xml", key), http.StatusBadRequest, "BAD_REQUEST")
	if r := get(t, ts.URL+"/api/v1/pages/about?body=html", key); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"html":"<p>Hello <folio-component`) {
		t.Errorf("body=html: %d %s", r.Status, r.Body)
	}
}

// TestBodies_MDXWrite: a PATCH of a field of an MDX item keeps its file,
// imports and components byte for byte.
func TestBodies_MDXWrite(t *testing.T) {
	t.Parallel()
	src := "---\ntitle: Guide\n---\nimport { Card } from '@astrojs/starlight/components';\n\n<Card title=\"x\">Hi</Card>\n"
	repo := newRepo(t, map[string]string{"src/content/docs/guide.mdx": src})
	ws := startWriter(t, "file://"+repo.bare)
	editor := ws.key(t, "editor", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeContentWrite)
	r := wr(t, "PATCH", ws.URL+"/api/v1/content/docs/guide", editor, `{"title": "The guide"}`)
	if r.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	if got, want := remoteFile(t, repo.bare, "src/content/docs/guide.mdx"), strings.Replace(src, "Guide", "The guide", 1); got != want {
		t.Fatalf("file after PATCH:\n%q\nwant\n%q", got, want)
	}
}
