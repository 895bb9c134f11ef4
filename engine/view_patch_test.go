package engine

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestPatchView_SharesSlugMap checks that a one-file push's view takes
// the changed type's slug map over the last view's (not a copy of it:
// 14 ms of a push at 1M files), and the pages' lists as they are when
// only items changed, and serves the change.
func TestPatchView_SharesSlugMap(t *testing.T) {
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	files := map[string]string{}
	for i := range 300 {
		// each its own date: a view is patched when the gone documents'
		// dates do not bound its validity
		date := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format(time.DateOnly)
		files[fmt.Sprintf("content/posts/p%03d.md", i)] = fmt.Sprintf("---\ntitle: Post %d\ndate: %s\n---\nbody\n", i, date)
	}
	files["pages/about.md"] = "---\ntitle: About\n---\nabout\n"
	files["pages/contact.md"] = "---\ntitle: Contact\n---\ncontact\n"
	r.Commit(srcDay(0), files)
	r.Push(false)
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	view := func() *View { return e.Published().View(false, now) }
	beforeView := view()
	posts := func() *TypeList {
		tl, ok := e.Published().View(false, now).Type("posts")
		if !ok {
			t.Fatal("no posts")
		}
		return tl
	}
	before := posts()
	r.Commit(srcDay(1), map[string]string{
		"content/posts/p100.md": "---\ntitle: Edited\ndate: 2020-04-10\n---\nbody\n",
		"content/posts/p300.md": "---\ntitle: Added\ndate: 2020-04-11\n---\nbody\n",
	}, "content/posts/p200.md")
	r.Push(false)
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := posts()
	if after == before || after.bySlug.len() != 300 || len(after.items) != 300 {
		t.Fatalf("the list after the push: %d slugs, %d items", after.bySlug.len(), len(after.items))
	}
	if fmt.Sprintf("%p", after.bySlug.base) != fmt.Sprintf("%p", before.bySlug.base) {
		t.Fatal("the slug map was copied")
	}
	// a push of items only: the pages' lists and resources are the last
	// view's
	if afterView := view(); fmt.Sprintf("%p", afterView.pageBySlug) != fmt.Sprintf("%p", beforeView.pageBySlug) ||
		len(afterView.pages) != 2 || fmt.Sprintf("%p", e.Published().pageRes) != fmt.Sprintf("%p", beforeView.snap.pageRes) {
		t.Fatal("the pages' lists were made again")
	}
	if _, ok := view().Page("about"); !ok {
		t.Fatal("the page about is not served")
	}
	if _, ok := after.Item("p200"); ok {
		t.Fatal("the deleted item is served")
	}
	for _, slug := range []string{"p100", "p300", "p000"} {
		res, ok := after.Item(slug)
		e, _ := after.bySlug.get(slug)
		if !ok || e == nil || e.res != res {
			t.Fatalf("%s not served", slug)
		}
	}
	if e, _ := after.bySlug.get("p100"); e.item.Title != "Edited" {
		t.Fatalf("p100's title %q", e.item.Title)
	}
}
