package gitsource

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content"
)

// TestSource_PackBufferReusedKeepsNothing: a first Load reads every blob
// of a pack into one buffer per worker (packReader.reuse), which the
// next blob overwrites; every document it parsed (front matter in each
// format, data files, Markdown, MDX and HTML bodies, files that do not
// parse) is the one content.Parse makes of the file's bytes.
func TestSource_PackBufferReusedKeepsNothing(t *testing.T) {
	repo := newSrcBareSite(t)
	files := map[string]string{}
	long := strings.Repeat("A paragraph of *Markdown* with a [link](/x).\n\n", 40)
	for i := range 30 {
		files[fmt.Sprintf("content/posts/y%02d.md", i)] = fmt.Sprintf("---\ntitle: Post %d\ntags: [a%d, b]\nnested:\n  k: v%d\n  list: [1, 2.5, true]\n---\n%s", i, i, i, long[:60*(i+1)])
		files[fmt.Sprintf("content/posts/t%02d.md", i)] = fmt.Sprintf("+++\ntitle = \"TOML %d\"\nn = %d\n+++\nBody %d\n", i, i, i)
		files[fmt.Sprintf("content/posts/j%02d.md", i)] = fmt.Sprintf("{\n\"title\": \"JSON %d\",\n\"n\": %d\n}\nBody %d\n", i, i, i)
		files[fmt.Sprintf("content/data/d%02d.yaml", i)] = fmt.Sprintf("title: Data %d\nitems:\n  - name: one %d\n  - name: two\n", i, i)
		files[fmt.Sprintf("content/data/d%02d.json", i)] = fmt.Sprintf("{\"title\": \"JSON data %d\", \"x\": [1, 2, {\"y\": \"z%d\"}]}", i, i)
		files[fmt.Sprintf("content/data/d%02d.toml", i)] = fmt.Sprintf("title = \"TOML data %d\"\n[t]\nk = \"v%d\"\n", i, i)
		files[fmt.Sprintf("content/pages/h%02d.html", i)] = fmt.Sprintf("---\ntitle: HTML %d\n---\n<p>Hello %d</p>\n", i, i)
		files[fmt.Sprintf("content/pages/m%02d.mdx", i)] = fmt.Sprintf("---\ntitle: MDX %d\n---\n# Hi %d\n", i, i)
		files[fmt.Sprintf("content/posts/bad%02d.md", i)] = fmt.Sprintf("---\ntitle: [unclosed %d\n---\n", i)
		files[fmt.Sprintf("content/posts/nofm%02d.md", i)] = fmt.Sprintf("Just a body %d\n", i)
	}
	repo.Commit(srcDay(0), files)
	repo.Push(false)
	srcGit(t, repo.Bare, "repack", "-a", "-d", "-q", "--depth=0", "--window=0") // whole blobs in one pack

	src, err := OpenSource(context.Background(), SourceConfig{Site: repo.Bare, Relevant: srcRelevant, CacheKey: "test", PackBlobsMin: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	tree := srcLoad(t, src, "main")
	if tree.Files.Len() != len(files) {
		t.Fatalf("%d files loaded, want %d", tree.Files.Len(), len(files))
	}
	for _, f := range tree.Files.All() {
		want, werr := content.Parse(f.Path, []byte(files[f.Path]))
		if (werr == nil) != (f.Err == nil) || (werr != nil && werr.Error() != f.Err.Error()) {
			t.Fatalf("%s: error %v, want %v", f.Path, f.Err, werr)
		}
		if werr != nil {
			continue
		}
		got := f.Doc
		body, err := got.Body.SourceErr()
		if err != nil {
			t.Fatalf("%s: body: %v", f.Path, err)
		}
		if !reflect.DeepEqual(got.Meta(), want.Meta()) || !reflect.DeepEqual(got.KeyLines(), want.KeyLines()) ||
			got.HasBody != want.HasBody || got.Line != want.Line || body != want.Body.Source() {
			t.Fatalf("%s: parsed as %v %v %v %d %q, want %v %v %v %d %q", f.Path,
				got.Meta(), got.KeyLines(), got.HasBody, got.Line, body, want.Meta(), want.KeyLines(), want.HasBody, want.Line, want.Body.Source())
		}
	}
}
