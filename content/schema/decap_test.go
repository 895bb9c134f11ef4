package schema

import (
	"strings"
	"testing"
)

// decapConfig is a config.yml as a Hugo site edited with Decap or Sveltia
// CMS has it: folder and file collections, nested object and list
// widgets, relation, select and image widgets.
const decapConfig = `backend:
  name: git-gateway
  branch: main
media_folder: static/images/uploads
public_folder: /images/uploads
collections:
  - name: blog
    label: Blog
    folder: content/posts
    create: true
    slug: "{{year}}-{{month}}-{{day}}-{{slug}}"
    fields:
      - {label: Title, name: title, widget: string}
      - {label: Publish Date, name: date, widget: datetime}
      - {label: Draft, name: draft, widget: boolean, required: false}
      - {label: Featured Image, name: thumbnail, widget: image, required: false}
      - {label: Rating, name: rating, widget: number, value_type: int, min: 1, max: 5}
      - {label: Price, name: price, widget: number, required: false}
      - label: Category
        name: category
        widget: select
        options: [news, {label: Guides, value: guides}]
      - {label: Author, name: author, widget: relation, collection: authors, search_fields: [name], value_field: "{{slug}}"}
      - {label: Tags, name: tags, widget: list, required: false}
      - label: Gallery
        name: gallery
        widget: list
        required: false
        field: {label: Image, name: image, widget: image}
      - label: Links
        name: links
        widget: list
        required: false
        fields:
          - {label: Label, name: label, widget: string}
          - {label: URL, name: url, widget: string}
      - label: Blocks
        name: blocks
        widget: list
        required: false
        types:
          - label: Hero
            name: hero
            widget: object
            fields:
              - {label: Heading, name: heading, widget: string}
          - label: Quote
            name: quote
            widget: object
            fields:
              - {label: Text, name: text, widget: text}
              - {label: Cite, name: cite, widget: string, required: false}
      - label: SEO
        name: seo_meta
        widget: object
        required: false
        fields:
          - {label: Description, name: description, widget: text}
          - {label: Canonical, name: canonical, widget: string, required: false}
      - {label: Body, name: body, widget: markdown}
      - {label: Secret, name: secret, widget: my-custom-widget}
  - name: authors
    label: Authors
    folder: content/authors
    fields:
      - {label: Name, name: title, widget: string}
      - {label: Bio, name: body, widget: markdown, required: false}
  - name: settings
    label: Settings
    files:
      - label: Site
        name: site
        file: globals.yaml
        fields:
          - {label: Site name, name: siteName, widget: string}
          - label: Navigation
            name: nav
            widget: list
            fields:
              - {label: Label, name: label, widget: string}
              - {label: URL, name: url, widget: string}
      - label: About
        name: about
        file: pages/about.md
        fields:
          - {label: Title, name: title, widget: string}
`

func TestDecap(t *testing.T) {
	files := map[string]string{
		"static/admin/config.yml":  decapConfig,
		"content/authors/maria.md": "---\ntitle: Maria\n---\nBio.\n",
		"content/posts/good.md": `---
title: Good
date: 2024-03-01T10:00:00Z
rating: 4
price: "12.50"
category: guides
author: maria
thumbnail: /uploads/2024/03/a.jpg
tags: [a, b]
gallery: [media:abc, /uploads/x.png]
links:
  - {label: Home, url: /}
blocks:
  - {type: hero, heading: Hi}
  - {type: quote, text: Yes}
seo_meta: {description: Fine}
secret: anything at all
---
Body.
`,
		"content/posts/bad.md": `---
date: someday
rating: 2.5
price: cheap
category: gossip
author: "a b"
gallery: [not-media]
links:
  - {label: Home}
blocks:
  - {type: hero}
  - {type: video, src: x}
seo_meta: {canonical: x}
---
`,
		"globals.yaml": "siteName: Demo\nnav:\n  - {label: Home, url: /}\n  - {label: About}\n",
	}
	m, docs := compile(t, files)
	posts, authors := m.Of("posts"), m.Of("authors")
	if posts == nil || authors == nil || m.Globals == nil || m.Pages != nil || m.Of("blog") != nil {
		t.Fatalf("model: types %v, pages %v, globals %v", m.Types, m.Pages, m.Globals)
	}
	if vs := posts.Validate(docs["content/posts/good.md"]); len(vs) > 0 {
		t.Fatalf("good.md: %s", violations(vs))
	}
	if vs := authors.Validate(docs["content/authors/maria.md"]); len(vs) > 0 {
		t.Fatalf("maria.md: %s", violations(vs))
	}
	got := violations(posts.Validate(docs["content/posts/bad.md"]))
	for _, want := range []string{
		"1: title: required, missing", "1: body: required, missing", "2: date: ", "3: rating: got number, want integer",
		"4: price: ", "5: category: ", "6: author: ", "7: gallery.0: ", "8: links.0.url: required, missing",
		"10: blocks", "13: seo_meta.description: required, missing",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("bad.md: no %q in\n%s", want, got)
		}
	}
	got = violations(m.Globals.Validate(docs["globals.yaml"]))
	if !strings.Contains(got, "4: nav.1.url: required, missing") {
		t.Errorf("globals.yaml: %s", got)
	}
	// folio.yaml's own fields win over the Decap config's.
	files["folio.yaml"] = "types:\n  posts:\n    fields:\n      title: string\n"
	m, docs = compile(t, files)
	if vs := m.Of("posts").Validate(docs["content/posts/bad.md"]); len(vs) > 0 || m.Of("authors") == nil {
		t.Fatalf("with folio.yaml: %s", violations(vs))
	}
}
