package content

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/content/chunks"
)

func pageSlugs(s *Site) []string {
	out := make([]string, len(s.Pages))
	for i, p := range s.Pages {
		out[i] = p.Slug
	}
	return out
}

func typeNames(s *Site) []string {
	var out []string
	for typ := range s.Items {
		out = append(out, typ)
	}
	slices.Sort(out)
	return out
}

// A folder right inside content/ holding index.md is Hugo's leaf bundle,
// the page named by its folder (content/about/index.md is the page
// about, as content/about.md is), not a type; the other files of a leaf
// bundle, at any depth and beside it or below, are its resources, not
// documents, and a warning says so.
func TestLeafBundle_Hugo(t *testing.T) {
	t.Parallel()
	s, probs := assemble(t, map[string]string{
		"hugo.toml":                     "title = \"x\"\n",
		"content/about/index.md":        "---\ntitle: About\n---\nhi\n",
		"content/docs/index.md":         "---\ntitle: Docs\n---\n",
		"content/docs/guide.md":         "---\ntitle: Guide\n---\n",
		"content/docs/more/index.md":    "---\ntitle: More\n---\n",
		"content/docs/more/x.md":        "---\ntitle: X\n---\n",
		"content/posts/a.md":            "---\ntitle: A\n---\na\n",
		"content/posts/b/index.md":      "---\ntitle: B\n---\nb\n",
		"content/posts/b/notes.md":      "---\ntitle: N\n---\n",
		"content/posts/b/data.yaml":     "title: D\n",
		"content/posts/b/sub/index.md":  "---\ntitle: S\n---\n",
		"content/posts/b/sub/deep.html": "---\ntitle: H\n---\n<p>h</p>\n",
		"content/posts/c/_index.md":     "---\ntitle: C\n---\n",
		"content/posts/c/d.md":          "---\ntitle: CD\n---\n",
		"content/posts/e/index.yaml":    "title: E\n",
		"content/posts/e/f.md":          "---\ntitle: EF\n---\n",
	})
	if got := pageSlugs(s); !slices.Equal(got, []string{"about", "docs"}) {
		t.Errorf("pages %v", got)
	}
	about := pageBySlug(t, s, "about")
	if about.Meta.Path != "content/about/index.md" || about.Path != "/about/" || !strings.Contains(pageHTML(t, s, "about"), "hi") {
		t.Errorf("about: file %s, path %s", about.Meta.Path, about.Path)
	}
	if got := typeNames(s); !slices.Equal(got, []string{"posts"}) {
		t.Errorf("types %v", got)
	}
	// b's own files are resources; c is a branch bundle, whose pages are
	// pages; index.yaml is no content format's index file
	if got := slugs(s.Items["posts"]); !slices.Equal(got, []string{"a", "b", "c", "c/d", "e", "e/f"}) {
		t.Errorf("posts %v", got)
	}
	wantProblems(t, probs, map[string]string{
		"content/docs/":    "its 3 other content files (guide.md, more/index.md, more/x.md) are resources of its page, not documents, as Hugo reads them",
		"content/posts/b/": "its 4 other content files (data.yaml, notes.md, sub/deep.html, and 1 more) are resources",
	})
	want := []string{"content/docs/guide.md", "content/docs/more/index.md", "content/docs/more/x.md",
		"content/posts/b/data.yaml", "content/posts/b/notes.md", "content/posts/b/sub/deep.html", "content/posts/b/sub/index.md"}
	if !slices.Equal(s.Resources, want) || !s.Resource("content/posts/b/notes.md") || s.Resource("content/posts/b/index.md") {
		t.Errorf("resources %v", s.Resources)
	}
	for _, p := range probs {
		if p.Level != LevelWarn {
			t.Errorf("%s is not a warning: the site is served as Hugo reads it", p)
		}
	}
}

