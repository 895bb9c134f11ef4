package engine

import (
	"context"
	"strings"
	"testing"
	"time"
)

// localeItemBody is the served JSON of one item of the published view of
// locale loc (with fallback); "" when it serves none.
func localeItemBody(t *testing.T, e *Engine, loc, typ, slug string) string {
	t.Helper()
	v, err := e.View(false).InLocale(loc, true, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tl, ok := v.Type(typ)
	if !ok {
		return ""
	}
	r, ok := tl.Item(slug)
	if !ok {
		return ""
	}
	b, _, _ := r.Body()
	return string(b)
}

// TestModel_Locales: defaults fill in every locale's documents, and a bad
// edit of a French document is held back in French (its last valid French
// version served), named with its locale; a never-valid new translation
// is left out and the default locale's version is served in its place.
func TestModel_Locales(t *testing.T) {
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	r.Commit(srcDay(0), map[string]string{
		"folio.yaml":            "locales: [en, fr]\n" + modelYAML,
		"content/en/posts/a.md": "---\ntitle: A\nprice: 12\n---\nA\n",
		"content/fr/posts/a.md": "---\ntitle: A-fr\nprice: 12\n---\nA fr\n",
		"content/en/posts/b.md": "---\ntitle: B\n---\nB\n",
	})
	r.Push(false)
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if p := problems(e); p != "" {
		t.Fatalf("problems: %s", p)
	}
	fr := localeItemBody(t, e, "fr", "posts", "a")
	if !strings.Contains(fr, `"title":"A-fr"`) || !strings.Contains(fr, `"featured":false`) {
		t.Fatalf("fr a = %s, want its default featured: false", fr)
	}
	push := func(files map[string]string) string {
		t.Helper()
		c := r.Commit(srcDay(1), files)
		r.Push(false)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		return c
	}

	// A bad edit of the French a: its last valid French version stays.
	c1 := push(map[string]string{"content/fr/posts/a.md": "---\ntitle: A-fr 2\nprice: douze\n---\nA fr\n"})
	if p := problems(e); p != "content/fr/posts/a.md:3: price: got string, want number" {
		t.Fatalf("problems: %q", p)
	}
	if got := localeItemBody(t, e, "fr", "posts", "a"); got != fr {
		t.Fatalf("fr a after a bad edit = %s, want the last valid %s", got, fr)
	}
	held := e.Status().Held
	if len(held) != 1 || held[0].Path != "content/fr/posts/a.md" || held[0].Locale != "fr" || held[0].Since != c1 || !held[0].Served {
		t.Fatalf("held = %+v", held)
	}
	if en := itemBody(t, e, "posts", "a"); !strings.Contains(en, `"title":"A"`) {
		t.Fatalf("en a = %s", en)
	}

	// A new French b that was never valid: left out, English b served in
	// its place; still held since c1 for a.
	push(map[string]string{"content/fr/posts/b.md": "---\nprice: 3\n---\nB fr\n"})
	held = e.Status().Held
	if len(held) != 2 || held[0].Since != c1 || held[1].Path != "content/fr/posts/b.md" || held[1].Locale != "fr" || held[1].Served {
		t.Fatalf("held = %+v", held)
	}
	if b := localeItemBody(t, e, "fr", "posts", "b"); !strings.Contains(b, `"locale":"en"`) || !strings.Contains(b, `"fallback":true`) {
		t.Fatalf("fr b = %s, want the English b as a fallback", b)
	}
	// the French b is no translation of the English one while left out
	enB := itemBody(t, e, "posts", "b")
	if strings.Contains(enB, `"fr":`) || !strings.Contains(enB, `"en":{"slug":"b"`) {
		t.Fatalf("en b = %s, want no French translation", enB)
	}
	// another push leaves it so, with the same copy of the English b
	push(map[string]string{"content/en/posts/z.md": "---\ntitle: Z\n---\n"})
	if again := itemBody(t, e, "posts", "b"); again != enB {
		t.Fatalf("en b = %s, want %s", again, enB)
	}

	// Both repaired: the new French versions, with defaults.
	push(map[string]string{
		"content/fr/posts/a.md": "---\ntitle: A-fr 3\nprice: 13\n---\nA fr\n",
		"content/fr/posts/b.md": "---\ntitle: B-fr\nfeatured: true\n---\nB fr\n",
	})
	if held = e.Status().Held; len(held) != 0 {
		t.Fatalf("held = %+v", held)
	}
	if a := localeItemBody(t, e, "fr", "posts", "a"); !strings.Contains(a, `"title":"A-fr 3"`) || !strings.Contains(a, `"featured":false`) {
		t.Fatalf("fr a = %s", a)
	}
	if b := localeItemBody(t, e, "fr", "posts", "b"); !strings.Contains(b, `"locale":"fr"`) || !strings.Contains(b, `"featured":true`) {
		t.Fatalf("fr b = %s", b)
	}
	if enB := itemBody(t, e, "posts", "b"); !strings.Contains(enB, `"fr":{"slug":"b"`) {
		t.Fatalf("en b = %s, want its French translation", enB)
	}
}

// A Hugo site whose French content is in content_fr: read at a cold
// start, after a push that edits it, and at a restart from the persisted
// cache; the model checks its files too.
func TestSource_ContentDirOutside(t *testing.T) {
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	r.Commit(srcDay(0), map[string]string{
		"hugo.toml":               "[languages.en]\ncontentDir = 'content'\nweight = 1\n[languages.fr]\ncontentDir = 'content_fr'\nweight = 2\n",
		"folio.yaml":              "types:\n  posts:\n    fields:\n      price: number\n",
		"content/posts/a.md":      "---\ntitle: A\n---\nA\n",
		"content_fr/posts/a.md":   "---\ntitle: A-fr\nprice: douze\n---\nA fr\n",
		"content_fr/posts/_b.md":  "---\ntitle: hidden\n---\n",
		"content_frx/posts/c.md":  "---\ntitle: not a content folder\n---\n",
		"content_fr/posts/d.json": "{\"title\": \"D-fr\"}\n",
	})
	r.Push(false)
	cache := t.TempDir()
	open := func() *Engine {
		t.Helper()
		e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: cache, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	check := func(wantA string) {
		t.Helper()
		if a := localeItemBody(t, e, "fr", "posts", "a"); !strings.Contains(a, `"title":"`+wantA+`"`) || !strings.Contains(a, `"locale":"fr"`) {
			t.Fatalf("fr a = %s", a)
		}
		if d := localeItemBody(t, e, "fr", "posts", "d"); !strings.Contains(d, `"D-fr"`) {
			t.Fatalf("fr d = %s", d)
		}
		for _, slug := range []string{"_b", "b", "c"} {
			if localeItemBody(t, e, "fr", "posts", slug) != "" {
				t.Fatalf("fr %s served", slug)
			}
		}
	}
	check("A-fr")
	if p := problems(e); !strings.Contains(p, "content_fr/posts/a.md:3: price: got string, want number") {
		t.Fatalf("problems: %s", p)
	}
	r.Commit(srcDay(1), map[string]string{"content_fr/posts/a.md": "---\ntitle: A-fr 2\nprice: 12\n---\nA fr\n"})
	r.Push(false)
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("A-fr 2")
	if p := problems(e); p != "" {
		t.Fatalf("problems: %s", p)
	}
	e.Close()
	e = open()
	defer e.Close()
	check("A-fr 2")
}
