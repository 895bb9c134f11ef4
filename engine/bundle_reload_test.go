package engine

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestEngine_ReloadMatchesColdLeafBundles: pushes that make a folder a
// Hugo leaf bundle or take that away (an index.md added or removed, a
// file coming into a bundle, folio.yaml declaring the folder a type,
// locales added) are served after a reload as an engine opened cold on
// that commit serves them.
func TestEngine_ReloadMatchesColdLeafBundles(t *testing.T) {
	t.Parallel()
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	cfg := func() Config {
		return Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now }}
	}
	doc := func(title string) string { return "---\ntitle: " + title + "\n---\nBody of " + title + "\n" }
	r.Commit(srcDay(0), map[string]string{
		"hugo.toml":                "title = \"x\"\nbaseURL = \"https://x/\"\n",
		"content/posts/a.md":       doc("A"),
		"content/posts/b/index.md": doc("B"),
	})
	r.Push(false)
	// Steps alternate between sites a reload may patch from the changed
	// files alone (no bundle renamed, no resource) and sites it may not.
	steps := []struct {
		name     string
		files    map[string]string
		rm       []string
		has, not string // in what the engine serves, and not
	}{
		{"start", nil, nil, `"slug":"b"`, ""},
		{"edit the bundle's index", map[string]string{"content/posts/b/index.md": doc("B2")}, nil, "B2", ""},
		{"a page's bundle comes", map[string]string{"content/about/index.md": doc("About")}, nil, `"slug":"about"`, `"type":"about"`},
		{"a file comes into the page's bundle", map[string]string{"content/about/extra.md": doc("Extra")}, nil, "extra.md in it is a resource", "Body of Extra"},
		{"the page's index goes: a type", nil, []string{"content/about/index.md"}, "Body of Extra", `"slug":"about"`},
		{"the index back", map[string]string{"content/about/index.md": doc("About2")}, nil, "About2", "Body of Extra"},
		{"the page goes", nil, []string{"content/about"}, `"slug":"b"`, "About"},
		{"a file comes into a post's bundle", map[string]string{"content/posts/b/notes.md": doc("Notes")}, nil, "notes.md in it is a resource", "Body of Notes"},
		{"the post's index goes", nil, []string{"content/posts/b/index.md"}, "Body of Notes", "notes.md in it is a resource"},
		{"and comes back", map[string]string{"content/posts/b/index.md": doc("B3")}, nil, "B3", "Body of Notes"},
		{"folio.yaml declares about a type", map[string]string{"folio.yaml": "types:\n  about: {}\n", "content/about/index.md": doc("About3")}, nil, `"type":"about"`, `"slug":"about"`},
		{"no more", nil, []string{"folio.yaml"}, `"slug":"about"`, `"type":"about"`},
		{"locales by file name", map[string]string{"hugo.toml": "title = \"x\"\nbaseURL = \"https://x/\"\ndefaultContentLanguage = \"en\"\n[languages.en]\nweight = 1\n[languages.de]\nweight = 2\n",
			"content/about/index.de.md": doc("Über")}, nil, `"slug":"about"`, `"type":"about"`},
	}
	e, err := Open(context.Background(), cfg())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i, st := range steps {
		if i > 0 {
			r.Commit(srcDay(i), st.files, st.rm...)
			r.Push(false)
			if err := e.Reload(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		cold, err := Open(context.Background(), cfg())
		if err != nil {
			t.Fatal(err)
		}
		var got, want string
		for _, draft := range []bool{false, true} {
			got += viewDump(t, e, draft)
			want += viewDump(t, cold, draft)
		}
		cold.Close()
		if e.Published().Commit != cold.Published().Commit || got != want {
			t.Fatalf("%s: the reloaded engine serves\n%s\nan engine opened cold serves\n%s", st.name, got, want)
		}
		if !strings.Contains(got, st.has) {
			t.Fatalf("%s: %q is not in what the engine serves:\n%s", st.name, st.has, got)
		}
		if st.not != "" && strings.Contains(got, st.not) {
			t.Fatalf("%s: %q is in what the engine serves:\n%s", st.name, st.not, got)
		}
	}
}

// TestEngine_ModelSkipsLeafBundleResources: the content model checks the
// documents, not a leaf bundle's resources: a resource that breaks the
// model is no problem, and is one once the bundle's index goes and it is
// an item; reloads, patched or not, check as a cold start does.
func TestEngine_ModelSkipsLeafBundleResources(t *testing.T) {
	t.Parallel()
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	cfg := func() Config {
		return Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now }}
	}
	model := "types:\n  posts:\n    fields:\n      title: {kind: string, required: true}\n      price: number\n"
	r.Commit(srcDay(0), map[string]string{
		"folio.yaml":               model,
		"content/posts/a.md":       "---\ntitle: A\n---\n",
		"content/posts/b/notes.md": "---\ntitle: N\nprice: cheap\n---\n",
	})
	r.Push(false)
	const broken = "problem content/posts/b/notes.md"
	steps := []struct {
		name   string
		files  map[string]string
		rm     []string
		broken bool // the resource's problem is served
	}{
		{"start: an item", nil, nil, true},
		{"an index comes: a resource", map[string]string{"content/posts/b/index.md": "---\ntitle: B\n---\n"}, nil, false},
		{"an edit beside", map[string]string{"content/posts/a.md": "---\ntitle: A2\n---\n"}, nil, false},
		{"the index goes: an item again", nil, []string{"content/posts/b/index.md"}, true},
		{"an edit beside again", map[string]string{"content/posts/a.md": "---\ntitle: A3\n---\n"}, nil, true},
	}
	e, err := Open(context.Background(), cfg())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i, st := range steps {
		if i > 0 {
			r.Commit(srcDay(i), st.files, st.rm...)
			r.Push(false)
			if err := e.Reload(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		cold, err := Open(context.Background(), cfg())
		if err != nil {
			t.Fatal(err)
		}
		got, want := viewDump(t, e, true), viewDump(t, cold, true)
		cold.Close()
		if got != want {
			t.Fatalf("%s: the reloaded engine serves\n%s\nan engine opened cold serves\n%s", st.name, got, want)
		}
		if strings.Contains(got, broken) != st.broken {
			t.Fatalf("%s: %q served %v, want %v:\n%s", st.name, broken, !st.broken, st.broken, got)
		}
	}
}
