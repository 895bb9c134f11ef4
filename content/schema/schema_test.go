package schema

import (
	"strings"
	"testing"

	"github.com/folio-cms/folio/content"
)

// site parses and assembles files given as path -> text.
func site(t testing.TB, files map[string]string) (*content.Site, map[string]*content.Doc) {
	t.Helper()
	var fs []content.File
	docs := map[string]*content.Doc{}
	for p, src := range files {
		doc, err := content.Parse(p, []byte(src))
		fs = append(fs, content.File{Path: p, Doc: doc, Err: err})
		docs[p] = doc
	}
	s, probs := content.Assemble(fs)
	for _, pr := range probs {
		t.Logf("assemble problem: %s", pr)
	}
	return s, docs
}

func compile(t testing.TB, files map[string]string) (*Model, map[string]*content.Doc) {
	t.Helper()
	s, docs := site(t, files)
	m, probs, ok := Compile(s)
	if !ok {
		t.Fatalf("model does not compile: %v", probs)
	}
	return m, docs
}

func violations(vs []Violation) string {
	var out []string
	for _, v := range vs {
		out = append(out, strings.TrimSpace(itoa(v.Line)+": "+v.String()))
	}
	return strings.Join(out, "\n")
}

const postsModel = `types:
  posts:
    public: true
    additionalFields: reject
    fields:
      title: {kind: string, required: true, maxLength: 40}
      price: number
      rating: {kind: integer, min: 1, max: 5}
      category: {kind: enum, values: [news, guides]}
      author: {kind: reference, to: team}
      cover: {kind: media, accept: [image]}
      tags: {kind: list, of: string, max: 3}
      featured: {kind: boolean, default: false}
      day: date
      at: datetime
      site: url
      contact: email
      handle: {kind: slug, unique: true}
      code: {kind: string, pattern: "^[A-Z]{3}$"}
      body: markdown
      address:
        kind: object
        fields:
          street: string
          city: {kind: string, required: true}
  team:
    fields:
      name: {kind: string, required: true}
`

func TestValidateFields(t *testing.T) {
	files := map[string]string{
		"folio.yaml":            postsModel,
		"content/team/maria.md": "---\nname: Maria\n---\n",
		"content/posts/good.md": `---
title: Good
price: 12.5
rating: 4
category: news
author: team/maria
cover: media:abc123
tags: [a, b]
day: 2024-01-02
at: 2024-01-02 10:00:00
site: https://example.org/x
contact: me@example.org
handle: good-one
code: ABC
address: {street: Main, city: Bern}
draft: false
publishDate: 2024-01-01
---
Body.
`,
		"content/posts/bad.md": `---
title: This title is far too long for the forty characters allowed
price: twelve
rating: 9
category: gossip
author: "nobody/x y"
cover: "not a media"
tags: [a, b, c, d]
day: yesterday
site: not a url
contact: nope
code: abcd
address: {street: Main}
extra: 1
---
`,
		"content/posts/untitled.yaml": "price: 1\naddress:\n  street: Main\n  city: 3\n",
	}
	m, docs := compile(t, files)
	posts := m.Of("posts")
	if posts == nil || m.Of("team") == nil {
		t.Fatalf("types = %v", m.Types)
	}
	if vs := posts.Validate(docs["content/posts/good.md"]); len(vs) > 0 {
		t.Fatalf("good.md: %s", violations(vs))
	}
	got := violations(posts.Validate(docs["content/posts/bad.md"]))
	for _, want := range []string{
		"2: title: ", "3: price: got string, want number", "4: rating: ", "5: category: ",
		"6: author: ", "7: cover: ", "8: tags: ", "9: day: ", "10: site: ", "11: contact: ",
		"12: code: ", "13: address.city: required, missing", "14: extra: not a declared field",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("bad.md: no %q in\n%s", want, got)
		}
	}
	got = violations(posts.Validate(docs["content/posts/untitled.yaml"]))
	for _, want := range []string{"1: title: required, missing", "4: address.city: got number, want string"} {
		if !strings.Contains(got, want) {
			t.Errorf("untitled.yaml: no %q in\n%s", want, got)
		}
	}
}

func TestAdditionalFieldsWarn(t *testing.T) {
	m, docs := compile(t, map[string]string{
		"folio.yaml":         "types:\n  posts:\n    additionalFields: warn\n    fields:\n      title: string\n",
		"content/posts/a.md": "---\ntitle: A\nslug: aa\nextra: 1\n---\n",
	})
	vs := m.Of("posts").Validate(docs["content/posts/a.md"])
	if len(vs) != 1 || !vs[0].Warn || vs[0].Field != "extra" || vs[0].Line != 4 || Invalid(vs) {
		t.Fatalf("violations = %+v", vs)
	}
}

