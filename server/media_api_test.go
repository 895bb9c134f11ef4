package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// createFolder POSTs a folder and wants 201.
func (ms *mediaServer) createFolder(t testing.TB, path string) {
	t.Helper()
	r := do(t, http.MethodPost, ms.URL+"/api/v1/media/folders", ms.write, strings.NewReader(`{"path":`+jsonString(path)+`}`), "Content-Type", "application/json")
	if r.Status != http.StatusCreated {
		t.Fatalf("create folder %s: %d %s", path, r.Status, r.Body)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (ms *mediaServer) patch(t testing.TB, key, id, body string, header ...string) response {
	t.Helper()
	h := append([]string{"Content-Type", "application/json"}, header...)
	return do(t, http.MethodPatch, ms.URL+"/api/v1/media/"+id, key, strings.NewReader(body), h...)
}

func (ms *mediaServer) getItem(t testing.TB, id string) (mItem, response) {
	t.Helper()
	r := get(t, ms.URL+"/api/v1/media/"+id, ms.read)
	if r.Status != http.StatusOK {
		t.Fatalf("get %s: %d %s", id, r.Status, r.Body)
	}
	return decode[mItem](t, r), r
}

// TestMediaUploadClientDisconnects: a client that sends one whole file and
// half of the next, then closes the connection, leaves no item, no file
// and no temp file once the server has noticed.
func TestMediaUploadClientDisconnects(t *testing.T) {
	// The library's change hook tells when the server has stored and
	// rolled back: the signal that it noticed the disconnects.
	var (
		mu               sync.Mutex
		created, deleted int
	)
	ms := newMediaServer(t, func(c *media.Config) {
		next := c.OnChange
		c.OnChange = func(it *media.Item, del bool) {
			mu.Lock()
			if del {
				deleted++
			} else if it.Version == 1 {
				created++
			}
			mu.Unlock()
			next(it, del)
		}
	})
	img := pngBytes(t, 200, 200)
	body, ct := multipartBody(filePart("first.png", img), filePart("second.png", img), filePart("third.png", img))
	for _, cut := range []int{len(body) / 2, len(img) / 2, len(body) - 10} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(ms.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST /api/v1/media HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", ms.write, ct, len(body))
		if _, err := conn.Write(body[:cut]); err != nil {
			t.Fatal(err)
		}
		conn.Close()
	}
	// Cut after the first file: one stored; cut in the closing boundary:
	// the first two stored. All are deleted again.
	eventually(t, "the cut uploads to be rolled back", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return created >= 3 && deleted == created
	})
	eventually(t, "no trace of the cut uploads", func() bool {
		if ms.list(t, "").Total != 0 {
			return false
		}
		for _, f := range ms.files(t) {
			if !isBookkeeping(f) {
				return false
			}
		}
		return true
	})
	// The server is fine afterwards.
	if items := ms.uploadOK(t, filePart("after.png", img)); len(items) != 1 {
		t.Fatal("no item")
	}
}

// seedMedia uploads a known set: images, a PDF, a video, in folders.
func seedMedia(t testing.TB, ms *mediaServer) map[string]mItem {
	t.Helper()
	ms.createFolder(t, "/blog")
	ms.createFolder(t, "/blog/2024")
	byName := map[string]mItem{}
	add := func(items []mItem) {
		for _, it := range items {
			byName[it.Filename] = it
		}
	}
	add(ms.uploadOK(t, fieldPart("alt", "Mountain lake at dawn"), filePart("alpine-lake.jpg", fixture(t, "alpine-lake.jpg"))))
	add(ms.uploadOK(t, filePart("forest-trail.png", fixture(t, "forest-trail.png")), filePart("zebra.gif", gifBytes(t, 30, 30))))
	add(ms.uploadOK(t, fieldPart("folder", "/blog"), filePart("guide.pdf", fixture(t, "gear-care-guide.pdf")), filePart("clip.mp4", fixture(t, "trail-timelapse.mp4"))))
	add(ms.uploadOK(t, fieldPart("folder", "/blog/2024"), filePart("campfire.webm", fixture(t, "campfire.webm"))))
	return byName
}

func ids(items []mItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Filename
	}
	return out
}

