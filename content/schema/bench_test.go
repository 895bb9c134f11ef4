package schema

import (
	"testing"

	"github.com/folio-cms/folio/content"
)

// BenchmarkValidate is the cost of validating one document of ten fields.
func BenchmarkValidate(b *testing.B) {
	m, _ := compile(b, map[string]string{"folio.yaml": `types:
  posts:
    fields:
      title: {kind: string, required: true, maxLength: 200}
      date: {kind: datetime, required: true}
      draft: boolean
      tags: {kind: list, of: string, max: 10}
      weight: {kind: integer, min: 0}
      price: {kind: number, min: 0}
      category: {kind: enum, values: [news, guides, notes, releases]}
      author: {kind: reference, to: authors}
      cover: media
      featured: {kind: boolean, default: false}
  authors: {}
`})
	doc, err := content.Parse("content/posts/a.md", []byte("---\ntitle: Item 1\ndate: 2024-01-02T10:00:00Z\ndraft: false\ntags: [go, cms, t1]\nweight: 1\nprice: 1.5\ncategory: news\nauthor: authors/a01\ncover: media:abc1\n---\nBody\n"))
	if err != nil {
		b.Fatal(err)
	}
	t := m.Of("posts")
	b.ReportAllocs()
	for b.Loop() {
		if vs := t.Validate(doc); len(vs) > 0 {
			b.Fatal(vs)
		}
	}
}
