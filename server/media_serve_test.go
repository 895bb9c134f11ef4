package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestMediaServeUploads(t *testing.T) {
	t.Parallel()
	ms := newMediaServer(t)
	pngData := pngBytes(t, 1000, 400)
	items := ms.uploadOK(t, filePart("shot.png", pngData), filePart("guide.pdf", fixture(t, "gear-care-guide.pdf")),
		filePart("clip.mp4", fixture(t, "trail-timelapse.mp4")))
	shot := items[0]

	types := map[string]string{"shot.png": "image/png", "guide.pdf": "application/pdf", "clip.mp4": "video/mp4"}
	for _, it := range items {
		r := get(t, ms.URL+it.URL, "")
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", it.URL, r.Status, r.Body)
		}
		if ct := r.Header.Get("Content-Type"); ct != types[it.Filename] {
			t.Errorf("%s: Content-Type %q", it.URL, ct)
		}
		if r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", it.URL)
		}
		if cc := r.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable, stale-if-error=86400" {
			t.Errorf("%s: Cache-Control %q", it.URL, cc)
		}
		if int64(len(r.Body)) != it.Size {
			t.Errorf("%s: %d bytes, item says %d", it.URL, len(r.Body), it.Size)
		}
		if r.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: no CORS", it.URL)
		}
	}
	if got := get(t, ms.URL+shot.URL, "").Body; !bytes.Equal(got, pngData) {
		t.Error("the original is not served byte for byte")
	}
	for _, s := range shot.Sizes {
		r := get(t, ms.URL+s.URL, "")
		if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "image/webp" || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("derivative %s: %d %v", s.URL, r.Status, r.Header)
		}
	}

	// Ranges.
	r := get(t, ms.URL+shot.URL, "", "Range", "bytes=0-9")
	if r.Status != http.StatusPartialContent || len(r.Body) != 10 || !bytes.Equal(r.Body, pngData[:10]) {
		t.Errorf("range: %d, %d bytes", r.Status, len(r.Body))
	}
	if cr := r.Header.Get("Content-Range"); cr != fmt.Sprintf("bytes 0-9/%d", len(pngData)) {
		t.Errorf("Content-Range %q", cr)
	}
	r = get(t, ms.URL+shot.URL, "", "Range", "bytes=-5")
	if r.Status != http.StatusPartialContent || !bytes.Equal(r.Body, pngData[len(pngData)-5:]) {
		t.Errorf("suffix range: %d", r.Status)
	}
	if r := get(t, ms.URL+shot.URL, "", "Range", fmt.Sprintf("bytes=%d-", len(pngData)+10)); r.Status != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("range past the end: %d", r.Status)
	}
	// Conditional GET on the file's ETag.
	etag := get(t, ms.URL+shot.URL, "").Header.Get("ETag")
	if r := get(t, ms.URL+shot.URL, "", "If-None-Match", etag); etag == "" || r.Status != http.StatusNotModified {
		t.Errorf("If-None-Match on a file: etag %q status %d", etag, r.Status)
	}
	if r := do(t, http.MethodHead, ms.URL+shot.URL, "", nil); r.Status != http.StatusOK || len(r.Body) != 0 {
		t.Errorf("HEAD: %d", r.Status)
	}

	// Never a sidecar, dotfile, directory or anything outside the root.
	dir := strings.TrimSuffix(shot.URL, "shot.png") // /uploads/yyyy/mm/
	outside := filepath.Join(filepath.Dir(ms.root), "secret.png")
	if err := os.WriteFile(outside, pngData, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(ms.fileOf(t, dir+"x"), "..", "link.png")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		dir + ".meta/shot.png.yaml", dir + ".meta/", dir + "%2emeta/shot.png.yaml", "/uploads/.folders.yaml", "/uploads/.tmp/",
		"/uploads/.state/folders.yaml", "/uploads/.state/items/", "/uploads/%2estate/folders.yaml", "/uploads/.state/.writer",
		"/uploads/", "/uploads", dir, strings.TrimSuffix(dir, "/"), "/uploads/2026/", "/uploads/../keys.yaml", "/uploads/%2e%2e/keys.yaml",
		"/uploads/..%2fsecret.png", "/uploads/%2e%2e%2fsecret.png", "/uploads/..%5csecret.png", dir + "link.png",
		dir + "shot.png%00.png", dir + "shot.png/", dir + "SHOT.PNG.yaml", dir + "nosuch.png", "/uploads/" + strings.Repeat("a/", 600) + "x.png",
	} {
		r := get(t, ms.URL+p, "")
		if r.Status != http.StatusNotFound && r.Status != http.StatusBadRequest {
			t.Errorf("GET %s: %d %s", p, r.Status, r.Body)
			continue
		}
		if strings.Contains(string(r.Body), "id:") || bytes.Contains(r.Body, pngData[:8]) {
			t.Errorf("GET %s leaked content: %s", p, r.Body)
		}
	}
	wantError(t, do(t, http.MethodPost, ms.URL+shot.URL, ms.all, nil), http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
	wantError(t, do(t, http.MethodDelete, ms.URL+shot.URL, ms.all, nil), http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
}

// TestMediaServeSVG: scripts and handlers are removed on upload; the file
// is served with a sandboxing Content-Security-Policy.
func TestMediaServeSVG(t *testing.T) {
	t.Parallel()
	ms := newMediaServer(t)
	svg := `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="120" height="80" onload="alert(1)">
  <script type="text/javascript">alert(document.cookie)</script>
  <rect width="120" height="80" fill="#3a7" onclick="steal()"/>
  <a xlink:href="javascript:alert(2)"><text x="10" y="40">hi</text></a>
  <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>
  <image href="https://evil.test/track.png" width="1" height="1"/>
</svg>`
	it := ms.uploadOK(t, filePart("logo.svg", []byte(svg)))[0]
	if it.MimeType != "image/svg+xml" || it.Width != 120 || it.Height != 80 {
		t.Errorf("svg item %+v", it)
	}
	r := get(t, ms.URL+it.URL, "")
	if r.Status != http.StatusOK {
		t.Fatalf("GET svg: %d", r.Status)
	}
	low := strings.ToLower(string(r.Body))
	for _, bad := range []string{"<script", "onload", "onclick", "javascript:", "foreignobject", "evil.test", "alert("} {
		if strings.Contains(low, bad) {
			t.Errorf("served SVG still holds %q:\n%s", bad, r.Body)
		}
	}
	if !strings.Contains(low, "<rect") {
		t.Errorf("sanitising dropped the drawing:\n%s", r.Body)
	}
	csp := r.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "sandbox") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("SVG CSP %q", csp)
	}
	if r.Header.Get("Content-Type") != "image/svg+xml" || r.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("SVG headers %v", r.Header)
	}
	if int64(len(r.Body)) != it.Size {
		t.Errorf("size %d, served %d", it.Size, len(r.Body))
	}
	// An SVG that is only a script carrier, or not well-formed, is refused.
	res := decode[uploadRes](t, ms.upload(t, ms.write, filePart("bad.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>`))))
	if len(res.Errors) != 1 {
		t.Errorf("malformed SVG: %+v", res)
	}
}

// TestMediaRestart: a second server on the same media root serves the
// same items, and search works (the index is rebuilt from the sidecars).
func TestMediaRestart(t *testing.T) {
	t.Parallel()
	site := newRepo(t, mediaSite).bare
	root := t.TempDir()
	var before []mItem
	t.Run("first", func(t *testing.T) {
		ms := startMediaServer(t, site, root)
		ms.createFolder(t, "/kept")
		ms.uploadOK(t, fieldPart("alt", "Glacier view"), filePart("alpine-lake.jpg", fixture(t, "alpine-lake.jpg")))
		ms.uploadOK(t, fieldPart("folder", "/kept"), filePart("doc.pdf", fixture(t, "gear-care-guide.pdf")), filePart("map.svg", fixture(t, "trail-map.svg")))
		gone := ms.uploadOK(t, filePart("gone.png", pngBytes(t, 500, 500)))[0]
		if r := do(t, http.MethodDelete, ms.URL+"/api/v1/media/"+gone.ID, ms.del, nil); r.Status != http.StatusOK {
			t.Fatalf("delete: %d", r.Status)
		}
		ms.createFolder(t, "/empty")
		l := ms.list(t, "sort=filename&order=asc")
		lake := l.Data[0]
		if r := ms.patch(t, ms.write, lake.ID, `{"title":"T","focalX":10}`); r.Status != http.StatusOK {
			t.Fatal(r.Status)
		}
		before = ms.list(t, "sort=filename&order=asc").Data
	})
	t.Run("second", func(t *testing.T) {
		ms := startMediaServer(t, site, root)
		after := ms.list(t, "sort=filename&order=asc")
		if len(after.Data) != len(before) || len(before) != 3 {
			t.Fatalf("%d items after restart, %d before", len(after.Data), len(before))
		}
		for i := range before {
			if !itemsEqual(before[i], after.Data[i]) {
				t.Errorf("item changed across restart:\n%+v\n%+v", before[i], after.Data[i])
			}
			if r := get(t, ms.URL+after.Data[i].URL, ""); r.Status != http.StatusOK {
				t.Errorf("%s not served after restart: %d", after.Data[i].URL, r.Status)
			}
		}
		for _, f := range []string{"/", "/kept", "/empty"} {
			found := false
			for _, x := range after.Folders {
				found = found || x == f
			}
			if !found {
				t.Errorf("folder %s lost: %v", f, after.Folders)
			}
		}
		if l := ms.list(t, "search=glacier"); l.Total != 1 || l.Data[0].Filename != "alpine-lake.jpg" {
			t.Errorf("search by alt after restart: %v", ids(l.Data))
		}
		if l := ms.list(t, "search=doc"); l.Total != 1 {
			t.Errorf("search by filename after restart: %v", ids(l.Data))
		}
		if l := ms.list(t, "search=gone"); l.Total != 0 {
			t.Errorf("deleted item found after restart")
		}
		// Writes go on where they left off: a new upload of the same name
		// gets a fresh one.
		it := ms.uploadOK(t, filePart("doc.pdf", fixture(t, "gear-care-guide.pdf")))[0]
		if it.Filename == "doc.pdf" {
			t.Errorf("a new upload took the name of an existing item")
		}
	})
}

// TestMediaConcurrent: concurrent PATCHes of different fields of one item,
// uploads and deletes; every acknowledged write is visible afterwards.
// Run with -race.
func TestMediaConcurrent(t *testing.T) {
	t.Parallel()
	ms := newMediaServer(t)
	target := ms.uploadOK(t, filePart("target.png", pngBytes(t, 40, 40)))[0]
	var victims []mItem
	for i := range 6 {
		victims = append(victims, ms.uploadOK(t, filePart(fmt.Sprintf("victim%d.png", i), pngBytes(t, 10+i, 10)))...)
	}
	const rounds = 8
	fields := []string{"alt", "title", "description", "focalX", "focalY"}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		last     = map[string]string{} // field → last acknowledged value
		uploaded []string
		deleted  []string
		errs     []string
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		errs = append(errs, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	for _, f := range fields {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				v := fmt.Sprintf("%q", fmt.Sprintf("%s-%d", f, i))
				if strings.HasPrefix(f, "focal") {
					v = fmt.Sprint(10 + i)
				}
				r := ms.patch(t, ms.write, target.ID, fmt.Sprintf(`{%q:%s}`, f, v))
				if r.Status != http.StatusOK {
					fail("patch %s: %d %s", f, r.Status, r.Body)
					continue
				}
				mu.Lock()
				last[f] = v
				mu.Unlock()
			}
		}()
	}
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds / 2 {
				r := ms.upload(t, ms.write, filePart(fmt.Sprintf("up-%d-%d.png", g, i), pngBytes(t, 20, 20)), filePart("same.png", pngBytes(t, 21, 21)))
				if r.Status != http.StatusCreated {
					fail("upload: %d %s", r.Status, r.Body)
					continue
				}
				for _, it := range decode[uploadRes](t, r).Data {
					mu.Lock()
					uploaded = append(uploaded, it.ID)
					mu.Unlock()
				}
			}
		}()
	}
	for _, v := range victims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := do(t, http.MethodDelete, ms.URL+"/api/v1/media/"+v.ID, ms.del, nil)
			if r.Status != http.StatusOK {
				fail("delete: %d %s", r.Status, r.Body)
				return
			}
			mu.Lock()
			deleted = append(deleted, v.ID)
			mu.Unlock()
		}()
	}
	// Readers alongside.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range rounds * 2 {
			if r := get(t, ms.URL+"/api/v1/media?search=up&limit=100", ms.read); r.Status != http.StatusOK {
				fail("list: %d", r.Status)
			}
			if r := get(t, ms.URL+"/api/v1/public/media/"+target.ID, ""); r.Status != http.StatusOK {
				fail("public get: %d", r.Status)
			}
		}
	}()
	wg.Wait()
	for _, e := range errs {
		t.Error(e)
	}

	_, r := ms.getItem(t, target.ID)
	m := r.json(t)
	for f, v := range last {
		if got := fmt.Sprint(m[f]); strings.Trim(v, `"`) != got {
			t.Errorf("%s = %s, last acknowledged %s", f, got, v)
		}
	}
	for _, id := range uploaded {
		it, _ := ms.getItem(t, id)
		if r := get(t, ms.URL+it.URL, ""); r.Status != http.StatusOK {
			t.Errorf("uploaded %s not served", it.URL)
		}
	}
	for _, id := range deleted {
		wantError(t, get(t, ms.URL+"/api/v1/media/"+id, ms.read), http.StatusNotFound, "NOT_FOUND")
	}
	l := ms.list(t, "limit=100")
	if want := 1 + len(victims) - len(deleted) + len(uploaded); l.Total != want {
		t.Errorf("total %d, want %d", l.Total, want)
	}
	// Names stay unique under concurrency.
	seen := map[string]bool{}
	for _, it := range l.Data {
		if seen[it.URL] {
			t.Errorf("two items at %s", it.URL)
		}
		seen[it.URL] = true
	}
}
