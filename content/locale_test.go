package content

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func locItem(t *testing.T, s *Site, typ, slug string) *Item {
	t.Helper()
	for _, it := range s.Items[typ] {
		if it.Slug == slug {
			return it
		}
	}
	t.Fatalf("locale %s: no %s %q (have %d)", s.Locale, typ, slug, len(s.Items[typ]))
	return nil
}

func TestLocales_Folder(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"folio.yaml":                "locales: [en, fr, de]\ndefaultLocale: en\nlayout: folder\n",
		"content/en/posts/hello.md": "---\ntitle: Hello\n---\nHi",
		"content/fr/posts/hello.md": "---\ntitle: Bonjour\nslug: bonjour\n---\nSalut",
		"content/de/posts/other.md": "---\ntitle: Anderes\n---\n",
		"content/en/about.md":       "---\ntitle: About\n---\n",
		"content/fr/about.md":       "---\ntitle: À propos\nslug: a-propos\n---\n",
		"pages/fr/contact.md":       "---\ntitle: Contact\n---\n",
		"globals.yaml":              "siteName: Acme\nfooter: {copyrightText: (c) Acme}\n",
		"globals.fr.yaml":           "siteName: Acmé\n",
	})
	wantNoProblems(t, probs)
	if site.I18n == nil || site.Locale != "en" || len(site.Locales) != 3 {
		t.Fatalf("I18n %+v locale %q locales %d", site.I18n, site.Locale, len(site.Locales))
	}
	en := locItem(t, site, "posts", "hello")
	if en.Locale != "en" || en.Translations["fr"].Slug != "bonjour" || en.Meta.Path != "content/en/posts/hello.md" {
		t.Errorf("en hello: %+v %+v", en.Localized, en.Meta)
	}
	fr := locItem(t, site.Locales["fr"], "posts", "bonjour")
	if fr.Title != "Bonjour" || fr.Translations["en"].Slug != "hello" || fr.Translations["en"].URL != "/api/v1/content/posts/hello?locale=en" {
		t.Errorf("fr bonjour: %+v", fr)
	}
	if _, ok := fr.Translations["de"]; ok {
		t.Errorf("fr has a de translation: %+v", fr.Translations)
	}
	if len(site.Pages) != 1 || site.Pages[0].Slug != "about" || site.Pages[0].Translations["fr"].Slug != "a-propos" {
		t.Errorf("en pages: %+v", site.Pages)
	}
	if n := len(site.Locales["fr"].Pages); n != 2 {
		t.Errorf("fr pages: %d, want 2 (a-propos, contact)", n)
	}
	g := site.Locales["fr"].Globals
	if g == nil || g.SiteName != "Acmé" || g.Footer.CopyrightText != "(c) Acme" {
		t.Errorf("fr globals: %+v (want siteName Acmé and the footer of en)", g)
	}
	if g := site.Locales["de"].Globals; g == nil || g.SiteName != "Acme" {
		t.Errorf("de globals: %+v", g)
	}
}

func TestLocales_File(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"folio.yaml":                       "locales: [en, fr]\nlayout: file\n",
		"content/posts/hello.md":           "---\ntitle: Hello\n---\n",
		"content/posts/hello.fr.md":        "---\ntitle: Bonjour\n---\n",
		"content/posts/bundle/index.md":    "---\ntitle: B\n---\n",
		"content/posts/bundle/index.fr.md": "---\ntitle: B fr\n---\n",
		"content/posts/a.md":               "---\ntitle: A\ntranslationKey: k1\n---\n",
		"content/posts/z.fr.md":            "---\ntitle: Z\ntranslationKey: k1\n---\n",
	})
	wantNoProblems(t, probs)
	fr := site.Locales["fr"]
	if it := locItem(t, fr, "posts", "hello"); it.Title != "Bonjour" || it.Meta.Path != "content/posts/hello.fr.md" {
		t.Errorf("fr hello: %+v", it)
	}
	if it := locItem(t, fr, "posts", "bundle"); it.Title != "B fr" {
		t.Errorf("fr bundle: %+v", it)
	}
	if it := locItem(t, fr, "posts", "z"); it.Translations["en"].Slug != "a" {
		t.Errorf("translationKey: %+v", it.Translations)
	}
	if len(site.Items["posts"]) != 3 {
		t.Errorf("en posts: %d", len(site.Items["posts"]))
	}
}

