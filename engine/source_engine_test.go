package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// viewDump is every resource of a view, encoded, with its ETag.
func viewDump(t *testing.T, e *Engine, draft bool) string {
	t.Helper()
	v := e.View(draft)
	var b strings.Builder
	// The view's ID holds its interval of validity; list ETags derive
	// from it.
	fmt.Fprintf(&b, "view %s\n", v.ID)
	for _, p := range e.Status().Problems {
		fmt.Fprintf(&b, "problem %s\n", p)
	}
	for _, r := range v.Pages() {
		body, etag, _ := r.Body()
		fmt.Fprintf(&b, "%s %s\n", body, etag)
	}
	site := e.Published().Site
	for _, p := range site.Pages {
		if r, ok := v.Page(p.Slug); ok {
			body, etag, _ := r.Body()
			fmt.Fprintf(&b, "%s %s\n", body, etag)
		}
	}
	var types []string
	for typ := range site.Items {
		types = append(types, typ)
	}
	sort.Strings(types)
	for _, typ := range types {
		tl, ok := v.Type(typ)
		if !ok {
			continue
		}
		rs, _, err := tl.Sorted("")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			body, etag, _ := r.Body()
			fmt.Fprintf(&b, "%s %s\n", body, etag)
		}
	}
	if g, ok := v.Globals(); ok {
		body, etag, _ := g.Body()
		fmt.Fprintf(&b, "%s %s\n", body, etag)
	}
	return b.String()
}

// TestEngine_ReloadMatchesFresh pushes one change after another into a
// served site and checks, after each reload, that every resource of the
// published and draft views is byte for byte what a freshly opened engine
// serves for that commit: reused items, pages and resources never go stale
// (bodies, updatedAt from Git, homepage and duplicate rules, schedules).
func TestEngine_ReloadMatchesFresh(t *testing.T) {
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	r.Commit(srcDay(0), map[string]string{
		"globals.yaml":          "siteName: A\n",
		"pages/index.md":        "---\ntitle: Index\n---\nWelcome *home*\n",
		"pages/about.yaml":      "title: About\nsections: [{type: hero, heading: Hi}]\n",
		"content/posts/a.md":    "---\ntitle: A\n---\nBody **a**\n",
		"content/posts/b.md":    "---\ntitle: B\ndate: 2024-01-01\n---\nBody b\n",
		"content/posts/c.md":    "---\ntitle: C\npublishedAt: 2025-07-01\n---\nscheduled\n",
		"content/posts/d.md":    "---\ntitle: D\ndraft: true\n---\ndraft\n",
		"content/events/e.yaml": "title: E\nexpiresAt: 2025-05-01\n",
	})
	r.Push(false)
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	steps := []struct {
		files map[string]string
		rm    []string
	}{
		{files: map[string]string{"content/posts/a.md": "---\ntitle: A2\n---\nBody **a2**\n"}},
		{files: map[string]string{"README.md": "only the commit time moves"}},
		{files: map[string]string{"content/posts/0.md": "---\nslug: b\n---\nI take b's slug\n"}},
		{files: map[string]string{"pages/about.yaml": "title: About\nisHomepage: true\n"}},
		{files: map[string]string{"pages/index.md": "---\ntitle: Index 2\nisHomepage: false\n---\nx\n"}},
		{rm: []string{"content/posts/0.md"}},
		{files: map[string]string{"content/posts/b.md": "---\ntitle: B\ndate: 2024-01-01\n---\nBody b\n\nmore\n"}},
		{files: map[string]string{"folio.yaml": "types: {posts: {defaultSort: title}}\n", "globals.yaml": "siteName: B\n"}},
		{files: map[string]string{"content/posts/a.md": "---\ntitle: A\n---\nBody **a**\n"}}, // an older blob again
		// What a published view's interval of validity becomes when a
		// reload patches the last view: narrowed by a new document,
		// built afresh when a document that bounds it goes or moves.
		{files: map[string]string{"content/posts/s.md": "---\ntitle: S\npublishedAt: 2025-06-15\n---\nsoon\n"}},
		{files: map[string]string{"content/posts/s.md": "---\ntitle: S\npublishedAt: 2025-06-20\n---\nlater\n"}},
		{rm: []string{"content/posts/c.md"}},
		{files: map[string]string{"content/posts/x.md": "---\ntitle: X\ndate: 2025-01-01\nexpiresAt: 2025-05-15\n---\nx\n"}},
		{files: map[string]string{"content/posts/y.md": "---\ntitle: Y\ndraft: true\n---\ny\n"}},
		{rm: []string{"content/posts/x.md"}},
		{files: map[string]string{"pages/new.md": "---\ntitle: New\npublishedAt: 2025-06-10\n---\nnew page\n"}},
		{rm: []string{"content/posts/s.md"}},
		// A content model: defaults and dates filled in, kept across
		// reloads for the items that did not change.
		{files: map[string]string{"folio.yaml": "types: {posts: {fields: {title: string, rank: {kind: integer, default: 3}, date: date}}}\n"}},
		{files: map[string]string{"content/posts/a.md": "---\ntitle: A3\nrank: 1\n---\nBody\n"}},
		{files: map[string]string{"content/posts/z.md": "---\ntitle: Z\nrank: high\n---\nz\n"}},
		{files: map[string]string{"folio.yaml": "types: {posts: {fields: {title: string, rank: {kind: integer, default: 4}}}}\n"}},
	}
	for i, st := range steps {
		for _, p := range st.rm {
			srcGit(t, r.Dir, "rm", "-q", p)
		}
		r.Commit(srcDay(i+1), st.files)
		r.Push(false)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		fresh, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		for _, draft := range []bool{false, true} {
			if got, want := viewDump(t, e, draft), viewDump(t, fresh, draft); got != want {
				t.Fatalf("step %d draft=%v: reloaded engine serves\n%s\nfresh engine serves\n%s", i, draft, got, want)
			}
		}
		fresh.Close()
	}
}
