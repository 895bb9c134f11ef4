package content

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// post is a typical blog post: YAML front matter and about 1,000 words of
// Markdown with headings, lists, links, emphasis, code and a table.
func post(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: Post number %d\ndate: 2024-01-%02dT10:00:00Z\nauthor: Ann Author\ntags: [go, cms, \"tag %d\"]\n", i, i%28+1, i%10)
	b.WriteString("excerpt: A short summary of the post that goes on for a line or so.\nfeaturedImage: https://cdn.test/img.jpg\n---\n")
	para := "Folio serves **content** from Git as JSON, with _Markdown_ bodies, [links](https://example.com/x) and `code`. " +
		"Each paragraph has a few sentences so that the word count adds up to a realistic post length for a blog. "
	for s := 0; s < 5; s++ {
		fmt.Fprintf(&b, "## Section %d\n\n", s)
		for p := 0; p < 3; p++ {
			b.WriteString(para + para + "\n\n")
		}
		b.WriteString("- first item\n- second item with https://example.org\n- [x] done task\n\n")
		b.WriteString("```go\nfunc main() { fmt.Println(\"hi\") }\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n")
	}
	return b.String()
}

func BenchmarkParse(b *testing.B) {
	src := []byte(post(1))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("content/posts/p.md", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseYAML(b *testing.B) {
	src := []byte("title: Home\nseo: {title: Home, description: The home page}\nsections:\n" +
		strings.Repeat("  - {type: hero, heading: Hi, items: [a, b, c], image: {src: /a.jpg, alt: A}}\n", 20))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("pages/home.yaml", src); err != nil {
			b.Fatal(err)
		}
	}
}

// siteFiles parses n posts spread over 10 types, once; Assemble gets the
// cached Docs as the engine would hand them over.
func siteFiles(tb testing.TB, n int) []File {
	tb.Helper()
	doc, err := Parse("x.md", []byte(post(1)))
	if err != nil {
		tb.Fatal(err)
	}
	files := make([]File, 0, n+2)
	for i := range n {
		files = append(files, File{Path: fmt.Sprintf("content/type%d/%d/post-%d.md", i%10, i%100, i), Doc: doc, Updated: time.Unix(int64(i), 0)})
	}
	return files
}

func BenchmarkAssemble(b *testing.B) {
	files := siteFiles(b, 10_000)
	b.ReportAllocs()
	for b.Loop() {
		site, probs := Assemble(files)
		if len(probs) != 0 || len(site.Items["type0"]) != 1000 {
			b.Fatalf("%d problems, %d items", len(probs), len(site.Items["type0"]))
		}
	}
}

// BenchmarkAssembleIncremental is a reload after a one-file push: an
// Assembler that saw the site before, one file with a new document.
func BenchmarkAssembleIncremental(b *testing.B) {
	files := siteFiles(b, 10_000)
	as := new(Assembler)
	as.Assemble(files)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		doc, err := Parse("x.md", []byte(fmt.Sprintf("---\ntitle: edit %d\n---\nbody\n", n)))
		if err != nil {
			b.Fatal(err)
		}
		files[5000].Doc, files[5000].Updated = doc, time.Unix(int64(1e9+n), 0)
		site, probs := as.Assemble(files)
		if len(probs) != 0 || len(site.Items["type0"]) != 1000 {
			b.Fatalf("%d problems, %d items", len(probs), len(site.Items["type0"]))
		}
	}
}

func BenchmarkSortItems(b *testing.B) {
	site, _ := Assemble(siteFiles(b, 10_000))
	items := site.Items["type0"]
	b.ReportAllocs()
	for b.Loop() {
		SortItems(items, "title", false)
		SortItems(items, "publishedAt", true)
	}
}

// Parse shares one goldmark instance; parsing from many goroutines at once
// must give the same result as parsing alone (run with -race).
func TestParse_Concurrent(t *testing.T) {
	srcs := make([]string, 8)
	want := make([]*Doc, len(srcs))
	for i := range srcs {
		srcs[i] = post(i)
		want[i] = mustParse(t, "a.md", srcs[i])
	}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for r := range 5 {
				i := (g + r) % len(srcs)
				doc, err := Parse("a.md", []byte(srcs[i]))
				if err != nil || !reflect.DeepEqual(docReading(doc), docReading(want[i])) {
					t.Errorf("goroutine %d: doc %d differs (%v)", g, i, err)
				}
			}
		})
	}
	wg.Wait()
}

