package server_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/folio-cms/folio/media/s3/s3test"
)

// locItem is the localized part of an item, as the media routes answer it.
type locItem struct {
	ID, Alt, Title, Description                     string
	AltByLocale, TitleByLocale, DescriptionByLocale map[string]string
}

// TestMediaLocales: alt, title and description per locale over HTTP, on a
// real local library: PATCH with plain strings and objects, ?locale= with
// fallback on every media route, the full maps, ETags per locale, search
// in every locale, and bad input that changes nothing.
func TestMediaLocales(t *testing.T) {
	t.Parallel()
	ms := newMediaServer(t)
	it := ms.uploadOK(t, filePart("cat.png", pngBytes(t, 40, 30)))[0]
	other := ms.uploadOK(t, filePart("dog.png", pngBytes(t, 40, 30)))[0]
	item := func(path string, header ...string) (locItem, response) {
		t.Helper()
		key := ms.read
		if strings.HasPrefix(path, "/api/v1/public/") {
			key = ""
		}
		r := get(t, ms.URL+path, key, header...)
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
		}
		return decode[locItem](t, r), r
	}

	r := ms.patch(t, ms.write, it.ID, `{"alt":{"en":"a cat","fr":"un chat","FR-ca":"un minou"},"title":"Cat",
		"description":{"de":"Eine Katze."}}`)
	if r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	got := decode[locItem](t, r)
	wantAlt := map[string]string{"en": "a cat", "fr": "un chat", "fr-CA": "un minou"}
	if got.Alt != "" || got.Title != "Cat" || !reflect.DeepEqual(got.AltByLocale, wantAlt) ||
		!reflect.DeepEqual(got.DescriptionByLocale, map[string]string{"de": "Eine Katze."}) || got.TitleByLocale != nil {
		t.Fatalf("patched: %s", r.Body)
	}
	// A plain string is the unlocalized value; the locales stay.
	if r := ms.patch(t, ms.write, it.ID, `{"alt":"cat photo"}`); r.Status != http.StatusOK {
		t.Fatalf("plain patch: %d %s", r.Status, r.Body)
	}

	for _, tc := range []struct {
		locale, alt, description string
	}{
		{"", "cat photo", ""},
		{"fr", "un chat", ""},
		{"fr-CA", "un minou", ""},
		{"fr-BE", "un chat", ""},
		{"en-GB", "a cat", ""},
		{"de", "cat photo", "Eine Katze."},
		{"DE-at", "cat photo", "Eine Katze."},
		{"ja", "cat photo", ""},
	} {
		q := ""
		if tc.locale != "" {
			q = "?locale=" + tc.locale
		}
		full, fr := item("/api/v1/media/" + it.ID + q)
		if full.Alt != tc.alt || full.Description != tc.description || full.Title != "Cat" || !reflect.DeepEqual(full.AltByLocale, wantAlt) {
			t.Errorf("locale %q: %s", tc.locale, fr.Body)
		}
		pub, pr := item("/api/v1/public/media/" + it.ID + q)
		if pub.Alt != tc.alt || pub.AltByLocale != nil {
			t.Errorf("public, locale %q: %s", tc.locale, pr.Body)
		}
		l := decode[struct{ Data []locItem }](t, get(t, ms.URL+"/api/v1/media?sort=filename&order=asc"+strings.Replace(q, "?", "&", 1), ms.read))
		if len(l.Data) != 2 || l.Data[0].ID != it.ID || l.Data[0].Alt != tc.alt || l.Data[1].Alt != "" {
			t.Errorf("list, locale %q: %+v", tc.locale, l.Data)
		}
		pl := decode[struct{ Data []locItem }](t, get(t, ms.URL+"/api/v1/public/media"+q, ""))
		for _, p := range pl.Data {
			if p.ID == it.ID && (p.Alt != tc.alt || p.AltByLocale != nil) || p.ID == other.ID && p.Alt != "" || len(pl.Data) != 2 {
				t.Errorf("public list, locale %q: %+v", tc.locale, pl.Data)
			}
		}
	}

	// Each locale has its own ETag; If-None-Match and If-Match take them.
	_, fr := item("/api/v1/media/" + it.ID + "?locale=fr")
	_, de := item("/api/v1/media/" + it.ID + "?locale=de")
	_, none := item("/api/v1/media/" + it.ID)
	if e := fr.Header.Get("ETag"); e == de.Header.Get("ETag") || e == none.Header.Get("ETag") {
		t.Errorf("ETags fr %s de %s none %s", e, de.Header.Get("ETag"), none.Header.Get("ETag"))
	}
	if r := get(t, ms.URL+"/api/v1/media/"+it.ID+"?locale=fr", ms.read, "If-None-Match", fr.Header.Get("ETag")); r.Status != http.StatusNotModified {
		t.Errorf("If-None-Match of the fr ETag: %d", r.Status)
	}
	if r := get(t, ms.URL+"/api/v1/media/"+it.ID+"?locale=de", ms.read, "If-None-Match", fr.Header.Get("ETag")); r.Status != http.StatusOK {
		t.Errorf("If-None-Match of the fr ETag on de: %d", r.Status)
	}
	r = ms.patch(t, ms.write, it.ID, `{"title":{"fr":"Chat"}}`, "If-Match", fr.Header.Get("ETag"))
	if r.Status != http.StatusOK {
		t.Fatalf("If-Match with the fr-CA ETag: %d %s", r.Status, r.Body)
	}
	wantError(t, ms.patch(t, ms.write, it.ID, `{"title":{"fr":"Chat!"}}`, "If-Match", fr.Header.Get("ETag")), http.StatusPreconditionFailed, "PRECONDITION_FAILED")
	pubFr := get(t, ms.URL+"/api/v1/public/media/"+it.ID+"?locale=fr", "")
	if r := ms.patch(t, ms.write, it.ID, `{"focalX":40}`, "If-Match", pubFr.Header.Get("ETag")); r.Status != http.StatusOK {
		t.Fatalf("If-Match with the public fr ETag %s: %d %s", pubFr.Header.Get("ETag"), r.Status, r.Body)
	}
	// The PATCH response is in the locale asked for.
	r = do(t, http.MethodPatch, ms.URL+"/api/v1/media/"+it.ID+"?locale=fr-CA", ms.write,
		strings.NewReader(`{"title":{"es":"Gato","fr":null}}`), "Content-Type", "application/json")
	if p := decode[locItem](t, r); r.Status != http.StatusOK || p.Alt != "un minou" || p.Title != "Cat" ||
		!reflect.DeepEqual(p.TitleByLocale, map[string]string{"es": "Gato"}) {
		t.Fatalf("patch ?locale=fr-CA: %d %s", r.Status, r.Body)
	}
	if !strings.HasSuffix(r.Header.Get("ETag"), `~fr-CA"`) {
		t.Errorf("PATCH ETag %s", r.Header.Get("ETag"))
	}

	// The admin UI's locale list: those the library has text in.
	if l := ms.list(t, ""); !reflect.DeepEqual(l.Locales, []string{"de", "en", "es", "fr", "fr-CA"}) {
		t.Errorf("locales %q", l.Locales)
	}

	// Search finds the item by the text of any locale.
	for _, q := range []string{"minou", "chat", "katze", "gato", "photo"} {
		if l := ms.list(t, "search="+q); len(l.Data) != 1 || l.Data[0].ID != it.ID {
			t.Errorf("search %s: %+v", q, ids(l.Data))
		}
	}
	if l := ms.list(t, "search=chien"); len(l.Data) != 0 {
		t.Errorf("search chien: %v", ids(l.Data))
	}
	if r := ms.patch(t, ms.write, other.ID, `{"alt":{"fr":"un chien"}}`); r.Status != http.StatusOK {
		t.Fatalf("patch other: %d %s", r.Status, r.Body)
	}
	if l := ms.list(t, "search=chien"); len(l.Data) != 1 || l.Data[0].ID != other.ID {
		t.Errorf("search chien after patch: %v", ids(l.Data))
	}

	// Bad input: 400, nothing changed.
	_, br := ms.getItem(t, it.ID)
	for body, lenient := range map[string]bool{
		`{"alt":{"français":"x"}}`:          false,
		`{"alt":{"und":"x"}}`:               false,
		`{"alt":{"":"x"}}`:                  false,
		`{"alt":{"fr":"ok","en_US":"x"}}`:   false,
		`{"alt":{"en-US":"x","en-us":"y"}}`: false,
		`{"alt":{"fr":5}}`:                  true,
		`{"alt":{"fr":["x"]}}`:              true,
		`{"alt":["x"]}`:                     true,
		`{"alt":true}`:                      true,
		`{"alt":{"fr":{"x":"y"}}}`:          true,
		`{"title":"ok","alt":{"fr":"` + strings.Repeat("a", 1001) + `"}}`: false,
		`{"description":{"fr":"` + strings.Repeat("a", 10001) + `"}}`:     false,
		`{"alt":{"` + strings.Repeat("a", 40) + `":"x"}}`:                 false,
	} {
		var h []string
		if lenient {
			h = []string{outsideSpec, "wrong type"}
		}
		r := ms.patch(t, ms.write, it.ID, body, h...)
		wantError(t, r, http.StatusBadRequest, "BAD_REQUEST")
	}
	var many strings.Builder
	many.WriteString(`{"alt":{`)
	for i := range 65 {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(`"en-x-` + strings.Repeat("a", 1) + string(rune('a'+i/26)) + string(rune('a'+i%26)) + `":"x"`)
	}
	many.WriteString(`}}`)
	wantError(t, ms.patch(t, ms.write, it.ID, many.String(), outsideSpec, "over maxProperties"), http.StatusBadRequest, "BAD_REQUEST")
	wantError(t, do(t, http.MethodPatch, ms.URL+"/api/v1/media/"+it.ID+"?locale=not_a_tag", ms.write,
		strings.NewReader(`{"alt":"changed"}`), "Content-Type", "application/json"), http.StatusBadRequest, "BAD_REQUEST")
	after, ar := ms.getItem(t, it.ID)
	if string(ar.Body) != string(br.Body) || after.Alt != "cat photo" {
		t.Errorf("a refused PATCH changed the item:\n%s\n→\n%s", br.Body, ar.Body)
	}
	for _, path := range []string{"/api/v1/media/" + it.ID, "/api/v1/public/media/" + it.ID, "/api/v1/media", "/api/v1/public/media"} {
		key := ms.read
		if strings.Contains(path, "public") {
			key = ""
		}
		for _, l := range []string{"*", "english", "und", "en_US"} {
			wantError(t, get(t, ms.URL+path+"?locale="+l, key), http.StatusBadRequest, "BAD_REQUEST")
		}
	}
}