func TestLocales_Fields(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"folio.yaml":             "locales: [en, fr]\nlayout: fields\n",
		"content/posts/hello.md": "---\ntitle: {en: Hello, fr: Bonjour}\nsummary: {en: Hi}\nauthor: ann\n---\n",
		"content/posts/only.md":  "---\nen: {title: Only English}\n---\n",
	})
	wantNoProblems(t, probs)
	fr := locItem(t, site.Locales["fr"], "posts", "hello")
	if fr.Title != "Bonjour" || fr.Data["summary"] != "Hi" || fr.Data["author"] != "ann" {
		t.Errorf("fr hello: %+v", fr)
	}
	if it := locItem(t, site, "posts", "only"); it.Title != "Only English" || len(it.Translations) != 1 {
		t.Errorf("en only: %+v", it)
	}
	if n := len(site.Locales["fr"].Items["posts"]); n != 1 {
		t.Errorf("fr posts: %d, want 1", n)
	}
}

func TestLocales_Hugo(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"hugo.toml":                         "baseURL = 'https://example.org/'\ndefaultContentLanguage = 'de'\n",
		"config/_default/languages.de.toml": "contentDir = 'content/de'\nweight = 1\nlanguageName = 'Deutsch'\n",
		"config/_default/languages.en.toml": "contentDir = 'content/english'\nweight = 2\nlabel = 'English'\n",
		"config/_default/languages.sv.toml": "contentDir = 'content/sv'\ndisabled = true\n",
		"content/de/docs/faq.md":            "---\ntitle: FAQ\n---\n",
		"content/english/docs/faq.md":       "---\ntitle: FAQ en\n---\n",
		"content/de/impressum.md":           "---\ntitle: Impressum\n---\n",
		"content/sv/docs/x.md":              "---\ntitle: X\n---\n",
	})
	wantNoProblems(t, probs)
	if site.I18n == nil || site.I18n.Default != "de" || strings.Join(site.I18n.Codes(), ",") != "de,en" {
		t.Fatalf("I18n %+v", site.I18n)
	}
	if l, _ := site.I18n.Locale("en"); l.Name != "English" || l.Language != "en" {
		t.Errorf("en: %+v", l)
	}
	if it := locItem(t, site, "docs", "faq"); it.Translations["en"].Slug != "faq" {
		t.Errorf("de faq: %+v", it)
	}
	if len(site.Pages) != 1 || site.Pages[0].Slug != "impressum" {
		t.Errorf("de pages: %+v", site.Pages)
	}
}

func TestLocales_Problems(t *testing.T) {
	_, probs := assemble(t, map[string]string{
		"folio.yaml":               "locales: [en, fr, fr_CA, fr-CA]\nfallback: {fr: fr-CA, fr-CA: fr}\n",
		"content/fr/posts/a.md":    "---\ntitle: A\nslug: same\n---\n",
		"content/fr/posts/same.md": "---\ntitle: B\n---\n",
		"content/en/posts/x.md":    "---\ntitle: X\ntranslationKey: k\n---\n",
		"content/en/posts/y.md":    "---\ntitle: Y\ntranslationKey: k\n---\n",
	})
	var text []string
	for _, p := range probs {
		text = append(text, p.String())
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{
		"folio.yaml:1: locale \"fr_CA\" is not a BCP 47 language tag",
		"folio.yaml:2: fallback: cycle fr → fr-CA → fr",
		"content/fr/posts/same.md: posts slug \"same\" is used by content/fr/posts/a.md already",
		"content/en/posts/y.md:3: translationKey \"k\" is used by the en document x already",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing problem %q in:\n%s", want, all)
		}
	}
}

