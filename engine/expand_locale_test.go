package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"path/filepath"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// An expanded media reference carries the alt text of the request's
// locale (Expand.MediaLocales), with fallback, from a real library.
func TestExpandBody_MediaLocale(t *testing.T) {
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
	fr := "un chat"
	if _, err := lib.Patch(ctx, it.ID, media.Patch{Alt: new("a cat"), AltByLocale: media.LocalText{"fr": &fr}}); err != nil {
		t.Fatal(err)
	}

	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{
		"content/posts/a.md": "---\ntitle: A\ncover: media:" + it.ID + "\n---\nA\n",
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
	body, _, err := res.Body()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		locales []string
		want    string
	}{
		{nil, "a cat"},
		{media.FallbackChain("fr", "en"), "un chat"},
		{media.FallbackChain("fr-CA", "en"), "un chat"},
		{media.FallbackChain("de", "en"), "a cat"},
	} {
		out, _, err := v.ExpandBody(body, &Expand{Media: true, MediaLocales: tc.locales}, lib, res.Ref())
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Data struct {
				Cover MediaRef `json:"cover"`
			} `json:"data"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Data.Cover.ID != it.ID || doc.Data.Cover.Alt != tc.want {
			t.Errorf("locales %q: cover %+v, want alt %q", tc.locales, doc.Data.Cover, tc.want)
		}
	}
}
