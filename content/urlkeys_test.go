package content

import (
	"slices"
	"strings"
	"testing"
)

// The keys that name URLs of the site (Hugo's and Zola's url and
// aliases, Zola's path) are no references, even when their first segment
// is a content type: the Rust blog (a Zola site) writes each post's own
// URL, path = "inside-rust/2019/12/20/wg-learning-update", in a folder
// content/inside-rust. They stay in data, as written; every other key,
// nested ones too, still refers.
func TestURLKeysAreNoReferences(t *testing.T) {
	src := map[string]string{
		"content/inside-rust/wg-learning-update.md": `+++
path = "inside-rust/2019/12/20/wg-learning-update"
title = "An update from WG-Learning"
aliases = ["inside-rust/2019/12/20/wg-learning-update.html"]
URL = "inside-rust/old/url"

[extra]
team = "inside-rust/gone"
path = "inside-rust/nested-gone"
+++
Body
`,
		"content/inside-rust/other.md": "---\ntitle: Other\nrelated: inside-rust/missing\nauthor: inside-rust/wg-learning-update\n---\n",
	}
	var files []File
	for p, s := range src {
		doc, err := Parse(p, []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Path: p, Doc: doc})
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	site, probs := Assemble(files)
	if len(probs) != 0 {
		t.Fatal(probs)
	}
	var got []string
	for _, p := range ReferenceProblems(site, files, nil) {
		got = append(got, p.Path+": "+p.Message)
	}
	want := []string{
		"content/inside-rust/other.md: reference to a missing item inside-rust/missing (null when expanded)",
		"content/inside-rust/wg-learning-update.md: reference to a missing item inside-rust/gone (null when expanded)",
		"content/inside-rust/wg-learning-update.md: reference to a missing item inside-rust/nested-gone (null when expanded)",
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	it := site.Items["inside-rust"][1]
	if it.Slug != "wg-learning-update" || it.Data["path"] != "inside-rust/2019/12/20/wg-learning-update" ||
		!slices.Equal(it.Data["aliases"].([]any), []any{"inside-rust/2019/12/20/wg-learning-update.html"}) || it.Data["URL"] != "inside-rust/old/url" {
		t.Fatalf("item %s: data %v, want path, aliases and URL as written", it.Slug, it.Data)
	}
}

// A document whose only reference-like strings are under URL keys has
// none: its RefHint says so, and the checker need not read it again.
func TestRefHintSkipsURLKeys(t *testing.T) {
	for _, c := range []struct {
		src   string
		noRef bool
	}{
		{"---\ntitle: A\npath: posts/a\naliases: [posts/old-a]\nurl: posts/a/\n---\n", true},
		{"---\ntitle: A\npath: posts/a\nauthor: authors/ann\n---\n", false},
		{"---\ntitle: A\nextra: {path: posts/a}\n---\n", false},
	} {
		doc, err := Parse("content/posts/a.md", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := doc.RefHint()&RefHintNoRef != 0; got != c.noRef {
			t.Errorf("%q: no reference %v, want %v", c.src, got, c.noRef)
		}
	}
}

// A file whose name gives no valid slug is served when its front matter
// gives its URL (Zola's path, Hugo's url), so that the name only tells it
// apart (the Rust blog's roadmap@0.md, roadmap@1.md): under the name
// with each run of other characters as '-'. Without such a URL it is
// still a problem (rename it or set slug), and so is a name that stays
// invalid.
func TestSlugOfNameWithURL(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"config.toml":                    "base_url = \"https://blog.example.com\"\n",
		"content/roadmap@0.md":           "+++\npath = \"2017/02/06/roadmap\"\ntitle = \"Roadmap 2017\"\n+++\n",
		"content/roadmap@1.md":           "+++\npath = \"2018/03/12/roadmap\"\ntitle = \"Roadmap 2018\"\n+++\n",
		"content/inside-rust/wg@0.md":    "+++\npath = \"inside-rust/2019/12/20/wg\"\ntitle = \"WG\"\n+++\n",
		"content/inside-rust/hugo@?x.md": "---\ntitle: Hugo\nurl: /hugo-x/\n---\n",
		"content/inside-rust/plain@0.md": "---\ntitle: Plain\n---\n",
		"content/inside-rust/empty@0.md": "+++\npath = \"/\"\ntitle = \"Empty path\"\n+++\n",
		"content/inside-rust/taken@0.md": "+++\npath = \"inside-rust/taken\"\ntitle = \"Taken\"\n+++\n",
		"content/inside-rust/taken-0.md": "---\ntitle: Taken too\n---\n",
	})
	wantProblems(t, probs, map[string]string{
		"content/inside-rust/plain@0.md": `the file name gives the slug "plain@0", which is not valid`,
		"content/inside-rust/empty@0.md": `the file name gives the slug "empty@0", which is not valid`,
		"content/inside-rust/taken@0.md": `inside-rust slug "taken-0" is used by content/inside-rust/taken-0.md`,
	})
	// taken@0.md's slug is taken: served under its path as its slug, as
	// any document whose slug another one has, with a problem.
	if got, want := slugs(site.Items["inside-rust"]), []string{"hugo-x", "inside-rust/taken", "taken-0", "wg-0"}; !slices.Equal(got, want) {
		t.Errorf("inside-rust = %v, want %v", got, want)
	}
	r0, r1 := pageBySlug(t, site, "roadmap-0"), pageBySlug(t, site, "roadmap-1")
	if r0.Title != "Roadmap 2017" || r1.Title != "Roadmap 2018" || r0.Data["path"] != "2017/02/06/roadmap" {
		t.Errorf("pages %+v %+v", r0, r1)
	}
	if it := itemBySlug(t, site, "inside-rust", "hugo-x"); it.Path != "/hugo-x/" {
		t.Errorf("hugo@?x.md is at %q, want its url /hugo-x/", it.Path)
	}

	// The same on any site, a write being checked without the site's
	// configuration: path names a URL, even where the generator does not
	// serve the document there (a Hugo site).
	site, probs = assemble(t, map[string]string{
		"hugo.toml":             "baseURL = \"https://example.com\"\n",
		"content/docs/api@0.md": "---\ntitle: API\npath: grpc-java/javadoc\n---\n",
		"content/docs/url@0.md": "---\ntitle: URL\nurl: /docs/url/\n---\n",
		"content/docs/bad@0.md": "---\ntitle: Bad\n---\n",
	})
	wantProblems(t, probs, map[string]string{
		"content/docs/bad@0.md": `the file name gives the slug "bad@0", which is not valid`,
	})
	if got, want := slugs(site.Items["docs"]), []string{"api-0", "url-0"}; !slices.Equal(got, want) {
		t.Errorf("docs = %v, want %v", got, want)
	}
	if p := itemBySlug(t, site, "docs", "api-0").Path; p != "/docs/api@0/" {
		t.Errorf("a Hugo item's path = %q, want /docs/api@0/ (from its file name, path: is data)", p)
	}
}