func TestLocales_NoneIsPlain(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"hugo.toml":          "title = 'x'\n",
		"content/posts/a.md": "---\ntitle: A\n---\n",
		"content/about.md":   "---\ntitle: About\n---\n",
		"globals.fr.yaml":    "siteName: x\n",
	})
	wantNoProblems(t, probs)
	if site.I18n != nil || site.Items["posts"][0].Locale != "" || site.Items["posts"][0].Translations != nil {
		t.Errorf("a site without locales got some: %+v", site)
	}
	// a single-language Hugo site serves its root files as pages
	if len(site.Pages) != 1 || site.Pages[0].Slug != "about" || site.Pages[0].Locale != "" || site.Pages[0].Meta.Path != "content/about.md" {
		t.Errorf("pages %+v: want about, with no locale", site.Pages)
	}
}

func TestLocales_BadHugoConfig(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"hugo.toml":          "title = 'x\n[languages\n",
		"content/posts/a.md": "---\ntitle: A\n---\n",
	})
	if len(probs) != 1 || probs[0].Path != "hugo.toml" || probs[0].Line == 0 || len(site.Items["posts"]) != 1 {
		t.Errorf("problems %v, posts %d", probs, len(site.Items["posts"]))
	}
}

// Every malformed locale setting is a problem with a line, never a panic,
// and the documents are still served.
func TestLocales_BadConfig(t *testing.T) {
	for _, cfg := range []string{
		"locales: 5\n",
		"locales: [{code: 5}]\n",
		"locales: [{code: fr, nick: x}]\n",
		"locales: [en, en]\n",
		"locales: [en, fr]\nfallback: 7\n",
		"locales: [en, fr]\nfallback: [[en, fr], 3]\n",
		"locales: [en, fr]\nfallback: {fr: [3]}\n",
		"locales: [en, fr]\nfallback: {fr: xx}\n",
		"locales: [en, fr]\ndefaultLocale: [x]\n",
		"locales: [en, fr]\ndefaultLocale: de\n",
		"locales: [en, fr]\nlayout: 3\n",
		"locales: [en, 'fr/../x', '', 'x y']\n",
		"locales: [{code: fr, contentDir: ../etc}]\n",
		"locales: []\n",
	} {
		site, probs := assemble(t, map[string]string{
			"folio.yaml":            cfg,
			"content/en/posts/a.md": "---\ntitle: A\n---\n",
			"content/posts/b.md":    "---\ntitle: B\n---\n",
		})
		if len(probs) == 0 && cfg != "locales: []\n" {
			t.Errorf("%q: no problem", cfg)
		}
		for _, p := range probs {
			if p.Path != "folio.yaml" || p.Line == 0 {
				t.Errorf("%q: problem %s has no folio.yaml line", cfg, p)
			}
		}
		n := 0
		for _, items := range site.Items {
			n += len(items)
		}
		if n == 0 {
			t.Errorf("%q: nothing served", cfg)
		}
	}
}

func TestLocales_HugoRootConfig(t *testing.T) {
	// Docsy's layout: languages in hugo.yaml, a content folder each.
	site, probs := assemble(t, map[string]string{
		"hugo.yaml":            "baseURL: /\nlanguages:\n  en:\n    languageName: English\n    contentDir: content/en\n  no:\n    languageName: Norsk\n    contentDir: content/no\n    weight: 2\n",
		"content/en/docs/a.md": "---\ntitle: A\n---\n",
		"content/no/docs/a.md": "---\ntitle: A no\n---\n",
		"content/en/search.md": "---\ntitle: Search\n---\n",
	})
	wantNoProblems(t, probs)
	if site.I18n == nil || site.I18n.Default != "en" || len(site.I18n.Locales) != 2 || len(site.Pages) != 1 {
		t.Fatalf("%+v %v", site.I18n, site.Pages)
	}
	if it := locItem(t, site.Locales["no"], "docs", "a"); it.Title != "A no" || it.Translations["en"].Slug != "a" {
		t.Errorf("%+v", it)
	}
}

