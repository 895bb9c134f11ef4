package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/folio-cms/folio/media/local"
	"github.com/folio-cms/folio/server"
)

type referrersRes struct {
	Items []struct {
		Kind, Type, Slug, Title, Field string
		Fields                         []string
	}
	Total, Limit, Offset int
}

func referrersOf(t *testing.T, r response) (string, referrersRes) {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var res referrersRes
	if err := json.Unmarshal(r.Body, &res); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range res.Items {
		out = append(out, fmt.Sprintf("%s %s/%s %s %s", it.Kind, it.Type, it.Slug, it.Title, strings.Join(it.Fields, ",")))
	}
	return strings.Join(out, "\n"), res
}

// TestReferrers: the documents that refer to an item, a page and a media
// item (by id, /uploads/ path and absolute public URL), over HTTP, with
// drafts only for content:draft and never on the public surface.
func TestReferrers(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":             "types:\n  posts:\n    public: true\n    fields:\n      author: {kind: reference, to: authors}\n      link: {kind: reference, to: pages}\n  authors:\n    public: true\n",
		"pages/home.md":          "---\ntitle: Home\nisHomepage: true\n---\nHi.\n",
		"pages/about.md":         "---\ntitle: About\n---\nAbout.\n",
		"content/authors/ann.md": "---\ntitle: Ann\n---\n",
	})
	root := t.TempDir()
	ms := mediaServerOf(t, startServer(t, repo.bare, withLocalStorage(t, local.Config{Root: root, PublicURL: "https://cms.example.com/base"})), root)
	img := ms.uploadOK(t, filePart("lake.png", pngBytes(t, 200, 100)))[0]
	other := ms.uploadOK(t, filePart("hill.png", pngBytes(t, 32, 32)))[0]
	if len(img.Sizes) == 0 {
		t.Fatal("no derivatives")
	}
	if !strings.HasPrefix(img.URL, "https://cms.example.com/base/uploads/") {
		t.Fatalf("url = %s", img.URL)
	}
	path := strings.TrimPrefix(img.URL, "https://cms.example.com/base")
	repo.commit("references", map[string]string{
		"content/posts/a.md": "---\ntitle: A\nauthor: ann\ncover: media:" + img.ID + "\nlink: pages/about\n---\nA\n",
		"content/posts/b.md": "---\ntitle: B\nauthor: authors/ann\nimages: [" + path + ", " + img.Sizes[0].URL + "]\n---\nB\n",
		"content/posts/c.md": "---\ntitle: C\nhero: " + img.URL + "\n---\nC\n",
		"content/posts/e.md": "---\ntitle: E\ngone: media:zzzzzzzzzzzzzzzzzzzzzzzzzz\nalso: [/uploads/2020/01/gone.jpg]\n---\nE\n",
		"content/posts/d.md": "---\ntitle: D\ndraft: true\nauthor: ann\ncover: media:" + img.ID + "\n---\nD\n",
		"pages/about.md":     "---\ntitle: About\nsections:\n  - type: hero\n    image: " + path + "\n    by: authors/ann\n---\nAbout.\n",
	})
	reader := ms.reader(t)
	drafter := ms.key(t, "drafter", server.ScopeContentRead, server.ScopeContentDraft)
	both := ms.key(t, "both", server.ScopeContentRead, server.ScopeMediaRead)
	bothDraft := ms.key(t, "both-draft", server.ScopeContentRead, server.ScopeContentDraft, server.ScopeMediaRead)
	url := func(p string) string { return ms.URL + p }
	eventually(t, "the push to be served", func() bool {
		return get(t, url("/api/v1/content/posts/c"), reader).Status == 200
	})

	t.Run("Item", func(t *testing.T) {
		got, res := referrersOf(t, get(t, url("/api/v1/content/authors/ann/referrers"), reader))
		if want := "page /about About sections.0.data.by\nitem posts/a A data.author\nitem posts/b B data.author"; got != want {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
		if res.Total != 3 || res.Limit != 20 || res.Offset != 0 {
			t.Fatalf("paging %+v", res)
		}
		got, _ = referrersOf(t, get(t, url("/api/v1/content/authors/ann/referrers?draft=true"), drafter))
		if !strings.Contains(got, "item posts/d D data.author") {
			t.Fatalf("draft view without the draft:\n%s", got)
		}
		got, res = referrersOf(t, get(t, url("/api/v1/content/authors/ann/referrers?limit=1&offset=1"), reader))
		if got != "item posts/a A data.author" || res.Total != 3 || res.Limit != 1 || res.Offset != 1 {
			t.Fatalf("page 2: %s %+v", got, res)
		}
		got, res = referrersOf(t, get(t, url("/api/v1/content/posts/c/referrers"), reader))
		if got != "" || res.Total != 0 || res.Items == nil {
			t.Fatalf("none: %s %+v", got, res)
		}
	})

	t.Run("Page", func(t *testing.T) {
		got, _ := referrersOf(t, get(t, url("/api/v1/pages/about/referrers"), reader))
		if got != "item posts/a A data.link" {
			t.Fatalf("got %s", got)
		}
	})

	t.Run("Media", func(t *testing.T) {
		got, _ := referrersOf(t, get(t, url("/api/v1/media/"+img.ID+"/referrers"), both))
		want := "page /about About sections.0.data.image\nitem posts/a A data.cover\nitem posts/b B data.images.0,data.images.1\nitem posts/c C data.hero"
		if got != want {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
		got, _ = referrersOf(t, get(t, url("/api/v1/media/"+img.ID+"/referrers?draft=true"), bothDraft))
		if !strings.Contains(got, "item posts/d D data.cover") {
			t.Fatalf("draft view without the draft:\n%s", got)
		}
		if got, _ := referrersOf(t, get(t, url("/api/v1/media/"+other.ID+"/referrers"), both)); got != "" {
			t.Fatalf("other: %s", got)
		}
	})

	// A reference written as the library's absolute URL expands as its
	// /uploads/ path does.
	t.Run("ExpandAbsoluteURL", func(t *testing.T) {
		r := get(t, url("/api/v1/content/posts/c?expand=media"), reader)
		d, _ := r.json(t)["data"].(map[string]any)
		hero, ok := d["hero"].(map[string]any)
		if !ok || hero["id"] != img.ID {
			t.Fatalf("hero = %v", d["hero"])
		}
	})

	t.Run("Refused", func(t *testing.T) {
		wantError(t, get(t, url("/api/v1/content/authors/ann/referrers?draft=true"), reader), 403, "FORBIDDEN")
		wantError(t, get(t, url("/api/v1/content/authors/ann/referrers"), ""), 401, "UNAUTHORIZED")
		wantError(t, get(t, url("/api/v1/media/"+img.ID+"/referrers"), ms.read), 403, "FORBIDDEN")
		wantError(t, get(t, url("/api/v1/media/"+img.ID+"/referrers"), reader), 403, "FORBIDDEN")
		wantError(t, get(t, url("/api/v1/media/"+img.ID+"/referrers?draft=true"), both), 403, "FORBIDDEN")
		wantError(t, get(t, url("/api/v1/media/zzzzzzzzzzzzzzzzzzzzzzzzzz/referrers"), both), 404, "NOT_FOUND")
		wantError(t, get(t, url("/api/v1/content/authors/nobody/referrers"), reader), 404, "NOT_FOUND")
		wantError(t, get(t, url("/api/v1/pages/nowhere/referrers"), reader), 404, "NOT_FOUND")
		wantError(t, get(t, url("/api/v1/content/authors/ann/referrers?limit=0"), reader), 400, "BAD_REQUEST")
		// The public surface has no referrers, drafts or not.
		wantError(t, get(t, url("/api/v1/public/collections/authors/ann/referrers"), ""), 404, "NOT_FOUND")
	})

	t.Run("FollowsPushes", func(t *testing.T) {
		before := git(t, repo.work, "rev-parse", "HEAD")
		repo.commit("drop a's author", map[string]string{
			"content/posts/a.md": "---\ntitle: A\ncover: media:" + img.ID + "\n---\nA\n",
		})
		eventually(t, "the push to be served", func() bool {
			got, _ := referrersOf(t, get(t, url("/api/v1/content/authors/ann/referrers"), reader))
			return got == "page /about About sections.0.data.by\nitem posts/b B data.author"
		})
		// An older commit (a snapshot of its own, its index built on first use).
		previewer := ms.key(t, "previewer", server.ScopeContentRead, server.ScopeContentPreview)
		got, _ := referrersOf(t, get(t, url("/api/v1/content/authors/ann/referrers?ref="+before), previewer))
		if want := "page /about About sections.0.data.by\nitem posts/a A data.author\nitem posts/b B data.author"; got != want {
			t.Fatalf("at %s:\n%s\nwant\n%s", before, got, want)
		}
	})

	// The status lists the media references the library lacks, at each
	// request: a media item deleted shows there at once.
	t.Run("StatusMissingMedia", func(t *testing.T) {
		type status struct {
			MissingMedia []struct {
				ID, Key   string
				Referrers []struct{ Kind, Type, Slug, Field string }
			}
			MissingMediaTotal int
		}
		read := func() (string, int) {
			var st status
			if err := json.Unmarshal(get(t, url("/api/v1/status"), reader).Body, &st); err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, m := range st.MissingMedia {
				for _, r := range m.Referrers {
					out = append(out, fmt.Sprintf("%s%s: %s/%s %s", m.ID, m.Key, r.Type, r.Slug, r.Field))
				}
			}
			return strings.Join(out, "\n"), st.MissingMediaTotal
		}
		got, n := read()
		if want := "zzzzzzzzzzzzzzzzzzzzzzzzzz: posts/e data.gone\n2020/01/gone.jpg: posts/e data.also.0"; got != want || n != 2 {
			t.Fatalf("missing media (%d):\n%s\nwant\n%s", n, got, want)
		}
		if r := do(t, "DELETE", url("/api/v1/media/"+other.ID), ms.del, nil); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		if got2, _ := read(); got2 != got {
			t.Fatalf("an unused item deleted changed the list:\n%s", got2)
		}
		if r := do(t, "DELETE", url("/api/v1/media/"+img.ID), ms.del, nil); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		got, n = read()
		if !strings.Contains(got, img.ID+": posts/a data.cover") || !strings.Contains(got, ": /about sections.0.data.image") || n != 5 {
			t.Fatalf("after deleting the image (%d):\n%s", n, got)
		}
	})
}
