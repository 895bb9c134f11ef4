package content

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// ParseLazy hands a body over as an offset in the file (counted in the
// file as given, a BOM included) and keeps what body returns, for every
// kind of body; the rest of the Doc is Parse's, and the body's checks
// still run.
func TestParseLazy(t *testing.T) {
	for _, tc := range []struct{ path, src string }{
		{"a.md", "---\ntitle: x\ntags: [a, b]\n---\n# Body\n\ntext\n"},
		{"a.mdx", "---\ntitle: x\n---\n<Note>hi</Note>\n"},
		{"a.html", "---\ntitle: x\n---\n<p>hi</p>\n"},
		{"a.md", "\uFEFF---\ntitle: x\n---\nbody\n"},
		{"a.md", "+++\ntitle = \"x\"\n+++\nbody\n"},
		{"a.md", "{\n\"title\": \"x\"\n}\n\nbody\n"}, // the whole-file path
		{"a.md", "just a body\n"},
		{"a.md", "---\ntitle: x\n---\n\n  \n"}, // no body
	} {
		want, wantErr := Parse(tc.path, []byte(tc.src))
		var at []int
		lazy := NewLazyMarkdown(func() (string, error) { return "", nil })
		got, err := ParseLazy(tc.path, []byte(tc.src), func(off int) Markdown {
			at = append(at, off)
			return lazy
		})
		if !reflect.DeepEqual(err, wantErr) || (got == nil) != (want == nil) {
			t.Fatalf("%q: error %v, want %v", tc.src, err, wantErr)
		}
		if !reflect.DeepEqual(got.Meta(), want.Meta()) || got.Line != want.Line || got.HasBody != want.HasBody ||
			!reflect.DeepEqual(got.KeyLines(), want.KeyLines()) {
			t.Errorf("%q: %+v, want %+v", tc.src, got, want)
		}
		if !want.HasBody {
			if len(at) != 0 {
				t.Errorf("%q: body asked at %v for a file without one", tc.src, at)
			}
			continue
		}
		if len(at) != 1 || tc.src[at[0]:] != want.Body.Source() {
			t.Errorf("%q: body asked at %v, want once at the start of %q", tc.src, at, want.Body.Source())
		} else if !got.Body.Lazy() {
			t.Errorf("%q: the Doc does not keep the body ParseLazy was given", tc.src)
		}
	}
	deep := "---\ntitle: x\n---\n" + strings.Repeat(">", maxMarkdownDepth+5) + " deep\n"
	if _, err := ParseLazy("a.md", []byte(deep), func(int) Markdown { return Markdown{} }); err == nil {
		t.Error("a body nested too deep passes ParseLazy")
	}
}

// A first start parses every file: ParseLazy copies neither the body
// (the caller reads it again when it is needed) nor the front matter
// through adrg/frontmatter's reader and buffer. What is left is the YAML
// parse's (about 8 KB for either file; adrg/frontmatter added 5.6 KB, a
// copy of the body its size).
func TestParseLazyAllocates(t *testing.T) {
	body := strings.Repeat("Some text of a post, and [a link](/posts/other).\n\n", 4000) // 200 KB
	src := []byte("---\ntitle: A post\ndate: 2026-01-02\ntags: [a, b]\n---\n" + body)
	const limit = 12 << 10
	for _, tc := range []struct {
		name string
		src  []byte
	}{
		{"200 KB body", src},
		{"small file", []byte("---\ntitle: A post\ndate: 2026-01-02\ntags: [a, b]\n---\nText.\n")},
	} {
		var before, after runtime.MemStats
		parse := func() {
			if _, err := ParseLazy("a.md", tc.src, func(int) Markdown { return Markdown{} }); err != nil {
				t.Fatal(err)
			}
		}
		parse()
		runtime.GC()
		runtime.ReadMemStats(&before)
		const n = 20
		for range n {
			parse()
		}
		runtime.ReadMemStats(&after)
		if got := (after.TotalAlloc - before.TotalAlloc) / n; got > limit {
			t.Errorf("%s: %d bytes allocated a parse, want at most %d", tc.name, got, limit)
		}
	}
}