// An Assembler of a site with locales gives after every change what a
// fresh Assemble gives: translations, fallbacks of translationKey
// conflicts, copies.
func TestLocales_IncrementalIsFresh(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	files := map[string]string{"folio.yaml": "locales: [en, fr, de]\n"}
	paths := func() []string {
		var out []string
		for _, loc := range []string{"en", "fr", "de"} {
			for i := range 6 {
				out = append(out, fmt.Sprintf("content/%s/posts/p%d.md", loc, i))
			}
			out = append(out, "content/"+loc+"/about.md")
		}
		return out
	}()
	cache := map[string]File{} // as the engine's blob cache: an unchanged file is the same Doc
	parse := func() []File {
		var list []File
		for p, src := range files {
			f, ok := cache[p+"\x00"+src]
			if !ok {
				f = File{Path: p, Updated: commitTime}
				f.Doc, f.Err = Parse(p, []byte(src))
				cache[p+"\x00"+src] = f
			}
			list = append(list, f)
		}
		slices.SortFunc(list, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
		return list
	}
	dump := func(s *Site, probs []Problem) string {
		var b strings.Builder
		for _, code := range s.I18n.Codes() {
			ls := s.Locales[code]
			j, _ := json.Marshal(ls.Pages)
			b.Write(j)
			for _, typ := range slices.Sorted(maps.Keys(ls.Items)) {
				j, _ := json.Marshal(ls.Items[typ])
				b.Write(j)
			}
		}
		for _, p := range probs {
			b.WriteString(p.String() + "\n")
		}
		return b.String()
	}
	as := new(Assembler)
	for step := range 300 {
		p := paths[r.IntN(len(paths))]
		switch r.IntN(4) {
		case 0:
			delete(files, p)
		case 1:
			files[p] = fmt.Sprintf("---\ntitle: T%d\ntranslationKey: k%d\n---\n", step, r.IntN(3))
		case 2:
			files[p] = fmt.Sprintf("---\ntitle: T%d\nslug: s%d\n---\n", step, r.IntN(4))
		default:
			files[p] = fmt.Sprintf("---\ntitle: T%d\n---\n", step)
		}
		list := parse()
		got := dump(as.Assemble(list))
		want := dump(Assemble(list))
		if got != want {
			t.Fatalf("step %d (%s): incremental\n%s\nfresh\n%s", step, p, got, want)
		}
	}
}

func TestLocales_IncrementalDelete(t *testing.T) {
	files := map[string]string{
		"folio.yaml":            "locales: [en, fr]\n",
		"content/en/posts/a.md": "---\ntitle: A\n---\n",
		"content/fr/posts/a.md": "---\ntitle: A fr\n---\n",
		"content/en/posts/b.md": "---\ntitle: B\n---\n",
	}
	cache := map[string]File{} // as the engine's blob cache: an unchanged file is the same Doc
	parse := func() []File {
		var list []File
		for p, src := range files {
			f, ok := cache[p+"\x00"+src]
			if !ok {
				f = File{Path: p, Updated: commitTime}
				f.Doc, f.Err = Parse(p, []byte(src))
				cache[p+"\x00"+src] = f
			}
			list = append(list, f)
		}
		slices.SortFunc(list, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
		return list
	}
	as := new(Assembler)
	as.Assemble(parse())
	delete(files, "content/fr/posts/a.md")
	site, _ := as.Assemble(parse())
	if it := locItem(t, site, "posts", "a"); len(it.Translations) != 1 {
		t.Errorf("after the French file went: %v", it.Translations)
	}
	files["content/fr/posts/b.md"] = "---\ntitle: B fr\nslug: b-fr\n---\n"
	site, _ = as.Assemble(parse())
	if it := locItem(t, site, "posts", "b"); it.Translations["fr"].Slug != "b-fr" {
		t.Errorf("after the French b came: %v", it.Translations)
	}
}

// A contentDir outside content/ (Hugo's contentDir = "content_fr", or
// i18n/de/content) is read from there, and found by ReadDir; one outside
// the repository is a problem with its line, never read.
func TestLocales_ContentDirOutside(t *testing.T) {
	files := map[string]string{
		"hugo.toml": "defaultContentLanguage = 'en'\n[languages.en]\ncontentDir = 'content'\nweight = 1\n" +
			"[languages.fr]\ncontentDir = 'content_fr/'\nweight = 2\n[languages.de]\ncontentDir = './i18n/de/content'\nweight = 3\n" +
			"[languages.it]\ncontentDir = '../it'\nweight = 4\n[languages.es]\ncontentDir = '/etc'\nweight = 5\n",
		"content/docs/cats.md":            "---\ntitle: Cats\n---\n",
		"content/about.md":                "---\ntitle: About\n---\n",
		"content_fr/docs/cats.md":         "---\ntitle: Chats\nslug: chats\n---\n",
		"content_fr/a-propos.md":          "---\ntitle: À propos\ntranslationKey: about\n---\n",
		"content_fr/_index.md":            "---\ntitle: Accueil\n---\n",
		"i18n/de/content/docs/cats.md":    "---\ntitle: Katzen\nslug: katzen\n---\n",
		"i18n/de/content/docs/.hidden.md": "---\ntitle: Hidden\n---\n",
		"content/it/docs/gatti.md":        "---\ntitle: Gatti\n---\n",
	}
	site, probs := assemble(t, files)
	var msgs []string
	for _, p := range probs {
		msgs = append(msgs, p.String())
	}
	want := []string{
		`hugo.toml:12: locale "it": contentDir "../it": outside the repository (..); never read; the locale's content is looked for as without a contentDir`,
		`hugo.toml:15: locale "es": contentDir "/etc": an absolute path, outside the repository; never read; the locale's content is looked for as without a contentDir`,
	}
	if !slices.Equal(msgs, want) {
		t.Errorf("problems:\n%s\nwant\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
	if l, _ := site.I18n.Locale("de"); l.ContentDir != "i18n/de/content" {
		t.Errorf("de contentDir %q", l.ContentDir)
	}
	if it := locItem(t, site, "docs", "cats"); it.Translations["fr"].Slug != "chats" || it.Translations["de"].Slug != "katzen" {
		t.Errorf("cats: %+v", it.Translations)
	}
	fr := site.Locales["fr"]
	if len(fr.Pages) != 2 || fr.Pages[0].Slug != "a-propos" || fr.Pages[1].Slug != "index" || !fr.Pages[1].IsHomepage || len(fr.Items["docs"]) != 1 {
		t.Errorf("fr: pages %+v, docs %d", fr.Pages, len(fr.Items["docs"]))
	}
	if n := len(site.Locales["de"].Items["docs"]); n != 1 {
		t.Errorf("de docs: %d", n)
	}
	if got := ContentDirs(fileList(files)); !slices.Equal(got, []string{"content_fr", "i18n/de/content"}) {
		t.Errorf("ContentDirs = %q", got)
	}
	for p, want := range map[string]bool{"content_fr/docs/cats.md": true, "content_fr/_index.md": true, "content_fr/docs/_index.md": true, "content_fr/_x.md": false, "i18n/de/content/x.md": true,
		"i18n/de/other/x.md": false, "content_frx/a.md": false, "content_fr/a.txt": false} {
		if got := RelevantIn(p, []string{"content_fr", "i18n/de/content"}); got != want {
			t.Errorf("RelevantIn(%q) = %v", p, got)
		}
	}

	// ReadDir (folio check --worktree) reads them from disk too
	dir := t.TempDir()
	for p, src := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range read {
		paths = append(paths, f.Path)
	}
	for _, p := range []string{"content_fr/docs/cats.md", "content_fr/a-propos.md", "i18n/de/content/docs/cats.md"} {
		if !slices.Contains(paths, p) {
			t.Errorf("ReadDir: no %s in %q", p, paths)
		}
	}
}

func fileList(files map[string]string) []File {
	var list []File
	for p, src := range files {
		f := File{Path: p}
		f.Doc, f.Err = Parse(p, []byte(src))
		list = append(list, f)
	}
	slices.SortFunc(list, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return list
}

// The fields layout as Decap's single_file writes it (each locale's
// values in a map, the body among them, no Markdown body after the front
// matter), and with body: {en: …, fr: …}: each locale has its own body.
func TestLocales_FieldsBody(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"folio.yaml": "locales: [en, de, fr]\nlayout: fields\n",
		// as Decap's i18n end-to-end test expects it
		"content/posts/first.md": "---\nen:\n  template: post\n  date: 1970-01-01T01:00\n  title: first title\n  body: first body\n" +
			"  description: first description\n  category: first category\n  tags:\n    - tag1\n" +
			"de:\n  date: 1970-01-01T01:00\n  title: de\nfr:\n  date: 1970-01-01T01:00\n  title: fr\n  body: premier *texte*\n---\n",
		"content/posts/second.md": "---\ntitle: {en: Second, fr: Deuxième}\nbody: {en: second body, fr: deuxième texte}\n---\n",
		"content/posts/shared.md": "---\ntitle: {en: Shared, fr: Partagé}\n---\nThe same body.\n",
	})
	wantNoProblems(t, probs)
	body := func(it *Item) string {
		t.Helper()
		m, ok := it.Data["body"].(Markdown)
		if !ok {
			t.Fatalf("%s (%s): body %T %v, want Markdown", it.Slug, it.Locale, it.Data["body"], it.Data["body"])
		}
		return m.HTML()
	}
	en, de, fr := site, site.Locales["de"], site.Locales["fr"]
	for _, tc := range []struct {
		site       *Site
		slug, want string
	}{
		{en, "first", "<p>first body</p>\n"},
		{fr, "first", "<p>premier <em>texte</em></p>\n"},
		{de, "first", "<p>first body</p>\n"}, // none in de: the default locale's
		{en, "second", "<p>second body</p>\n"},
		{fr, "second", "<p>deuxième texte</p>\n"},
		{en, "shared", "<p>The same body.</p>\n"},
		{fr, "shared", "<p>The same body.</p>\n"},
	} {
		if got := body(locItem(t, tc.site, "posts", tc.slug)); got != tc.want {
			t.Errorf("%s in %s: body %q, want %q", tc.slug, tc.site.Locale, got, tc.want)
		}
	}
	if it := locItem(t, de, "posts", "first"); it.Title != "de" || it.Data["category"] != "first category" {
		t.Errorf("de first: %+v", it)
	}
}

// Languages sharing one contentDir tell their files apart by name
// (about.fr.md), as with no contentDir.
func TestLocales_SharedContentDir(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"hugo.toml":            "[languages.en]\ncontentDir = 'content'\nweight = 1\n[languages.fr]\ncontentDir = 'content'\nweight = 2\n",
		"content/about.md":     "---\ntitle: About\n---\n",
		"content/about.fr.md":  "---\ntitle: À propos\n---\n",
		"content/docs/a.fr.md": "---\ntitle: A fr\n---\n",
	})
	wantNoProblems(t, probs)
	if len(site.Pages) != 1 || site.Pages[0].Title != "About" || site.Pages[0].Translations["fr"].Slug != "about" {
		t.Fatalf("en pages: %+v", site.Pages)
	}
	fr := site.Locales["fr"]
	if len(fr.Pages) != 1 || fr.Pages[0].Title != "À propos" || len(fr.Items["docs"]) != 1 {
		t.Errorf("fr: pages %+v, docs %+v", fr.Pages, fr.Items["docs"])
	}
}

// The main config's contentDir is that of the languages without their
// own (Hugo's); contentDir = "content" there changes nothing.
func TestLocales_HugoRootContentDir(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"hugo.toml":                "contentDir = 'src/content'\n[languages.en]\nweight = 1\n[languages.fr]\ncontentDir = 'src/content_fr'\nweight = 2\n",
		"src/content/docs/a.md":    "---\ntitle: A\n---\n",
		"src/content_fr/docs/a.md": "---\ntitle: A fr\n---\n",
		"content/docs/b.md":        "---\ntitle: B\n---\n",
	})
	wantNoProblems(t, probs)
	if l, _ := site.I18n.Locale("en"); l.ContentDir != "src/content" {
		t.Fatalf("en: %+v", l)
	}
	if it := locItem(t, site, "docs", "a"); it.Title != "A" || it.Translations["fr"].Slug != "a" || len(site.Items["docs"]) != 1 {
		t.Errorf("en docs: %+v", site.Items["docs"])
	}
	// a single language with contentDir = 'content': no locales
	site, _ = assemble(t, map[string]string{
		"hugo.toml":         "contentDir = 'content'\n[languages.en]\nweight = 1\n",
		"content/docs/b.md": "---\ntitle: B\n---\n",
	})
	if site.I18n != nil {
		t.Errorf("I18n %+v, want none", site.I18n)
	}
}

