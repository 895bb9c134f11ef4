package content

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestAssemble_Pages(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"pages/home.yaml": `title: Home
isHomepage: true
publishedAt: 2026-01-01T00:00:00Z
seo: {title: Home SEO, description: The home page, ogImage: https://cdn.test/og.jpg}
sections:
  - {type: hero, heading: Hi, image: {src: /a.jpg}}
  - {id: cta, type: callToAction, data: {label: Go}}
  - {type: empty}
`,
		"pages/about.md":              "---\ntitle: About\ndescription: All about us\n---\nWe are **Acme**.\n",
		"pages/guides/install.md":     "---\ntitle: Install\n---\n",
		"pages/guides/setup/index.md": "---\ntitle: Setup bundle\nunknown: ignored\n---\n",
		"pages/index.md":              "---\ntitle: 'Index: not home, home.yaml says so'\n---\n",
		"pages/sections-and-body.md":  "---\nsections:\n  - {type: hero}\n---\nBody\n",
	})
	wantNoProblems(t, probs)
	home := pageBySlug(t, site, "home")
	if !home.IsHomepage || home.Title != "Home" || home.ID != stableID("page", "home") {
		t.Errorf("home = %+v", home)
	}
	if want := (SEO{Title: "Home SEO", Description: "The home page", OGImage: "https://cdn.test/og.jpg"}); home.SEO != want {
		t.Errorf("home.SEO = %+v", home.SEO)
	}
	wantSecs := []Section{
		{ID: home.ID + "-0", Type: "hero", Order: 0, Data: map[string]any{"heading": "Hi", "image": map[string]any{"src": "/a.jpg"}}},
		{ID: "cta", Type: "callToAction", Order: 1, Data: map[string]any{"label": "Go"}},
		{ID: home.ID + "-2", Type: "empty", Order: 2, Data: map[string]any{}},
	}
	if !reflect.DeepEqual(home.Sections, wantSecs) {
		t.Errorf("sections = %#v\nwant %#v", home.Sections, wantSecs)
	}

	about := pageBySlug(t, site, "about")
	if about.IsHomepage || about.SEO.Title != "About" || about.SEO.Description != "All about us" {
		t.Errorf("about = %+v (seo defaults from title and description)", about)
	}
	wantBody := []Section{{ID: about.ID + "-0", Type: RichTextSection, Order: 0, Data: map[string]any{"html": "<p>We are <strong>Acme</strong>.</p>\n"}}}
	if len(about.Sections) == 1 {
		if md, ok := about.Sections[0].Data["html"].(Markdown); ok {
			about.Sections[0].Data["html"] = md.HTML() // served as its HTML
		}
	}
	if !reflect.DeepEqual(about.Sections, wantBody) {
		t.Errorf("about.Sections = %#v", about.Sections)
	}
	if pageBySlug(t, site, "index").IsHomepage {
		t.Error("index is the homepage although home.yaml says isHomepage")
	}
	if s := pageBySlug(t, site, "sections-and-body").Sections; len(s) != 2 || s[1].Type != RichTextSection || s[1].Order != 1 {
		t.Errorf("body section after front matter sections: %+v", s)
	}
	if s := pageBySlug(t, site, "guides/install").Sections; s == nil || len(s) != 0 {
		t.Errorf("a page without sections has %#v, want an empty list", s)
	}
	pageBySlug(t, site, "guides/setup")

	var got []string
	for _, p := range site.Pages {
		got = append(got, p.Slug)
	}
	if want := []string{"about", "guides/install", "guides/setup", "home", "index", "sections-and-body"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pages = %v, want %v", got, want)
	}
	b, err := json.Marshal(home)
	if err != nil || !strings.Contains(string(b), `"sections":[{"id":"`) {
		t.Errorf("home JSON %s, %v", b, err)
	}
}

func TestAssemble_Homepage(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string // homepage slug; "" for none
		probs map[string]string
	}{
		{"index by convention", map[string]string{"pages/index.md": "", "pages/home.md": "", "pages/a.md": ""}, "index", nil},
		{"home by convention", map[string]string{"pages/home.md": "", "pages/a.md": ""}, "home", nil},
		{"index opts out", map[string]string{"pages/index.md": "---\nisHomepage: false\n---\n", "pages/home.md": ""}, "home", nil},
		{"none", map[string]string{"pages/a.md": ""}, "", nil},
		{"marked wins over convention", map[string]string{"pages/index.md": "", "pages/start.md": "---\nisHomepage: true\n---\n"}, "start", nil},
		{"several marked: smallest path wins", map[string]string{
			"pages/b.md": "---\nisHomepage: true\n---\n", "pages/a.md": "---\nisHomepage: true\n---\n", "pages/c.md": "---\nisHomepage: true\n---\n",
		}, "a", map[string]string{
			"pages/b.md": "pages/a.md is the homepage already", "pages/c.md": "pages/a.md is the homepage already",
		}},
		{"bad isHomepage", map[string]string{"pages/a.md": "---\nisHomepage: \"yes\"\n---\n", "pages/index.md": ""}, "index", map[string]string{
			"pages/a.md": "pages/a.md:2: isHomepage: want true or false",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site, probs := assemble(t, tt.files)
			wantProblems(t, probs, tt.probs)
			var homes []string
			for _, p := range site.Pages {
				if p.IsHomepage {
					homes = append(homes, p.Slug)
				}
			}
			switch {
			case tt.want == "" && len(homes) != 0:
				t.Errorf("homepages = %v, want none", homes)
			case tt.want != "" && !reflect.DeepEqual(homes, []string{tt.want}):
				t.Errorf("homepages = %v, want [%s]", homes, tt.want)
			}
		})
	}
}

