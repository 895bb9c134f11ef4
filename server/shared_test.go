package server_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/s3"
	"github.com/folio-cms/folio/media/s3/s3test"
	"github.com/folio-cms/folio/server"
)

// sharedBox is a server whose media library shares the state area of the
// bucket cfg with every other sharedBox on it, as `folio serve --storage
// s3` does, but polls it only once an hour: what it knows of the other
// boxes' writes is only what a request makes it read.
func sharedBox(t *testing.T, site string, cfg s3.Config) *mediaServer {
	t.Helper()
	st, state := s3test.Open(t, cfg)
	root := t.TempDir()
	ts := startServer(t, site, func(_ *engine.Config, sc *server.Config) {
		lib, err := media.Open(context.Background(), media.Config{
			Root: root, Storage: st, MaxUploadBytes: media.DefaultMaxUploadCloud,
			State: state, PollInterval: time.Hour,
		})
		if err != nil {
			t.Fatalf("media.Open: %v", err)
		}
		t.Cleanup(func() { lib.Close() })
		sc.Media = lib
	})
	return &mediaServer{
		testServer: ts,
		root:       root,
		all:        ts.key(t, "media-all", server.ScopeMediaRead, server.ScopeMediaWrite, server.ScopeMediaDelete),
	}
}

func jsonReq(t *testing.T, ms *mediaServer, method, path, body string, header ...string) response {
	t.Helper()
	return do(t, method, ms.URL+path, ms.all, strings.NewReader(body), append([]string{"Content-Type", "application/json"}, header...)...)
}

// TestSharedWritesAcrossBoxes: behind a load balancer a client's next
// write may reach another box than its last one, before that box has
// polled the bucket. A write naming an item or a folder that box does not
// know yet catches up with the bucket before it answers 404.
func TestSharedWritesAcrossBoxes(t *testing.T) {
	t.Parallel()
	cfg := s3test.NewServer(t).NewBucket(t)
	site := newRepo(t, mediaSite).bare
	a := sharedBox(t, site, cfg)
	b := sharedBox(t, site, cfg)

	if r := jsonReq(t, a, "POST", "/api/v1/media/folders", `{"path":"/made-on-a"}`); r.Status != http.StatusCreated {
		t.Fatalf("create folder on a: %d %s", r.Status, r.Body)
	}
	// Upload on b into the folder a made.
	onB := b.uploadOK(t, fieldPart("folder", "/made-on-a"), filePart("b.png", pngBytes(t, 300, 200)))[0]
	if onB.Folder != "/made-on-a" {
		t.Fatalf("uploaded into %q", onB.Folder)
	}
	// PATCH on a the item b stored, into a folder that b makes.
	if r := jsonReq(t, b, "POST", "/api/v1/media/folders", `{"path":"/made-on-b"}`); r.Status != http.StatusCreated {
		t.Fatalf("create folder on b: %d %s", r.Status, r.Body)
	}
	r := jsonReq(t, a, "PATCH", "/api/v1/media/"+onB.ID, `{"alt":"patched on a","folder":"/made-on-b"}`)
	if r.Status != http.StatusOK {
		t.Fatalf("PATCH on a of the item uploaded on b: %d %s, want 200", r.Status, r.Body)
	}
	if it := decode[mItem](t, r); it.Alt != "patched on a" || it.Folder != "/made-on-b" {
		t.Fatalf("PATCH on a: %s", r.Body)
	}
	// A folder of a PATCH, on a box that knows the item but not the folder.
	if r := jsonReq(t, a, "POST", "/api/v1/media/folders", `{"path":"/later-on-a"}`); r.Status != http.StatusCreated {
		t.Fatalf("create folder on a: %d %s", r.Status, r.Body)
	}
	if r := jsonReq(t, b, "PATCH", "/api/v1/media/"+onB.ID, `{"folder":"/later-on-a"}`); r.Status != http.StatusOK {
		t.Fatalf("PATCH on b into a folder a made: %d %s, want 200", r.Status, r.Body)
	}
	// DELETE on b an item a stored.
	doomed := a.uploadOK(t, filePart("doomed.png", pngBytes(t, 300, 200)))[0]
	if r := do(t, "DELETE", b.URL+"/api/v1/media/"+doomed.ID, b.all, nil); r.Status != http.StatusOK {
		t.Fatalf("DELETE on b of the item uploaded on a: %d %s, want 200", r.Status, r.Body)
	}
	// A folder b deletes must be empty of what a put in it.
	if r := jsonReq(t, b, "POST", "/api/v1/media/folders", `{"path":"/busy"}`); r.Status != http.StatusCreated {
		t.Fatalf("create folder on b: %d %s", r.Status, r.Body)
	}
	a.uploadOK(t, fieldPart("folder", "/busy"), filePart("busy.png", pngBytes(t, 300, 200)))
	wantError(t, jsonReq(t, b, "DELETE", "/api/v1/media/folders", `{"path":"/busy"}`), http.StatusConflict, server.CodeConflict)
	// What is not in the bucket is still 404, with no write.
	wantError(t, jsonReq(t, a, "PATCH", "/api/v1/media/"+strings.Repeat("z", len(onB.ID)), `{"alt":"x"}`), http.StatusNotFound, server.CodeNotFound)
	wantError(t, jsonReq(t, a, "PATCH", "/api/v1/media/"+onB.ID, `{"folder":"/nowhere"}`), http.StatusNotFound, server.CodeNotFound)
	body, ct := multipartBody(fieldPart("folder", "/nowhere"), filePart("c.png", pngBytes(t, 300, 200)))
	wantError(t, do(t, "POST", b.URL+"/api/v1/media", b.all, bytes.NewReader(body), "Content-Type", ct), http.StatusNotFound, server.CodeNotFound)
}
