package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A fresh box (no snapshot to keep) starts on a commit with one corrupt
// object: the file of that object is a problem and left out, everything
// else is served. Before, Open failed with "zlib: invalid header".
func TestCorruptObjectFreshBox(t *testing.T) {
	r := newSrcWorkTreeSite(t)
	r.Commit(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), map[string]string{
		"pages/home.md":           "---\ntitle: Home\nisHomepage: true\n---\nHi\n",
		"content/posts/good.md":   "---\ntitle: Good\n---\nbody\n",
		"content/posts/broken.md": "---\ntitle: Broken\n---\nbroken body\n",
	})
	h := strings.TrimSpace(srcGit(t, r.Dir, "rev-parse", "HEAD:content/posts/broken.md"))
	obj := filepath.Join(r.Dir, ".git", "objects", h[:2], h[2:])
	if err := os.Chmod(obj, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(obj, []byte("not a zlib stream"), 0o644); err != nil {
		t.Fatal(err)
	}
	{
		eng, err := Open(context.Background(), Config{Site: r.Dir, CacheDir: t.TempDir()})
		if err != nil {
			t.Fatalf("Open on a commit with a corrupt object: %v", err)
		}
		snap := eng.Published()
		var found bool
		for _, p := range snap.Problems {
			if p.Path == "content/posts/broken.md" && strings.Contains(p.Message, "cannot be read") {
				found = true
			}
		}
		if !found {
			t.Errorf("no problem for the corrupt file: %v", snap.Problems)
		}
		var slugs []string
		for _, it := range snap.Site.Items["posts"] {
			slugs = append(slugs, it.Slug)
		}
		if len(slugs) != 1 || slugs[0] != "good" {
			t.Errorf("posts served: %v, want [good]", slugs)
		}
		if len(snap.Site.Pages) != 1 {
			t.Errorf("pages served: %d, want 1", len(snap.Site.Pages))
		}
		eng.Close()
	}
}