// TestLocales_HugoMounts: a module mount of a folder onto content is that
// language's contentDir, as in Hugo's own documentation (one language,
// its content in content/en, mounted with sites.matrix.languages), in the
// older lang form in config/_default/module.toml, and with no languages
// block at all: the sections are types, not a type named en.
func TestLocales_HugoMounts(t *testing.T) {
	for name, cfg := range map[string]map[string]string{
		"hugo.toml, sites.matrix": {"hugo.toml": "defaultContentLanguage = 'en'\n[languages.en]\nweight = 1\n[module]\n[[module.mounts]]\nsource = 'assets'\ntarget = 'assets'\n[[module.mounts]]\nsource = 'content/en'\ntarget = 'content'\n[module.mounts.sites.matrix]\nlanguages = ['en']\n"},
		"module.toml, lang":       {"hugo.toml": "title = 'x'\n[languages.en]\nweight = 1\n", "config/_default/module.toml": "[[mounts]]\nsource = 'content/en'\ntarget = 'content'\nlang = 'en'\n"},
		"no languages":            {"hugo.yaml": "module:\n  mounts:\n    - source: content/en\n      target: content\n"},
	} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{
				"content/en/docs/install.md": "---\ntitle: Install\n---\n",
				"content/en/docs/_index.md":  "---\ntitle: Docs\n---\n",
				"content/en/about.md":        "---\ntitle: About\n---\n",
				"content/LICENSE.md":         "# not a page\n",
			}
			maps.Copy(files, cfg)
			site, probs := assemble(t, files)
			wantNoProblems(t, probs)
			if site.I18n == nil || len(site.I18n.Locales) != 1 || site.I18n.Locales[0].ContentDir != "content/en" {
				t.Fatalf("I18n %+v", site.I18n)
			}
			if _, ok := site.Items["en"]; ok || len(site.Items["docs"]) != 1 || site.Items["docs"][0].Title != "Install" {
				t.Errorf("items %v", site.Items)
			}
			if len(site.Pages) != 2 || site.Pages[0].Slug != "about" || site.Pages[1].Slug != "docs" || site.Pages[1].Title != "Docs" {
				t.Errorf("pages %+v", site.Pages)
			}
			// A section's own _index file is the section's page (Hugo's
			// /docs/); a branch bundle below it is an item.
			if loc, virt, ok := site.I18n.Classify("content/en/docs/_index.md"); !ok || loc != "en" || virt != "pages/docs.md" {
				t.Errorf("section page: %s %s %v", loc, virt, ok)
			}
			if loc, virt, ok := site.I18n.Classify("content/en/docs/guide/_index.md"); !ok || loc != "en" || virt != "content/docs/guide/_index.md" {
				t.Errorf("branch bundle: %s %s %v", loc, virt, ok)
			}
		})
	}
}

