package engine

import (
	"context"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine/gitsource"
)

// An engine given no branch serves the repository's default one: a
// remote's HEAD (dev here), a local repository's checked-out branch,
// and main when HEAD names none. Before, it always asked for main and a
// site whose default is dev or master failed with "unknown branch".
func TestDefaultBranchFollowsHead(t *testing.T) {
	ctx := context.Background()
	r := newSrcBareSite(t)
	srcGit(t, r.Dir, "checkout", "-q", "-b", "dev")
	r.Commit(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), map[string]string{"content/posts/a.md": "---\ntitle: A\n---\n"})
	srcGit(t, r.Dir, "push", "-q", "origin", "dev")
	srcGit(t, r.Bare, "symbolic-ref", "HEAD", "refs/heads/dev")

	for _, site := range []string{"file://" + r.Bare, r.Bare, r.Dir} {
		eng, err := Open(ctx, Config{Site: site, CacheDir: t.TempDir()})
		if err != nil {
			t.Fatalf("%s: %v", site, err)
		}
		if got := eng.Branch(); got != "dev" {
			t.Errorf("%s: branch %q, want dev", site, got)
		}
		if n := len(eng.Published().Site.Items["posts"]); n != 1 {
			t.Errorf("%s: %d posts, want 1", site, n)
		}
		eng.Close()
	}

	// A remote whose HEAD names a branch it does not have: main, as before.
	srcGit(t, r.Bare, "symbolic-ref", "HEAD", "refs/heads/gone")
	src, err := gitsource.OpenSource(ctx, gitsource.SourceConfig{Site: "file://" + r.Bare, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got := src.DefaultBranch(ctx); got != "main" {
		t.Errorf("dangling HEAD: branch %q, want main", got)
	}
}
