package content

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t testing.TB, path, src string) *Doc {
	t.Helper()
	doc, err := Parse(path, []byte(src))
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	return doc
}

func TestParse_Meta(t *testing.T) {
	want := map[string]any{"title": "Hi", "n": int64(3), "tags": []any{"a", "b"}, "date": "2024-05-06"}
	tests := []struct{ name, path, src string }{
		{"YAML front matter", "a.md", "---\ntitle: Hi\nn: 3\ntags: [a, b]\ndate: 2024-05-06\n---\n"},
		{"YAML front matter, ---yaml", "a.md", "---yaml\ntitle: Hi\nn: 3\ntags: [a, b]\ndate: 2024-05-06\n---\n"},
		{"YAML front matter after blank lines", "a.md", "\n\n---\ntitle: Hi\nn: 3\ntags: [a, b]\ndate: 2024-05-06\n---\n"},
		{"YAML front matter, CRLF", "a.md", "---\r\ntitle: Hi\r\nn: 3\r\ntags: [a, b]\r\ndate: 2024-05-06\r\n---\r\n"},
		{"YAML front matter, BOM", "a.markdown", "\uFEFF---\ntitle: Hi\nn: 3\ntags: [a, b]\ndate: 2024-05-06\n---\n"},
		{"TOML front matter", "a.md", "+++\ntitle = \"Hi\"\nn = 3\ntags = [\"a\", \"b\"]\ndate = 2024-05-06\n+++\n"},
		{"TOML front matter, ---toml", "a.md", "---toml\ntitle = \"Hi\"\nn = 3\ntags = [\"a\", \"b\"]\ndate = 2024-05-06\n---\n"},
		{"JSON front matter, ;;;", "a.md", ";;;\n{\"title\": \"Hi\", \"n\": 3, \"tags\": [\"a\", \"b\"], \"date\": \"2024-05-06\"}\n;;;\n"},
		{"JSON front matter, ---json", "a.md", "---json\n{\"title\": \"Hi\", \"n\": 3, \"tags\": [\"a\", \"b\"], \"date\": \"2024-05-06\"}\n---\n"},
		{"JSON front matter, braces", "a.md", "{\n\"title\": \"Hi\", \"n\": 3, \"tags\": [\"a\", \"b\"], \"date\": \"2024-05-06\"\n}\n\n"},
		{"YAML document", "a.yaml", "title: Hi\nn: 3\ntags: [a, b]\ndate: 2024-05-06\n"},
		{"YML document, upper-case extension", "a.YML", "title: Hi\nn: 3\ntags: [a, b]\ndate: 2024-05-06\n"},
		{"JSON document", "a.json", `{"title": "Hi", "n": 3, "tags": ["a", "b"], "date": "2024-05-06"}`},
		{"TOML document", "a.toml", "title = \"Hi\"\nn = 3\ntags = [\"a\", \"b\"]\ndate = 2024-05-06\n"},
		{"YAML merge key", "a.yaml", "base: &b {title: Hi, n: 1}\n<<: *b\nn: 3\ntags: [a, b]\ndate: 2024-05-06\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustParse(t, tt.path, tt.src)
			got := doc.Meta()
			delete(got, "base")
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Meta = %#v, want %#v", got, want)
			}
			if doc.HasBody || doc.Body.Source() != "" {
				t.Errorf("body = %q, want none", doc.Body.Source())
			}
		})
	}
}

