package content

import (
	"testing"
	"time"
)

// On a Zola site a page whose file name (or bundle folder) starts with a
// date is served, as Zola serves it, under the rest of the name, dated
// by the name unless its front matter has a date (the notmandatory blog's
// content/2018-08-10-mastodon.md is /mastodon/ of 2018-08-10). A Hugo
// site keeps the name whole.
func TestZolaDatedNames(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time { d, _ := time.Parse(time.RFC3339, s); return d }
	zola := map[string]string{
		"config.toml":                                "base_url = \"https://z/\"\n",
		"content/2018-08-10-mastodon.md":             "+++\ntitle = \"Mastodon\"\n+++\n",
		"content/blog/_index.md":                     "+++\ntitle = \"Blog\"\n+++\n",
		"content/blog/2020-03-14-rockpro64/index.md": "+++\ntitle = \"R\"\n+++\n",
		"content/blog/2021-01-02T10:00:00Z_timed.md": "+++\ntitle = \"T\"\n+++\n",
		"content/blog/2019-05-06 spaced.md":          "+++\ntitle = \"S\"\n+++\n",
		"content/blog/2022-01-01-dated.md":           "+++\ntitle = \"D\"\ndate = 2023-02-03\n+++\n",
		"content/blog/2019-01-01.md":                 "+++\ntitle = \"Only date\"\n+++\n",
		"content/blog/2019-13-01-bad-month.md":       "+++\ntitle = \"B\"\n+++\n",
	}
	s, probs := assemble(t, zola)
	wantNoProblems(t, probs)
	if p := pageBySlug(t, s, "mastodon"); p.Path != "/mastodon/" || !p.PublishedAt.Equal(day("2018-08-10T00:00:00Z")) || p.Meta.Path != "content/2018-08-10-mastodon.md" {
		t.Errorf("mastodon: path %s, publishedAt %v, file %s", p.Path, p.PublishedAt, p.Meta.Path)
	}
	want := map[string]struct{ path, date string }{
		"rockpro64":            {"/blog/rockpro64/", "2020-03-14T00:00:00Z"},
		"timed":                {"/blog/timed/", "2021-01-02T10:00:00Z"},
		"spaced":               {"/blog/spaced/", "2019-05-06T00:00:00Z"},
		"dated":                {"/blog/dated/", "2023-02-03T00:00:00Z"},
		"2019-01-01":           {"/blog/2019-01-01/", "2019-01-01T00:00:00Z"},
		"2019-13-01-bad-month": {"/blog/2019-13-01-bad-month/", commitTime.Format(time.RFC3339)},
	}
	got := map[string]bool{}
	for _, it := range s.Items["blog"] {
		got[it.Slug] = true
		w, ok := want[it.Slug]
		if !ok {
			t.Errorf("unexpected item %s", it.Slug)
			continue
		}
		if it.Path != w.path || !it.PublishedAt.Equal(day(w.date)) {
			t.Errorf("%s: path %s, publishedAt %v, want %s %s", it.Slug, it.Path, it.PublishedAt, w.path, w.date)
		}
	}
	if len(got) != len(want) {
		t.Errorf("items %v, want %v", got, want)
	}

	hugo, _ := assemble(t, map[string]string{"hugo.toml": "title = \"x\"\n", "content/2018-08-10-mastodon.md": "---\ntitle: M\n---\n"})
	if p := pageBySlug(t, hugo, "2018-08-10-mastodon"); !p.PublishedAt.Equal(commitTime) {
		t.Errorf("hugo: %s %v", p.Slug, p.PublishedAt)
	}
}

