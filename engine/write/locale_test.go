package write

import (
	"slices"
	"testing"

	"github.com/folio-cms/folio/content"
)

// localePaths: the files a document of a locale may have, each read back
// by content as that locale's document at that path.
func TestLocalePaths(t *testing.T) {
	folder := &content.I18n{Layout: content.LayoutFolder, Default: "en", Locales: []content.Locale{{Code: "en"}, {Code: "fr"}}}
	hugo := &content.I18n{Layout: content.LayoutFolder, Default: "en", Locales: []content.Locale{{Code: "en", ContentDir: "content/english"}, {Code: "fr", ContentDir: "content/french"}}}
	file := &content.I18n{Layout: content.LayoutFile, Default: "en", Locales: []content.Locale{{Code: "en"}, {Code: "fr"}}}
	fields := &content.I18n{Layout: content.LayoutFields, Default: "en", Locales: []content.Locale{{Code: "en"}, {Code: "fr"}}}
	for _, c := range []struct {
		name string
		c    *content.I18n
		loc  string
		virt string
		want []string
	}{
		{"folder fr item", folder, "fr", "content/posts/a.md", []string{"content/fr/posts/a.md", "content/posts/fr/a.md"}},
		{"folder en item", folder, "en", "content/posts/a.md", []string{"content/posts/a.md", "content/en/posts/a.md", "content/posts/en/a.md"}},
		{"folder fr page", folder, "fr", "pages/about.md", []string{"content/fr/about.md", "pages/fr/about.md"}},
		{"folder fr bundle", folder, "fr", "content/posts/trip/index.md", []string{"content/fr/posts/trip/index.md", "content/posts/fr/trip/index.md"}},
		{"contentDir fr", hugo, "fr", "content/posts/a.md", []string{"content/french/posts/a.md", "content/fr/posts/a.md", "content/posts/fr/a.md"}},
		{"contentDir en page", hugo, "en", "pages/about.md", []string{"content/english/about.md", "pages/about.md", "content/en/about.md", "pages/en/about.md"}},
		{"file fr", file, "fr", "content/posts/a.md", []string{"content/posts/a.fr.md"}},
		{"file en", file, "en", "content/posts/a.md", []string{"content/posts/a.md", "content/posts/a.en.md"}},
		{"file fr page", file, "fr", "pages/about.md", []string{"pages/about.fr.md", "content/about.fr.md"}},
		{"fields fr", fields, "en", "content/posts/a.md", []string{"content/posts/a.md"}},
	} {
		got := localePaths(c.c, c.loc, c.virt)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		for _, p := range got {
			if l, v, ok := c.c.Classify(p); !ok || l != c.loc || v != c.virt {
				t.Errorf("%s: %s reads as %s %s %v", c.name, p, l, v, ok)
			}
		}
	}
}

func TestSlugOfVirt(t *testing.T) {
	for virt, want := range map[string]string{
		"content/posts/a.md": "a", "content/posts/trip/index.md": "trip", "pages/about.md": "about",
		"pages/docs/intro.md": "docs/intro", "content/posts/x/_index.md": "x",
	} {
		if got := slugOfVirt(virt); got != want {
			t.Errorf("%s: %q, want %q", virt, got, want)
		}
	}
}

// localeFields writes one locale's values of a fields-layout file.
func TestLocaleFields(t *testing.T) {
	c := &content.I18n{Layout: content.LayoutFields, Default: "en", Locales: []content.Locale{{Code: "en"}, {Code: "fr"}}}
	meta := map[string]any{"title": map[string]any{"en": "Hello", "fr": "Bonjour"}, "rating": 3, "tags": map[string]any{"en": []any{"a"}}}
	d := Doc{Kind: KindItem, Type: "posts", Slug: "hello", Locale: "fr", Fields: map[string]any{"title": "Salut", "rating": 4, "author": "ann"}}
	out, err := localeFields(c, "fr", opPatch, d, meta)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"title":  map[string]any{"en": "Hello", "fr": "Salut"},
		"rating": map[string]any{"en": 3, "fr": 4},
		"author": map[string]any{"fr": "ann"},
	}
	for k, v := range want {
		if !sameValue(out.Fields[k], v) {
			t.Errorf("%s: %v, want %v", k, out.Fields[k], v)
		}
	}
	if _, ok := out.Fields["tags"]; ok {
		t.Errorf("patch touched tags: %v", out.Fields)
	}
	// Delete: the locale's values go, the others stay.
	out, err = localeFields(c, "fr", opDelete, Doc{Kind: KindItem, Type: "posts", Slug: "hello", Locale: "fr"}, meta)
	if err != nil || !sameValue(out.Fields["title"], map[string]any{"en": "Hello"}) || len(out.Fields) != 1 {
		t.Fatalf("delete: %v %v", out.Fields, err)
	}
	// A body in a locale other than the default: body: {fr: …}; the
	// default locale's stays the file's.
	out, err = localeFields(c, "fr", opPatch, Doc{Body: str("x"), Fields: map[string]any{}}, meta)
	if err != nil || !sameValue(out.Fields["body"], map[string]any{"fr": "x"}) || out.Body != nil {
		t.Fatalf("fr body: %v %v", out.Fields, err)
	}
	out, err = localeFields(c, "en", opPatch, Doc{Body: str("y"), Fields: map[string]any{"title": "Hi", "rating": 5}}, meta)
	if err != nil || out.Body == nil || *out.Body != "y" || !sameValue(out.Fields["title"], map[string]any{"en": "Hi", "fr": "Bonjour"}) || !sameValue(out.Fields["rating"], 5) {
		t.Fatalf("en: %v %v", out.Fields, err)
	}
	bm := map[string]any{"title": map[string]any{"en": "Hello", "fr": "Bonjour"}, "body": map[string]any{"en": "a", "fr": "b"}}
	out, err = localeFields(c, "en", opPatch, Doc{Body: str("c")}, bm)
	if err != nil || out.Body != nil || !sameValue(out.Fields["body"], map[string]any{"en": "c", "fr": "b"}) {
		t.Fatalf("en body in a map: %v %v", out.Fields, err)
	}
	// Decap's form: the locale's map, its body in it.
	dm := map[string]any{"en": map[string]any{"title": "Hello"}, "fr": map[string]any{"title": "Bonjour", "x": 1}}
	out, err = localeFields(c, "fr", opPatch, Doc{Fields: map[string]any{"title": "Salut"}, Body: str("Texte")}, dm)
	if err != nil || !sameValue(out.Fields["fr"], map[string]any{"title": "Salut", "x": 1, "body": "Texte"}) {
		t.Fatalf("Decap form: %v %v", out.Fields, err)
	}
	if !hasLocaleValues(c, dm) || !hasLocaleValues(c, meta) || hasLocaleValues(c, map[string]any{"title": "x", "en": "y"}) {
		t.Fatal("hasLocaleValues")
	}
}