func TestParse_Values(t *testing.T) {
	doc := mustParse(t, "a.md", "---\n"+
		"i: 12\nbig: 18446744073709551615\nf: 1.5\nb: true\nnull: ~\ns: '12'\n"+
		"ts: 2024-01-02T03:04:05Z\n1: numeric key\n"+
		"nested: {a: [1, {b: x}]}\n---\n")
	want := map[string]any{
		"i": int64(12), "big": float64(18446744073709551615), "f": 1.5, "b": true, "null": nil, "s": "12",
		"ts": "2024-01-02T03:04:05Z", "1": "numeric key",
		"nested": map[string]any{"a": []any{int64(1), map[string]any{"b": "x"}}},
	}
	if !reflect.DeepEqual(doc.Meta(), want) {
		t.Errorf("Meta = %#v\nwant %#v", doc.Meta(), want)
	}
	if _, err := json.Marshal(doc.Meta()); err != nil {
		t.Errorf("Meta does not encode as JSON: %v", err)
	}

	toml := mustParse(t, "a.toml", "d = 2024-01-02\nl = 2024-01-02T10:00:00\no = 2024-01-02T10:00:00+02:00\n[[list]]\nx = 1\n[[list]]\nx = 2\n")
	wantTOML := map[string]any{"d": "2024-01-02", "l": "2024-01-02T10:00:00", "o": "2024-01-02T10:00:00+02:00",
		"list": []any{map[string]any{"x": int64(1)}, map[string]any{"x": int64(2)}}}
	if !reflect.DeepEqual(toml.Meta(), wantTOML) {
		t.Errorf("TOML Meta = %#v\nwant %#v", toml.Meta(), wantTOML)
	}
	js := mustParse(t, "a.json", `{"i": 1, "f": 1.25, "e": 1e3, "n": null}`)
	wantJSON := map[string]any{"i": int64(1), "f": 1.25, "e": float64(1000), "n": nil}
	if !reflect.DeepEqual(js.Meta(), wantJSON) {
		t.Errorf("JSON Meta = %#v\nwant %#v", js.Meta(), wantJSON)
	}
}

func TestParse_Markdown(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // substrings of the HTML
		not       []string
		line      int
	}{
		{"no front matter", "# Hello\n\nText.\n", []string{`<h1 id="hello">Hello</h1>`, "<p>Text.</p>"}, nil, 1},
		{"body line after front matter", "---\ntitle: x\n---\nText\n", []string{"<p>Text</p>"}, nil, 4},
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |\n", []string{"<table>", "<td>1</td>"}, nil, 1},
		{"strikethrough", "~~old~~\n", []string{"<del>old</del>"}, nil, 1},
		{"autolink", "see https://example.com now\n", []string{`<a href="https://example.com">https://example.com</a>`}, nil, 1},
		{"task list", "- [x] done\n- [ ] todo\n", []string{`checked="" disabled="" type="checkbox"`}, nil, 1},
		{"footnote", "Text[^1].\n\n[^1]: Note.\n", []string{`class="footnote-ref"`}, nil, 1},
		{"heading ids unique", "## Intro\n\n## Intro\n", []string{`id="intro"`, `id="intro-1"`}, nil, 1},
		{"raw HTML omitted", "<script>alert(1)</script>\n\nHi <b>x</b>\n", []string{"raw HTML omitted"}, []string{"<script>", "<b>"}, 1},
		{"javascript link dropped", "[x](javascript:alert(1))\n", []string{`<a href="">x</a>`}, []string{"javascript:"}, 1},
		{"indented code is not nesting", "```\n" + strings.Repeat(" ", 300) + "x\n```\n", []string{"<pre><code>"}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustParse(t, "x.md", tt.src)
			if !doc.HasBody {
				t.Fatal("HasBody = false")
			}
			if doc.Body.Rendered() {
				t.Error("body rendered at parse time")
			}
			html := doc.Body.HTML()
			for _, w := range tt.want {
				if !strings.Contains(html, w) {
					t.Errorf("body lacks %q:\n%s", w, html)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(html, w) {
					t.Errorf("body has %q:\n%s", w, html)
				}
			}
			if doc.Line != tt.line {
				t.Errorf("Line = %d, want %d", doc.Line, tt.line)
			}
		})
	}
}

func TestParse_Lines(t *testing.T) {
	doc := mustParse(t, "x.md", "\n---\ntitle: x\n\ndate: 2024-01-01\n---\nbody\n")
	if got, want := doc.KeyLines(), map[string]int{"title": 3, "date": 5}; !reflect.DeepEqual(got, want) {
		t.Errorf("Lines = %v, want %v", got, want)
	}
	if doc.Line != 7 {
		t.Errorf("body Line = %d, want 7", doc.Line)
	}
	if doc := mustParse(t, "x.md", "---\n---\n\n\n"); doc.HasBody || len(doc.Meta()) != 0 {
		t.Errorf("empty front matter and blank body: %+v", doc)
	}
}

// aliasBomb is "billion laughs": 10^9 values if expanded.
const aliasBomb = "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
	"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n" +
	"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"

