package gitsource

import (
	"context"
	"testing"
)

// TestSource_RefsSeeFetchedPacks: the git CLI's fetch of a remote site
// writes a pack after the long-lived handle read its pack indexes; refs
// (by name, by short hash, listed) see the commits it brought, after a
// normal push and after a force push to an unrelated history. Without a
// reindex the commit is "missing" and the ref not found.
func TestSource_RefsSeeFetchedPacks(t *testing.T) {
	r := newSrcBareSite(t)
	c1 := r.Commit(srcDay(0), map[string]string{"content/posts/a.md": "one\n"})
	r.Push(false)
	src := openSrc(t, "file://"+r.Bare, t.TempDir(), &srcTestParser{})
	if ref, err := src.ResolveRef("main"); err != nil || ref.Commit != c1 {
		t.Fatalf("ResolveRef(main) = %+v, %v; want %s", ref, err, c1)
	}
	check := func(step, want string) {
		t.Helper()
		if err := src.Fetch(context.Background()); err != nil {
			t.Fatal(err)
		}
		if ref, err := src.ResolveRef(want[:10]); err != nil || ref.Commit != want {
			t.Fatalf("%s: ResolveRef(%s) = %+v, %v; want %s", step, want[:10], ref, err, want)
		}
		if ref, err := src.ResolveRef("main"); err != nil || ref.Commit != want {
			t.Fatalf("%s: ResolveRef(main) = %+v, %v; want %s", step, ref, err, want)
		}
		refs, err := src.Refs()
		if err != nil || len(refs) != 1 || refs[0].Commit != want {
			t.Fatalf("%s: Refs = %+v, %v; want main at %s", step, refs, err, want)
		}
	}
	check("normal push", func() string {
		c := r.Commit(srcDay(1), map[string]string{"content/posts/b.md": "two\n"})
		r.Push(false)
		return c
	}())
	check("force push", func() string {
		srcGit(t, r.Dir, "checkout", "-q", "--orphan", "other")
		c := r.Commit(srcDay(2), map[string]string{"content/posts/a.md": "rewritten\n"})
		r.Push(true)
		return c
	}())
}

// TestSource_RefsSeeNewPacksOfALocalSite: a push to a local site that
// keeps its pack (as a large push does) is seen by the next ResolveRef
// of the branch it made.
func TestSource_RefsSeeNewPacksOfALocalSite(t *testing.T) {
	r := newSrcBareSite(t)
	srcGit(t, r.Bare, "config", "receive.unpackLimit", "1")
	c1 := r.Commit(srcDay(0), map[string]string{"content/posts/a.md": "one\n"})
	r.Push(false)
	src := openSrc(t, r.Bare, t.TempDir(), &srcTestParser{})
	if ref, err := src.ResolveRef("main"); err != nil || ref.Commit != c1 {
		t.Fatalf("ResolveRef(main) = %+v, %v; want %s", ref, err, c1)
	}
	c2 := r.Commit(srcDay(1), map[string]string{"content/posts/b.md": "two\n"})
	srcGit(t, r.Dir, "push", "-q", "origin", "HEAD:refs/heads/late")
	if ref, err := src.ResolveRef("late"); err != nil || ref.Commit != c2 {
		t.Fatalf("ResolveRef(late) = %+v, %v; want %s", ref, err, c2)
	}
}