// localeFiles is siteFiles(n) once per locale, folder per locale, with
// a folio.yaml naming the locales.
func localeFiles(tb testing.TB, n int, locales ...string) []File {
	tb.Helper()
	cfg, err := Parse("folio.yaml", []byte("locales: ["+strings.Join(locales, ", ")+"]\n"))
	if err != nil {
		tb.Fatal(err)
	}
	files := []File{{Path: "folio.yaml", Doc: cfg}}
	for _, loc := range locales {
		for _, f := range siteFiles(tb, n) {
			f.Path = "content/" + loc + "/" + strings.TrimPrefix(f.Path, "content/")
			files = append(files, f)
		}
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files
}

// BenchmarkAssembleLocales is BenchmarkAssemble of the same documents
// in 3 locales (3× the files): compare per file.
func BenchmarkAssembleLocales(b *testing.B) {
	files := localeFiles(b, 10_000, "en", "fr", "de")
	b.ReportAllocs()
	for b.Loop() {
		site, probs := Assemble(files)
		if len(probs) != 0 || len(site.Locales["fr"].Items["type0"]) != 1000 {
			b.Fatalf("%d problems", len(probs))
		}
	}
}

// BenchmarkAssembleLocalesIncremental is BenchmarkAssembleIncremental in
// 3 locales: one French file changes.
func BenchmarkAssembleLocalesIncremental(b *testing.B) {
	files := localeFiles(b, 10_000, "en", "fr", "de")
	as := new(Assembler)
	as.Assemble(files)
	i := slices.IndexFunc(files, func(f File) bool { return strings.HasPrefix(f.Path, "content/fr/") })
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		doc, err := Parse("x.md", []byte(fmt.Sprintf("---\ntitle: edit %d\n---\nbody\n", n)))
		if err != nil {
			b.Fatal(err)
		}
		files[i+5000].Doc, files[i+5000].Updated = doc, time.Unix(int64(1e9+n), 0)
		site, probs := as.Assemble(files)
		if len(probs) != 0 || len(site.Locales["fr"].Items["type0"]) != 1000 {
			b.Fatalf("%d problems", len(probs))
		}
	}
}

// BenchmarkReferenceProblems is a restart's reference pass: a new
// RefChecker reads every string of every document of a 10k site (its
// posts have an absolute image URL, and the media library a URL base:
// their RefHint does not spare them the read).
func BenchmarkReferenceProblems(b *testing.B) {
	files := siteFiles(b, 10_000)
	site, _ := Assemble(files)
	b.ReportAllocs()
	for b.Loop() {
		rc := &RefChecker{MediaBases: []string{"https://media.test/"}}
		if probs := rc.Problems(site, files, nil); len(probs) != 0 {
			b.Fatalf("%d problems", len(probs))
		}
	}
}

// BenchmarkRelevant is the question a loader asks of every file of the
// site at every load: 10,000 paths of a Hugo site's shape (content,
// config, layouts, static).
func BenchmarkRelevant(b *testing.B) {
	paths := make([]string, 0, 10_000)
	for i := range 10_000 {
		switch i % 5 {
		case 0:
			paths = append(paths, fmt.Sprintf("content/posts/%d/post-%d.md", i%100, i))
		case 1:
			paths = append(paths, fmt.Sprintf("content/en/docs/v%d/page-%d.md", i%7, i))
		case 2:
			paths = append(paths, fmt.Sprintf("static/img/%d/photo-%d.jpg", i%100, i))
		case 3:
			paths = append(paths, fmt.Sprintf("layouts/partials/p%d.html", i))
		default:
			paths = append(paths, fmt.Sprintf("config/_default/menus/menu.%d.toml", i%30))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, p := range paths {
			if Relevant(p) {
				n++
			}
		}
		if n == 0 {
			b.Fatal("none relevant")
		}
	}
}
