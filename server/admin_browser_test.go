package server_test

import (
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/buckket/go-blurhash"
	"github.com/chromedp/chromedp"
	"github.com/folio-cms/folio/server"
)

// TestAdminUI drives the admin pages in Chromium against a real folio with
// local media: a wrong key gets nowhere, then with a right key the page
// makes a folder, uploads a real JPEG through its own file input, shows the
// thumbnail, saves alt text and a focal point clicked on the image (checked
// through the API), deletes the item after a confirmation and deletes the
// folder. The page may throw nothing, log no error and break no CSP rule.
func TestAdminUI(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	ms := newMediaServer(t)
	contentOnly := ms.key(t, "content-only", server.ScopeContentRead)
	dir := t.TempDir()
	photo := filepath.Join(dir, "harbour-view.jpg")
	if err := os.WriteFile(photo, jpegBytes(t, 640, 360), 0o644); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("not a media file\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	b.run(t, "open the admin page", chromedp.Navigate(ms.URL+"/admin/"), chromedp.WaitVisible(chromedp.ID("key-form")))
	if !evalAs[bool](t, b, `document.getElementById("app").hidden`) {
		t.Fatal("the library shows before a key is given")
	}

	t.Run("WrongKey", func(t *testing.T) {
		b.run(t, "send a wrong key", chromedp.SendKeys(chromedp.ID("key-input"), "not-a-real-key"), chromedp.Click(chromedp.ID("key-use")))
		b.waitJS(t, "the refusal", `!document.getElementById("notice").hidden && document.getElementById("notice").textContent.includes("401")`)
		if !evalAs[bool](t, b, `document.getElementById("app").hidden && sessionStorage.length === 0`) {
			t.Fatal("a refused key opened the library or was kept")
		}
		b.shot(t, "wrong-key")
	})

	t.Run("KeyWithoutMediaScope", func(t *testing.T) {
		b.run(t, "send a content-only key", chromedp.SendKeys(chromedp.ID("key-input"), contentOnly), chromedp.Click(chromedp.ID("key-use")))
		b.waitJS(t, "the 403", `document.getElementById("notice").textContent.includes("403") && document.getElementById("notice").textContent.includes("media:read")`)
		b.run(t, "forget the key", chromedp.Click(chromedp.ID("key-forget")))
		b.waitJS(t, "the page to lock", `document.getElementById("app").hidden`)
	})

	b.run(t, "send the right key", chromedp.SendKeys(chromedp.ID("key-input"), ms.all), chromedp.Click(chromedp.ID("key-use")))
	b.waitJS(t, "the library", `!document.getElementById("app").hidden && document.getElementById("count").textContent === "0 items"`)
	if href := evalAs[string](t, b, `location.href`); strings.Contains(href, ms.all) {
		t.Fatalf("the key is in the URL: %s", href)
	}

	b.run(t, "create a folder",
		chromedp.SendKeys(chromedp.ID("folder-name"), "harbour"),
		chromedp.Click(chromedp.CSS("#folder-form button")))
	b.waitJS(t, "the new folder", `document.querySelector('.folder[data-path="/harbour"]') !== null`)
	b.run(t, "select the folder", chromedp.Click(chromedp.CSS(`.folder[data-path="/harbour"]`)))
	b.waitJS(t, "the upload target", `document.getElementById("upload-folder").textContent === "/harbour"`)

	b.run(t, "upload through the file input", chromedp.SetUploadFiles(chromedp.ID("file-input"), []string{photo, notes}))
	b.waitJS(t, "both uploads to finish", `document.querySelectorAll("#uploads .upload.done").length === 1 && document.querySelectorAll("#uploads .upload.failed").length === 1`)
	if msg := evalAs[string](t, b, `document.querySelector("#uploads .upload.failed").textContent`); !strings.Contains(msg, "notes.txt") || !strings.Contains(msg, "400") {
		t.Errorf("the failed upload says %q, want its name and the 400", msg)
	}
	b.waitJS(t, "the thumbnail", `(document.querySelector("#grid .thumb.loaded img") || {}).naturalWidth > 0`)

	list := ms.list(t, "folder=/harbour")
	if list.Total != 1 || list.Data[0].Filename != "harbour-view.jpg" {
		t.Fatalf("library after the upload: %+v", list)
	}
	it := list.Data[0]
	if src := evalAs[string](t, b, `document.querySelector("#grid .thumb img").getAttribute("src")`); src != it.Sizes[0].URL {
		t.Errorf("thumbnail src = %q, want the smallest derivative %q", src, it.Sizes[0].URL)
	}
	if !evalAs[bool](t, b, `document.querySelector("#grid .thumb canvas.placeholder") !== null`) {
		t.Error("no blurhash placeholder canvas under the thumbnail")
	}

	t.Run("Search", func(t *testing.T) {
		b.run(t, "search for nothing", chromedp.SendKeys(chromedp.ID("search"), "zebra"))
		b.waitJS(t, "no results", `document.getElementById("count").textContent === "0 items" && !document.getElementById("empty").hidden`)
		b.setValue(t, "search", "")
		b.run(t, "search for the photo", chromedp.SendKeys(chromedp.ID("search"), "harbour"))
		b.waitJS(t, "one result", `document.getElementById("count").textContent === "1 item" && document.querySelector("#grid .tile") !== null`)
		b.setValue(t, "type", "video")
		b.waitJS(t, "no videos", `document.getElementById("count").textContent === "0 items"`)
		b.setValue(t, "type", "image")
		b.waitJS(t, "the image", `document.getElementById("count").textContent === "1 item"`)
	})

	b.run(t, "open the item", chromedp.Click(chromedp.CSS("#grid .tile")))
	b.waitJS(t, "the detail image", `!document.getElementById("detail").hidden && document.getElementById("detail-img").complete && document.getElementById("detail-img").naturalWidth > 0`)
	b.setValue(t, "alt", "")
	b.run(t, "write alt text and a title", chromedp.SendKeys(chromedp.ID("alt"), "Boats in the harbour at dusk"),
		chromedp.SendKeys(chromedp.ID("title"), "Harbour"))
	type rect struct{ X, Y, W, H float64 }
	r := evalAs[rect](t, b, `(() => { const r = document.getElementById("detail-img").getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; })()`)
	b.run(t, "click the focal point", chromedp.MouseClickXY(r.X+0.25*r.W, r.Y+0.75*r.H))
	b.waitJS(t, "the crop previews to follow", `document.getElementById("crop-wide").style.objectPosition.startsWith("25")`)
	b.run(t, "save", chromedp.Click(chromedp.ID("save")))
	b.waitJS(t, "the save", `document.getElementById("detail-msg").textContent === "Saved."`)
	b.shot(t, "detail")

	got := decode[mItem](t, get(t, ms.URL+"/api/v1/media/"+it.ID, ms.read))
	if got.Alt != "Boats in the harbour at dusk" || got.Title != "Harbour" {
		t.Errorf("alt = %q, title = %q", got.Alt, got.Title)
	}
	if math.Abs(got.FocalX-25) > 1.5 || math.Abs(got.FocalY-75) > 1.5 {
		t.Errorf("focal point = (%v, %v), want about (25, 75)", got.FocalX, got.FocalY)
	}

	b.run(t, "ask to delete", chromedp.Click(chromedp.ID("delete")), chromedp.WaitVisible(chromedp.ID("confirm")))
	if r := get(t, ms.URL+"/api/v1/media/"+it.ID, ms.read); r.Status != http.StatusOK {
		t.Fatalf("the item went before the confirmation: %d", r.Status)
	}
	b.run(t, "confirm", chromedp.Click(chromedp.ID("confirm-delete")))
	b.waitJS(t, "the item to go", `document.getElementById("detail").hidden && document.querySelector("#grid .tile") === null`)
	wantError(t, get(t, ms.URL+"/api/v1/media/"+it.ID, ms.read), http.StatusNotFound, "NOT_FOUND")

	b.run(t, "delete the folder", chromedp.Click(chromedp.ID("folder-delete")))
	b.waitJS(t, "the folder to go", `document.querySelector('.folder[data-path="/harbour"]') === null`)
	if f := ms.list(t, "").Folders; len(f) != 1 || f[0] != "/" {
		t.Errorf("folders after the delete: %v", f)
	}

	t.Run("DropUpload", func(t *testing.T) {
		// A file dropped on the drop zone, as the browser hands it over: a
		// drop event whose DataTransfer holds a PNG the page draws itself.
		b.run(t, "open all media", chromedp.Click(chromedp.CSS(`.folder[data-path=""]`)))
		b.setValue(t, "search", "")
		b.waitJS(t, "the unfiltered grid", `document.getElementById("count").textContent === "0 items"`)
		evalAs[chromedp.Void](t, b, `new Promise(done => {
  const c = document.createElement("canvas"); c.width = 300; c.height = 200;
  const g = c.getContext("2d"); g.fillStyle = "#2a6"; g.fillRect(0, 0, 300, 200); g.fillStyle = "#fc3"; g.fillRect(40, 40, 80, 60);
  c.toBlob(blob => {
    const dt = new DataTransfer();
    dt.items.add(new File([blob], "dropped.png", {type: "image/png"}));
    document.getElementById("dropzone").dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
    done();
  }, "image/png");
})`)
		b.waitJS(t, "the dropped file's upload", `[...document.querySelectorAll("#uploads .upload.done")].some(li => li.textContent.includes("dropped.png"))`)
		b.waitJS(t, "its thumbnail", `[...document.querySelectorAll("#grid .tile")].some(t => t.textContent.includes("dropped.png") && t.querySelector(".thumb.loaded"))`)
		if l := ms.list(t, "search=dropped"); l.Total != 1 || l.Data[0].Folder != "/" || l.Data[0].Width != 300 {
			t.Errorf("after the drop: %+v", l)
		}
		b.run(t, "clear finished uploads", chromedp.Click(chromedp.ID("uploads-clear")))
		b.waitJS(t, "an empty upload list", `document.querySelectorAll("#uploads li").length === 0`)
	})

	b.run(t, "open the status tab", chromedp.Click(chromedp.ID("tab-status")))
	b.waitJS(t, "the status", `document.getElementById("status-list").textContent.includes(`+jsString(ms.Engine.Status().Commit)+`)`)
	b.shot(t, "status")
	b.check(t)
}

// TestAdminBlurhash: the page's blurhash decoder paints what the Go
// decoder does (github.com/buckket/go-blurhash), for the placeholders folio
// stores.
func TestAdminBlurhash(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	ts := startServer(t, newRepo(t, mediaSite).bare)
	b.run(t, "open the admin page", chromedp.Navigate(ts.URL+"/admin/"), chromedp.WaitVisible(chromedp.ID("key-form")))
	for _, hash := range []string{"LEHV6nWB2yk8pyo0adR*.7kCMdnj", "LGF5]+Yk^6#M@-5c,1J5@[or[Q6.", "00FFFF"} {
		const w, h = 12, 8
		got := evalAs[[]int](t, b, `import("./blurhash.js").then(m => Array.from(m.decode(`+jsString(hash)+`, 12, 8)))`)
		img, err := blurhash.Decode(hash, w, h, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != w*h*4 {
			t.Fatalf("%s: %d values, want %d", hash, len(got), w*h*4)
		}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				want := []int{int(r >> 8), int(g >> 8), int(bl >> 8)}
				for c := range 3 {
					if d := got[4*(y*w+x)+c] - want[c]; d < -2 || d > 2 {
						t.Fatalf("%s at (%d,%d): JS %v, Go %v", hash, x, y, got[4*(y*w+x):4*(y*w+x)+3], want)
					}
				}
			}
		}
	}
	b.check(t)
}