// On a Zola site a page's slug is slugified in its path, as Zola's
// default slugify.paths = "on" does (friedemannsommer/website's
// lib_tcstring.md is /projects/lib-tcstring/); sections (_index files)
// and folders keep their names and case; slugify.paths = "safe" keeps the
// name as written. The slug served by the API is the file's.
func TestZolaSlugifiedPaths(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"config.toml":                        "base_url = \"https://z/\"\n",
		"content/projects/_index.md":         "+++\ntitle = \"P\"\n+++\n",
		"content/projects/lib_tcstring.md":   "+++\ntitle = \"L\"\n+++\n",
		"content/projects/Café au Lait.md":   "+++\ntitle = \"C\"\n+++\n",
		"content/projects/v1.2-notes.md":     "+++\ntitle = \"V\"\n+++\n",
		"content/projects/Sub_Dir/_index.md": "+++\ntitle = \"S\"\n+++\n",
		"content/projects/Sub_Dir/Two_X.md":  "+++\ntitle = \"T\"\n+++\n",
		"content/projects/set.md":            "+++\ntitle = \"Set\"\nslug = \"My_Slug\"\n+++\n",
		"content/About_Me.md":                "+++\ntitle = \"A\"\n+++\n",
	}
	s, probs := assemble(t, files)
	wantNoProblems(t, probs)
	paths := map[string]string{}
	for _, it := range s.Items["projects"] {
		paths[it.Slug] = it.Path
	}
	want := map[string]string{
		"lib_tcstring":  "/projects/lib-tcstring/",
		"Café-au-Lait":  "/projects/cafe-au-lait/",
		"v1.2-notes":    "/projects/v1-2-notes/",
		"Sub_Dir":       "/projects/Sub_Dir/",
		"Sub_Dir/Two_X": "/projects/Sub_Dir/two-x/",
		"My_Slug":       "/projects/my-slug/",
	}
	for slug, p := range want {
		if paths[slug] != p {
			t.Errorf("%s: path %q, want %q (all: %v)", slug, paths[slug], p, paths)
		}
	}
	if p := pageBySlug(t, s, "About_Me"); p.Path != "/about-me/" {
		t.Errorf("About_Me: %s", p.Path)
	}
	files["config.toml"] = "base_url = \"https://z/\"\n[slugify]\npaths = \"safe\"\n"
	s, _ = assemble(t, files)
	for _, it := range s.Items["projects"] {
		if it.Slug == "lib_tcstring" && it.Path != "/projects/lib_tcstring/" {
			t.Errorf("safe: %s", it.Path)
		}
	}
}

// A Zola site's languages are its default_language (else en) and those
// of its [languages] table, which lists only the others: x.fr.md is the
// French x, under /fr/, as Zola serves it. It was one language, and
// _index.fr.md a problem.
func TestZolaLanguages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ config, def string }{
		{"base_url = \"https://z/\"\n\n[languages.fr]\ntitle = \"FR\"\n", "en"},
		{"base_url = \"https://z/\"\ndefault_language = \"de\"\n\n[languages.fr]\n", "de"},
	} {
		s, probs := assemble(t, map[string]string{
			"config.toml":               c.config,
			"content/blog/_index.md":    "+++\ntitle = \"Blog\"\n+++\n",
			"content/blog/_index.fr.md": "+++\ntitle = \"Blog FR\"\n+++\n",
			"content/blog/hello.md":     "+++\ntitle = \"Hello\"\n+++\n",
			"content/blog/hello.fr.md":  "+++\ntitle = \"Bonjour\"\n+++\n",
		})
		wantNoProblems(t, probs)
		if s.I18n == nil || s.I18n.Default != c.def || len(s.Locales) != 2 || s.Locales["fr"] == nil {
			t.Fatalf("%q: locales %v", c.config, s.Locales)
		}
		fr := s.Locales["fr"].Items["blog"]
		if len(fr) != 1 || fr[0].Slug != "hello" || fr[0].Title != "Bonjour" || fr[0].Path != "/fr/blog/hello/" {
			t.Fatalf("%q: fr items %v", c.config, fr)
		}
		def := s.Locales[c.def].Items["blog"]
		if len(def) != 1 || def[0].Title != "Hello" || def[0].Path != "/blog/hello/" {
			t.Fatalf("%q: %s items %v", c.config, c.def, def)
		}
	}
}