func TestAssemble_PageProblems(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"pages/ok.md":         "",
		"pages/dup.md":        "---\nslug: ok\n---\n",
		"pages/id-a.md":       "---\nid: p1\n---\n",
		"pages/id-b.md":       "---\nid: p1\n---\n",
		"pages/notlist.yaml":  "sections: {type: hero}\n",
		"pages/notmap.yaml":   "sections:\n  - hero\n",
		"pages/notype.yaml":   "title: x\nsections:\n  - {heading: x}\n",
		"pages/dataplus.yaml": "sections:\n  - {type: hero, data: {a: 1}, heading: x}\n",
		"pages/datalist.yaml": "sections:\n  - {type: hero, data: [1]}\n",
		"pages/dupsec.yaml":   "sections:\n  - {id: a, type: hero}\n  - {id: a, type: text}\n",
		"pages/badsecid.yaml": "sections:\n  - {id: 'a b', type: hero}\n",
		"pages/seo.yaml":      "seo: just text\n",
		"pages/seokey.yaml":   "seo: {titel: typo}\n",
		"pages/seovalue.yaml": "seo: {title: [a]}\n",
		"pages/My?Page.md":    "",
		"pages/broken.yaml":   "title: [unterminated\n",
		"pages/list.yaml":     "- just\n- a list\n",
	})
	wantProblems(t, probs, map[string]string{
		"pages/ok.md":         `page slug "ok" is used by pages/dup.md`,
		"pages/id-b.md":       `pages/id-b.md:2: page id "p1" is used by pages/id-a.md`,
		"pages/notlist.yaml":  "notlist.yaml:1: sections: want a list, found a map",
		"pages/notmap.yaml":   "sections: section 1: want a map with a type, found text",
		"pages/notype.yaml":   "notype.yaml:2: sections: section 1 has no type",
		"pages/dataplus.yaml": `section 1 has data and also "heading"`,
		"pages/datalist.yaml": "section 1: data must be a map",
		"pages/dupsec.yaml":   `sections 1 and 2 have the same id "a"`,
		"pages/badsecid.yaml": "section 1: a b is not a valid id",
		"pages/seo.yaml":      "seo: want a map",
		"pages/seokey.yaml":   `unknown key "titel"`,
		"pages/seovalue.yaml": "title: want text, found a list",
		"pages/My?Page.md":    `the file name gives the slug "My?Page"`,
		"pages/broken.yaml":   "invalid YAML",
		"pages/list.yaml":     "expected a map",
	})
	if len(site.Pages) != 2 {
		t.Errorf("pages = %d, want dup and id-a", len(site.Pages))
	}
}

// A page that says isHomepage: true is at its locale's root, as a front
// end's catch-all route asks for it (GET /api/v1/resolve?path=/).
func TestAssemble_HomepagePath(t *testing.T) {
	site, probs := assemble(t, map[string]string{
		"pages/home.md":  "---\ntitle: Home\nisHomepage: true\n---\nHi.\n",
		"pages/about.md": "---\ntitle: About\n---\nUs.\n",
	})
	wantNoProblems(t, probs)
	if p := pageBySlug(t, site, "home").Path; p != "/" {
		t.Errorf("the homepage's path is %q, want /", p)
	}
	if p := pageBySlug(t, site, "about").Path; p != "/about/" {
		t.Errorf("about's path is %q, want /about/", p)
	}
}

// A Hugo Blox (Wowchemy) landing page's sections say their type with
// block: (2i2c-org's content/mission/_index.md: - block: markdown, id,
// content). Such a section is of that type, its data every key but id
// and block; type: wins when both are there. They were "section 1 has
// no type", the page left out.
func TestAssemble_HugoBloxSections(t *testing.T) {
	t.Parallel()
	s, probs := assemble(t, map[string]string{
		"hugo.yaml": "title: x\n",
		"content/mission/_index.md": "---\ntitle: Our mission\ntype: landing\nsections:\n" +
			"  - block: markdown\n    id: mission\n    content:\n      title: We grow\n      text: Hi\n" +
			"  - block: cta-card\n    type: hero\n    content: {title: T}\n---\n",
	})
	wantNoProblems(t, probs)
	p := pageBySlug(t, s, "mission")
	if len(p.Sections) < 2 {
		t.Fatalf("sections %v", p.Sections)
	}
	s0, s1 := p.Sections[0], p.Sections[1]
	if s0.Type != "markdown" || s0.ID != "mission" || s0.Data["block"] != nil || s0.Data["content"] == nil {
		t.Errorf("section 0: %+v", s0)
	}
	if s1.Type != "hero" || s1.Data["block"] != "cta-card" {
		t.Errorf("section 1: %+v", s1)
	}
}