// TestAdminUIReadOnly: on a --read-only box the page shows the library and
// says why it offers no uploads or changes.
func TestAdminUIReadOnly(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	repo := newRepo(t, mediaSite)
	root, img := writtenRoot(t, repo.bare)
	ts := startServer(t, "file://"+repo.bare, withLocalMedia(t, root, readOnlyLib), readOnlyServer)
	key := ts.key(t, "all", server.ScopeMediaRead, server.ScopeMediaWrite, server.ScopeMediaDelete)

	b.run(t, "open the admin page", chromedp.Navigate(ts.URL+"/admin/"),
		chromedp.SendKeys(chromedp.ID("key-input"), key), chromedp.Click(chromedp.ID("key-use")))
	b.waitJS(t, "the library", `!document.getElementById("app").hidden && document.querySelector("#grid .tile") !== null`)
	if !evalAs[bool](t, b, `!document.getElementById("read-only-note").hidden`) {
		t.Error("no read-only note")
	}
	for _, id := range []string{"dropzone", "folder-form", "folder-delete"} {
		if evalAs[bool](t, b, `document.getElementById(`+jsString(id)+`).offsetParent !== null`) {
			t.Errorf("#%s shows on a read-only box", id)
		}
	}
	b.run(t, "open the item", chromedp.Click(chromedp.CSS(`#grid .tile[data-id=`+jsString(img.ID)+`]`)))
	b.waitJS(t, "the detail", `!document.getElementById("detail").hidden`)
	for _, id := range []string{"save", "delete"} {
		if evalAs[bool](t, b, `document.getElementById(`+jsString(id)+`).offsetParent !== null`) {
			t.Errorf("#%s shows on a read-only box", id)
		}
	}
	b.shot(t, "read-only")
	b.check(t)
}