// What a site declares wins: a folder folio.yaml's types or a Decap
// folder collection names stays a type, and so does one whose page is
// another file's already (Hugo's section page _index.md, content/x.md).
func TestLeafBundle_DeclaredStaysType(t *testing.T) {
	t.Parallel()
	s, _ := assemble(t, map[string]string{
		"folio.yaml":                  "types:\n  about: {public: true}\n",
		"static/admin/config.yml":     "backend: {name: git-gateway}\ncollections:\n  - {name: team, label: Team, folder: content/team, create: true, fields: [{name: title, widget: string}]}\n",
		"content/about/index.md":      "---\ntitle: About\n---\n",
		"content/about/notes.md":      "---\ntitle: N\n---\n",
		"content/team/index.md":       "---\ntitle: Team\n---\n",
		"content/team/jo.md":          "---\ntitle: Jo\n---\n",
		"content/sec/_index.md":       "---\ntitle: Sec\n---\n",
		"content/sec/index.md":        "---\ntitle: SI\n---\n",
		"content/twice.md":            "---\ntitle: Twice\n---\n",
		"content/twice/index.md":      "---\ntitle: T2\n---\n",
		"content/plain/index.md":      "---\ntitle: Plain\n---\n",
		"content/about/deep/index.md": "---\ntitle: Deep\n---\n",
		"content/about/deep/res.md":   "---\ntitle: R\n---\n",
	})
	if got := pageSlugs(s); !slices.Equal(got, []string{"plain", "sec", "twice"}) {
		t.Errorf("pages %v", got)
	}
	if got := typeNames(s); !slices.Equal(got, []string{"about", "sec", "team", "twice"}) {
		t.Errorf("types %v", got)
	}
	// a declared type's deeper leaf bundles are bundles all the same
	if got := slugs(s.Items["about"]); !slices.Equal(got, []string{"deep", "index", "notes"}) {
		t.Errorf("about %v", got)
	}
	if got := slugs(s.Items["team"]); !slices.Equal(got, []string{"index", "jo"}) {
		t.Errorf("team %v", got)
	}
}

// The files an Astro collection or a Decap folder collection places are
// read as their CMS reads them: no leaf bundles.
func TestLeafBundle_ForeignFolders(t *testing.T) {
	t.Parallel()
	s, probs := assemble(t, map[string]string{
		"astro.config.mjs":            "export default {}\n",
		"src/content/docs/index.mdx":  "---\ntitle: Home\n---\n",
		"src/content/docs/guide.md":   "---\ntitle: Guide\n---\n",
		"admin/config.yml":            "backend: {name: git-gateway}\ncollections:\n  - {name: blog, label: Blog, folder: src/pages/blog, create: true, fields: [{name: title, widget: string}]}\n",
		"src/pages/blog/x/index.md":   "---\ntitle: X\n---\n",
		"src/pages/blog/x/notes.md":   "---\ntitle: N\n---\n",
		"src/pages/blog/top/index.md": "---\ntitle: Top\n---\n",
	})
	wantNoProblems(t, probs)
	if got := slugs(s.Items["docs"]); !slices.Equal(got, []string{"guide", "index"}) {
		t.Errorf("docs %v", got)
	}
	if got := slugs(s.Items["blog"]); !slices.Equal(got, []string{"top", "x", "x/notes"}) {
		t.Errorf("blog %v", got)
	}
}