// On a Zola site (config.toml with base_url) a document's front matter
// path is its path, between slashes, as written: the Rust blog serves
// inside-rust/1.45.1-prerelease.md at /inside-rust/2020/07/27/1.45.1-prerelease/.
// On a Hugo site path is data like any key (grpc.io's link target
// path: grpc-java/javadoc), and the page is where Hugo puts it.
func TestZolaPathIsThePath(t *testing.T) {
	zola := map[string]string{
		"config.toml":                         "base_url = \"https://blog.example.com\"\n[extra]\nx = 1\n",
		"content/inside-rust/1.45.1-pre.md":   "+++\npath = \"inside-rust/2020/07/27/1.45.1-Pre\"\ntitle = \"Pre\"\n+++\n",
		"content/inside-rust/no-path.md":      "+++\ntitle = \"No path\"\n+++\n",
		"content/roadmap@0.md":                "+++\npath = \"/2017/02/06/roadmap/\"\ntitle = \"Roadmap\"\n+++\n",
		"content/inside-rust/url-and-path.md": "---\ntitle: Both\nurl: /by-url/\npath: by-path\n---\n",
	}
	site, probs := assemble(t, zola)
	wantNoProblems(t, probs)
	for _, c := range []struct{ got, want string }{
		{itemBySlug(t, site, "inside-rust", "1.45.1-pre").Path, "/inside-rust/2020/07/27/1.45.1-Pre/"},
		{itemBySlug(t, site, "inside-rust", "no-path").Path, "/inside-rust/no-path/"},
		{itemBySlug(t, site, "inside-rust", "url-and-path").Path, "/by-url/"},
		{pageBySlug(t, site, "roadmap-0").Path, "/2017/02/06/roadmap/"},
	} {
		if c.got != c.want {
			t.Errorf("path %q, want %q", c.got, c.want)
		}
	}
	hugo := map[string]string{
		"hugo.toml":             "baseURL = \"https://grpc.example.com\"\n",
		"content/docs/api.md":   "---\ntitle: API\npath: grpc-java/javadoc\n---\n",
		"content/docs/plain.md": "---\ntitle: Plain\n---\n",
	}
	site, probs = assemble(t, hugo)
	wantNoProblems(t, probs)
	if p := itemBySlug(t, site, "docs", "api").Path; p != "/docs/api/" {
		t.Errorf("a Hugo page's path: is no path: %q, want /docs/api/", p)
	}
}

// A URL key a content model declares a reference (RefChecker.URLRefs)
// is read as one, for its type only, even when the document's RefHint
// says it has no reference elsewhere.
func TestURLRefsDeclared(t *testing.T) {
	var files []File
	for _, f := range [][2]string{
		{"content/links/a.md", "---\ntitle: A\nurl: links/gone\n---\n"},
		{"content/posts/p.md", "---\ntitle: P\nurl: links/gone\n---\n"},
	} {
		doc, err := Parse(f[0], []byte(f[1]))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Path: f[0], Doc: doc})
	}
	site, _ := Assemble(files)
	c := &RefChecker{}
	if probs := c.Problems(site, files, nil); len(probs) != 0 {
		t.Fatalf("undeclared: %v", probs)
	}
	c.URLRefs = map[string][]string{"links": {"url"}}
	probs := c.Problems(site, files, nil)
	if len(probs) != 1 || probs[0].Path != "content/links/a.md" || !strings.Contains(probs[0].Message, "missing item links/gone") {
		t.Fatalf("declared: %v", probs)
	}
}
