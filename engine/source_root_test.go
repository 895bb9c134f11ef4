package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// copyLayout writes fixtures/layouts/<name> into the work tree of r.
func copyLayout(t *testing.T, r *srcTestRepo, name string) {
	t.Helper()
	src := filepath.Join("..", "fixtures", "layouts", name)
	files := map[string]string{}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(src, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r.Write(files)
}

// A site in a folder of its repository (the root: of its folio.yaml,
// here the Decap template's site/; or Config.Root) is served from that
// folder: its content, its documents' times from the commits that
// changed them, their history, and what changed since a commit, all by
// the site's paths. It served nothing before.
func TestSiteRoot(t *testing.T) {
	ctx := context.Background()
	r := newSrcWorkTreeSite(t)
	copyLayout(t, r, "decap-site")
	first := r.Commit(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), nil)
	r.Commit(time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC), map[string]string{
		"site/content/post/chemex.md": "---\ntitle: Chemex, again\n---\nBrew.\n",
		"README.md":                   "# not the site\n",
	})
	eng, err := Open(ctx, Config{Site: r.Dir, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if eng.SiteRoot() != "site" {
		t.Fatalf("site root %q", eng.SiteRoot())
	}
	site := eng.Published().Site
	if len(site.Items["post"]) != 2 || len(site.Pages) != 2 {
		t.Fatalf("items %v, pages %v", site.Items, site.Pages)
	}
	var chemex, wheel = site.Items["post"][0], site.Items["post"][1]
	if chemex.Title != "Chemex, again" || chemex.Meta.Path != "content/post/chemex.md" {
		t.Errorf("chemex %+v", chemex)
	}
	if !chemex.UpdatedAt.Equal(time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)) || !wheel.UpdatedAt.Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("updatedAt %v, %v: want the times of the commits that changed them", chemex.UpdatedAt, wheel.UpdatedAt)
	}
	entries, total, err := eng.History(ctx, "content/post/chemex.md", 10, 0)
	if err != nil || total != 2 || len(entries) != 2 {
		t.Errorf("history: %v, %d, %v", entries, total, err)
	}
	_, changes, err := eng.Changes(ctx, first)
	if err != nil || len(changes) != 1 || changes[0].Path != "content/post/chemex.md" {
		t.Errorf("changes since the first commit: %+v, %v", changes, err)
	}
	paths, _, err := eng.CheckInput(ctx)
	if err != nil || len(paths) == 0 || paths[0] != "config.toml" {
		t.Errorf("paths %v, %v: the site's", paths, err)
	}

	// --root names another folder than folio.yaml; one that is not
	// there fails to load.
	if _, err := Open(ctx, Config{Site: r.Dir, Root: "nowhere", CacheDir: t.TempDir()}); err == nil {
		t.Error("a root that is not a folder of the commit loaded")
	}
	eng2, err := Open(ctx, Config{Site: r.Dir, Root: "site/content", CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer eng2.Close()
	if eng2.SiteRoot() != "site/content" || len(eng2.Published().Site.Items) != 0 {
		t.Errorf("root site/content: %q, items %v", eng2.SiteRoot(), eng2.Published().Site.Items)
	}
}
