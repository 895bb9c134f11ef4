package engine

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/chunks"
)

// benchModelYAML declares ~10 fields for each type of benchModelFiles.
const benchModelYAML = `types:
  posts:
    fields: &fields
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
  docs:
    fields: *fields
  authors:
    fields:
      title: {kind: string, required: true}
`

// benchModelFiles is a site of n parsed files: items of posts and docs
// whose front matter has the fields above, some authors, folio.yaml.
func benchModelFiles(b *testing.B, n int, model bool) []content.File {
	b.Helper()
	cats := []string{"news", "guides", "notes", "releases"}
	var files []content.File
	add := func(p, src string) {
		doc, err := content.Parse(p, []byte(src))
		if err != nil {
			b.Fatal(err)
		}
		sum := sha1.Sum([]byte(src)) // stands for the blob hash
		files = append(files, content.File{Path: p, Doc: doc, Updated: srcT0, Blob: hex.EncodeToString(sum[:])})
	}
	if model {
		add("folio.yaml", benchModelYAML)
	}
	for i := range 20 {
		add(fmt.Sprintf("content/authors/a%02d.md", i), fmt.Sprintf("---\ntitle: Author %d\n---\n", i))
	}
	for i := range n {
		typ := "posts"
		if i%3 == 0 {
			typ = "docs"
		}
		add(fmt.Sprintf("content/%s/item-%06d.md", typ, i), benchItem(i, 0, cats))
	}
	slices.SortFunc(files, func(a, b content.File) int { return strings.Compare(a.Path, b.Path) })
	return files
}

func benchItem(i, rev int, cats []string) string {
	return fmt.Sprintf("---\ntitle: Item %d rev %d\ndate: 2024-01-%02dT10:00:00Z\ndraft: false\ntags: [go, cms, t%d]\nweight: %d\nprice: %d.5\ncategory: %s\nauthor: authors/a%02d\ncover: media:abc%d\n---\n%s\n",
		i, rev, 1+i%28, i%50, i, i%100, cats[i%4], i%20, i, strings.Repeat("Body text. ", 20))
}

// BenchmarkModelLoad measures what the content model adds to a load of a
// 10k-item site: Cold is a first load (assemble, then validate every
// document against a model of 10 fields per type and fill in defaults);
// Reload a load with one changed item, the others' results cached. Each
// is run without a model (the site has no folio.yaml) and with one.
func BenchmarkModelLoad(b *testing.B) {
	for _, model := range []bool{false, true} {
		name := "NoModel"
		if model {
			name = "Model"
		}
		files := benchModelFiles(b, 10000, model)
		b.Run("Cold/"+name, func(b *testing.B) {
			for b.Loop() {
				as := new(content.Assembler)
				site, _ := as.Assemble(files)
				ms := new(modelState)
				_, probs, _ := ms.applyModel(site, chunks.Of(files), nil, "c")
				if len(probs) > 0 {
					b.Fatal(probs[0])
				}
			}
		})
		b.Run("Reload/"+name, func(b *testing.B) {
			as := new(content.Assembler)
			ms := new(modelState)
			site, _ := as.Assemble(files)
			ms.applyModel(site, chunks.Of(files), nil, "c")
			cur := append([]content.File(nil), files...)
			i := len(cur) - 1 // the last item (folio.yaml sorts after content/)
			for !strings.HasPrefix(cur[i].Path, "content/posts/") {
				i--
			}
			cats := []string{"news", "guides", "notes", "releases"}
			n := 0
			for b.Loop() {
				b.StopTimer()
				n++
				doc, err := content.Parse(cur[i].Path, []byte(benchItem(i, n, cats)))
				if strings.Contains(string(benchItem(i, n, cats)), "rev 0") {
					b.Fatal("no edit")
				}
				if err != nil {
					b.Fatal(err)
				}
				cur[i].Doc = doc
				b.StartTimer()
				site, _ := as.Assemble(cur)
				_, probs, _ := ms.applyModel(site, chunks.Of(cur), nil, "c")
				if len(probs) > 0 {
					b.Fatal(probs[0])
				}
			}
		})
	}
}

// BenchmarkModelRestart measures the content model's share of a restart
// of a 10k-item site on a warm parse cache: Validate validates every
// document, as a restart did before the validation cache; FromCache
// reads the validation cache's file and takes its results.
func BenchmarkModelRestart(b *testing.B) {
	files := benchModelFiles(b, 10000, true)
	names := map[*content.Doc]string{} // as Source.docKeyNames names them
	for _, f := range files {
		blob, _ := parseHash(f.Blob)
		names[f.Doc] = string(blob[:]) + path.Ext(f.Path)
	}
	as := new(content.Assembler)
	site, _ := as.Assemble(files)
	first := new(modelState)
	first.applyModel(site, chunks.Of(files), nil, "c")
	data := encodeValidation("k", "s", first.hash, first.order(), maps.Clone(first.results), names)
	b.Run("Validate", func(b *testing.B) {
		for b.Loop() {
			ms := new(modelState)
			if _, probs, _ := ms.applyModel(site, chunks.Of(files), nil, "c"); len(probs) > 0 || ms.gen == 0 {
				b.Fatal("not validated")
			}
		}
	})
	b.Run("FromCache", func(b *testing.B) {
		for b.Loop() {
			ms := &modelState{persisted: decodeValidation(data, "k", "s")}
			if _, probs, _ := ms.applyModel(site, chunks.Of(files), nil, "c"); len(probs) > 0 || ms.gen != 0 {
				b.Fatal("validated")
			}
		}
	})
}