func TestMediaList(t *testing.T) {
	t.Parallel()
	ms := newMediaServer(t)
	seed := seedMedia(t, ms)

	all := ms.list(t, "")
	if all.Total != 6 || all.Limit != 24 || all.Offset != 0 || len(all.Data) != 6 {
		t.Fatalf("list: total %d limit %d offset %d len %d", all.Total, all.Limit, all.Offset, len(all.Data))
	}
	for _, f := range []string{"/", "/blog", "/blog/2024"} {
		if !slices.Contains(all.Folders, f) {
			t.Errorf("folders %v lacks %s", all.Folders, f)
		}
	}
	// Default: newest first.
	if all.Data[0].Filename != "campfire.webm" || all.Data[5].Filename != "alpine-lake.jpg" {
		t.Errorf("default order %v, want newest first", ids(all.Data))
	}
	for q, want := range map[string][]string{
		"type=image":                         {"alpine-lake.jpg", "forest-trail.png", "zebra.gif"},
		"type=document":                      {"guide.pdf"},
		"type=video":                         {"campfire.webm", "clip.mp4"},
		"folder=/blog":                       {"clip.mp4", "guide.pdf"},
		"folder=/blog/2024":                  {"campfire.webm"},
		"folder=/blog/&type=video":           {"clip.mp4"},
		"search=lake":                        {"alpine-lake.jpg"},
		"search=dawn":                        {"alpine-lake.jpg"}, // alt text
		"search=MOUNTAIN":                    {"alpine-lake.jpg"},
		"search=trail":                       {"forest-trail.png"},
		"search=nothing-like-it":             {},
		"sort=filename&order=asc":            {"alpine-lake.jpg", "campfire.webm", "clip.mp4", "forest-trail.png", "guide.pdf", "zebra.gif"},
		"sort=filename&order=asc&limit=2":    {"alpine-lake.jpg", "campfire.webm"},
		"sort=filename&order=asc&offset=4":   {"guide.pdf", "zebra.gif"},
		"sort=filename&offset=100":           {},
		"sort=filename":                      {"zebra.gif", "guide.pdf", "forest-trail.png", "clip.mp4", "campfire.webm", "alpine-lake.jpg"},
		"sort=createdAt&order=asc&limit=1":   {"alpine-lake.jpg"},
		"search=lake&sort=filename":          {"alpine-lake.jpg"},
		"type=image&sort=filename&order=asc": {"alpine-lake.jpg", "forest-trail.png", "zebra.gif"},
	} {
		l := ms.list(t, q)
		got := ids(l.Data)
		if got == nil {
			got = []string{}
		}
		if q == "type=image" || q == "type=video" || q == "folder=/blog" {
			slices.Sort(got)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", q, got, want)
		}
	}
	// sort=size orders by bytes.
	bySize := ms.list(t, "sort=size&order=asc").Data
	for i := 1; i < len(bySize); i++ {
		if bySize[i-1].Size > bySize[i].Size {
			t.Errorf("sort=size asc: %d before %d", bySize[i-1].Size, bySize[i].Size)
		}
	}
	// Pages echo the clamped limit and the offset.
	if l := ms.list(t, "limit=500&offset=1", outsideSpec, "clamped"); l.Limit != 100 || l.Offset != 1 || len(l.Data) != 5 {
		t.Errorf("limit=500: limit %d offset %d len %d", l.Limit, l.Offset, len(l.Data))
	}

	for _, q := range []string{"type=audio", "type=IMAGE", "sort=name", "sort=-size", "order=up", "limit=0", "limit=-1", "limit=x",
		"offset=-1", "offset=x", "folder=blog", "folder=/blog/../x", "folder=//", "search=" + strings.Repeat("a", 300)} {
		wantError(t, get(t, ms.URL+"/api/v1/media?"+q, ms.read), http.StatusBadRequest, "BAD_REQUEST")
	}
	wantError(t, get(t, ms.URL+"/api/v1/media?folder=/nope", ms.read), http.StatusNotFound, "NOT_FOUND")
	wantError(t, get(t, ms.URL+"/api/v1/media", ""), http.StatusUnauthorized, "UNAUTHORIZED")
	wantError(t, get(t, ms.URL+"/api/v1/media", ms.write), http.StatusForbidden, "FORBIDDEN")
	if r := get(t, ms.URL+"/api/v1/media", ms.read); r.Header.Get("Cache-Control") != "private, no-cache" || r.Header.Get("ETag") == "" {
		t.Errorf("list headers: %v", r.Header)
	}

	// One item: every field.
	lake := seed["alpine-lake.jpg"]
	_, r := ms.getItem(t, lake.ID)
	m := r.json(t)
	for _, f := range []string{"id", "filename", "mimeType", "size", "width", "height", "alt", "title", "description", "url", "folder", "focalX", "focalY", "createdAt", "sizes"} {
		if _, ok := m[f]; !ok {
			t.Errorf("GET /media/{id} lacks %q", f)
		}
	}
	if m["alt"] != "Mountain lake at dawn" || m["width"] != float64(1000) || m["height"] != float64(1600) {
		t.Errorf("item %s", r.Body)
	}
	if r.Header.Get("ETag") == "" || r.Header.Get("Cache-Control") != "private, no-cache" {
		t.Errorf("item headers %v", r.Header)
	}
	if r2 := get(t, ms.URL+"/api/v1/media/"+lake.ID, ms.read, "If-None-Match", r.Header.Get("ETag")); r2.Status != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", r2.Status)
	}
	for _, id := range []string{"nosuchitem0000000", "..%2f..%2fkeys.yaml", "..%2f..", "%2e%2e", "a%00b", strings.Repeat("x", 300)} {
		wantError(t, get(t, ms.URL+"/api/v1/media/"+id, ms.read), http.StatusNotFound, "NOT_FOUND")
	}
	wantError(t, get(t, ms.URL+"/api/v1/media/"+lake.ID, ""), http.StatusUnauthorized, "UNAUTHORIZED")
	wantError(t, get(t, ms.URL+"/api/v1/media/"+lake.ID, ms.del), http.StatusForbidden, "FORBIDDEN")
}

