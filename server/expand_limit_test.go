package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/folio-cms/folio/engine"
)

// expand is bounded per response (issue 29): a public list with
// expand=* that would expand more than engine.MaxExpanded references is
// a 400 in the error shape, and one within the cap keeps its
// Surrogate-Key and Cache-Tag headers short by collapsing the keys of
// what it embeds to their types' keys.
func TestExpandIsBoundedPerResponse(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"folio.yaml":    "types:\n  posts:\n    public: true\n  authors:\n    public: true\n",
		"pages/home.md": "---\ntitle: Home\nisHomepage: true\n---\nHi.\n",
	}
	// 120 authors, each naming two others; 40 posts, each naming 30
	// authors: with expand=*, a post expands 30 + 30×2 = 90 references,
	// the list of 40 of them 3,600.
	const authors, posts, perPost = 120, 40, 30
	for i := range authors {
		files[fmt.Sprintf("content/authors/a%03d.md", i)] = fmt.Sprintf("---\ntitle: Author %d\nfriends: [authors/a%03d, authors/a%03d]\n---\n",
			i, (i+1)%authors, (i+2)%authors)
	}
	for i := range posts {
		var refs []string
		for j := range perPost {
			refs = append(refs, fmt.Sprintf("authors/a%03d", (i*perPost+j)%authors))
		}
		files[fmt.Sprintf("content/posts/p%02d.md", i)] = fmt.Sprintf("---\ntitle: Post %d\ndate: 2026-01-10\nby: [%s]\n---\nText.\n", i, strings.Join(refs, ", "))
	}
	repo := newRepo(t, files)
	ts := startServer(t, repo.bare)

	r := get(t, ts.URL+"/api/v1/public/collections/posts?limit=100&expand=*", "")
	wantError(t, r, http.StatusBadRequest, "BAD_REQUEST")
	if !strings.Contains(string(r.Body), fmt.Sprintf("more than %d references", engine.MaxExpanded)) {
		t.Fatalf("over the cap: %s", r.Body)
	}

	// 10 posts: 900 references, under the cap; the keys of the 120
	// authors they bring (item:authors/<id>, 31 bytes each) would make
	// headers of 3.7 KB: they collapse to type:authors.
	r = get(t, ts.URL+"/api/v1/public/collections/posts?limit=10&expand=*", "")
	if r.Status != http.StatusOK {
		t.Fatalf("within the cap: %d %.300s", r.Status, r.Body)
	}
	if !strings.Contains(string(r.Body), `"title":"Author 3"`) {
		t.Fatalf("not expanded: %.300s", r.Body)
	}
	for _, h := range []string{"Surrogate-Key", "Cache-Tag"} {
		v := r.Header.Get(h)
		if len(v) > 2048 || strings.Contains(v, "item:authors/") || !strings.Contains(v, "type:authors") || !strings.Contains(v, "type:posts") {
			t.Fatalf("%s (%d bytes): %.300s", h, len(v), v)
		}
	}
	// A single post keeps its fine keys: few enough.
	r = get(t, ts.URL+"/api/v1/public/collections/posts/p00?expand=authors", "")
	if r.Status != http.StatusOK || !strings.Contains(r.Header.Get("Surrogate-Key"), "item:authors/") {
		t.Fatalf("one post: %d %s", r.Status, r.Header.Get("Surrogate-Key"))
	}
}
