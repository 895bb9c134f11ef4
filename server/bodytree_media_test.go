package server_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/folio-cms/folio/content"
)

// treeImages is the image nodes of a body tree, in document order.
func treeImages(n map[string]any) []map[string]any {
	var out []map[string]any
	if n["type"] == "image" {
		out = append(out, n)
	}
	cs, _ := n["children"].([]any)
	for _, c := range cs {
		if m, ok := c.(map[string]any); ok {
			out = append(out, treeImages(m)...)
		}
	}
	return out
}

// TestBodyTree_ImageMedia: with body=tree, an image whose URL names an
// item of the media library (a real local one) carries it as media, as
// expand=media shows it, resolved per response; its url stays as
// written; an image that names nothing has no media.
func TestBodyTree_ImageMedia(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":    "types:\n  posts:\n    public: true\n",
		"pages/home.md": "---\ntitle: Home\nisHomepage: true\n---\nHi.\n",
	})
	root := t.TempDir()
	ms := mediaServerOf(t, startServer(t, repo.bare, withLocalMedia(t, root)), root)
	key := ms.reader(t)
	img := ms.uploadOK(t, filePart("lake.png", pngBytes(t, 64, 48)))[0]
	if r := ms.patch(t, ms.write, img.ID, `{"alt":"A lake","focalX":25,"focalY":75}`); r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	if !strings.HasPrefix(img.URL, "/uploads/") {
		t.Fatalf("media URL %q is not an /uploads/ path", img.URL)
	}
	repo.commit("posts", map[string]string{
		"content/posts/a.md": "---\ntitle: A\ncover: " + img.URL + "\n---\n# Lakes\n\n![the lake](" + img.URL + " \"Lake\")\n\n- ![by id](media:" + img.ID + ")\n",
		"content/posts/b.md": "---\ntitle: B\n---\n![gone](/uploads/2020/01/nothing.png) and ![far](https://example.org/x.png)\n",
	})
	eventually(t, "the push to be served", func() bool {
		return get(t, ms.URL+"/api/v1/content/posts/b", key).Status == 200
	})
	doc, _ := loadSpec(t)
	schema := doc.Components.Schemas["BodyTree"].Value

	// tree is the body tree of a post at url, checked against the schema
	// and against the HTML of html.
	tree := func(url, html string) (map[string]any, response) {
		t.Helper()
		r := get(t, url, key)
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", url, r.Status, r.Body)
		}
		var item struct {
			Data struct {
				Body json.RawMessage `json:"body"`
			} `json:"data"`
		}
		if err := json.Unmarshal(r.Body, &item); err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(item.Data.Body, &v); err != nil {
			t.Fatalf("%s: %v %s", url, err, r.Body)
		}
		if err := schema.VisitJSON(any(v)); err != nil {
			t.Errorf("%s: tree does not match BodyTree: %v", url, err)
		}
		var h map[string]any
		_ = json.Unmarshal(get(t, html, key).Body, &h)
		want, _ := h["data"].(map[string]any)["body"].(string)
		if back, err := content.TreeHTML(item.Data.Body); err != nil || back != want {
			t.Errorf("%s: tree renders to\n%s (%v)\nnot\n%s", url, back, err, want)
		}
		return v, r
	}

	a, r := tree(ms.URL+"/api/v1/content/posts/a?body=tree", ms.URL+"/api/v1/content/posts/a")
	imgs := treeImages(a)
	if len(imgs) != 2 {
		t.Fatalf("images: %v", imgs)
	}
	if imgs[0]["url"] != img.URL || imgs[1]["url"] != "media:"+img.ID {
		t.Errorf("urls changed: %v %v", imgs[0]["url"], imgs[1]["url"])
	}
	for _, im := range imgs {
		m, ok := im["media"].(map[string]any)
		if !ok {
			t.Fatalf("image %v without media", im["url"])
		}
		if m["id"] != img.ID || m["url"] != img.URL || m["width"] != 64.0 || m["height"] != 48.0 ||
			m["alt"] != "A lake" || m["mimeType"] != "image/png" || m["focalX"] != 25.0 || m["focalY"] != 75.0 {
			t.Errorf("media = %v", m)
		}
	}
	if sk := r.Header.Get("Surrogate-Key"); !strings.Contains(sk, "media:"+img.ID) {
		t.Errorf("Surrogate-Key %q lacks media:%s", sk, img.ID)
	}

	b, _ := tree(ms.URL+"/api/v1/content/posts/b?body=tree", ms.URL+"/api/v1/content/posts/b")
	bi := treeImages(b)
	if len(bi) != 2 || bi[0]["url"] != "/uploads/2020/01/nothing.png" || bi[1]["url"] != "https://example.org/x.png" {
		t.Fatalf("b images: %v", bi)
	}
	for _, im := range bi {
		if _, ok := im["media"]; ok {
			t.Errorf("image %v names nothing but has media %v", im["url"], im["media"])
		}
	}

	t.Run("Public", func(t *testing.T) {
		// the public surface gives what its expand=media gives
		pub, _ := tree(ms.URL+"/api/v1/public/collections/posts/a?body=tree", ms.URL+"/api/v1/public/collections/posts/a")
		ex := get(t, ms.URL+"/api/v1/public/collections/posts/a?expand=media", "").json(t)
		cover := ex["data"].(map[string]any)["cover"]
		if got := treeImages(pub)[0]["media"]; !reflect.DeepEqual(got, cover) {
			t.Errorf("public tree media\n%v\nnot what expand=media gives\n%v", got, cover)
		}
	})

	t.Run("WithExpand", func(t *testing.T) {
		// expand=media leaves the tree's URLs as written
		v, _ := tree(ms.URL+"/api/v1/content/posts/a?body=tree&expand=media", ms.URL+"/api/v1/content/posts/a")
		if im := treeImages(v); len(im) != 2 || im[0]["url"] != img.URL || im[0]["media"] == nil {
			t.Errorf("images with expand=media: %v", im)
		}
	})

	t.Run("List", func(t *testing.T) {
		l := get(t, ms.URL+"/api/v1/content/posts?body=tree&sort=slug", key)
		if l.Status != http.StatusOK || strings.Count(string(l.Body), `"media":{"id":"`+img.ID+`"`) != 2 {
			t.Fatalf("list: %d %s", l.Status, l.Body)
		}
		if sk := l.Header.Get("Surrogate-Key"); !strings.Contains(sk, "media:"+img.ID) {
			t.Errorf("list Surrogate-Key %q lacks media:%s", sk, img.ID)
		}
	})

	t.Run("MediaChangeWithoutPush", func(t *testing.T) {
		u := ms.URL + "/api/v1/content/posts/a?body=tree"
		l := ms.URL + "/api/v1/content/posts?body=tree"
		etag, letag := get(t, u, key).Header.Get("ETag"), get(t, l, key).Header.Get("ETag")
		if r := get(t, u, key, "If-None-Match", etag); r.Status != http.StatusNotModified {
			t.Fatalf("revalidation: %d", r.Status)
		}
		if r := ms.patch(t, ms.write, img.ID, `{"alt":"Still water"}`); r.Status != 200 {
			t.Fatalf("patch: %d %s", r.Status, r.Body)
		}
		r := get(t, u, key, "If-None-Match", etag)
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"alt":"Still water"`) {
			t.Fatalf("after the media change: %d %s", r.Status, r.Body)
		}
		if r := get(t, l, key, "If-None-Match", letag); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"alt":"Still water"`) {
			t.Fatalf("list after the media change: %d %.300s", r.Status, r.Body)
		}
	})
}