// TestMediaListDefaultLimit: 24 by default, 100 at most, pages add up.
func TestMediaListDefaultLimit(t *testing.T) {
	t.Parallel()
	ms := newMediaServer(t)
	img := pngBytes(t, 4, 4)
	var parts []part
	for i := range 130 {
		parts = append(parts, filePart(fmt.Sprintf("p%03d.png", i), img))
	}
	ms.uploadOK(t, parts...)
	if l := ms.list(t, ""); len(l.Data) != 24 || l.Total != 130 || l.Limit != 24 {
		t.Errorf("default page: %d items, total %d, limit %d", len(l.Data), l.Total, l.Limit)
	}
	if l := ms.list(t, "limit=1000", outsideSpec, "clamped"); len(l.Data) != 100 || l.Limit != 100 {
		t.Errorf("limit=1000: %d items, limit %d", len(l.Data), l.Limit)
	}
	seen := map[string]bool{}
	for off := 0; off < 130; off += 24 {
		for _, it := range ms.list(t, fmt.Sprintf("offset=%d", off)).Data {
			if seen[it.ID] {
				t.Errorf("%s on two pages", it.ID)
			}
			seen[it.ID] = true
		}
	}
	if len(seen) != 130 {
		t.Errorf("pages hold %d items, want 130", len(seen))
	}
	pub := decode[listRes](t, get(t, ms.URL+"/api/v1/public/media?limit=101", "", outsideSpec, "clamped"))
	if len(pub.Data) != 100 || pub.Limit != 100 || pub.Total != 130 {
		t.Errorf("public limit=101: %d items, limit %d, total %d", len(pub.Data), pub.Limit, pub.Total)
	}
}

