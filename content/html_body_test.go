package content

import (
	"strings"
	"testing"
)

// An .html document (Hugo's HTML content format): front matter as in
// Markdown, the body HTML, served sanitized; deep indentation is no
// Markdown nesting problem.
func TestParseHTMLDocument(t *testing.T) {
	src := "---\ntitle: CT logs\nslug: ct-logs\n---\n\n<p class=\"lead\" onclick=\"steal()\">\n" +
		strings.Repeat("    ", 40) + "<a href=\"https://example.org/ct\" id=\"ct\">Certificate <b>Transparency</b></a>\n" +
		"<a href=\"javascript:alert(1)\">bad link</a>\n</p>\n<script>alert('x')</script><style>p{color:red}</style>\n" +
		"<iframe src=\"https://evil.example\"></iframe><img src=\"/img/a.png\" alt=\"A\" onerror=\"x()\">\n"
	for _, p := range []string{"content/docs/ct-logs.html", "content/docs/ct-logs.HTM"} {
		d, err := Parse(p, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if d.Meta()["title"] != "CT logs" || !d.HasBody || !d.Body.IsHTML() {
			t.Fatalf("%s: meta %v, body %v html %v", p, d.Meta(), d.HasBody, d.Body.IsHTML())
		}
		html := d.Body.HTML()
		for _, want := range []string{`<p class="lead">`, `<a href="https://example.org/ct" id="ct">Certificate <b>Transparency</b></a>`, `<img src="/img/a.png" alt="A">`, "bad link"} {
			if !strings.Contains(html, want) {
				t.Errorf("%s: %q not in %q", p, want, html)
			}
		}
		for _, gone := range []string{"onclick", "javascript:", "<script", "alert", "<style", "color:red", "<iframe", "onerror"} {
			if strings.Contains(html, gone) {
				t.Errorf("%s: %q left in %q", p, gone, html)
			}
		}
		if text := d.Body.Text(); strings.Contains(text, "alert") || !strings.Contains(text, "Certificate Transparency") {
			t.Errorf("%s: text %q", p, text)
		}
	}
	// A Markdown file with the same body renders it as Markdown (raw HTML
	// is not passed through), and its deep indentation is a problem.
	if _, err := Parse("content/docs/ct-logs.md", []byte(src)); err == nil {
		t.Error("the deeply indented body is accepted as Markdown")
	}
	if !Relevant("content/docs/ct-logs.html") || !Relevant("pages/about.htm") {
		t.Error("HTML documents are not relevant")
	}
}