// TestLocales_HugoConfigFolders: Hugo reads config/_default/ down its
// folders, each file's key its name, as falco.org keeps its language in
// config/_default/languages/languages.yaml and its mount of content/en
// in config/_default/module/module.yaml: the sections of content/en are
// types, not a type "en" of 257 items (read from the disk, so that the
// files are those Relevant gives).
func TestLocales_HugoConfigFolders(t *testing.T) {
	dir := t.TempDir()
	for p, src := range map[string]string{
		"config/_default/config.toml":              "baseURL = 'https://falco.org/'\ndefaultContentLanguage = \"en\"\ndefaultContentLanguageInSubdir = false\n",
		"config/_default/urls/permalinks.toml":     "blog = '/blog/:year/:slug/'\n",
		"config/_default/languages/languages.yaml": "# Language definitions.\n\nen:\n  title: \"Falco\"\n  languageName: \"English\"\n  weight: 1\n",
		"config/_default/module/module.yaml":       "mounts:\n  - source: 'content/en'\n    target: 'content'\n    lang: 'en'\n",
		"config/_default/versions/params.yaml":     "versions: []\n",
		"content/en/_index.html":                   "---\ntitle: Falco\n---\n<p>Home</p>\n",
		"content/en/docs/_index.md":                "---\ntitle: Docs\n---\n",
		"content/en/docs/install.md":               "---\ntitle: Install\n---\n",
		"content/en/blog/falco-0-41-0/index.md":    "---\ntitle: Falco 0.41.0\ndate: 2025-05-29\nslug: falco-0-41-0\n---\n",
	} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	site, probs := Assemble(files)
	wantNoProblems(t, probs)
	if site.I18n == nil || len(site.I18n.Locales) != 1 || site.I18n.Locales[0].ContentDir != "content/en" {
		t.Fatalf("I18n %+v", site.I18n)
	}
	if _, ok := site.Items["en"]; ok || len(site.Items["docs"]) != 1 || len(site.Items["blog"]) != 1 {
		t.Fatalf("items %v", site.Items)
	}
	if p := site.Items["blog"][0].Path; p != "/blog/2025/falco-0-41-0/" {
		t.Errorf("blog post's path %q", p)
	}
	if len(site.Pages) != 2 || site.Pages[0].Slug != "docs" || site.Pages[1].Slug != "index" {
		t.Errorf("pages %s, %s", site.Pages[0].Slug, site.Pages[len(site.Pages)-1].Slug)
	}
}

