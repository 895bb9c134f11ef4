package content

import (
	"strings"
	"testing"
)

// The site layouts of fixtures/layouts, each as real sites lay it out
// (issue 30: "Bring your site as it is").

func readLayout(t *testing.T, name string) (*Site, []Problem) {
	t.Helper()
	files, err := ReadDir("../fixtures/layouts/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return Assemble(files)
}

func findPage(s *Site, slug string) *Page {
	if s == nil {
		return nil
	}
	for _, p := range s.Pages {
		if p.Slug == slug {
			return p
		}
	}
	return nil
}

// A single-language Hugo site (no languages, no contentDir) serves its
// root files and its _index files as pages, as Hugo serves them at /,
// /about/ and /posts/, without becoming a site with locales. They were
// not served at all.
func TestLayout_HugoSingleLanguage(t *testing.T) {
	site, probs := readLayout(t, "hugo-single")
	wantNoProblems(t, probs)
	if site.I18n != nil {
		t.Fatalf("a single-language site got locales: %+v", site.I18n)
	}
	for slug, title := range map[string]string{"index": "Welcome", "about": "About me", "posts": "Posts"} {
		p := findPage(site, slug)
		if p == nil || p.Title != title || p.Locale != "" || p.Translations != nil {
			t.Errorf("page %s = %+v, want %q with no locale", slug, p, title)
		}
	}
	if home := findPage(site, "index"); home == nil || !home.IsHomepage || home.Meta.Path != "content/_index.md" {
		t.Errorf("home page %+v: the homepage, from content/_index.md", home)
	}
	if len(site.Items["posts"]) != 1 || site.Items["posts"][0].Slug != "first" {
		t.Errorf("posts %v", site.Items["posts"])
	}
}

// _index.de.md and _index.ja.md are the German and Japanese home and
// section pages (they were ignored: German fell back to English), and
// _index.zh-CN.md, of a language the site has not, is left out and said
// (it was a document advanced/_index.zh-CN in every locale).
func TestLayout_HugoIndexTranslations(t *testing.T) {
	site, probs := readLayout(t, "hugo-index-lang")
	if site.I18n == nil || site.I18n.Layout != LayoutFile {
		t.Fatalf("locales %+v", site.I18n)
	}
	for loc, want := range map[string]string{"en": "Home", "de": "Startseite", "ja": "ホーム"} {
		p := findPage(site.Locales[loc], "index")
		if p == nil || p.Title != want || p.Locale != loc {
			t.Errorf("%s home page %+v, want %q", loc, p, want)
			continue
		}
		if len(p.Translations) != 3 {
			t.Errorf("%s home page translations %v, want en, de, ja", loc, p.Translations)
		}
	}
	if p := findPage(site.Locales["de"], "docs"); p == nil || p.Title != "Dokumentation" {
		t.Errorf("de docs page %+v", p)
	}
	for loc, s := range site.Locales {
		for _, it := range s.Items["docs"] {
			if strings.Contains(it.Slug, "_index") {
				t.Errorf("%s: item %q of a file of a language the site has not", loc, it.Slug)
			}
		}
	}
	if len(probs) != 1 || probs[0].Path != "content/docs/advanced/_index.zh-CN.md" || !strings.Contains(probs[0].Message, "language zh-CN") {
		t.Errorf("problems %v: want one saying _index.zh-CN.md is left out", probs)
	}
}

// A Hugo site that lists its languages but mounts content/<code> in a
// module folio does not read: the language folders are the languages'
// content, not types en, fr, es.
func TestLayout_HugoLanguageFolders(t *testing.T) {
	site, probs := readLayout(t, "hugo-lang-folders")
	wantNoProblems(t, probs)
	if site.I18n == nil || site.I18n.Layout != LayoutFolder {
		t.Fatalf("locales %+v", site.I18n)
	}
	for _, loc := range []string{"en", "fr", "es"} {
		s := site.Locales[loc]
		for typ := range s.Items {
			if typ != "docs" && typ != "blog" {
				t.Errorf("%s: type %q", loc, typ)
			}
		}
		if len(s.Items["docs"]) != 1 || s.Items["docs"][0].Slug != "install" || s.Items["docs"][0].Locale != loc {
			t.Errorf("%s docs %v", loc, s.Items["docs"])
		}
	}
	if p := findPage(site.Locales["fr"], "index"); p == nil || p.Title != "Accueil" {
		t.Errorf("fr home page %+v", p)
	}
	if tr := site.Locales["en"].Items["docs"][0].Translations; len(tr) != 3 {
		t.Errorf("translations %v", tr)
	}
}

// A site in a folder of its repository is read below its root: given
// (--root exampleSite, a theme's demo with its config split into
// config/_default/), or named by the root: of the repository's
// folio.yaml (a Decap template's site/, whose Decap config names its
// folders from the repository's root).
func TestLayout_SiteRoot(t *testing.T) {
	files, root, err := ReadSite("../fixtures/layouts/theme-example", "exampleSite")
	if err != nil || root != "exampleSite" {
		t.Fatal(root, err)
	}
	site, probs := Assemble(files)
	wantNoProblems(t, probs)
	if findPage(site, "index") == nil || findPage(site, "about") == nil || len(site.Items["post"]) != 2 {
		t.Errorf("exampleSite: pages %v, items %v", site.Pages, site.Items)
	}

	files, root, err = ReadSite("../fixtures/layouts/decap-site", "")
	if err != nil || root != "site" {
		t.Fatal(root, err)
	}
	site, probs = Assemble(files)
	wantNoProblems(t, probs)
	if p := findPage(site, "index"); p == nil || !p.IsHomepage || findPage(site, "contact") == nil || len(site.Items["post"]) != 2 {
		t.Errorf("site/: pages %v, items %v", site.Pages, site.Items)
	}
	if mis := Misreads(MisreadInput{Files: files, Site: site}); len(mis) != 0 {
		t.Errorf("misreads %v: the Decap collection site/content/post is the type post", mis)
	}

	for _, bad := range []string{"../x", "/etc/..", ".git", "a/../../b"} {
		if _, err := CleanRoot(bad); err == nil {
			t.Errorf("root %q accepted", bad)
		}
	}
}