func TestBadModels(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		want  string
	}{
		"unknown kind": {map[string]string{"folio.yaml": "types:\n  posts:\n    fields:\n      title: strng\n"},
			"folio.yaml:4: content model: fields.title.kind: unknown kind strng"},
		"unknown option": {map[string]string{"folio.yaml": "types:\n  posts:\n    fields:\n      title:\n        kind: string\n        requird: true\n"},
			"folio.yaml:6: content model: fields.title.requird: unknown option"},
		"missing type": {map[string]string{"folio.yaml": "types:\n  posts:\n    fields:\n      author: {kind: reference, to: people}\n"},
			`folio.yaml:4: content model: author: reference to "people"`},
		"bad pattern": {map[string]string{"folio.yaml": "types:\n  posts:\n    fields:\n      code:\n        kind: string\n        pattern: \"[a-\"\n"},
			"folio.yaml:6: content model: fields.code.pattern: does not compile"},
		"enum without values": {map[string]string{"folio.yaml": "types:\n  posts:\n    fields:\n      c: enum\n"},
			"folio.yaml:4: content model: fields.c: an enum needs values"},
		"missing schema file": {map[string]string{"folio.yaml": "types:\n  posts:\n    schema: schemas/post.json\n"},
			"folio.yaml:3: content model: types.posts: schema file schemas/post.json is not in the repository"},
		"schema does not load": {map[string]string{"folio.yaml": "types:\n  posts:\n    schema: schemas/post.json\n",
			"schemas/post.json": `{"$ref": "https://example.org/other.json"}`},
			"schemas/post.json: content model: posts: the JSON Schema does not load"},
		"schema not a schema": {map[string]string{"folio.yaml": "types:\n  posts:\n    schema: schemas/post.json\n",
			"schemas/post.json": `{"type": 12}`},
			"schemas/post.json: content model: posts: the JSON Schema does not load"},
		"decap without collections": {map[string]string{"static/admin/config.yml": "backend: {name: git-gateway}\n"},
			"static/admin/config.yml: content model: not a Decap/Sveltia CMS config"},
		"decap select without options": {map[string]string{"admin/config.yml": "collections:\n  - name: posts\n    folder: content/posts\n    fields:\n      - {name: c, widget: select}\n"},
			`admin/config.yml:5: content model: field "c": a select needs options`},
		"decap relation to nothing": {map[string]string{"admin/config.yml": "collections:\n  - name: posts\n    folder: content/posts\n    fields:\n      - {name: a, widget: relation, collection: authors}\n"},
			`admin/config.yml:5: content model: a: reference to "authors"`},
		"schemaFrom missing": {map[string]string{"folio.yaml": "schemaFrom: cms/admin/config.yml\n"},
			"folio.yaml:1: content model: schemaFrom: cms/admin/config.yml is not in the repository"},
	} {
		t.Run(name, func(t *testing.T) {
			s, _ := site(t, tc.files)
			_, probs, ok := Compile(s)
			if ok || len(probs) == 0 {
				t.Fatalf("compiled")
			}
			if !strings.HasPrefix(probs[0].String(), tc.want) {
				t.Fatalf("problem = %q, want prefix %q", probs[0], tc.want)
			}
		})
	}
}

func TestJSONSchemaFile(t *testing.T) {
	m, docs := compile(t, map[string]string{
		"folio.yaml": "types:\n  posts:\n    schema: schemas/post.json\n",
		"schemas/post.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema",
 "type": "object", "required": ["title"],
 "properties": {"title": {"type": "string"}, "price": {"$ref": "defs.json#/$defs/price"},
   "status2": {"type": "string", "default": "new"}}}`,
		"schemas/defs.json":  `{"$defs": {"price": {"type": "number", "minimum": 0}}}`,
		"content/posts/a.md": "---\ntitle: A\nprice: 3\n---\n",
		"content/posts/b.md": "---\nprice: -1\n---\n",
	})
	p := m.Of("posts")
	if vs := p.Validate(docs["content/posts/a.md"]); len(vs) > 0 {
		t.Fatalf("a.md: %s", violations(vs))
	}
	got := violations(p.Validate(docs["content/posts/b.md"]))
	if !strings.Contains(got, "title: required, missing") || !strings.Contains(got, "2: price: ") {
		t.Fatalf("b.md: %s", got)
	}
	data, changed := p.Apply(map[string]any{"price": int64(3)})
	if !changed || data["status2"] != "new" {
		t.Fatalf("Apply = %v", data)
	}
}

func TestApply(t *testing.T) {
	m, _ := compile(t, map[string]string{"folio.yaml": postsModel})
	in := map[string]any{"day": "2024-01-02 10:00", "at": "2024-01-02 10:00:00 +0100", "title": "x"}
	out, changed := m.Of("posts").Apply(in)
	if !changed || out["featured"] != false || out["day"] != "2024-01-02" || out["at"] != "2024-01-02T09:00:00Z" {
		t.Fatalf("Apply = %v", out)
	}
	if _, set := in["featured"]; set || in["at"] != "2024-01-02 10:00:00 +0100" {
		t.Fatalf("Apply modified its input: %v", in)
	}
	same, changed := m.Of("posts").Apply(map[string]any{"featured": true})
	if changed || same["featured"] != true {
		t.Fatalf("Apply = %v, %v", same, changed)
	}
}

// TestMediaKind: a media field takes a library item, an http(s) URL or a
// path on the site (a static file of a Hugo site, as Decap's
// public_folder names it); not a bare word, a relative path or a
// protocol-relative URL.
func TestMediaKind(t *testing.T) {
	for v, ok := range map[string]bool{
		"media:abc123": true, "/uploads/2026/01/a.jpg": true, "https://cdn.example/a.jpg": true, "/img/blog-chemex.jpg": true,
		"not a media": false, "img/a.jpg": false, "//evil.example/a.jpg": false, "/": false, "javascript:alert(1)": false, "ftp://x/a.jpg": false,
	} {
		if err := validMedia(v); (err == nil) != ok {
			t.Errorf("validMedia(%q) = %v, want ok %v", v, err, ok)
		}
	}
	// Inference calls media only what the library holds.
	if libraryMedia("/img/a.jpg") || !libraryMedia("/uploads/2026/01/a.jpg") {
		t.Error("libraryMedia")
	}
}
