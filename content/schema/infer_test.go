package schema

import (
	"strings"
	"testing"

	"github.com/folio-cms/folio/content"
)

// CheckInferred infers a model from files, puts it in folio.yaml, and
// checks that it compiles and that every document validates; it returns
// the inferred YAML. Tests of other packages (folio-gen) use it too.
func checkInferred(t *testing.T, files []content.File) string {
	t.Helper()
	site, _ := content.Assemble(files)
	out, err := Infer(site, files)
	if err != nil {
		t.Fatal(err)
	}
	var with []content.File
	for _, f := range files {
		if f.Path != site.ConfigPath {
			with = append(with, f)
		}
	}
	doc, err := content.Parse("folio.yaml", out)
	if err != nil {
		t.Fatalf("inferred model does not parse: %v\n%s", err, out)
	}
	with = append(with, content.File{Path: "folio.yaml", Doc: doc})
	site2, probs := content.Assemble(with)
	for _, p := range probs {
		if p.Path == "folio.yaml" {
			t.Fatalf("inferred folio.yaml: %v\n%s", p, out)
		}
	}
	m, probs, ok := Compile(site2)
	if !ok {
		t.Fatalf("inferred model does not compile: %v\n%s", probs, out)
	}
	n := 0
	for _, f := range with {
		if f.Doc == nil {
			continue
		}
		var ty *Type
		switch {
		case strings.HasPrefix(f.Path, "content/"):
			ty = m.Of(strings.SplitN(f.Path, "/", 3)[1])
		case strings.HasPrefix(f.Path, "pages/"):
			ty = m.Pages
		case f.Path == site2.GlobalsPath:
			ty = m.Globals
		}
		if ty == nil {
			continue
		}
		n++
		if vs := ty.Validate(f.Doc); len(vs) > 0 {
			t.Errorf("%s breaks the inferred model: %s\n%s", f.Path, violations(vs), out)
		}
	}
	if n == 0 {
		t.Fatal("no document checked")
	}
	return string(out)
}

func parsed(t *testing.T, files map[string]string) []content.File {
	t.Helper()
	var out []content.File
	for p, src := range files {
		doc, err := content.Parse(p, []byte(src))
		out = append(out, content.File{Path: p, Doc: doc, Err: err})
	}
	return out
}

func TestInfer(t *testing.T) {
	files := map[string]string{
		"content/team/maria.md": "---\ntitle: Maria\nemail: maria@example.org\n---\n",
		"content/team/jo.md":    "---\ntitle: Jo\nemail: jo@example.org\nsite: https://jo.example.org\n---\n",
		"globals.yaml":          "siteName: Demo\nnav:\n  - {label: Home, url: /}\n",
		"pages/about.md":        "---\ntitle: About\n---\nAbout us\n",
	}
	cats := []string{"news", "guides", "news", "guides", "news", "notes"}
	for i, c := range cats {
		author := "team/maria"
		if i%2 == 1 {
			author = "jo"
		}
		extra := ""
		if i == 0 {
			extra = "tags:\nsubtitle: \"a line\\nand another\"\n"
		}
		files["content/posts/p"+itoa(i)+".md"] = "---\ntitle: Post " + itoa(i) + "\ndate: 2024-01-0" + itoa(i+1) +
			"\nprice: " + []string{"1", "2.5"}[i%2] + "\ncategory: " + c + "\nauthor: " + author +
			"\ncover: media:abc" + itoa(i) + "\nrating: " + itoa(i) + "\naddress: {city: Bern, zip: " + itoa(3000+i) + "}\n" + extra + "---\nBody\n"
	}
	out := checkInferred(t, parsed(t, files))
	for _, want := range []string{
		"title: {kind: string, required: true}", "date: {kind: date, required: true}",
		"price: {kind: number, required: true}", "category: {kind: enum, required: true, values: [guides, news, notes]}",
		"author: {kind: reference, required: true, to: [team]}", "cover: {kind: media, required: true}",
		"rating: {kind: integer, required: true}", "subtitle: text", "body: {kind: markdown, required: true}",
		"email: {kind: email, required: true}", "site: url", "city: {kind: string, required: true}",
		"nav:\n      kind: list\n      required: true\n      of:\n        kind: object", "siteName: {kind: string, required: true}",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "tags") {
		t.Errorf("a key without a value is a field:\n%s", out)
	}
}

// TestInferFixtureSite: the model inferred from the fixture site validates
// every one of its files.
func TestInferFixtureSite(t *testing.T) {
	files, err := content.ReadDir("../../fixtures/site")
	if err != nil {
		t.Fatal(err)
	}
	checkInferred(t, files)
}

// TestInferEnumLabels: free text left mostly empty (Hugo themes ship
// `summary: ""`) is a string, not an enum of its few sentences; labels that
// repeat are an enum, and an empty value seen stays allowed.
func TestInferEnumLabels(t *testing.T) {
	files := map[string]string{}
	for i := range 8 {
		summary, level := `""`, []string{"beginner", "advanced", `""`}[i%3]
		if i < 2 {
			summary = "A sentence that is long enough to be prose, number " + itoa(i)
		}
		files["content/posts/p"+itoa(i)+".md"] = "---\ntitle: P" + itoa(i) + "\nsummary: " + summary + "\nlevel: " + level + "\n---\n"
	}
	out := checkInferred(t, parsed(t, files))
	for _, want := range []string{"summary: {kind: string, required: true}", `level: {kind: enum, required: true, values: ["", advanced, beginner]}`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