// TestAdminUIMediaLocales drives the locale switcher of the detail panel in
// Chromium: the item's locales and the library's are offered, each locale
// keeps its own draft while the editor switches, a new locale is added by
// its tag (a bad tag is refused), and Save stores the unlocalized and the
// localized text (checked through the API).
func TestAdminUIMediaLocales(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	ms := newMediaServer(t)
	it := ms.uploadOK(t, filePart("boats.png", pngBytes(t, 120, 80)))[0]
	other := ms.uploadOK(t, filePart("other.png", pngBytes(t, 120, 80)))[0]
	if r := ms.patch(t, ms.write, it.ID, `{"alt":{"de":"Boote"},"title":"Boats"}`); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	if r := ms.patch(t, ms.write, other.ID, `{"title":{"es":"Otro"}}`); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	if r := ms.patch(t, ms.write, it.ID, `{"alt":"Boats"}`); r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}

	b.run(t, "open the admin page", chromedp.Navigate(ms.URL+"/admin/"),
		chromedp.SendKeys(chromedp.ID("key-input"), ms.all), chromedp.Click(chromedp.ID("key-use")))
	b.waitJS(t, "the library", `document.querySelector(`+jsString(`#grid .tile[data-id="`+it.ID+`"]`)+`) !== null`)
	b.run(t, "open the item", chromedp.Click(chromedp.CSS(`#grid .tile[data-id="`+it.ID+`"]`)))
	b.waitJS(t, "the detail", `!document.getElementById("detail").hidden && document.getElementById("alt").value === "Boats"`)
	// The library's locales (es from the other item) and the item's (de).
	if got := evalAs[[]string](t, b, `[...document.getElementById("detail-locale").options].map(o => o.value + "=" + o.textContent)`); strings.Join(got, ",") != "=Default (no locale),de=de ✓,es=es" {
		t.Errorf("locale options %q", got)
	}

	b.setValue(t, "detail-locale", "de")
	b.waitJS(t, "the German text", `document.getElementById("alt").value === "Boote" && document.getElementById("title").value === "" && document.getElementById("title").placeholder === "Boats"`)
	b.setValue(t, "alt", "")
	b.run(t, "write German alt text", chromedp.SendKeys(chromedp.ID("alt"), "Boote im Hafen"))

	b.run(t, "add a bad locale", chromedp.SendKeys(chromedp.ID("new-locale"), "not a tag!"), chromedp.Click(chromedp.ID("add-locale")))
	b.waitJS(t, "the refusal", `document.getElementById("detail-msg").textContent.includes("not a language tag")`)
	if n := evalAs[int](t, b, `document.getElementById("detail-locale").options.length`); n != 3 {
		t.Errorf("a bad tag was added: %d options", n)
	}
	b.setValue(t, "new-locale", "")
	b.run(t, "add fr-CA", chromedp.SendKeys(chromedp.ID("new-locale"), "FR-ca"), chromedp.Click(chromedp.ID("add-locale")))
	b.waitJS(t, "fr-CA to be current", `document.getElementById("detail-locale").value === "fr-CA" && document.getElementById("alt").value === "" && document.getElementById("alt").placeholder === "Boats"`)
	b.run(t, "write French text", chromedp.SendKeys(chromedp.ID("alt"), "Bateaux au port"), chromedp.SendKeys(chromedp.ID("description"), "Le soir."))

	// Back to German: the draft is kept.
	b.setValue(t, "detail-locale", "de")
	b.waitJS(t, "the German draft", `document.getElementById("alt").value === "Boote im Hafen"`)
	b.setValue(t, "detail-locale", "")
	b.waitJS(t, "the unlocalized text", `document.getElementById("alt").value === "Boats" && document.getElementById("alt").placeholder === ""`)
	b.setValue(t, "alt", "Boats in the harbour")
	b.shot(t, "locales")
	b.run(t, "save", chromedp.Click(chromedp.ID("save")))
	b.waitJS(t, "the save", `document.getElementById("detail-msg").textContent === "Saved."`)

	got := decode[locItem](t, get(t, ms.URL+"/api/v1/media/"+it.ID, ms.read))
	if got.Alt != "Boats in the harbour" || got.Title != "Boats" ||
		!reflect.DeepEqual(got.AltByLocale, map[string]string{"de": "Boote im Hafen", "fr-CA": "Bateaux au port"}) ||
		!reflect.DeepEqual(got.DescriptionByLocale, map[string]string{"fr-CA": "Le soir."}) || got.TitleByLocale != nil {
		t.Errorf("after save: %+v", got)
	}
	// The panel stays on the locale shown, now saved.
	if !evalAs[bool](t, b, `document.getElementById("detail-locale").value === "" && [...document.getElementById("detail-locale").options].some(o => o.value === "fr-CA" && o.textContent === "fr-CA ✓")`) {
		t.Error("the switcher after the save")
	}

	// Clearing a locale's text removes it.
	b.setValue(t, "detail-locale", "de")
	b.waitJS(t, "the German text", `document.getElementById("alt").value === "Boote im Hafen"`)
	b.setValue(t, "alt", "")
	b.run(t, "save", chromedp.Click(chromedp.ID("save")))
	b.waitJS(t, "the second save", `document.getElementById("detail-msg").textContent === "Saved." && document.getElementById("detail-locale").value === "de"`)
	got = decode[locItem](t, get(t, ms.URL+"/api/v1/media/"+it.ID, ms.read))
	if !reflect.DeepEqual(got.AltByLocale, map[string]string{"fr-CA": "Bateaux au port"}) || got.Alt != "Boats in the harbour" {
		t.Errorf("after clearing de: %+v", got)
	}
	b.check(t)
}