// TestMediaLocalesShared: the localized text written on one box reaches
// another sharing the bucket (a real S3 server).
func TestMediaLocalesShared(t *testing.T) {
	t.Parallel()
	cfg := s3test.NewServer(t).NewBucket(t)
	site := newRepo(t, mediaSite).bare
	a := sharedBox(t, site, cfg)
	b := sharedBox(t, site, cfg)
	up := a.upload(t, a.all, filePart("cat.png", pngBytes(t, 40, 30)))
	if up.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", up.Status, up.Body)
	}
	id := decode[uploadRes](t, up).Data[0].ID
	// b learns of the item as it patches it (a write catches up).
	if r := jsonReq(t, b, http.MethodPatch, "/api/v1/media/"+id, `{"alt":{"fr":"un chat","de":"eine Katze"},"title":"Cat"}`); r.Status != http.StatusOK {
		t.Fatalf("patch on b: %d %s", r.Status, r.Body)
	}
	if r := jsonReq(t, a, http.MethodPatch, "/api/v1/media/"+id, `{"description":{"fr":"Le chat."}}`); r.Status != http.StatusOK {
		t.Fatalf("patch on a: %d %s", r.Status, r.Body)
	}
	for _, box := range []*mediaServer{a, b} {
		if box == b {
			if r := jsonReq(t, b, http.MethodPatch, "/api/v1/media/"+id, `{"focalX":40}`); r.Status != http.StatusOK {
				t.Fatalf("patch on b: %d %s", r.Status, r.Body)
			}
		}
		got := decode[locItem](t, get(t, box.URL+"/api/v1/media/"+id+"?locale=fr-CA", box.all))
		if got.Alt != "un chat" || got.Description != "Le chat." || got.Title != "Cat" ||
			!reflect.DeepEqual(got.AltByLocale, map[string]string{"fr": "un chat", "de": "eine Katze"}) {
			t.Errorf("box %s: %+v", box.URL, got)
		}
	}
}

