package content

import "testing"

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
		{"> quoted\n\n```go\nfmt.Println()\n```", "quoted go fmt.Println()"},
	}
	for _, tt := range tests {
		if got := PlainText(tt.in); got != tt.want {
			t.Errorf("PlainText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
