package content

import (
	"strings"
	"testing"
)

// render is a body's HTML in a site of settings mk and front matter page.
func render(src string, mk *Markup, page map[string]any) string {
	return NewMarkdown(src).WithSite(mk, page).HTML()
}

func TestShortcodes_Parse(t *testing.T) {
	src := "a {{< alert color=\"warning\" title=`raw \"t\"` >}}in {{% note %}}x{{% /note %}}{{< /alert >}} b\n" +
		"{{< tab \"One\" 2 >}}{{< tab header=x />}}{{< /tab >}}{{< /nope >}}{{</* alert */>}}{{< unclosed"
	spans := findShortcodes(src)
	if len(spans) != 3 {
		t.Fatalf("%d spans: %+v", len(spans), spans)
	}
	a := spans[0].comp
	if a.name != "alert" || !a.paired || a.arg("color", -1) != "warning" || a.arg("title", -1) != `raw "t"` ||
		a.inner != "in {{% note %}}x{{% /note %}}" || a.block || a.syntax != syntaxShortcode {
		t.Errorf("alert: %+v", a)
	}
	tab := spans[1].comp
	if tab.name != "tab" || !tab.paired || len(tab.args) != 2 || tab.args[0] != "One" || tab.args[1] != "2" || tab.inner != "{{< tab header=x />}}" {
		t.Errorf("tab: %+v", tab)
	}
	if spans[2].comp != nil || spans[2].literal != "{{< alert >}}" {
		t.Errorf("comment: %+v", spans[2])
	}
	// nested of one name pair inside out
	n := findShortcodes("{{< box >}}1{{< box >}}2{{< /box >}}3{{< /box >}}")
	if len(n) != 1 || n[0].comp.inner != "1{{< box >}}2{{< /box >}}3" {
		t.Errorf("nested: %+v", n)
	}
}

func TestShortcodes_HTML(t *testing.T) {
	mk := &Markup{key: "t", Params: map[string]any{"vers": "1.2", "site": map[string]any{"Name": "Folio"}}}
	page := map[string]any{"color": "blue", "params": map[string]any{"deep": "yes"}}
	for _, c := range []struct{ src, want string }{
		{"v{{% param vers %}} {{< param \"site.name\" >}} {{% param color %}} {{% param deep %}} [{{% param nope %}}]", "<p>v1.2 Folio blue yes []</p>\n"},
		{"[a]({{< ref \"docs/intro.md\" >}}) [b]({{< relref \"/Blog/My Post/_index.md#top\" >}}) [c]({{< ref \"#x\" >}})",
			`<p><a href="/docs/intro/">a</a> <a href="/blog/my-post/#top">b</a> <a href="#x">c</a></p>` + "\n"},
		{"{{< highlight go \"linenos=table\" >}}\nx := 1\n{{< /highlight >}}", "<pre><code class=\"language-go\">x := 1\n</code></pre>\n"},
		{"{{< alert >}}**b**{{< /alert >}}", "<folio-component name=\"alert\">\n<p><strong>b</strong></p>\n</folio-component>\n"},
		{"a {{% kbd %}}*C*{{% /kbd %}} b", "<p>a <folio-component name=\"kbd\"><em>C</em></folio-component> b</p>\n"},
		{"{{< youtube id=\"a\\\"b\" >}}", "<folio-component name=\"youtube\" data-props=\"{&#34;id&#34;:&#34;a\\&#34;b&#34;}\"></folio-component>\n"},
		{"{{< vimeo 146022717 >}}", `<div class="folio-embed folio-embed-vimeo"><iframe src="https://player.vimeo.com/video/146022717" title="Vimeo video" allow="fullscreen; picture-in-picture" allowfullscreen loading="lazy"></iframe></div>` + "\n"},
		{"{{< figure src=\"javascript:alert(1)\" >}}", "<folio-component name=\"figure\" data-props=\"{&#34;src&#34;:&#34;javascript:alert(1)&#34;}\"></folio-component>\n"},
		{"{{< figure src=\"/a.png\" link=\"https://x.org\" title=\"T<\" >}}", `<figure><a href="https://x.org"><img src="/a.png"></a><figcaption><h4>T&lt;</h4></figcaption></figure>` + "\n"},
		{"{{< details summary=\"More\" >}}\nhidden\n{{< /details >}}", "<details><summary>More</summary>\n<p>hidden</p>\n</details>\n"},
		{"{{< tab lang=\"toml\" >}}\n+++\na = 1\n+++\n{{</* x */>}}\n{{< /tab >}}", "<folio-component name=\"tab\" data-props=\"{&#34;lang&#34;:&#34;toml&#34;}\">\n<pre><code class=\"language-toml\">+++\na = 1\n+++\n{{&lt; x &gt;}}\n</code></pre>\n</folio-component>\n"},
		{"```\n{{< alert >}}x{{< /alert >}}\n```", "<pre><code>{{&lt; alert &gt;}}x{{&lt; /alert &gt;}}\n</code></pre>\n"},
		// a props value cannot leave its attribute
		{"{{< x a=\"\\\"><script>alert(1)</script>\" >}}", "<folio-component name=\"x\" data-props=\"{&#34;a&#34;:&#34;\\&#34;\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e&#34;}\"></folio-component>\n"},
		// the placeholder characters of a source are not placeholders
		{"a \uE0000\uE001 b", "<p>a \uFFFD0\uFFFD b</p>\n"},
	} {
		if got := render(c.src, mk, page); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}

// TestShortcodes_NotByDefault: without the change the shortcodes were
// escaped text; an ordinary body renders as before.
func TestShortcodes_PlainBody(t *testing.T) {
	src := "# T\n\nSome *text* with {{ not a shortcode }} and {{< >}}.\n"
	want := "<h1 id=\"t\">T</h1>\n<p>Some <em>text</em> with {{ not a shortcode }} and {{&lt; &gt;}}.</p>\n"
	if got := render(src, nil, nil); got != want {
		t.Errorf("got %q", got)
	}
	if got := render("{{< alert >}}x{{< /alert >}}", nil, nil); strings.Contains(got, "{{&lt;") {
		t.Errorf("escaped: %q", got)
	}
}
