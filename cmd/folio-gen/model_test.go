package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/schema"
	"github.com/folio-cms/folio/engine"
)

// TestModelSite: -model declares 10 fields for each type, two of them
// with a default and one unique, and every generated file is valid: the
// site checked with the model has the problems it has without one.
func TestModelSite(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "gen")
	if err := run([]string{"-out", out, "-files", "400", "-seed", "3", "-model"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(out, "site")
	files, err := content.ReadDir(site)
	if err != nil {
		t.Fatal(err)
	}
	assembled, _ := content.Assemble(files)
	m, probs, ok := schema.Compile(assembled)
	if !ok || len(probs) > 0 {
		t.Fatalf("model: %v", probs)
	}
	for _, typ := range []string{"posts", "docs", "products"} {
		ty := m.Of(typ)
		if ty == nil || len(ty.Fields) != 10 {
			t.Fatalf("%s: want 10 fields, got %v", typ, ty)
		}
		defaults, unique := 0, 0
		for _, f := range ty.Fields {
			if f.Default != nil {
				defaults++
			}
			if f.Unique {
				unique++
			}
		}
		if defaults != 2 || unique != 1 {
			t.Errorf("%s: %d defaults and %d unique fields, want 2 and 1", typ, defaults, unique)
		}
		// the defaults are for fields no file has: every item gets them
		for _, it := range assembled.Items[typ] {
			if _, changed := ty.Apply(it.Data); !changed {
				t.Fatalf("%s: %s gets no default", typ, it.Meta.Path)
			}
		}
	}
	with := engine.CheckFiles(files, nil)
	without := slices.DeleteFunc(slices.Clone(files), func(f content.File) bool { return f.Path == "folio.yaml" })
	if before := engine.CheckFiles(without, nil); len(with) != len(before) {
		t.Fatalf("with the model %d problems, without %d; first: %v", len(with), len(before), with)
	}
	// the commit under the model's is the site with no field declared
	cfg, err := gitOutput(site, "show", "HEAD~1:folio.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := config(nil, nil); cfg+"\n" != want {
		t.Errorf("HEAD~1:folio.yaml = %q, want %q", cfg, want)
	}
	data, err := os.ReadFile(filepath.Join(out, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := gitOutput(site, "rev-parse", "HEAD~1")
	if base == "" || !strings.Contains(string(data), `"noModelCommit": "`+base+`"`) {
		t.Errorf("manifest does not name %s as noModelCommit:\n%s", base, data)
	}
}