var privateFields = []string{"size", "title", "description", "folder", "createdAt", "key", "version"}

func TestMediaPublic(t *testing.T) {
	t.Parallel()
	ms := newMediaServer(t)
	seed := seedMedia(t, ms)
	lake := seed["alpine-lake.jpg"]
	r := ms.patch(t, ms.write, lake.ID, `{"title":"Secret title","description":"Internal note"}`)
	if r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}

	r = get(t, ms.URL+"/api/v1/public/media", "")
	if r.Status != http.StatusOK {
		t.Fatalf("public list: %d %s", r.Status, r.Body)
	}
	if r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("no CORS header: %v", r.Header)
	}
	if r.Header.Get("ETag") == "" {
		t.Error("public list has no ETag")
	}
	if cc := r.Header.Get("Cache-Control"); cc != "public, max-age=60, stale-while-revalidate=60, stale-if-error=86400" {
		t.Errorf("public list Cache-Control %q", cc)
	}
	var raw struct {
		Data                 []map[string]any
		Total, Limit, Offset int
		Folders              []string
	}
	if err := json.Unmarshal(r.Body, &raw); err != nil {
		t.Fatal(err)
	}
	if raw.Total != 6 || raw.Limit != 24 || raw.Folders != nil {
		t.Errorf("public list: total %d limit %d folders %v", raw.Total, raw.Limit, raw.Folders)
	}
	checkPublic := func(m map[string]any) {
		t.Helper()
		for _, f := range []string{"id", "filename", "mimeType", "width", "height", "alt", "url", "focalX", "focalY", "sizes"} {
			if _, ok := m[f]; !ok {
				t.Errorf("public item lacks %q", f)
			}
		}
		for _, f := range privateFields {
			if _, ok := m[f]; ok {
				t.Errorf("public item shows %q", f)
			}
		}
	}
	for _, m := range raw.Data {
		checkPublic(m)
	}
	if strings.Contains(string(r.Body), "Secret title") || strings.Contains(string(r.Body), "Internal note") {
		t.Error("public list leaks title or description")
	}
	// Filters allowed without a key.
	for q, n := range map[string]int{"type=image": 3, "folder=/blog": 2, "limit=2&offset=5": 1} {
		l := decode[listRes](t, get(t, ms.URL+"/api/v1/public/media?"+q, ""))
		if len(l.Data) != n {
			t.Errorf("public %s: %d items, want %d", q, len(l.Data), n)
		}
	}
	// search, sort and order need a media:read key.
	for _, q := range []string{"search=lake", "sort=filename", "order=asc"} {
		wantError(t, get(t, ms.URL+"/api/v1/public/media?"+q, ""), http.StatusUnauthorized, "UNAUTHORIZED")
		wantError(t, get(t, ms.URL+"/api/v1/public/media?"+q, ms.write), http.StatusForbidden, "FORBIDDEN")
		rr := get(t, ms.URL+"/api/v1/public/media?"+q, ms.read)
		if rr.Status != http.StatusOK || !strings.HasPrefix(rr.Header.Get("Cache-Control"), "private") {
			t.Errorf("public %s with a key: %d %v", q, rr.Status, rr.Header.Get("Cache-Control"))
		}
	}
	if l := decode[listRes](t, get(t, ms.URL+"/api/v1/public/media?search=lake", ms.read)); len(l.Data) != 1 || l.Data[0].ID != lake.ID {
		t.Errorf("public search: %v", ids(l.Data))
	}
	for _, q := range []string{"type=audio", "limit=0", "offset=-3", "folder=nope"} {
		wantError(t, get(t, ms.URL+"/api/v1/public/media?"+q, ""), http.StatusBadRequest, "BAD_REQUEST")
	}
	wantError(t, get(t, ms.URL+"/api/v1/public/media?folder=/nope", ""), http.StatusNotFound, "NOT_FOUND")
	wantError(t, get(t, ms.URL+"/api/v1/public/media", "bogus"), http.StatusUnauthorized, "UNAUTHORIZED")
	// A valid key without media:read still reads the public list.
	if r := get(t, ms.URL+"/api/v1/public/media?type=image", ms.write); r.Status != http.StatusOK || len(decode[listRes](t, r).Data) != 3 {
		t.Errorf("public list with a media:write key: %d %s", r.Status, r.Body)
	}

	// Preflight.
	pre := do(t, http.MethodOptions, ms.URL+"/api/v1/public/media", "", nil, "Origin", "https://example.test", "Access-Control-Request-Method", "GET")
	if pre.Status != http.StatusNoContent || pre.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(pre.Header.Get("Access-Control-Allow-Methods"), "GET") {
		t.Errorf("preflight: %d %v", pre.Status, pre.Header)
	}
	pre = do(t, http.MethodOptions, ms.URL+"/api/v1/public/media/"+lake.ID, "", nil, "Origin", "https://example.test", "Access-Control-Request-Method", "GET")
	if pre.Status != http.StatusNoContent || pre.Header.Get("Access-Control-Allow-Methods") == "" {
		t.Errorf("preflight by id: %d %v", pre.Status, pre.Header)
	}

	// One item.
	r = get(t, ms.URL+"/api/v1/public/media/"+lake.ID, "")
	if r.Status != http.StatusOK {
		t.Fatalf("public item: %d %s", r.Status, r.Body)
	}
	checkPublic(r.json(t))
	if cc := r.Header.Get("Cache-Control"); cc != "public, max-age=3600, stale-while-revalidate=3600, stale-if-error=86400" {
		t.Errorf("Cache-Control %q", cc)
	}
	if r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Error("public item without CORS")
	}
	etag := r.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	r2 := get(t, ms.URL+"/api/v1/public/media/"+lake.ID, "", "If-None-Match", etag)
	if r2.Status != http.StatusNotModified || len(r2.Body) != 0 {
		t.Errorf("If-None-Match: %d %s", r2.Status, r2.Body)
	}
	// A change makes a new ETag.
	ms.patch(t, ms.write, lake.ID, `{"alt":"New alt"}`)
	r3 := get(t, ms.URL+"/api/v1/public/media/"+lake.ID, "", "If-None-Match", etag)
	if r3.Status != http.StatusOK || r3.Header.Get("ETag") == etag || !strings.Contains(string(r3.Body), "New alt") {
		t.Errorf("after a patch: %d etag %s", r3.Status, r3.Header.Get("ETag"))
	}
	for _, id := range []string{"nosuchitem000000", "..%2f..%2fkeys.yaml"} {
		r := get(t, ms.URL+"/api/v1/public/media/"+id, "")
		wantError(t, r, http.StatusNotFound, "NOT_FOUND")
	}
	// Writes are not on the public surface.
	r = do(t, http.MethodPost, ms.URL+"/api/v1/public/media", ms.all, nil)
	wantError(t, r, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
}