// TestMediaLocalesExpand: content without a locale expands media with
// their unlocalized alt text, not some locale's (the content request's
// locale reaches the expansion through contentHandlers.contentLocale).
func TestMediaLocalesExpand(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":    "types:\n  posts: {}\n",
		"pages/home.md": "---\ntitle: Home\nisHomepage: true\n---\nHi.\n",
	})
	root := t.TempDir()
	ms := mediaServerOf(t, startServer(t, repo.bare, withLocalMedia(t, root)), root)
	key := ms.reader(t)
	img := ms.uploadOK(t, filePart("cat.png", pngBytes(t, 40, 30)))[0]
	if r := ms.patch(t, ms.write, img.ID, `{"alt":{"fr":"un chat","en":"a cat"}}`); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	if r := ms.patch(t, ms.write, img.ID, `{"alt":"cat"}`); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	repo.commit("post", map[string]string{"content/posts/a.md": "---\ntitle: A\ncover: media:" + img.ID + "\n---\nA\n"})
	var cover map[string]any
	eventually(t, "the expanded post", func() bool {
		r := get(t, ms.URL+"/api/v1/content/posts/a?expand=media", key)
		if r.Status != http.StatusOK {
			return false
		}
		d, _ := r.json(t)["data"].(map[string]any)
		cover, _ = d["cover"].(map[string]any)
		return cover != nil
	})
	if cover["id"] != img.ID || cover["alt"] != "cat" {
		t.Errorf("cover %v", cover)
	}
}