func TestParse_Bad(t *testing.T) {
	nestedList := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(strings.Repeat("  ", i) + "- x\n")
		}
		return b.String()
	}
	tests := []struct {
		name, path, src string
		line            int
		msg             string
	}{
		{"too large", "a.md", "---\ntitle: x\npad: \"" + strings.Repeat("x", 5<<20) + "\"\n---\n", 0, "over the limit"},
		{"invalid UTF-8", "a.md", "---\ntitle: caf\xe9\n---\n", 2, "UTF-8"},
		{"invalid UTF-8 in body", "a.md", "ok\n\nbad \xff\n", 3, "UTF-8"},
		{"binary", "a.md", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 3, "NUL"},
		{"binary yaml", "a.yaml", "a: b\x00", 1, "NUL"},
		{"alias bomb in front matter", "a.md", "---\n" + aliasBomb + "---\n", 2, "aliases expand"},
		{"alias bomb document", "a.yaml", aliasBomb, 1, "aliases expand"},
		{"recursive alias", "a.yaml", "a: &a [*a]\n", 1, "inside its own anchor"},
		{"YAML nested deep", "a.yaml", "a: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n", 1, "nested more than"},
		{"YAML nested very deep", "a.yaml", "a: " + strings.Repeat("[", 100000) + "\n", 0, "max depth"},
		{"JSON nested deep", "a.json", `{"a":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "}", 0, "nested more than"},
		{"JSON nested very deep", "a.json", `{"a":` + strings.Repeat("[", 1<<20) + "}", 1, "depth"},
		{"TOML nested deep", "a.toml", "a = " + strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20) + "\n", 1, "nested more than"},
		{"TOML inline tables deep", "a.toml", "\na = " + strings.Repeat("{b=", 5000) + "1" + strings.Repeat("}", 5000) + "\n", 2, "nested more than"},
		{"Markdown block quotes deep", "a.md", "---\nt: x\n---\n" + strings.Repeat("> ", 1<<20), 4, "nested more than"},
		{"Markdown lists deep", "a.md", nestedList(2000), 65, "nested more than"},
		{"front matter is a list", "a.md", "---\n- a\n- b\n---\n", 2, "expected a map"},
		{"front matter is a string", "a.md", "---\njust text\n---\n", 2, "expected a map"},
		{"YAML document is a list", "a.yaml", "- a\n- b\n", 1, "expected a map"},
		{"JSON document is a list", "a.json", `["a"]`, 1, "expected a JSON object"},
		{"TOML front matter in JSON", "a.md", ";;;\n[1]\n;;;\n", 2, "expected a JSON object"},
		{"YAML syntax", "a.md", "---\ntitle: x\ntags: [a, b\n---\n", 3, "invalid YAML"},
		{"YAML syntax in document", "a.yaml", "title: [unterminated\n", 2, "invalid YAML"},
		{"YAML tab indentation", "a.yaml", "a:\n\tb: 1\n", 2, "invalid YAML"},
		{"YAML ? in a flow value", "a.yaml", "fields:\n  - {label: Title, name: t}\n  - {label: Thumbnail Only?, name: p}\n", 3, `"?" inside a {…} or […] value must be quoted`},
		{"YAML duplicate key", "a.md", "---\ntitle: a\nx: 1\ntitle: b\n---\n", 4, `key "title" repeated (first on line 2)`},
		{"YAML non-scalar key", "a.yaml", "? [a, b]\n: c\n", 1, "a key must be a plain value"},
		{"YAML NaN", "a.yaml", "a: .nan\n", 1, "NaN"},
		{"YAML infinity", "a.yaml", "a: -.inf\n", 1, "NaN"},
		{"YAML merge of a list", "a.yaml", "<<: [x]\n", 1, "merges only maps"},
		{"TOML NaN", "a.toml", "a = nan\n", 0, "NaN"},
		{"TOML syntax", "a.md", "+++\ntitle = \"x\"\ntitle = \"y\"\n+++\n", 3, "invalid TOML"},
		{"JSON syntax", "a.json", "{\n\"a\": 1,\n}\n", 3, "invalid JSON"},
		{"JSON trailing data", "a.json", "{}\n{}\n", 2, "extra data"},
		{"JSON number out of range", "a.json", `{"a": 1e999}`, 0, "out of range"},
		{"unclosed front matter", "a.md", "\n---\ntitle: x\n\nBody\n", 2, "never closed"},
		{"unclosed TOML front matter", "a.md", "+++\ntitle = 1\n", 1, "never closed"},
		// JavaScript that is code, not declared values: its draft: true may be computed
		{"JavaScript front matter with a call", "a.md", "---js\nconst title = \"Fifth\";\nconst draft = isDraft();\n---\nThis is a draft post\n", 1, `front matter in JavaScript ("---js") is not read`},
		{"JavaScript front matter with a template", "a.md", "---js\nconst title = `Post ${n}`;\n---\n", 1, `front matter in JavaScript ("---js") is not read`},
		{"JavaScript front matter with a variable", "a.md", "---js\nconst nav = { key: name };\n---\n", 1, `front matter in JavaScript ("---js") is not read`},
		{"JavaScript front matter unclosed", "a.md", "---js\nconst title = \"x\";\n", 1, `front matter opened with "---js" is never closed`},
		{"CoffeeScript front matter", "a.md", "\n---coffee\ntitle: 'x'\n---\n", 2, `front matter in coffee ("---coffee") is not read`},
		{"unsupported extension", "a.txt", "hello", 0, "unsupported file type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse(tt.path, []byte(tt.src))
			if err == nil {
				t.Fatalf("no error; Meta %v", doc.Meta())
			}
			var p Problem
			if !errors.As(err, &p) {
				t.Fatalf("error %T %v is not a Problem", err, err)
			}
			if p.Path != tt.path || p.Line != tt.line || !strings.Contains(p.Message, tt.msg) {
				t.Errorf("got %q (line %d), want %s:%d containing %q", p.String(), p.Line, tt.path, tt.line, tt.msg)
			}
		})
	}
}

// A Doc is shared between paths: it must not depend on anything but the
// extension and the bytes.
// TestParse_JavaScriptFrontMatter: Eleventy's ---js front matter that
// only declares values is read, as eleventy-base-blog writes it
// (content/blog/fifthpost.md, a draft, was served as a published body;
// content/about.md's eleventyNavigation), and so is one object literal.
func TestParse_JavaScriptFrontMatter(t *testing.T) {
	doc := mustParse(t, "content/blog/fifthpost.md", "---js\nconst title = \"This is a fifth post\";\nconst date = \"2023-01-23\";\nconst draft = true;\n---\nThis is a draft post\n")
	if doc.Get("title") != "This is a fifth post" || doc.Get("draft") != true || doc.Get("date") != "2023-01-23" {
		t.Errorf("fifthpost: %v", doc.Meta())
	}
	if got := doc.Body.Source(); got != "This is a draft post\n" {
		t.Errorf("fifthpost body %q", got)
	}
	doc = mustParse(t, "content/about.md", "---js\nconst eleventyNavigation = {\n\tkey: \"About\",\n\torder: 3\n};\n---\n# About Me\n\nI am a person that writes stuff.\n")
	nav, _ := doc.Get("eleventyNavigation").(map[string]any)
	if nav["key"] != "About" || nav["order"] != int64(3) || doc.Line != 7 {
		t.Errorf("about: %v (body at line %d)", doc.Meta(), doc.Line)
	}
	doc = mustParse(t, "a.md", "---js\n// one object\n{ title: 'It\\'s', tags: [\"a\", 'b',], 'x-y': -1.5, n: null }\n---\n")
	if doc.Get("title") != "It's" || doc.Get("x-y") != -1.5 || len(doc.Get("tags").([]any)) != 2 {
		t.Errorf("object: %v", doc.Meta())
	}
}

// TestParse_HugoDashCloser: Hugo closes a YAML front matter at the
// first line that starts with "---", the rest of the line the body's, as
// falco.org's docs/concepts/event-sources/kernel/tuning.md has it (it was
// "never closed", the page left out).
func TestParse_HugoDashCloser(t *testing.T) {
	src := "---\ntitle: Advanced Performance Tuning\nweight: 30\n----------\n\nThis document provides tuning options.\n"
	for _, fast := range []bool{true, false} {
		doc, err := parseFile("a.md", []byte(src), fast, nil)
		if err != nil {
			t.Fatalf("fast %v: %v", fast, err)
		}
		if doc.Get("title") != "Advanced Performance Tuning" || doc.Get("weight") != int64(30) {
			t.Errorf("fast %v: meta %v", fast, doc.Meta())
		}
		if got := doc.Body.Source(); got != "-------\n\nThis document provides tuning options.\n" {
			t.Errorf("fast %v: body %q", fast, got)
		}
	}
	// a line of dashes further down a closed front matter's body stays
	if doc := mustParse(t, "b.md", "---\ntitle: B\n---\nText\n\n------\n"); doc.Get("title") != "B" || !strings.Contains(doc.Body.Source(), "------") {
		t.Errorf("closed: %v %q", doc.Meta(), doc.Body.Source())
	}
}

func TestParse_PathIndependent(t *testing.T) {
	src := "---\ntitle: x\n---\n# T\n"
	a, b := mustParse(t, "pages/a.md", src), mustParse(t, "content/posts/deep/b.md", src)
	if !reflect.DeepEqual(docReading(a), docReading(b)) {
		t.Errorf("Docs differ by path: %+v vs %+v", docReading(a), docReading(b))
	}
}

func TestRelevant(t *testing.T) {
	tests := map[string]bool{
		"globals.yaml": true, "globals.yml": true, "globals.json": true, "globals.toml": true, "Globals.YAML": true,
		"folio.yaml": true, "folio.yml": true, "globals.md": false, "other.yaml": false, "README.md": false,
		"pages/about.md": true, "pages/about.markdown": true, "pages/a/b/c.yaml": true, "pages/x.json": true, "pages/x.toml": true,
		"pages/x.txt": false, "pages/_index.md": false, "pages/.hidden.md": false, "pages/_drafts/x.md": false,
		"pages/.git/x.md": false, "pages/img.png": false, "pages": false, "pages/": false,
		"content/posts/a.md": true, "content/posts/2024/a.yaml": true, "content/posts/a/index.md": true,
		"content/Bad Type/x.md": true, // Assemble reports the type name
		"content/a.md":          true, // a Hugo root page, in a site with locales
		"content/_posts/a.md":   false,
		// Hugo's home and section pages, in a site with locales (a plain
		// site leaves them out: see TestAssemble_Items).
		"content/_index.md": true, "content/posts/_index.md": true, "content/_posts/_index.md": false, "content/posts/_index.txt": false,
		// Hugo branch bundles: the _index file of a folder below a type is its document.
		"content/authors/jo/_index.md": true, "content/docs/a/b/_index.md": true, "pages/guides/_index.md": true,
		"content/authors/_jo/_index.md": false, "content/authors/jo/_other.md": false, "content/authors/jo/_index": false,
		"content/posts/photo.jpg": false, "static/x.md": false, "": false, "/globals.yaml": false,
		"content//a.md": false, ".github/x.yaml": false, "pages/a//b.md": false,
	}
	for p, want := range tests {
		if got := Relevant(p); got != want {
			t.Errorf("Relevant(%q) = %v, want %v", p, got, want)
		}
	}
	// Files only a site with locales reads.
	for p, want := range map[string]bool{
		"hugo.toml": true, "config.yaml": true, "config/_default/languages.fr.toml": true,
		"config/_default/hugo.toml": true, "config/_default/params.toml": true, "config/_default/menus.toml": false, "config/production/hugo.toml": false,
		"globals.fr.yaml": true, "globals/de.yml": true, "globals/de/x.yml": false, "content/about.fr.md": true,
	} {
		if got := Relevant(p); got != want {
			t.Errorf("Relevant(%q) = %v, want %v", p, got, want)
		}
		if relevantPlain(p) {
			t.Errorf("relevantPlain(%q) = true: a site without locales must not read it", p)
		}
	}
}

// TestRelevantPlain_NoAllocation: asking whether a file is relevant makes
// no slice of its segments (every file of a site is asked at every load:
// 1 MB of garbage at 10k, among the documents kept).
func TestRelevantPlain_NoAllocation(t *testing.T) {
	for _, p := range []string{"content/posts/a.md", "content/authors/jo/_index.md", "pages/a/b/c.yaml", "globals.yaml", "content/_posts/a.md"} {
		if n := testing.AllocsPerRun(100, func() { relevantPlain(p) }); n != 0 {
			t.Errorf("relevantPlain(%q) made %.0f allocations, want none", p, n)
		}
	}
}

// docReading is what a Doc reads as, to compare two with
// reflect.DeepEqual (the Doc holds its front matter behind a pointer
// that differs between equal Docs).
func docReading(d *Doc) any {
	type reading struct {
		Meta    map[string]any
		HasMeta bool
		Body    Markdown
		HasBody bool
		Line    int
		Lines   map[string]int
		RefHint RefHint
	}
	return reading{d.Meta(), d.HasMeta(), d.Body, d.HasBody, d.Line, d.KeyLines(), d.refHint}
}
