package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/internal/gittest"
)

// The pushes of package gitsource's incremental-load tests
// (source_incremental_test.go there), served by an engine.

// TestEngine_IncrementalReloadMatchesCold is gitsource's
// TestSource_IncrementalLoadMatchesCold with real content:
// every resource the reloaded engine serves is byte for byte what an
// engine opened cold on that commit serves.
func TestEngine_IncrementalReloadMatchesCold(t *testing.T) {
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	cfg := func() Config {
		return Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now }}
	}
	initial, steps := gittest.IncrementalSteps()
	day := 0
	r.Commit(srcDay(day), initial)
	r.Push(false)
	e, err := Open(context.Background(), cfg())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, st := range steps {
		st.Apply(t, r, &day)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		cold, err := Open(context.Background(), cfg())
		if err != nil {
			t.Fatal(err)
		}
		if e.Published().Commit != cold.Published().Commit {
			t.Fatalf("%s: reloaded to %s, cold engine at %s", st.Name, e.Published().Commit, cold.Published().Commit)
		}
		for _, draft := range []bool{false, true} {
			if got, want := viewDump(t, e, draft), viewDump(t, cold, draft); got != want {
				t.Fatalf("%s draft=%v: reloaded engine serves\n%s\ncold engine serves\n%s", st.Name, draft, got, want)
			}
		}
		cold.Close()
	}
}

// TestEngine_ReloadMatchesColdModelLocales is the same check on a site
// with a content model, locales, drafts and paths that differ only in
// case: after each push, the reloaded engine's published and draft
// views, every locale's, and its problems are what an engine opened
// cold on that commit has. (A model with onInvalid: reject is left
// out: a reload serves a held document's last valid version, which a
// cold start never saw.)
func TestEngine_ReloadMatchesColdModelLocales(t *testing.T) {
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	cfg := func() Config {
		return Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now }}
	}
	post := func(title, extra string) string {
		return "---\ntitle: " + title + "\n" + extra + "---\nBody of " + title + "\n"
	}
	model := strings.Replace(modelYAML, "    onInvalid: reject\n", "", 1)
	config := "locales: [en, fr]\n" + model
	r.Commit(srcDay(0), map[string]string{
		"folio.yaml":            config,
		"globals.yaml":          "siteName: A\n",
		"pages/index.md":        "---\ntitle: Index\n---\nWelcome\n",
		"content/en/posts/a.md": post("A", "price: 1\n"),
		"content/fr/posts/a.md": post("A-fr", "price: 1\n"),
		"content/en/posts/b.md": post("B", ""),
		"content/en/posts/d.md": post("D", "draft: true\n"),
	})
	r.Push(false)
	steps := []struct {
		name  string
		files map[string]string
		rm    []string
	}{
		{"edit a translation", map[string]string{"content/fr/posts/a.md": post("A-fr2", "price: 2\n")}, nil},
		{"a translation breaks the model", map[string]string{"content/fr/posts/a.md": post("A-fr3", "price: cheap\n")}, nil},
		{"a document breaks the model", map[string]string{"content/en/posts/b.md": post("B2", "price: cheap\n")}, nil},
		{"paths that differ only in case", map[string]string{"content/en/posts/C.md": post("C", ""), "content/en/posts/c.md": post("c", "")}, nil},
		{"edit beside the case clash", map[string]string{"content/en/posts/a.md": post("A2", "price: 3\n")}, nil},
		{"case clash removed", nil, []string{"content/en/posts/C.md"}},
		{"draft published", map[string]string{"content/en/posts/d.md": post("D", "draft: false\n")}, nil},
		{"rename", map[string]string{"content/en/posts/b2.md": post("B2", "")}, []string{"content/en/posts/b.md"}},
		{"model changed: a field required", map[string]string{"folio.yaml": strings.Replace(config, "price: number", "price: {kind: number, required: true}", 1)}, nil},
		{"translation deleted", nil, []string{"content/fr/posts/a.md"}},
		{"edit under the new model", map[string]string{"content/en/posts/c.md": post("c2", "price: 4\n")}, nil},
		{"model back, locales dropped", map[string]string{"folio.yaml": model, "content/posts/z.md": post("Z", "")}, nil},
		{"edit without locales", map[string]string{"content/posts/z.md": post("Z2", "price: 5\n")}, nil},
	}
	expect := map[string]string{
		"a translation breaks the model":  "problem content/fr/posts/a.md:3: price",
		"a document breaks the model":     "problem content/en/posts/b.md:3: price",
		"paths that differ only in case":  "differs only in case",
		"edit beside the case clash":      "differs only in case",
		"model changed: a field required": "price: required",
	}
	dump := func(e *Engine) string {
		var b strings.Builder
		for _, draft := range []bool{false, true} {
			b.WriteString(viewDump(t, e, draft))
			v := e.View(draft)
			if c := v.I18n(); c != nil {
				for _, loc := range c.Codes() {
					lv, err := v.InLocale(loc, true, now)
					if err != nil {
						t.Fatal(err)
					}
					fmt.Fprintf(&b, "locale %s\n", loc)
					for _, typ := range []string{"posts"} {
						if tl, ok := lv.Type(typ); ok {
							rs, _, err := tl.Sorted("")
							if err != nil {
								t.Fatal(err)
							}
							for _, r := range rs {
								body, etag, _ := r.Body()
								fmt.Fprintf(&b, "%s %s\n", body, etag)
							}
						}
					}
				}
			}
		}
		return b.String()
	}
	e, err := Open(context.Background(), cfg())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i, st := range steps {
		r.Commit(srcDay(1+i), st.files, st.rm...)
		r.Push(false)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		cold, err := Open(context.Background(), cfg())
		if err != nil {
			t.Fatal(err)
		}
		got, want := dump(e), dump(cold)
		cold.Close()
		if e.Published().Commit != cold.Published().Commit || got != want {
			t.Fatalf("%s: the reloaded engine serves\n%s\nan engine opened cold serves\n%s", st.name, got, want)
		}
		// the steps reach what they are about
		if must := expect[st.name]; must != "" && !strings.Contains(got, must) {
			t.Fatalf("%s: %q is not in what the engine serves:\n%s", st.name, must, got)
		}
	}
}