// In a site with locales each locale's content reads alike: a locale's
// contentDir (content/en/about/index.md) and a file named for its
// language (content/about/index.de.md) are the locale's page about, and
// the pages of a bundle in two locales translate each other.
func TestLeafBundle_Locales(t *testing.T) {
	t.Parallel()
	t.Run("contentDir", func(t *testing.T) {
		t.Parallel()
		s, probs := assemble(t, map[string]string{
			"hugo.yaml":                   "baseURL: /\ndefaultContentLanguage: en\nlanguages:\n  en:\n    contentDir: content/en\n    weight: 1\n  de:\n    contentDir: content/de\n    weight: 2\n",
			"content/en/about/index.md":   "---\ntitle: About\n---\n",
			"content/de/about/index.md":   "---\ntitle: Über\n---\n",
			"content/en/posts/b/index.md": "---\ntitle: B\n---\n",
			"content/en/posts/b/notes.md": "---\ntitle: N\n---\n",
		})
		wantProblems(t, probs, map[string]string{"content/en/posts/b/": "notes.md in it is a resource of its page"})
		for _, loc := range []string{"en", "de"} {
			ls := s.Locales[loc]
			if got := pageSlugs(ls); !slices.Equal(got, []string{"about"}) {
				t.Fatalf("%s pages %v", loc, got)
			}
			if _, ok := ls.Items["about"]; ok {
				t.Errorf("%s has a type about", loc)
			}
			if tr := ls.Pages[0].Translations; len(tr) != 2 {
				t.Errorf("%s about's translations %v", loc, tr)
			}
		}
		if p := s.Locales["de"].Pages[0]; p.Meta.Path != "content/de/about/index.md" || p.Path != "/de/about/" {
			t.Errorf("de about: %s at %s", p.Meta.Path, p.Path)
		}
		if got := slugs(s.Locales["en"].Items["posts"]); !slices.Equal(got, []string{"b"}) {
			t.Errorf("en posts %v", got)
		}
		if r := s.Locales["en"].Resources; !slices.Equal(r, []string{"content/en/posts/b/notes.md"}) || len(s.Locales["de"].Resources) != 0 {
			t.Errorf("resources en %v, de %v", r, s.Locales["de"].Resources)
		}
	})
	t.Run("contentDir outside content", func(t *testing.T) {
		t.Parallel()
		s, probs := assemble(t, map[string]string{
			"hugo.toml":                   "defaultContentLanguage = 'en'\n[languages.en]\ncontentDir = 'content'\nweight = 1\n[languages.fr]\ncontentDir = 'content_fr'\nweight = 2\n",
			"content/about/index.md":      "---\ntitle: About\n---\n",
			"content_fr/about/index.md":   "---\ntitle: À propos\n---\n",
			"content_fr/about/equipe.md":  "---\ntitle: Équipe\n---\n",
			"content_fr/posts/b/index.md": "---\ntitle: B\n---\n",
		})
		wantProblems(t, probs, map[string]string{"content_fr/about/": "equipe.md in it is a resource of its page"})
		for _, loc := range []string{"en", "fr"} {
			if got := pageSlugs(s.Locales[loc]); !slices.Equal(got, []string{"about"}) {
				t.Errorf("%s pages %v", loc, got)
			}
		}
		if got := typeNames(s.Locales["fr"]); !slices.Equal(got, []string{"posts"}) {
			t.Errorf("fr types %v", got)
		}
	})
	t.Run("file names", func(t *testing.T) {
		t.Parallel()
		s, probs := assemble(t, map[string]string{
			"hugo.yaml":                 "baseURL: /\ndefaultContentLanguage: en\nlanguages:\n  en: {weight: 1}\n  de: {weight: 2}\n",
			"content/about/index.md":    "---\ntitle: About\n---\n",
			"content/about/index.de.md": "---\ntitle: Über\n---\n",
			"content/posts/a.md":        "---\ntitle: A\n---\n",
		})
		wantNoProblems(t, probs)
		for _, loc := range []string{"en", "de"} {
			if got := pageSlugs(s.Locales[loc]); !slices.Equal(got, []string{"about"}) {
				t.Errorf("%s pages %v", loc, got)
			}
		}
		if p := s.Locales["de"].Pages[0]; p.Meta.Path != "content/about/index.de.md" || p.Title != "Über" {
			t.Errorf("de about: %s %q", p.Meta.Path, p.Title)
		}
	})
}

// An Assembler fed successive versions, whole (Assemble) or with the
// paths that changed (AssembleChanged, as the engine reloads), gives
// what a cold Assemble gives, as files come into and leave a bundle and
// its index file comes and goes; an edit of a bundle's index file alone
// still reads only that file.
func TestLeafBundle_ReloadMatchesCold(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	type version struct {
		name        string
		changes     map[string]string // "" deletes
		fromChanges bool              // AssembleChanged reads only the changed files
	}
	versions := []version{
		{name: "start", changes: map[string]string{
			"content/posts/a.md":       "---\ntitle: A\n---\n",
			"content/posts/b/index.md": "---\ntitle: B\n---\n",
		}},
		{name: "edit the bundle's index", changes: map[string]string{"content/posts/b/index.md": "---\ntitle: B2\n---\n"}, fromChanges: true},
		{name: "a file comes into the bundle", changes: map[string]string{"content/posts/b/notes.md": "---\ntitle: N\n---\n"}},
		{name: "the bundle's index goes", changes: map[string]string{"content/posts/b/index.md": ""}},
		{name: "and comes back", changes: map[string]string{"content/posts/b/index.md": "---\ntitle: B3\n---\n"}},
		{name: "the file leaves", changes: map[string]string{"content/posts/b/notes.md": ""}},
		{name: "a type of one index file", changes: map[string]string{"content/about/index.md": "---\ntitle: About\n---\n"}},
		{name: "the page gets a resource", changes: map[string]string{"content/about/extra.md": "---\ntitle: E\n---\n"}},
		{name: "the page's index goes: a type", changes: map[string]string{"content/about/index.md": ""}},
		{name: "folio.yaml declares it", changes: map[string]string{"content/about/index.md": "---\ntitle: About\n---\n", "folio.yaml": "types:\n  about: {}\n"}},
		{name: "and no more", changes: map[string]string{"folio.yaml": ""}},
		{name: "a nested bundle", changes: map[string]string{"content/posts/b/sub/index.md": "---\ntitle: S\n---\n"}},
	}
	cur := map[string]string{}
	times := map[string]time.Time{}
	docs := map[string]*Doc{}
	as, asc := new(Assembler), new(Assembler)
	for vi, v := range versions {
		for p, src := range v.changes {
			if src == "" {
				delete(cur, p)
				continue
			}
			cur[p] = src
			times[p] = t0.Add(time.Duration(vi) * time.Hour)
		}
		var files []File
		for p, src := range cur {
			d, ok := docs[p+"\x00"+src]
			if !ok {
				var err error
				if d, err = Parse(p, []byte(src)); err != nil {
					t.Fatal(err)
				}
				docs[p+"\x00"+src] = d
			}
			files = append(files, File{Path: p, Doc: d, Updated: times[p]})
		}
		slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
		var changed []string
		for p := range v.changes {
			changed = append(changed, p)
		}
		slices.Sort(changed)
		want, wantProbs := Assemble(slices.Clone(files))
		got, gotProbs := as.Assemble(slices.Clone(files))
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotProbs, wantProbs) {
			t.Fatalf("%s: Assemble differs from a cold one:\n got %v %v %v\nwant %v %v %v", v.name, pageSlugs(got), got.Items, gotProbs, pageSlugs(want), want.Items, wantProbs)
		}
		before := asc.fromChanges
		gotC, gotCProbs := asc.AssembleChanged(chunks.Of(files), changed)
		if !reflect.DeepEqual(gotC, want) || !reflect.DeepEqual(gotCProbs, wantProbs) {
			t.Fatalf("%s: AssembleChanged differs from a cold Assemble:\n got %v %v %v\nwant %v %v %v", v.name, pageSlugs(gotC), gotC.Items, gotCProbs, pageSlugs(want), want.Items, wantProbs)
		}
		if fc := asc.fromChanges > before; fc != v.fromChanges {
			t.Errorf("%s: read only the changed files %v, want %v", v.name, fc, v.fromChanges)
		}
	}
}

