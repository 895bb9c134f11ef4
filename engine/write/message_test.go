package write

import "testing"

func TestClientMessage(t *testing.T) {
	for in, want := range map[string]string{
		"Update hello": "Update hello",
		"Edit\n\nDecap-Note: {\"op\":\"delete\"}":        "Edit",
		"Edit\n\n decap-status : pending_publish\nOk: 1": "Edit\n\nOk: 1",
		"Mentions Decap-Note: in a sentence":             "Mentions Decap-Note: in a sentence",
		"Decap-Notes: another key":                       "Decap-Notes: another key",
	} {
		got, err := clientMessage(in)
		if err != nil || got != want {
			t.Errorf("clientMessage(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := clientMessage("a\x00b"); err == nil {
		t.Error("a NUL was taken")
	}
	if got := withTrailers("Subject\n", []TrailerLine{{"Decap-Status", "draft"}}); got != "Subject\n\nDecap-Status: draft\n" {
		t.Errorf("withTrailers: %q", got)
	}
}

func TestCaseClash(t *testing.T) {
	files := []File{{Path: "content/posts/Hello.md"}, {Path: "content/posts/Guides/a.md"}, {Path: "content/posts/b.md"}}
	for p, want := range map[string]string{
		"content/posts/hello.md":    "content/posts/Hello.md",
		"content/posts/guides/c.md": "content/posts/Guides/a.md",
		"content/posts/B.md":        "content/posts/b.md",
		"content/posts/Hello.md":    "",
		"content/posts/c.md":        "",
		"content/posts/Guides/d.md": "",
	} {
		if got := caseClash(p, files); got != want {
			t.Errorf("caseClash(%q) = %q, want %q", p, got, want)
		}
	}
}

// A path that differs from another only in Unicode normalization (Ü as
// one code point, or U and a combining diaeresis) is one file on macOS:
// a second one is refused as a case clash is.
func TestCaseClash_UnicodeNormalization(t *testing.T) {
	files := []File{{Path: "content/posts/\u00dcn.md"}, {Path: "content/posts/Caf\u00e9/a.md"}, {Path: "content/posts/\u212aelvin.md"}}
	for p, want := range map[string]string{
		"content/posts/U\u0308n.md":     "content/posts/\u00dcn.md",
		"content/posts/u\u0308n.md":     "content/posts/\u00dcn.md",
		"content/posts/Cafe\u0301/b.md": "content/posts/Caf\u00e9/a.md",
		"content/posts/caf\u00e9/b.md":  "content/posts/Caf\u00e9/a.md",
		"content/posts/kelvin.md":       "content/posts/\u212aelvin.md",
		"content/posts/Caf\u00e9/b.md":  "",
		"content/posts/\u00dcn.md":      "",
		"content/posts/Un.md":           "",
	} {
		if got := caseClash(p, files); got != want {
			t.Errorf("caseClash(%+q) = %+q, want %+q", p, got, want)
		}
	}
}
