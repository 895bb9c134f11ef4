package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
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
		// what a reload that looks only at the changed files could get
		// wrong: the whole-site rules (references, unique values,
		// slugs), types coming and going, folders
		{"model file changed: a unique field, a reference, a second type", map[string]string{"folio.yaml": model2,
			"content/team/ann.md": post("Ann", ""), "content/team/bob.md": post("Bob", ""),
			"content/posts/z.md": post("Z3", "sku: Z\nauthor: ann\n")}, nil},
		{"a referenced item deleted", nil, []string{"content/team/ann.md"}},
		{"the referenced item back", map[string]string{"content/team/ann.md": post("Ann2", "")}, nil},
		{"a unique value taken twice", map[string]string{"content/posts/y.md": post("Y", "sku: Z\n")}, nil},
		{"the unique value given up", map[string]string{"content/posts/y.md": post("Y2", "sku: Y\n")}, nil},
		{"a duplicate slug made", map[string]string{"content/posts/w.md": post("W", "slug: z\nauthor: ann\n")}, nil},
		{"the duplicate slug removed", nil, []string{"content/posts/z.md"}},
		{"a rename between types", map[string]string{"content/team/y.md": post("Y2", "sku: Y\n")}, []string{"content/posts/y.md"}},
		{"a folder deleted", nil, []string{"content/team"}},
		{"a folder added", map[string]string{"content/team/ann.md": post("Ann3", ""), "content/team/x/carl.md": post("Carl", "")}, nil},
	}
	expect := map[string]string{
		"a translation breaks the model":  "problem content/fr/posts/a.md:3: price",
		"a document breaks the model":     "problem content/en/posts/b.md:3: price",
		"paths that differ only in case":  "differs only in case",
		"edit beside the case clash":      "differs only in case",
		"model changed: a field required": "price: required",
		"a referenced item deleted":       `no team has the slug "ann"`,
		"a unique value taken twice":      "(unique)",
		"a duplicate slug made":           "is used by",
		"a rename between types":          "/team/y",
		"a folder deleted":                "problem content/posts/w.md:4: author",
	}
	// and what must be gone again
	expectNot := map[string]string{
		"the referenced item back":   "no team has the slug",
		"the unique value given up":  "(unique)",
		"the duplicate slug removed": "is used by",
		"a folder added":             "problem content/posts/w.md",
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
		if not := expectNot[st.name]; not != "" && strings.Contains(got, not) {
			t.Fatalf("%s: %q is still in what the engine serves:\n%s", st.name, not, got)
		}
	}

	// A branch one commit behind and one ahead of the served one, built
	// from the served snapshot, then a push to the served branch: each
	// as an engine opened cold on it serves.
	srcGit(t, r.Dir, "push", "-q", "origin", "HEAD~1:refs/heads/behind")
	r.Commit(srcDay(100), map[string]string{"content/team/dan.md": post("Dan", ""), "content/posts/v.md": post("V", "author: dan\nsku: Z\n")},
		"content/team/ann.md")
	srcGit(t, r.Dir, "push", "-q", "origin", "HEAD:refs/heads/ahead")
	// checkBranch compares the snapshot of branch built from the served
	// one with an engine opened cold on it, and returns what it serves.
	checkBranch := func(branch string) string {
		t.Helper()
		ref, err := e.ResolveRef(context.Background(), branch)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := e.RefSnapshot(context.Background(), ref)
		if err != nil {
			t.Fatal(err)
		}
		c := cfg()
		c.Branch = branch
		cold, err := Open(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		got, want := snapDump(t, snap, now), snapDump(t, cold.Published(), now)
		cold.Close()
		if got != want {
			t.Fatalf("branch %s: the ref snapshot serves\n%s\nan engine opened cold on it serves\n%s", branch, got, want)
		}
		return got
	}
	// pushMatchesCold commits files, pushes, reloads and compares with an
	// engine opened cold.
	pushMatchesCold := func(day time.Time, files map[string]string, after string) {
		t.Helper()
		r.Commit(day, files)
		r.Push(false)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		cold, err := Open(context.Background(), cfg())
		if err != nil {
			t.Fatal(err)
		}
		defer cold.Close()
		if got, want := dump(e), dump(cold); got != want {
			t.Fatalf("a push after %s: the reloaded engine serves\n%s\nan engine opened cold serves\n%s", after, got, want)
		}
	}
	for _, branch := range []string{"behind", "ahead"} {
		got := checkBranch(branch)
		if branch == "ahead" && !strings.Contains(got, "/team/dan") {
			t.Fatalf("branch ahead: dan is not served:\n%s", got)
		}
	}
	pushMatchesCold(srcDay(101), map[string]string{"content/posts/u.md": post("U", "author: carl\n")}, "the branches")

	// Branches ahead of the one just pushed, one after the other (each
	// Load patches the one before: its changes from the served commit
	// are both's): one commit ahead, two ahead (on the first), another
	// one ahead beside the first with a file changed alike; then a push
	// after them: each as an engine opened cold serves.
	for i, files := range []map[string]string{
		{"content/posts/s1.md": post("S1", "sku: S\n"), "content/posts/alike.md": post("Alike", "")},
		{"content/posts/s2.md": post("S2", "sku: S\nauthor: nobody\n")},
		{"content/posts/s3.md": post("S3", "sku: S3\n"), "content/posts/alike.md": post("Alike", "")},
	} {
		branch := fmt.Sprintf("sibling%d", i)
		r.Commit(srcDay(102+i), files)
		srcGit(t, r.Dir, "push", "-q", "origin", "HEAD:refs/heads/"+branch)
		if i == 1 {
			srcGit(t, r.Dir, "reset", "-q", "--hard", "HEAD~2")
		} else if i == 2 {
			srcGit(t, r.Dir, "reset", "-q", "--hard", "HEAD~1")
		}
		checkBranch(branch)
	}
	pushMatchesCold(srcDay(110), map[string]string{"content/posts/t.md": post("T", "sku: Z\n"), "content/posts/alike.md": post("Alike", "")}, "the sibling branches")
}

// model2 is a content model with a unique field and references.
const model2 = `types:
  posts:
    fields:
      title: {kind: string, required: true}
      price: number
      sku: {kind: string, unique: true}
      author: {kind: reference, to: team}
  team:
    fields:
      title: string
`

// snapDump is what a snapshot serves, published and draft: its problems
// and every page and item, in order.
func snapDump(t *testing.T, s *Snapshot, now time.Time) string {
	t.Helper()
	var b strings.Builder
	for _, p := range s.Problems {
		fmt.Fprintf(&b, "problem %s\n", p)
	}
	for _, draft := range []bool{false, true} {
		v := s.View(draft, now)
		for _, r := range v.Pages() {
			body, etag, _ := r.Body()
			fmt.Fprintf(&b, "%s %s\n", body, etag)
		}
		types := slices.Sorted(maps.Keys(s.Site.Items))
		for _, typ := range types {
			tl, ok := v.Type(typ)
			if !ok {
				continue
			}
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
	return b.String()
}