func TestMediaPatch(t *testing.T) {
	t.Parallel()
	ms := newMediaServer(t)
	it := ms.uploadOK(t, filePart("p.png", pngBytes(t, 50, 50)))[0]
	id := it.ID

	r := ms.patch(t, ms.write, id, `{"alt":"Alt","title":"Title","description":"Desc","focalX":0,"focalY":100}`)
	if r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	got := decode[mItem](t, r)
	if got.Alt != "Alt" || got.Title != "Title" || got.Description != "Desc" || got.FocalX != 0 || got.FocalY != 100 || got.ID != id || got.URL != it.URL {
		t.Errorf("patched item %s", r.Body)
	}
	etag := r.Header.Get("ETag")
	stored, gr := ms.getItem(t, id)
	if !itemsEqual(stored, got) {
		t.Errorf("GET after PATCH %+v, PATCH answered %+v", stored, got)
	}
	if gr.Header.Get("ETag") != etag {
		t.Errorf("PATCH ETag %s, GET ETag %s", etag, gr.Header.Get("ETag"))
	}

	// Folder: unknown 404; once created it works.
	wantError(t, ms.patch(t, ms.write, id, `{"folder":"/later"}`), http.StatusNotFound, "NOT_FOUND")
	ms.createFolder(t, "/later")
	if r := ms.patch(t, ms.write, id, `{"folder":"/later/"}`); r.Status != http.StatusOK || decode[mItem](t, r).Folder != "/later" {
		t.Errorf("move: %d %s", r.Status, r.Body)
	}

	before, br := ms.getItem(t, id)
	bad := map[string]string{
		`{"focalX":101}`:            "BAD_REQUEST",
		`{"focalX":-1}`:             "BAD_REQUEST",
		`{"focalY":100.0001}`:       "BAD_REQUEST",
		`{"focalY":-0.5,"alt":"x"}`: "BAD_REQUEST",
		`{"focalX":"50"}`:           "BAD_REQUEST",
		`{"alt":5}`:                 "BAD_REQUEST",
		`{"alt":null,"unknown":1}`:  "BAD_REQUEST",
		`{"Alt":"case"}`:            "",
		`not json`:                  "BAD_REQUEST",
		``:                          "BAD_REQUEST",
		`[]`:                        "BAD_REQUEST",
		`{"alt":"a"} {"alt":"b"}`:   "BAD_REQUEST",
		`{"folder":"no-slash"}`:     "BAD_REQUEST",
		`{"folder":"/a/../b"}`:      "BAD_REQUEST",
		`{"alt":"` + strings.Repeat("a", 1001) + `"}`: "BAD_REQUEST",
		`{"alt":"\ud800"}`:                            "",
	}
	for body, code := range bad {
		var lenient []string
		if code == "" {
			lenient = []string{outsideSpec, "accepted or refused"}
		}
		r := ms.patch(t, ms.write, id, body, lenient...)
		if code == "" {
			// Accepted or refused, but never a 5xx.
			if r.Status >= 500 {
				t.Errorf("%s: %d %s", body, r.Status, r.Body)
			}
			continue
		}
		if r.Status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400: %s", body, r.Status, r.Body)
			continue
		}
		wantError(t, r, http.StatusBadRequest, code)
	}
	// The lenient cases above may have changed alt; restore and compare
	// the rest.
	after, _ := ms.getItem(t, id)
	if after.FocalX != before.FocalX || after.FocalY != before.FocalY || after.Folder != before.Folder || after.Title != before.Title {
		t.Errorf("a refused PATCH changed the item: %+v → %+v", before, after)
	}
	wantError(t, do(t, http.MethodPatch, ms.URL+"/api/v1/media/"+id, ms.write, strings.NewReader(`{"alt":"x"}`), "Content-Type", "text/plain"), 400, "BAD_REQUEST")
	wantError(t, ms.patch(t, ms.write, id, `{"alt":"`+strings.Repeat("a", 70<<10)+`"}`), http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")

	// If-Match.
	cur, cr := ms.getItem(t, id)
	etag = cr.Header.Get("ETag")
	_ = br
	r = ms.patch(t, ms.write, id, `{"title":"With If-Match"}`, "If-Match", etag)
	if r.Status != http.StatusOK {
		t.Fatalf("If-Match current: %d %s", r.Status, r.Body)
	}
	wantError(t, ms.patch(t, ms.write, id, `{"title":"stale"}`, "If-Match", etag), http.StatusPreconditionFailed, "PRECONDITION_FAILED")
	wantError(t, ms.patch(t, ms.write, id, `{"title":"garbage"}`, "If-Match", `"nonsense"`), http.StatusPreconditionFailed, "PRECONDITION_FAILED")
	if r := ms.patch(t, ms.write, id, `{"title":"Any version"}`, "If-Match", "*"); r.Status != http.StatusOK {
		t.Errorf("If-Match *: %d %s", r.Status, r.Body)
	}
	// The public ETag of the current version is accepted too.
	pub := get(t, ms.URL+"/api/v1/public/media/"+id, "")
	if r := ms.patch(t, ms.write, id, `{"title":"Via public ETag"}`, "If-Match", pub.Header.Get("ETag")); r.Status != http.StatusOK {
		t.Errorf("If-Match with the public ETag: %d %s", r.Status, r.Body)
	}
	if now, _ := ms.getItem(t, id); now.Title != "Via public ETag" || cur.ID != now.ID {
		t.Errorf("title %q", now.Title)
	}

	// Who and what.
	wantError(t, ms.patch(t, "", id, `{"alt":"x"}`), 401, "UNAUTHORIZED")
	wantError(t, ms.patch(t, ms.read, id, `{"alt":"x"}`), 403, "FORBIDDEN")
	wantError(t, ms.patch(t, ms.write, "nosuchitem000000", `{"alt":"x"}`), 404, "NOT_FOUND")
	wantError(t, ms.patch(t, ms.write, "..%2f..%2fkeys.yaml", `{"alt":"x"}`), 404, "NOT_FOUND")
}

