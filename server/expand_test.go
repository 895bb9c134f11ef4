package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestExpand: references in content (pushed to a real repository) to media
// of a real local library and to other items, expanded on ?expand=.
func TestExpand(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":             "types:\n  posts:\n    public: true\n  authors: {}\n",
		"pages/home.md":          "---\ntitle: Home\nisHomepage: true\n---\nHi.\n",
		"content/authors/bob.md": "---\ntitle: Bob\nfriend: authors/ann\n---\n",
	})
	root := t.TempDir()
	ms := mediaServerOf(t, startServer(t, repo.bare, withLocalMedia(t, root)), root)
	key := ms.reader(t)
	img := ms.uploadOK(t, filePart("lake.png", pngBytes(t, 64, 48)))[0]
	if r := ms.patch(t, ms.write, img.ID, `{"alt":"A lake"}`); r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}

	// The push that writes the references.
	repo.commit("references", map[string]string{
		"content/authors/ann.md": "---\ntitle: Ann\navatar: media:" + img.ID + "\nfriend: authors/bob\n---\n",
		"content/authors/dan.md": "---\ntitle: Dan\ndraft: true\n---\n",
		"globals.yaml":           "siteName: Lakes\nlogoUrl: " + img.URL + "\nowner: authors/bob\n",
		"content/posts/a.md": "---\ntitle: A\ndate: 2026-01-10\nauthor: authors/ann\ncover: " + img.URL +
			"\neditor: authors/dan\nghost: authors/zed\nlinks: [authors/bob, plain text]\nmissingMedia: media:zzzzzzzzzzzzzzzzzzzzzzzzzz\n---\nBody.\n",
	})
	url := func(path string) string { return ms.URL + path }
	data := func(m map[string]any) map[string]any { d, _ := m["data"].(map[string]any); return d }
	eventually(t, "the push to be served", func() bool {
		r := get(t, url("/api/v1/content/posts/a"), key)
		return r.Status == 200 && data(r.json(t))["author"] == "authors/ann"
	})

	t.Run("WithoutExpand", func(t *testing.T) {
		d := data(get(t, url("/api/v1/content/posts/a"), key).json(t))
		if d["cover"] != img.URL || d["ghost"] != "authors/zed" || d["editor"] != "authors/dan" {
			t.Fatalf("references not as written: %v", d)
		}
	})

	t.Run("Authors", func(t *testing.T) {
		r := get(t, url("/api/v1/content/posts/a?expand=authors"), key)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		d := data(r.json(t))
		ann, ok := d["author"].(map[string]any)
		if !ok || ann["title"] != "Ann" || ann["slug"] != "ann" {
			t.Fatalf("author = %v", d["author"])
		}
		// One level only, and media not asked for.
		if data(ann)["avatar"] != "media:"+img.ID || data(ann)["friend"] != "authors/bob" {
			t.Fatalf("ann's references expanded without *: %v", data(ann))
		}
		if d["cover"] != img.URL {
			t.Fatalf("cover expanded without expand=media: %v", d["cover"])
		}
		if d["editor"] != nil || d["ghost"] != nil {
			t.Fatalf("draft or missing item not null: editor %v ghost %v", d["editor"], d["ghost"])
		}
		if links := d["links"].([]any); links[1] != "plain text" || links[0].(map[string]any)["title"] != "Bob" {
			t.Fatalf("links = %v", links)
		}
		if r.Header.Get("Cache-Control") != "private, no-cache" {
			t.Fatalf("Cache-Control = %q", r.Header.Get("Cache-Control"))
		}
	})

	t.Run("Star", func(t *testing.T) {
		r := get(t, url("/api/v1/content/posts/a?expand=*"), key)
		d := data(r.json(t))
		cover := d["cover"].(map[string]any)
		if cover["id"] != img.ID || cover["alt"] != "A lake" || cover["width"] != 64.0 || cover["mimeType"] != "image/png" {
			t.Fatalf("cover = %v", cover)
		}
		if d["missingMedia"] != nil {
			t.Fatalf("missing media = %v, want null", d["missingMedia"])
		}
		ann := data(d["author"].(map[string]any))
		if ann["avatar"].(map[string]any)["id"] != img.ID {
			t.Fatalf("depth 2 media = %v", ann["avatar"])
		}
		bob := ann["friend"].(map[string]any)
		if data(bob)["friend"] != "authors/ann" {
			t.Fatalf("depth 3 expanded: %v", data(bob)["friend"])
		}
		sk := r.Header.Get("Surrogate-Key")
		for _, want := range []string{"media:" + img.ID, "type:posts", "type:authors"} {
			if !strings.Contains(sk, want) {
				t.Fatalf("Surrogate-Key %q lacks %q", sk, want)
			}
		}
		if ct := r.Header.Get("Cache-Tag"); !strings.Contains(ct, ",media:"+img.ID) {
			t.Fatalf("Cache-Tag %q", ct)
		}
	})

	t.Run("Globals", func(t *testing.T) {
		g := get(t, url("/api/v1/globals"), key).json(t)
		if g["logoUrl"] != img.URL || g["owner"] != "authors/bob" {
			t.Fatalf("globals without expand: %v", g)
		}
		r := get(t, url("/api/v1/globals?expand=*"), key)
		g = r.json(t)
		logo, ok := g["logoUrl"].(map[string]any)
		if !ok || logo["id"] != img.ID || logo["alt"] != "A lake" || g["siteName"] != "Lakes" {
			t.Fatalf("globals?expand=*: %v", g)
		}
		if owner, ok := g["owner"].(map[string]any); !ok || owner["title"] != "Bob" {
			t.Fatalf("globals owner = %v", g["owner"])
		}
		if sk := r.Header.Get("Surrogate-Key"); !strings.Contains(sk, "globals") || !strings.Contains(sk, "media:"+img.ID) {
			t.Fatalf("Surrogate-Key %q", sk)
		}
		if r := get(t, url("/api/v1/globals?expand=nope"), key); r.Status != 400 {
			t.Fatalf("globals?expand=nope: %d", r.Status)
		}
	})

	t.Run("Cycle", func(t *testing.T) {
		d := data(get(t, url("/api/v1/content/authors/ann?expand=*"), key).json(t))
		bob := d["friend"].(map[string]any)
		if data(bob)["friend"] != "authors/ann" {
			t.Fatalf("the cycle back to ann = %v", data(bob)["friend"])
		}
	})

	t.Run("DraftView", func(t *testing.T) {
		draft := ms.key(t, "drafts", "content:read", "content:draft")
		d := data(get(t, url("/api/v1/content/posts/a?expand=authors&draft=true"), draft).json(t))
		if ed, ok := d["editor"].(map[string]any); !ok || ed["title"] != "Dan" {
			t.Fatalf("a draft view expands drafts: %v", d["editor"])
		}
	})

	t.Run("Status", func(t *testing.T) {
		probs := fmt.Sprint(get(t, url("/api/v1/status"), key).json(t)["problems"])
		for _, want := range []string{"reference to a draft item authors/dan", "reference to a missing item authors/zed"} {
			if !strings.Contains(probs, want) || !strings.Contains(probs, "content/posts/a.md") {
				t.Fatalf("problems = %s, want %q", probs, want)
			}
		}
		if !strings.Contains(probs, "line:6 message:reference to a draft item authors/dan") {
			t.Fatalf("the draft reference is not on line 6 (editor): %s", probs)
		}
		if strings.Contains(probs, "authors/bob") {
			t.Fatalf("a good reference is a problem: %s", probs)
		}
	})

	t.Run("List", func(t *testing.T) {
		m := get(t, url("/api/v1/content/posts?expand=media"), key).json(t)
		it := m["items"].([]any)[0].(map[string]any)
		if data(it)["cover"].(map[string]any)["id"] != img.ID || data(it)["author"] != "authors/ann" {
			t.Fatalf("list item = %v", data(it))
		}
		r := get(t, url("/api/v1/content/posts?expand=media"), key, "Accept-Encoding", "gzip")
		if r.Status != 200 {
			t.Fatalf("gzip list: %d", r.Status)
		}
	})

	t.Run("Fields", func(t *testing.T) {
		m := get(t, url("/api/v1/content/posts/a?fields=data.author&expand=authors"), key).json(t)
		d := data(m)
		if len(m) != 1 || len(d) != 1 || d["author"].(map[string]any)["title"] != "Ann" {
			t.Fatalf("fields with expand = %v", m)
		}
	})

	t.Run("Public", func(t *testing.T) {
		// authors is not public: it cannot be named, and * leaves it as written.
		wantError(t, get(t, url("/api/v1/public/collections/posts/a?expand=authors"), ""), 400, "BAD_REQUEST")
		r := get(t, url("/api/v1/public/collections/posts/a?expand=*"), "")
		d := data(r.json(t))
		if d["author"] != "authors/ann" || d["cover"].(map[string]any)["id"] != img.ID {
			t.Fatalf("public expand = %v", d)
		}
		if !strings.HasPrefix(r.Header.Get("Cache-Control"), "public") {
			t.Fatalf("Cache-Control = %q", r.Header.Get("Cache-Control"))
		}
	})

	t.Run("Unknown", func(t *testing.T) {
		wantError(t, get(t, url("/api/v1/content/posts/a?expand=nope"), key), 400, "BAD_REQUEST")
		wantError(t, get(t, url("/api/v1/pages?expand=media,nope"), key), 400, "BAD_REQUEST")
	})

	t.Run("MediaChangeWithoutPush", func(t *testing.T) {
		r1 := get(t, url("/api/v1/content/posts/a?expand=media"), key)
		etag := r1.Header.Get("ETag")
		if r := get(t, url("/api/v1/content/posts/a?expand=media"), key, "If-None-Match", etag); r.Status != http.StatusNotModified {
			t.Fatalf("revalidation: %d", r.Status)
		}
		if r := ms.patch(t, ms.write, img.ID, `{"alt":"Still water","focalX":20}`); r.Status != 200 {
			t.Fatalf("patch: %d %s", r.Status, r.Body)
		}
		r2 := get(t, url("/api/v1/content/posts/a?expand=media"), key, "If-None-Match", etag)
		if r2.Status != 200 || r2.Header.Get("ETag") == etag {
			t.Fatalf("after a media patch: %d etag %s (was %s)", r2.Status, r2.Header.Get("ETag"), etag)
		}
		cover := data(r2.json(t))["cover"].(map[string]any)
		if cover["alt"] != "Still water" || cover["focalX"] != 20.0 {
			t.Fatalf("cover after patch = %v", cover)
		}
		if r := do(t, http.MethodDelete, url("/api/v1/media/"+img.ID), ms.del, nil); r.Status != 200 && r.Status != 204 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		d := data(get(t, url("/api/v1/content/posts/a?expand=media"), key).json(t))
		if _, ok := d["cover"]; !ok || d["cover"] != nil {
			t.Fatalf("deleted media = %v, want null", d["cover"])
		}
	})
}