func TestMediaLocalesExpandInLocale(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":          "locales: [en, fr]\ndefaultLocale: en\ntypes:\n  posts: {}\n",
		"content/en/about.md": "---\ntitle: About\n---\nHi.\n",
	})
	root := t.TempDir()
	ms := mediaServerOf(t, startServer(t, repo.bare, withLocalMedia(t, root)), root)
	key := ms.reader(t)
	img := ms.uploadOK(t, filePart("cat.png", pngBytes(t, 40, 30)))[0]
	if r := ms.patch(t, ms.write, img.ID, `{"alt":{"fr":"un chat","en":"a cat"}}`); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	repo.commit("post", map[string]string{
		"content/en/posts/a.md": "---\ntitle: A\ncover: media:" + img.ID + "\n---\nA\n",
		"content/fr/posts/a.md": "---\ntitle: A fr\ncover: media:" + img.ID + "\n---\nA\n",
	})
	alt := func(q string) string {
		r := get(t, ms.URL+"/api/v1/content/posts/a?expand=media"+q, key)
		if r.Status != http.StatusOK {
			return fmt.Sprint(r.Status, string(r.Body))
		}
		d, _ := r.json(t)["data"].(map[string]any)
		c, _ := d["cover"].(map[string]any)
		s, _ := c["alt"].(string)
		return s
	}
	eventually(t, "the post", func() bool { return alt("") != "" })
	for q, want := range map[string]string{"": "a cat", "&locale=fr": "un chat", "&locale=en": "a cat"} {
		if got := alt(q); got != want {
			t.Errorf("%s: %q want %q", q, got, want)
		}
	}
	if l := ms.list(t, ""); strings.Join(l.Locales, ",") != "en,fr" {
		t.Errorf("locales %v", l.Locales)
	}
}

// On a site with locales, a media route's ?locale= is one of them (else
// 400 naming them, as on the content routes), and the text falls back
// along the chain the site configures (de-CH → fr → en here), not by
// shortening the tag (de-CH → de → en).
func TestMediaLocalesFollowTheSiteChain(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{
		"folio.yaml":          "locales: [en, fr, de, de-CH]\ndefaultLocale: en\nfallback: {de-CH: [fr, en]}\ntypes:\n  posts: {}\n",
		"content/en/about.md": "---\ntitle: About\n---\nHi.\n",
	})
	root := t.TempDir()
	ms := mediaServerOf(t, startServer(t, repo.bare, withLocalMedia(t, root)), root)
	img := ms.uploadOK(t, filePart("cat.png", pngBytes(t, 40, 30)))[0]
	if r := ms.patch(t, ms.write, img.ID, `{"alt":{"fr":"un chat","en":"a cat"}}`); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	alt := func(q string) (int, string) {
		r := get(t, ms.URL+"/api/v1/media/"+img.ID+q, ms.read)
		if r.Status != http.StatusOK {
			return r.Status, string(r.Body)
		}
		s, _ := r.json(t)["alt"].(string)
		return r.Status, s
	}
	for q, want := range map[string]string{"?locale=de-CH": "un chat", "?locale=de": "a cat", "?locale=fr": "un chat", "?locale=en": "a cat"} {
		if code, got := alt(q); code != http.StatusOK || got != want {
			t.Errorf("%s: %d %q, want %q", q, code, got, want)
		}
	}
	if code, body := alt("?locale=es"); code != http.StatusBadRequest || !strings.Contains(body, "en, fr, de, de-CH") {
		t.Errorf("?locale=es: %d %s", code, body)
	}
}
