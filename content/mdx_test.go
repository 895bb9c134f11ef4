package content

import (
	"slices"
	"strings"
	"testing"
)

// An MDX page of an Astro Starlight docs site, as they are written.
const starlightPage = `---
title: Asides
description: Learn how to use asides.
---

import { Aside, Card, CardGrid } from '@astrojs/starlight/components';
import Preview from '~/components/component-preview.astro';
export const meta = {
	draft: false,
};

To display secondary information, use the ` + "`<Aside>`" + ` component.

<Preview>
	<Aside slot="preview">
		Include **nonessential** information.

		- one
		- two
	</Aside>
</Preview>

{/* a JSX comment */}

<CardGrid stagger>
	<Card title="Star" icon={"star"} count={3}>Inline *text*</Card>
	<Card title={title} />
</CardGrid>

` + "```mdx\n<Aside>Some content in an aside.</Aside>\n```" + `

Line with <kbd>Ctrl</kbd> and <span onclick="x()">html</span>.
`

func TestMDX_Starlight(t *testing.T) {
	doc, err := Parse("src/content/docs/asides.mdx", []byte(starlightPage))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Meta()["title"] != "Asides" || !doc.Body.IsMDX() {
		t.Fatalf("meta %v mdx %v", doc.Meta(), doc.Body.IsMDX())
	}
	got := doc.Body.HTML()
	for _, want := range []string{
		"<p>To display secondary information, use the <code>&lt;Aside&gt;</code> component.</p>",
		"<folio-component name=\"Preview\">\n<folio-component name=\"Aside\" data-props=\"{&#34;slot&#34;:&#34;preview&#34;}\">\n<p>Include <strong>nonessential</strong> information.</p>\n<ul>\n<li>one</li>",
		`<folio-component name="CardGrid" data-props="{&#34;stagger&#34;:true}">`,
		`<folio-component name="Card" data-props="{&#34;count&#34;:3,&#34;icon&#34;:&#34;star&#34;,&#34;title&#34;:&#34;Star&#34;}">Inline <em>text</em></folio-component>`,
		`<folio-component name="Card" data-props="{&#34;title&#34;:{&#34;expression&#34;:&#34;title&#34;}}"></folio-component>`,
		"<pre><code class=\"language-mdx\">&lt;Aside&gt;Some content in an aside.&lt;/Aside&gt;\n</code></pre>",
		"<p>Line with Ctrl and <span>html</span>.</p>", // the HTML file policy keeps no kbd
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"import", "export", "draft", "JSX comment", "onclick", "&lt;Card", "&lt;Preview", "omitted"} {
		if strings.Contains(got, bad) {
			t.Errorf("holds %q:\n%s", bad, got)
		}
	}
	checkRoundTrip(t, doc.Body)
}

// TestMDX_AstroCollections: src/content/<collection>/ is a type.
func TestMDX_AstroCollections(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"src/content/docs/index.mdx":         "---\ntitle: Home\n---\n<Card title=\"x\" />\n",
		"src/content/docs/guides/install.md": "---\ntitle: Install\n---\nHi <b>there</b>.\n",
		"src/content/blog/first.md":          "---\ntitle: First\n---\nPost.\n",
		"src/content/config.ts":              "export const collections = {};\n",
	})
	wantNoProblems(t, probs)
	var got []string
	for typ, items := range site.Items {
		for _, it := range items {
			got = append(got, typ+"/"+it.Slug+"@"+it.Meta.Path)
		}
	}
	want := map[string]bool{"docs/index@src/content/docs/index.mdx": true, "docs/guides/install@src/content/docs/guides/install.md": true, "blog/first@src/content/blog/first.md": true}
	if len(got) != len(want) {
		t.Fatalf("items %v", got)
	}
	for _, g := range got {
		if !want[g] {
			t.Errorf("item %s", g)
		}
	}
	for _, it := range site.Items["docs"] {
		h := it.Data["body"].(Markdown).HTML()
		if it.Slug == "guides/install" && h != "<p>Hi <b>there</b>.</p>\n" {
			t.Errorf("install: %q (Astro passes raw HTML)", h)
		}
		if it.Slug == "index" && !strings.Contains(h, `<folio-component name="Card"`) {
			t.Errorf("index: %q", h)
		}
	}
}

// MDX has no indented code, so a block starts at any indentation: an
// element indented by 4 (Tauri's docs' <Steps>), and indented text,
// are read, and the rest of the body after them too (goldmark opened no
// block on such a line and dropped everything from it on).
func TestMDX_Indented(t *testing.T) {
	for src, want := range map[string]string{
		"a:\n\n    <Steps>\n    1. one\n\n    2. two\n    </Steps>\n\n## After\n": "<p>a:</p>\n<folio-component name=\"Steps\">\n<ol>\n<li>\n<p>one</p>\n</li>\n<li>\n<p>two</p>\n</li>\n</ol>\n</folio-component>\n<h2 id=\"after\">After</h2>\n",
		"a:\n\n    plain\n\n        # Heading\n\nb\n":                             "<p>a:</p>\n<p>plain</p>\n<h1 id=\"heading\">Heading</h1>\n<p>b</p>\n",
	} {
		m := NewMDX(src)
		if got := m.HTML(); got != want {
			t.Errorf("%q:\n got %q\nwant %q", src, got, want)
		}
		checkRoundTrip(t, m)
	}
}

