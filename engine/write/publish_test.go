package write

import (
	"context"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content/fault"
)

func TestPublish(t *testing.T) {
	s := newSite(t)
	w := New(Config{GitDir: s.clone, Remote: true, Branch: "main", DraftBranch: "draft", JournalDir: t.TempDir()})
	ctx := context.Background()
	if _, err := w.Publish(ctx, PublishOptions{}); fault.CodeOf(err) != fault.NotFound {
		t.Fatalf("no draft branch yet: %v", err)
	}
	// Two drafts; publish one document, then the whole branch (a
	// fast-forward is impossible by then: a merge commit).
	if _, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "hello", Fields: map[string]any{"rating": 9}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Create(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "fresh", Fields: map[string]any{"title": "Fresh"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.remoteFile("content/posts/hello.md"), "rating: 9") {
		t.Fatal("a draft reached main")
	}
	res, err := w.Publish(ctx, PublishOptions{Docs: []Doc{{Kind: KindItem, Type: "posts", Slug: "fresh"}}, Author: Person{Name: "boss"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.remoteHead() != res.Commit || s.remoteFile("content/posts/fresh.md") == "" || strings.Contains(s.remoteFile("content/posts/hello.md"), "rating: 9") {
		t.Fatalf("publish one: %+v", res)
	}
	if msg := git(t, s.remote, "log", "-1", "--format=%an %s", "main"); msg != "boss Publish posts/fresh" {
		t.Fatalf("message %q", msg)
	}
	res, err = w.Publish(ctx, PublishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.remoteFile("content/posts/hello.md"), "rating: 9") || git(t, s.remote, "rev-list", "--count", "--parents", "-1", "main") == "" {
		t.Fatal("publish all")
	}
	if parents := strings.Fields(git(t, s.remote, "rev-list", "--parents", "-1", "main")); len(parents) != 3 {
		t.Fatalf("want a merge commit: %v", parents)
	}
	if res, err := w.Publish(ctx, PublishOptions{}); err != nil || res.Commit != "" {
		t.Fatalf("nothing left: %+v %v", res, err)
	}
	// A file changed on both sides, differently: 409 naming it.
	if _, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "posts", Slug: "json", Fields: map[string]any{"rating": 5}}, Options{}); err != nil {
		t.Fatal(err)
	}
	s.push("content/posts/json.md", "---json\n{\"title\": \"Json\", \"rating\": 7, \"zeta\": true}\n---\nBody.\n")
	git(t, s.clone, "fetch", "-q", "origin", "+refs/heads/main:refs/heads/main")
	head := s.remoteHead()
	_, err = w.Publish(ctx, PublishOptions{})
	if fault.CodeOf(err) != fault.Conflict || !strings.Contains(err.Error(), "content/posts/json.md") {
		t.Fatalf("conflict: %v", err)
	}
	_, err = w.Publish(ctx, PublishOptions{Docs: []Doc{{Kind: KindItem, Type: "posts", Slug: "json"}}})
	if fault.CodeOf(err) != fault.Conflict || s.remoteHead() != head {
		t.Fatalf("conflict, named: %v", err)
	}
}

func TestPublishFastForward(t *testing.T) {
	s := newSite(t)
	w := New(Config{GitDir: s.remote, Branch: "main", DraftBranch: "draft"})
	ctx := context.Background()
	r, err := w.Patch(ctx, Doc{Kind: KindPage, Slug: "about", Fields: map[string]any{"title": "Draft about"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.Publish(ctx, PublishOptions{})
	if err != nil || res.Commit != r.Commit || s.remoteHead() != r.Commit {
		t.Fatalf("fast-forward: %+v %v", res, err)
	}
}
