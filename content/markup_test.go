package content

import (
	"strings"
	"testing"
)

const settingsBody = `# Title {#custom .big}

<div class="box" onclick="steal()">raw <b>HTML</b><script>alert(1)</script></div>

Inline <span style="color:red" onmouseover="x()">span</span> and [x](javascript:alert(1)).

> [!WARNING]
> Be *careful*.

> [!nope]
> A plain quote.

Term
: Definition.

A lead.
{.lead #intro}
`

func itemBody(t *testing.T, site *Site, typ, slug string) string {
	t.Helper()
	for _, it := range site.Items[typ] {
		if it.Slug == slug {
			return it.Data["body"].(Markdown).HTML()
		}
	}
	t.Fatalf("no %s/%s", typ, slug)
	return ""
}

func TestMarkup_HugoSettings(t *testing.T) {
	for name, cfg := range map[string]map[string]string{
		"hugo.toml": {"hugo.toml": "title = 'x'\n[markup.goldmark.renderer]\nunsafe = true\n[markup.goldmark.parser.attribute]\nblock = true\n"},
		"config/_default/markup.yaml": {
			"config/_default/hugo.yaml":   "title: x\n",
			"config/_default/markup.yaml": "goldmark:\n  renderer: {unsafe: true}\n  parser: {attribute: {block: true}}\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{"content/docs/a.md": "---\ntitle: A\n---\n" + settingsBody}
			for k, v := range cfg {
				files[k] = v
			}
			site, probs := assemble(t, files)
			wantNoProblems(t, probs)
			got := itemBody(t, site, "docs", "a")
			for _, want := range []string{
				`<h1 id="custom" class="big">Title</h1>`,
				`<div class="box">raw <b>HTML</b></div>`,
				`Inline <span>span</span> and <a href="">x</a>.`,
				"<div class=\"markdown-alert markdown-alert-warning\">\n<p class=\"markdown-alert-title\">Warning</p>\n<p>Be <em>careful</em>.</p>\n</div>",
				"<blockquote>\n<p>[!nope]",
				"<dl>\n<dt>Term</dt>\n<dd>Definition.</dd>\n</dl>",
				`<p class="lead" id="intro">A lead.</p>`,
			} {
				if !strings.Contains(got, want) {
					t.Errorf("lacks %q:\n%s", want, got)
				}
			}
			for _, bad := range []string{"onclick", "script", "onmouseover", "javascript", "{.lead"} {
				if strings.Contains(got, bad) {
					t.Errorf("holds %q:\n%s", bad, got)
				}
			}
		})
	}
}

// TestMarkup_Defaults: a Hugo site without settings gets Hugo's defaults
// (raw HTML omitted, heading attributes and definition lists on, block
// attributes off); a site without a Hugo configuration folio's (no
// definition lists, no attributes); both get GitHub alerts.
func TestMarkup_Defaults(t *testing.T) {
	site, _ := assemble(t, map[string]string{"hugo.toml": "title = 'x'\n", "content/docs/a.md": settingsBody})
	got := itemBody(t, site, "docs", "a")
	for _, want := range []string{`<h1 id="custom" class="big">`, "<!-- raw HTML omitted -->", "<dl>", "<p>A lead.\n{.lead #intro}</p>", "markdown-alert-warning"} {
		if !strings.Contains(got, want) {
			t.Errorf("hugo defaults lack %q:\n%s", want, got)
		}
	}
	site, _ = assemble(t, map[string]string{"content/docs/a.md": settingsBody})
	got = itemBody(t, site, "docs", "a")
	for _, want := range []string{`<h1 id="title-custom-big">Title {#custom .big}</h1>`, "<!-- raw HTML omitted -->", "<p>Term\n: Definition.</p>", "markdown-alert-warning"} {
		if !strings.Contains(got, want) {
			t.Errorf("folio defaults lack %q:\n%s", want, got)
		}
	}
}

// TestMarkup_ChangeRereads: a change of the settings alone renders every
// body again, though the files are the same.
func TestMarkup_ChangeRereads(t *testing.T) {
	as := new(Assembler)
	body := NewDoc(map[string]any{"title": "A"})
	body.Body, body.HasBody = NewMarkdown("<b>x</b> {{% param v %}}"), true
	cfg := func(s string) File {
		d, err := Parse("hugo.toml", []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return File{Path: "hugo.toml", Doc: d}
	}
	a := File{Path: "content/docs/a.md", Doc: body}
	site, _ := as.Assemble([]File{cfg("[params]\nv = 1\n"), a})
	if got := site.Items["docs"][0].Data["body"].(Markdown).HTML(); got != "<p><!-- raw HTML omitted -->x<!-- raw HTML omitted --> 1</p>\n" {
		t.Errorf("before: %q", got)
	}
	site, _ = as.Assemble([]File{cfg("[params]\nv = 2\n[markup.goldmark.renderer]\nunsafe = true\n"), a})
	if got := site.Items["docs"][0].Data["body"].(Markdown).HTML(); got != "<p><b>x</b> 2</p>\n" {
		t.Errorf("after: %q", got)
	}
}
