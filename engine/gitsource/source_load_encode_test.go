package gitsource

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content"
)

// TestSource_FirstLoadDecodesWhatItParsed: the first Load of a site
// with no parse cache holds what it parses in the parse cache's form and
// serves the documents decoded from it (source_load_encode.go): each
// document is the one content.Parse makes of the file (front matter in
// each format, data files, Markdown, MDX and HTML bodies, files that do
// not parse, two paths of one blob), in the form a restart decodes from
// the cache file (its lines of keys in the Source's table, not as Parse
// packed them), equal to what a restart on the cache it wrote serves;
// a later Load parses as before.
func TestSource_FirstLoadDecodesWhatItParsed(t *testing.T) {
	repo := newSrcBareSite(t)
	files := map[string]string{}
	long := strings.Repeat("A paragraph of *Markdown* with a [link](/x).\n\n", 40)
	for i := range 30 {
		files[fmt.Sprintf("content/posts/y%02d.md", i)] = fmt.Sprintf("---\ntitle: Post %d\ndate: 2024-01-%02dT10:00:00Z\ntags: [a%d, b]\nsee: /posts/y%02d\nnested:\n  k: v%d\n  list: [1, 2.5, true]\n---\n%s", i, 1+i%28, i, (i+1)%30, i, long[:60*(i+1)])
		files[fmt.Sprintf("content/posts/t%02d.md", i)] = fmt.Sprintf("+++\ntitle = \"TOML %d\"\nn = %d\nwhen = 2024-01-02T03:04:05Z\n+++\nBody %d\n", i, i, i)
		files[fmt.Sprintf("content/posts/j%02d.md", i)] = fmt.Sprintf("{\n\"title\": \"JSON %d\",\n\"n\": %d\n}\nBody %d\n", i, i, i)
		files[fmt.Sprintf("content/data/d%02d.yaml", i)] = fmt.Sprintf("title: Data %d\nitems:\n  - name: one %d\n  - name: two\n", i, i)
		files[fmt.Sprintf("content/data/d%02d.json", i)] = fmt.Sprintf("{\"title\": \"JSON data %d\", \"x\": [1, 2, {\"y\": \"z%d\"}]}", i, i)
		files[fmt.Sprintf("content/data/d%02d.toml", i)] = fmt.Sprintf("title = \"TOML data %d\"\n[t]\nk = \"v%d\"\n", i, i)
		files[fmt.Sprintf("content/pages/h%02d.html", i)] = fmt.Sprintf("---\ntitle: HTML %d\n---\n<p>Hello %d</p>\n", i, i)
		files[fmt.Sprintf("content/pages/m%02d.mdx", i)] = fmt.Sprintf("---\ntitle: MDX %d\n---\n# Hi %d\n", i, i)
		files[fmt.Sprintf("content/posts/bad%02d.md", i)] = fmt.Sprintf("---\ntitle: [unclosed %d\n---\n", i)
		files[fmt.Sprintf("content/posts/nofm%02d.md", i)] = fmt.Sprintf("Just a body %d\n", i)
	}
	files["content/posts/same-a.md"] = "---\ntitle: Twice\n---\nThe same blob at two paths.\n"
	files["content/posts/same-b.md"] = files["content/posts/same-a.md"]
	repo.Commit(srcDay(0), files)
	repo.Push(false)
	srcGit(t, repo.Bare, "repack", "-a", "-d", "-q")

	cache := t.TempDir()
	open := func(encodeMin int) *Source {
		src, err := OpenSource(context.Background(), SourceConfig{Site: repo.Bare, CacheDir: cache, Relevant: srcRelevant, CacheKey: "test", PackBlobsMin: 1, Workers: 2, EncodeFirstMin: encodeMin})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { src.Close() })
		return src
	}
	same := func(what string, got, want *content.Doc) {
		t.Helper()
		gb, err1 := got.Body.SourceErr()
		wb, err2 := want.Body.SourceErr()
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: body: %v, %v", what, err1, err2)
		}
		gm, wm := got.Meta(), want.Meta()
		if !reflect.DeepEqual(gm, wm) || !reflect.DeepEqual(got.KeyLines(), want.KeyLines()) ||
			got.HasBody != want.HasBody || got.Line != want.Line || gb != wb || got.RefHint() != want.RefHint() {
			t.Fatalf("%s:\n%v %v %v %d %q %v\nwant\n%v %v %v %d %q %v", what,
				gm, got.KeyLines(), got.HasBody, got.Line, gb, got.RefHint(), wm, want.KeyLines(), want.HasBody, want.Line, wb, want.RefHint())
		}
	}

	// A first Load that keeps what it parsed, for the comparison (no
	// cache written: the directory stays empty).
	kept := srcLoad(t, open(-1), "main")
	first := open(1)
	tree := srcLoad(t, first, "main")
	if tree.Files.Len() != len(files) || kept.Files.Len() != len(files) {
		t.Fatalf("%d and %d files loaded, want %d", tree.Files.Len(), kept.Files.Len(), len(files))
	}
	if st := first.Stats(); st.Parsed != len(files)-30-1 { // the failures are not kept, the shared blob once
		t.Fatalf("first Load: %+v, want %d documents parsed", st, len(files)-31)
	}
	for i, f := range tree.Files.All() {
		want, werr := content.Parse(f.Path, []byte(files[f.Path]))
		if (werr == nil) != (f.Err == nil) || (werr != nil && werr.Error() != f.Err.Error()) {
			t.Fatalf("%s: error %v, want %v", f.Path, f.Err, werr)
		}
		if werr != nil {
			continue
		}
		same(f.Path, f.Doc, want)
		same(f.Path+" (kept as parsed)", f.Doc, kept.Files.At(i).Doc)
		// the form a decode of the cache gives, not Parse's
		if f.Doc.PackedLines() != nil || len(want.KeyLines()) > 0 && f.Doc.LazyLines() == nil {
			t.Fatalf("%s: the first Load kept the parsed form of the document (packed lines %v, lazy lines %v)", f.Path, f.Doc.PackedLines() != nil, f.Doc.LazyLines() != nil)
		}
	}
	if p := srcFile(t, tree, "content/posts/same-b.md"); p.Doc != srcFile(t, tree, "content/posts/same-a.md").Doc {
		t.Fatal("two paths of one blob: two documents")
	}
	if err := first.Close(); err != nil { // writes the cache
		t.Fatal(err)
	}

	// A restart on the cache the first Load wrote serves the same
	// documents, and parses only the files that failed.
	warm := open(1)
	again := srcLoad(t, warm, "main")
	if st := warm.Stats(); st.LoadedFromDisk != len(files)-31 || st.Parsed != 0 {
		t.Fatalf("restart: %+v, want every document from the cache", st)
	}
	for i, f := range again.Files.All() {
		if f.Doc != nil {
			same(f.Path+" (restart)", f.Doc, tree.Files.At(i).Doc)
		}
	}

	// A later Load (a push) parses what changed as before.
	repo.Commit(srcDay(1), map[string]string{"content/posts/y00.md": "---\ntitle: Edited\n---\nNew body.\n"})
	repo.Push(false)
	pushed := srcFile(t, srcLoad(t, warm, "main"), "content/posts/y00.md")
	if pushed.Doc == nil || pushed.Doc.Get("title") != "Edited" || pushed.Doc.PackedLines() == nil {
		t.Fatalf("a later Load's document: %+v", pushed.Doc)
	}
}