// In MDX an element on lines of its own is a block that ends with its
// line: the element under it (<TabItem>s one under the other) and the
// text under it are blocks of their own, not one paragraph with the
// elements inline in it. In a list item the next item stays in the
// list, tight.
func TestMDX_BlocksOnTheirLines(t *testing.T) {
	for src, want := range map[string]string{
		"<Tabs>\n  <TabItem label=\"A\">\n\n  a\n\n  </TabItem>\n  <TabItem label=\"B\">b</TabItem>\n</Tabs>\n": "<folio-component name=\"Tabs\">\n<folio-component name=\"TabItem\" data-props=\"{&#34;label&#34;:&#34;A&#34;}\">\n<p>a</p>\n</folio-component>\n<folio-component name=\"TabItem\" data-props=\"{&#34;label&#34;:&#34;B&#34;}\">\n<p>b</p>\n</folio-component>\n</folio-component>\n",
		"<Code code=\"x\" />\n**Bold** text\n": "<folio-component name=\"Code\" data-props=\"{&#34;code&#34;:&#34;x&#34;}\"></folio-component>\n<p><strong>Bold</strong> text</p>\n",
		"<Tabs />\n3. three\n":                 "<folio-component name=\"Tabs\"></folio-component>\n<ol start=\"3\">\n<li>three</li>\n</ol>\n",
		"- <Card />\n- two\n":                  "<ul>\n<li><folio-component name=\"Card\"></folio-component></li>\n<li>two</li>\n</ul>\n",
	} {
		m := NewMDX(src)
		if got := m.HTML(); got != want {
			t.Errorf("%q:\n got %q\nwant %q", src, got, want)
		}
		checkRoundTrip(t, m)
	}
}

// TestMDX_StarlightPaths: Starlight serves its docs collection at the
// site's root (kyverno.io's src/content/docs/docs/guides/
// applying-policies.md is /docs/guides/applying-policies/, not
// /docs/docs/…), index files at their folder's URL, slug: in full, a
// locale's folder as it is; another collection keeps its name.
func TestMDX_StarlightPaths(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"astro.config.mjs":                                   "export default {}\n",
		"src/content/docs/index.mdx":                         "---\ntitle: Kyverno\ntemplate: splash\n---\n",
		"src/content/docs/docs/guides/applying-policies.md":  "---\ntitle: Applying Policies\n---\n",
		"src/content/docs/docs/introduction/index.md":        "---\ntitle: Introduction\n---\n",
		"src/content/docs/docs/installation/installation.md": "---\ntitle: Installation\nslug: docs/installation\n---\n",
		"src/content/docs/fr/guides/reindex.md":              "---\ntitle: Réindexer\n---\n",
		"src/content/blog/first.md":                          "---\ntitle: First\n---\n",
	})
	wantNoProblems(t, probs)
	want := map[string]string{
		"docs/index":                         "/",
		"docs/docs/guides/applying-policies": "/docs/guides/applying-policies/",
		"docs/docs/introduction":             "/docs/introduction/",
		"docs/docs/installation":             "/docs/installation/",
		"docs/fr/guides/reindex":             "/fr/guides/reindex/",
		"blog/first":                         "/blog/first/",
	}
	n := 0
	for typ, items := range site.Items {
		for _, it := range items {
			n++
			if w, ok := want[typ+"/"+it.Slug]; !ok || it.Path != w {
				t.Errorf("%s/%s: path %q, want %q", typ, it.Slug, it.Path, w)
			}
		}
	}
	if n != len(want) {
		t.Errorf("%d items, want %d", n, len(want))
	}
}

// TestMDX_AstroSlugs: an Astro collection's entry whose folder name is
// no valid slug (greensoftware.foundation's articles, an em dash in the
// name) has the id Astro's glob() loader gives it, github-slugger's,
// where it was left out; the same name under content/ stays a problem.
func TestMDX_AstroSlugs(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"src/content/articles/en/turning-digital-emissions-into-actionable-metrics—meet-mei-lian-wei-of-tier/index.md": "---\ntitle: Meet Mei Lian Wei\ndate: 2025-01-02\n---\n",
		"src/content/articles/en/Green Software!.md": "---\ntitle: Green\n---\n",
		"content/posts/a—b.md":                       "---\ntitle: AB\n---\n",
	})
	wantProblems(t, probs, map[string]string{"content/posts/a—b.md": `the file name gives the slug "a—b", which is not valid`})
	got := slugs(site.Items["articles"])
	if want := []string{"en/green-software", "en/turning-digital-emissions-into-actionable-metricsmeet-mei-lian-wei-of-tier"}; !slices.Equal(got, want) {
		t.Errorf("articles %v, want %v", got, want)
	}
}