// On a Zola site (config.toml with base_url) every .md file is a page,
// those beside a folder's index.md and inside its subfolders too: Zola's
// "asset colocation" copies only a page folder's other files. The .md
// files of a bundle stay documents (posts b/notes is served at
// /posts/b/notes/, as Zola serves it); its other files are still left
// out with a warning naming Zola.
func TestLeafBundle_Zola(t *testing.T) {
	t.Parallel()
	s, probs := assemble(t, map[string]string{
		"config.toml":                   "base_url = \"https://example.com\"\n",
		"content/about/index.md":        "+++\ntitle = \"About\"\n+++\nhi\n",
		"content/posts/_index.md":       "+++\ntitle = \"Posts\"\n+++\n",
		"content/posts/a.md":            "+++\ntitle = \"A\"\n+++\n",
		"content/posts/b/index.md":      "+++\ntitle = \"B\"\n+++\n",
		"content/posts/b/notes.md":      "+++\ntitle = \"N\"\n+++\n",
		"content/posts/b/data.yaml":     "title: D\n",
		"content/posts/b/sub/index.md":  "+++\ntitle = \"S\"\n+++\n",
		"content/posts/b/sub/deep.html": "<p>h</p>\n",
	})
	if got := pageSlugs(s); !slices.Contains(got, "about") {
		t.Errorf("pages %v", got)
	}
	if got := slugs(s.Items["posts"]); !slices.Equal(got, []string{"a", "b", "b/notes", "b/sub"}) {
		t.Errorf("posts %v", got)
	}
	for _, it := range s.Items["posts"] {
		if it.Slug == "b/notes" && it.Path != "/posts/b/notes/" {
			t.Errorf("b/notes path %s", it.Path)
		}
	}
	wantProblems(t, probs, map[string]string{
		"content/posts/b/": "its 2 other content files (data.yaml, sub/deep.html) are resources of its page, not documents, as Zola reads them",
	})
	if want := []string{"content/posts/b/data.yaml", "content/posts/b/sub/deep.html"}; !slices.Equal(s.Resources, want) {
		t.Errorf("resources %v", s.Resources)
	}
}

// A bundle of many resources names three and counts the others: "and 8
// more", not "and 8 mores" (2i2c-org's content/founders/).
func TestResourcesMessageMore(t *testing.T) {
	names := []string{"a.md", "b.md", "c.md", "d.md", "e.md", "f.md", "g.md", "h.md", "i.md", "j.md", "k.md"}
	if got := resourcesMessage(names, false); !strings.Contains(got, "(a.md, b.md, c.md, and 8 more)") {
		t.Fatalf("%q", got)
	}
}
