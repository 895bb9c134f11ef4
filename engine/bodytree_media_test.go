package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// TestTreeResource_Media: a body tree's images that name an item of a
// real library (by /uploads/ path, escaped or not, and by media:<id>)
// carry it, up to TreeMedia.Max per response; Keys name it.
func TestTreeResource_Media(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	state, err := local.OpenState(filepath.Join(root, local.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	defer state.Close()
	lib, err := media.Open(ctx, media.Config{Root: root, Storage: st, State: state})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	it, err := lib.Create(ctx, media.UploadInput{Filename: "cat.png", Body: &img})
	if err != nil {
		t.Fatal(err)
	}
	escaped := strings.Replace(it.URL, "cat.png", "c%61t.png", 1)
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{
		"content/posts/a.md": "---\ntitle: A\n---\n![1](" + it.URL + ") ![2](" + escaped + ") ![3](media:" + it.ID + ") ![4](/uploads/none.png)\n",
	})
	r.Push(false)
	e, err := Open(ctx, Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	v := e.View(false)
	tl, _ := v.Type("posts")
	res, ok := tl.Item("a")
	if !ok {
		t.Fatal("no post a")
	}
	withMedia := func(max int) (int, []string) {
		tm := v.TreeMedia(lib, nil)
		tm.Max = max
		tr, err := res.TreeResource(tm)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := tr.Body()
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Data struct{ Body json.RawMessage }
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(doc.Data.Body), `"media":{"id":"`+it.ID+`"`), tm.Keys()
	}
	if n, keys := withMedia(MaxExpanded); n != 3 || len(keys) != 1 || keys[0] != "media:"+it.ID {
		t.Errorf("%d images with media (want 3), keys %v", n, keys)
	}
	if n, _ := withMedia(2); n != 2 {
		t.Errorf("Max 2: %d images with media", n)
	}
	if n, keys := withMedia(0); n != 3 || len(keys) != 1 {
		t.Errorf("no Max: %d images with media, keys %v", n, keys)
	}
	if tr, err := res.TreeResource(nil); err != nil {
		t.Fatal(err)
	} else if b, _, _ := tr.Body(); bytes.Contains(b, []byte(`"media"`)) {
		t.Errorf("without TreeMedia: %s", b)
	}
}
