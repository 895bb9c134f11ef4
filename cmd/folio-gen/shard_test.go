package main

import (
	"encoding/json"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content"
)

// TestShardSite: -shard N writes the items of posts and products in
// numbered folders of at most N files, the rest of the site as without
// it, and the manifest's post slugs are the slugs folio serves (the
// folder included).
func TestShardSite(t *testing.T) {
	dir := t.TempDir()
	flat, sharded := filepath.Join(dir, "flat"), filepath.Join(dir, "sharded")
	if err := run([]string{"-out", flat, "-files", "600", "-seed", "3"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-out", sharded, "-files", "600", "-seed", "3", "-shard", "40"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	flatFiles, err := content.ReadDir(filepath.Join(flat, "site"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := content.ReadDir(filepath.Join(sharded, "site"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(flatFiles) {
		t.Fatalf("%d files sharded, %d flat", len(files), len(flatFiles))
	}
	perFolder := map[string]int{}
	for _, f := range files {
		typ, _, _ := strings.Cut(strings.TrimPrefix(f.Path, "content/"), "/")
		if !strings.HasPrefix(f.Path, "content/") || typ == "docs" {
			continue
		}
		rest := strings.TrimPrefix(f.Path, "content/"+typ+"/")
		folder, name, ok := strings.Cut(rest, "/")
		if !ok || len(folder) != 4 || strings.Contains(name, "/") {
			t.Fatalf("%s: not in a numbered folder of its type", f.Path)
		}
		perFolder[path.Dir(f.Path)]++
	}
	if len(perFolder) < 4 {
		t.Fatalf("posts and products in %d folders: %v", len(perFolder), perFolder)
	}
	for folder, n := range perFolder {
		if n > 40 {
			t.Errorf("%s holds %d files, want at most 40", folder, n)
		}
	}
	assembled, _ := content.Assemble(files)
	served := map[string]bool{}
	for _, it := range assembled.Items["posts"] {
		served[it.Slug] = true
	}
	data, err := os.ReadFile(filepath.Join(sharded, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.Shard != 40 || len(m.Posts) == 0 {
		t.Fatalf("manifest: shard %d, %d posts", m.Shard, len(m.Posts))
	}
	for _, slug := range m.Posts {
		if !served[slug] || !strings.Contains(slug, "/") {
			t.Errorf("manifest post %q is not a served slug with its folder", slug)
		}
	}
}