func itemsEqual(a, b mItem) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func TestMediaDelete(t *testing.T) {
	t.Parallel()
	ms := newMediaServer(t)
	items := ms.uploadOK(t, filePart("big.png", pngBytes(t, 900, 500)), filePart("keep.png", pngBytes(t, 20, 20)))
	it, keep := items[0], items[1]
	var paths []string
	paths = append(paths, ms.fileOf(t, it.URL))
	for _, s := range it.Sizes {
		paths = append(paths, ms.fileOf(t, s.URL))
	}
	sidecar := filepath.Join(ms.root, local.StateDir, "items", it.ID+".yaml")
	paths = append(paths, sidecar)
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("before delete: %v", err)
		}
	}
	url := ms.URL + "/api/v1/media/" + it.ID
	wantError(t, do(t, http.MethodDelete, url, "", nil), 401, "UNAUTHORIZED")
	wantError(t, do(t, http.MethodDelete, url, ms.write, nil), 403, "FORBIDDEN")
	wantError(t, do(t, http.MethodDelete, url, ms.read, nil), 403, "FORBIDDEN")
	r := do(t, http.MethodDelete, url, ms.del, nil)
	if r.Status != http.StatusOK || string(bytes.TrimSpace(r.Body)) != `{"success":true}` {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still on disk after delete", p)
		}
	}
	wantError(t, get(t, url, ms.read), 404, "NOT_FOUND")
	wantError(t, get(t, ms.URL+it.URL, ""), 404, "NOT_FOUND")
	wantError(t, do(t, http.MethodDelete, url, ms.del, nil), 404, "NOT_FOUND")
	wantError(t, do(t, http.MethodDelete, ms.URL+"/api/v1/media/..%2f..%2fkeys.yaml", ms.del, nil), 404, "NOT_FOUND")
	if l := ms.list(t, ""); l.Total != 1 || l.Data[0].ID != keep.ID {
		t.Errorf("list after delete: %v", ids(l.Data))
	}
	if l := ms.list(t, "search=big"); l.Total != 0 {
		t.Errorf("search still finds the deleted item")
	}
}

