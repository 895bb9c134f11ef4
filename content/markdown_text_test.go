package content

import (
	"strings"
	"testing"
)

func TestPlainText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"# Title\n\nSome **bold** and _it_ text.", "Title Some bold and _it_ text."},
		{"See [the docs](https://example.com/docs \"Docs\") now.", "See the docs now."},
		{"![a cat](/img/cat.jpg)", "a cat"},
		{"Before {{< figure src=\"x.jpg\" caption=\"hidden > words\" >}} after", "Before after"},
		{"{{% notice tip %}}Keep this{{% /notice %}}", "Keep this"},
		{"{{< youtube\n  id=\"abc\" >}}", ""},
		{"a <span class=\"x\">b</span> <!-- gone --> c", "a b c"},
		{"visit https://example.com/page?q=1 today", "visit today"},
		{"[ref]: https://example.com\ntext [ref]", "text ref"},
		{"Fish &amp; chips", "Fish & chips"},
		{"a < b and c > d", "a < b and c d"},
		{"{{< unclosed", "{{< unclosed"},
		{"x ![alt](p.png) y! z", "x alt y! z"},
		{"> quoted\n\n```go\nfmt.Println()\n```", "quoted go fmt.Println()"},
	}
	for _, tt := range tests {
		if got := PlainText(tt.in); got != tt.want {
			t.Errorf("PlainText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func BenchmarkPlainText(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 100; i++ {
		sb.WriteString("## Heading\n\nSome **bold** text with [a link](https://example.com/x) and {{< figure src=\"a.jpg\" >}} a <span>tag</span> &amp; more words here.\n\n")
	}
	src := sb.String()
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		PlainText(src)
	}
}

// TestAppendPlainText: the text is appended after dst's bytes, which stay
// as they are (its own trailing spaces trimmed, not dst's), and is
// PlainText's.
func TestAppendPlainText(t *testing.T) {
	for _, c := range []struct{ dst, s, want string }{
		{"", "**Hello**  world\n", "Hello world"},
		{"abc ", "x  ", "abc x"},
		{"abc ", "   ", "abc "},
		{"abc", "<b>bold</b> [link](https://example.com)", "abcbold link"}, // no separator of its own
	} {
		if got := string(AppendPlainText([]byte(c.dst), c.s)); got != c.want {
			t.Errorf("AppendPlainText(%q, %q) = %q, want %q", c.dst, c.s, got, c.want)
		}
		if got, want := string(AppendPlainText(nil, c.s)), PlainText(c.s); got != want {
			t.Errorf("AppendPlainText(nil, %q) = %q, PlainText %q", c.s, got, want)
		}
	}
}
