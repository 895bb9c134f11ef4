package main

import (
	"slices"
	"testing"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/schema"
	"github.com/folio-cms/folio/engine"
)

// TestInferGenerated: the content model folio schema infer proposes for a
// generated site validates every file of it: checked with the model, the
// site has the problems it has without one, no more.
func TestInferGenerated(t *testing.T) {
	for _, seed := range []uint64{1, 7} {
		dir := t.TempDir()
		if err := writeSite(dir, 600, seed, &Manifest{}); err != nil {
			t.Fatal(err)
		}
		files, err := content.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		site, _ := content.Assemble(files)
		out, err := schema.Infer(site, files)
		if err != nil {
			t.Fatal(err)
		}
		before := engine.CheckFiles(files, nil)
		doc, err := content.Parse("folio.yaml", out)
		if err != nil {
			t.Fatalf("inferred model: %v\n%s", err, out)
		}
		with := slices.DeleteFunc(slices.Clone(files), func(f content.File) bool { return f.Path == "folio.yaml" })
		with = append(with, content.File{Path: "folio.yaml", Doc: doc})
		withSite, _ := content.Assemble(with)
		if m, probs, ok := schema.Compile(withSite); !ok || len(m.Types) == 0 {
			t.Fatalf("seed %d: inferred model: %v\n%s", seed, probs, out)
		}
		after := engine.CheckFiles(with, nil)
		if len(after) != len(before) {
			t.Fatalf("seed %d: with the inferred model %d problems, without %d; first: %v\n%s", seed, len(after), len(before), after, out)
		}
	}
}