func TestMediaFolders(t *testing.T) {
	t.Parallel()
	ms := newMediaServer(t)
	url := ms.URL + "/api/v1/media/folders"
	folders := func() []string {
		t.Helper()
		r := get(t, url, ms.read)
		if r.Status != http.StatusOK {
			t.Fatalf("folders: %d %s", r.Status, r.Body)
		}
		return decode[struct{ Folders []string }](t, r).Folders
	}
	if f := folders(); !slices.Equal(f, []string{"/"}) {
		t.Errorf("empty library folders %v", f)
	}
	post := func(key, body string) response {
		return do(t, http.MethodPost, url, key, strings.NewReader(body), "Content-Type", "application/json")
	}
	del := func(key, body string) response {
		return do(t, http.MethodDelete, url, key, strings.NewReader(body), "Content-Type", "application/json")
	}
	r := post(ms.write, `{"path":"/a/b/c"}`)
	if r.Status != http.StatusCreated {
		t.Fatalf("create nested: %d %s", r.Status, r.Body)
	}
	created := decode[struct {
		Path    string
		Folders []string
	}](t, r)
	if created.Path != "/a/b/c" || !slices.Contains(created.Folders, "/a/b/c") {
		t.Errorf("create answered %s", r.Body)
	}
	if f := folders(); !slices.Equal(f, []string{"/", "/a", "/a/b", "/a/b/c"}) {
		t.Errorf("folders %v", f)
	}
	wantError(t, post(ms.write, `{"path":"/a/b/c"}`), 409, "CONFLICT")
	wantError(t, post(ms.write, `{"path":"/a/b/c/"}`), 409, "CONFLICT")
	wantError(t, post(ms.write, `{"path":"/"}`), 409, "CONFLICT")
	for _, p := range []string{"a", "", "/a/../b", "/./a", "//", "/a//b", "/a\u0001b", "/a\\b", "/" + strings.Repeat("x", 600), strings.Repeat("/d", 40)} {
		r := post(ms.write, `{"path":`+jsonString(p)+`}`)
		wantError(t, r, 400, "BAD_REQUEST")
	}
	for _, body := range []string{`not json`, `{"path":1}`, `{"path":"/x","extra":true}`, ``, `{}`, `{"path":""}`, `{"path":"  "}`, `{"path":null}`} {
		wantError(t, post(ms.write, body), 400, "BAD_REQUEST")
	}
	// A missing path is not "folder / already exists" (409).
	if r := post(ms.write, `{}`); !strings.Contains(string(r.Body), "path is required") {
		t.Errorf("create without path: %d %s", r.Status, r.Body)
	}
	wantError(t, post("", `{"path":"/x"}`), 401, "UNAUTHORIZED")
	wantError(t, post(ms.read, `{"path":"/x"}`), 403, "FORBIDDEN")
	if f := folders(); len(f) != 4 {
		t.Errorf("refused creates changed the folders: %v", f)
	}

	// Deletes.
	wantError(t, del(ms.del, `{"path":"/"}`), 400, "BAD_REQUEST")
	wantError(t, del(ms.del, `{"path":"/nope"}`), 404, "NOT_FOUND")
	wantError(t, del(ms.del, `{"path":"bad"}`), 400, "BAD_REQUEST")
	wantError(t, del(ms.del, `{"path":"/a/b"}`), 409, "CONFLICT") // has /a/b/c
	wantError(t, del(ms.write, `{"path":"/a/b/c"}`), 403, "FORBIDDEN")
	wantError(t, del("", `{"path":"/a/b/c"}`), 401, "UNAUTHORIZED")
	wantError(t, del(ms.del, `{}`), 400, "BAD_REQUEST")
	wantError(t, del(ms.del, `{"path":""}`), 400, "BAD_REQUEST")
	it := ms.uploadOK(t, fieldPart("folder", "/a/b/c"), filePart("in.png", pngBytes(t, 8, 8)))[0]
	wantError(t, del(ms.del, `{"path":"/a/b/c"}`), 409, "CONFLICT") // holds an item
	if r := ms.patch(t, ms.write, it.ID, `{"folder":"/"}`); r.Status != http.StatusOK {
		t.Fatalf("move out: %d %s", r.Status, r.Body)
	}
	r = del(ms.del, `{"path":"/a/b/c"}`)
	if r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	d := decode[struct {
		Success bool
		Folders []string
	}](t, r)
	if !d.Success || slices.Contains(d.Folders, "/a/b/c") {
		t.Errorf("delete answered %s", r.Body)
	}
	// ?path= for clients that send no body.
	r = do(t, http.MethodDelete, url+"?path=/a/b", ms.del, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("delete ?path=: %d %s", r.Status, r.Body)
	}
	wantError(t, do(t, http.MethodDelete, url+"?path=/", ms.del, nil), 400, "BAD_REQUEST")
	if f := folders(); !slices.Equal(f, []string{"/", "/a"}) {
		t.Errorf("folders %v", f)
	}
}
