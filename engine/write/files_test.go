package write

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
)

func TestFileAPI(t *testing.T) {
	s := newSite(t)
	w := s.writer()
	ctx := context.Background()
	data, blob, err := w.ReadFile(ctx, "", "content/posts/hello.md")
	if err != nil || string(data) != files["content/posts/hello.md"] || blob == "" {
		t.Fatalf("read: %q %v", data, err)
	}
	list, err := w.ListFiles(ctx, "", "content/posts")
	if err != nil || len(list) != 3 || list[0].Path != "content/posts/hello.md" {
		t.Fatalf("list: %+v %v", list, err)
	}
	raw := "---\ntitle: Raw\ndate: 2024-05-01\n---\nFrom *Decap*.\n"
	res, err := w.PutFile(ctx, "content/posts/raw.md", []byte(raw), Options{Author: Person{Name: "decap"}})
	if err != nil || s.remoteFile("content/posts/raw.md") != raw || res.Commit != s.remoteHead() {
		t.Fatalf("put: %+v %v", res, err)
	}
	if _, err := w.PutFile(ctx, "content/posts/raw.md", []byte("---\ntitle: Stale\n---\n"), Options{IfMatch: `"` + blob[:16] + `"`}); fault.CodeOf(err) != fault.PreconditionFailed {
		t.Fatalf("stale If-Match: %v", err)
	}
	for name, tc := range map[string]struct {
		path, data string
		code       fault.Code
	}{
		"escape":        {"../x.md", "---\ntitle: x\n---\n", fault.Invalid},
		"not content":   {"README.md", "x", fault.Invalid},
		"model file":    {"folio.yaml", "types: {}\n", fault.Invalid},
		"control":       {"content/posts/a\x01.md", "---\ntitle: x\n---\n", fault.Invalid},
		"broken yaml":   {"content/posts/b.md", "---\ntitle: [\n---\n", fault.Unprocessable},
		"taken slug":    {"content/posts/other.md", "---\ntitle: x\nslug: hello\n---\n", fault.Conflict},
		"too large":     {"content/posts/big.md", "---\ntitle: x\n---\n" + strings.Repeat("x", 5<<20), fault.TooLarge},
		"invalid title": {"content/posts/t.md", "---\ntitle: {a: 1}\n---\n", fault.Unprocessable},
	} {
		_, err := w.PutFile(ctx, tc.path, []byte(tc.data), Options{})
		if fault.CodeOf(err) != tc.code {
			t.Errorf("%s: %v (%v), want %v", name, err, fault.CodeOf(err), tc.code)
		}
	}
	var ve *ValidationError
	if _, err := w.PutFile(ctx, "content/posts/b.md", []byte("---\ntitle: [\n---\n"), Options{}); !errors.As(err, &ve) {
		t.Fatalf("want a ValidationError: %v", err)
	}
	if _, err := w.DeleteFile(ctx, "content/posts/raw.md", Options{}); err != nil || s.remoteFile("content/posts/raw.md") != "" {
		t.Fatalf("delete: %v", err)
	}
	if _, err := w.DeleteFile(ctx, "content/posts/raw.md", Options{}); fault.CodeOf(err) != fault.NotFound {
		t.Fatalf("delete again: %v", err)
	}
}

// checkContentPath: a locale's contentDir outside content/ holds
// content files; no other folder does.
func TestCheckContentPath(t *testing.T) {
	c := &content.I18n{Layout: content.LayoutFolder, Default: "en", Locales: []content.Locale{{Code: "en", ContentDir: "content"}, {Code: "fr", ContentDir: "content_fr"}, {Code: "de", ContentDir: "i18n/de/content"}}}
	for p, ok := range map[string]bool{
		"content/posts/a.md":            true,
		"content_fr/posts/a.md":         true,
		"content_fr/about.md":           true,
		"i18n/de/content/posts/a.md":    true,
		"content_fr/.hidden/a.md":       false,
		"content_fr/posts/a.png":        false,
		"content_de/posts/a.md":         false,
		"i18n/de/posts/a.md":            false,
		"content_fr/../secret/a.md":     false,
		"content_frx/posts/a.md":        false,
		"folio.yaml":                    false,
		"content_fr/posts/_drafts/a.md": false,
	} {
		if err := checkContentPath(c, p); (err == nil) != ok {
			t.Errorf("%s: %v, want ok %v", p, err, ok)
		}
	}
	if err := checkContentPath(nil, "content_fr/posts/a.md"); err == nil {
		t.Error("a site without locales took content_fr/")
	}
}
