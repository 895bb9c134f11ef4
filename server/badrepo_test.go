package server_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadRepository commits hostile files next to good ones: every bad one
// is left out and reported with its path, the good ones are served.
func TestBadRepository(t *testing.T) {
	t.Parallel()
	aliasBomb := "---\ntitle: bomb\na: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h,*h]\n---\n"
	huge := "---\ntitle: huge\npad: \"" + strings.Repeat("x", 5<<20) + "\"\n---\nbody\n"
	files := map[string]string{
		"content/posts/good.md":      "---\ntitle: Good\ndate: 2026-01-01\n---\nFine.\n",
		"content/posts/bomb.md":      aliasBomb,
		"content/posts/huge.md":      huge,
		"content/posts/latin1.md":    "---\ntitle: caf\xe9\n---\n",
		"content/posts/binary.md":    "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"content/posts/dup-a.md":     "---\ntitle: First\nslug: same\ndate: 2026-01-02\n---\n",
		"content/posts/dup-b.md":     "---\ntitle: Second\nslug: same\ndate: 2026-01-03\n---\n",
		"content/posts/badslug.md":   "---\ntitle: Bad slug\nslug: ../../etc\n---\n",
		"content/posts/baddate.md":   "---\ntitle: Bad date\ndate: yesterday\n---\n",
		"content/Bad Type/x.md":      "---\ntitle: X\n---\n",
		"pages/notes.yaml":           "title: [unterminated\n",
		"pages/list.yaml":            "- just\n- a list\n",
		"content/products/photo.jpg": "not content, ignored",
		"content/posts/_index.md":    "---\ntitle: Hugo list page\n---\n",
		"content/posts/.hidden.md":   "---\ntitle: Hidden\n---\n",
	}
	repo := newRepo(t, files)
	// A symlink to a file outside the repository: git stores the link
	// itself, and folio must never follow it.
	outside := filepath.Join(t.TempDir(), "secret.md")
	os.WriteFile(outside, []byte("---\ntitle: SECRET\n---\nsecret\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(repo.work, "content/posts/evil.md")); err != nil {
		t.Fatal(err)
	}
	repo.commit("symlink", nil)

	ts := startServer(t, repo.bare)
	key := ts.reader(t)
	if r := get(t, ts.URL+"/api/v1/content/posts/good", key); r.Status != 200 {
		t.Fatalf("good post: %d %s", r.Status, r.Body)
	}
	list := get(t, ts.URL+"/api/v1/content/posts?limit=100", key)
	if strings.Contains(string(list.Body), "SECRET") || strings.Contains(string(list.Body), "Hidden") || strings.Contains(string(list.Body), "Hugo list page") {
		t.Fatalf("list leaks a file it must skip: %s", list.Body)
	}
	if m := get(t, ts.URL+"/api/v1/content/posts/same", key).json(t); m["title"] != "First" {
		t.Fatalf("duplicate slug winner = %v, want the first path's", m["title"])
	}
	if r := get(t, ts.URL+"/api/v1/content/posts/evil", key); r.Status != 404 {
		t.Fatalf("symlinked post served: %d %s", r.Status, r.Body)
	}
	st := get(t, ts.URL+"/api/v1/status", key).json(t)
	probs := fmt.Sprint(st["problems"])
	for _, p := range []string{"content/posts/bomb.md", "content/posts/huge.md", "content/posts/latin1.md",
		"content/posts/binary.md", `slug "same" is used by content/posts/dup-a.md`, "content/posts/badslug.md", "content/posts/baddate.md",
		"content/Bad Type/x.md", "pages/notes.yaml", "pages/list.yaml", "content/posts/evil.md"} {
		if !strings.Contains(probs, p) {
			t.Errorf("no problem reported for %s", p)
		}
	}
	if strings.Contains(probs, "content/posts/good.md") || strings.Contains(probs, "photo.jpg") {
		t.Errorf("problem reported for a fine file: %s", probs)
	}
}