// TestLocales_HugoLanguagePermalinks: a language's own permalinks
// (miriamlasserre.fr's config/_default/languages.yaml: publications at
// /presse/:slug/ in French, /press/:slug/ in English; ebooks at
// /ebooks/:year-:slug/) make its documents' paths, over the site's
// permalinks.
func TestLocales_HugoLanguagePermalinks(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"config/_default/hugo.yaml":       "defaultContentLanguage: fr\n",
		"config/_default/permalinks.yaml": "_merge: deep\nservices: /prestations/:slug/\n",
		"config/_default/languages.yaml": "fr:\n  languageName: Français\n  weight: 1\n  permalinks:\n    ebooks: /ebooks/:year-:slug/\n    publications: /presse/:slug/\n" +
			"en:\n  languageName: English\n  weight: 2\n  permalinks:\n    ebooks: /ebooks/:year-:slug/\n    publications: /press/:slug/\n",
		"content/publications/2023/06/2023-06-27-home-is-my-style.fr.md": "---\ndate: 2019-01-02T11:35:40.55Z\ntitle: Home is my style\n---\n",
		"content/publications/2023/06/2023-06-27-home-is-my-style.en.md": "---\ndate: 2019-01-02T11:35:40.55Z\ntitle: Home is my style\n---\n",
		"content/ebooks/2023/2023-06-la-garde-robe-parfaite.fr.md":       "---\ndate: 2023-06-28T12:13:23.434Z\ntitle: La garde-robe parfaite\n---\n",
		"content/services/dressing-detox.fr.md":                          "---\ntitle: Dressing detox\n---\n",
		"content/services/dressing-detox.en.md":                          "---\ntitle: Dressing detox\n---\n",
	})
	wantNoProblems(t, probs)
	for _, tc := range []struct{ loc, typ, path string }{
		{"fr", "publications", "/presse/home-is-my-style/"},
		{"en", "publications", "/en/press/home-is-my-style/"},
		{"fr", "ebooks", "/ebooks/2023-la-garde-robe-parfaite/"},
		{"fr", "services", "/prestations/dressing-detox/"},
		{"en", "services", "/en/prestations/dressing-detox/"},
	} {
		s := site.Locales[tc.loc]
		if s == nil || len(s.Items[tc.typ]) != 1 {
			t.Fatalf("%s %s: %v", tc.loc, tc.typ, s)
		}
		if got := s.Items[tc.typ][0].Path; got != tc.path {
			t.Errorf("%s %s: path %q, want %q", tc.loc, tc.typ, got, tc.path)
		}
	}
}
