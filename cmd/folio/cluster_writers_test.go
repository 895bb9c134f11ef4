package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// jsonBody is a JSON request body and its Content-Type header.
func jsonBody(s string) (io.Reader, string, string) {
	return strings.NewReader(s), "Content-Type", "application/json"
}

// TestClusterWritesAcrossWriters: behind a load balancer, one client's
// consecutive writes land on different writing boxes. Each write that
// names something an earlier write made on the other box must find it
// there, whether or not the box has polled the bucket since: the boxes
// here poll once an hour, so only what a write itself reads from the
// bucket counts.
func TestClusterWritesAcrossWriters(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts versitygw and two folio processes")
	}
	c := newCluster(t)
	key := c.key
	w1 := c.start("writer1", "--media-poll", "1h")
	known := upload(t, w1, key, pngFile(t, "known.png", 400, 300), "image/png", "")
	w2 := c.start("writer2", "--media-poll", "1h")
	if r := w2.must(t, "GET", "/api/v1/media/"+known.ID, key, nil); r.status != http.StatusOK {
		t.Fatalf("a box started after an upload does not serve it: %d %s", r.status, r.body)
	}

	t.Run("upload into a folder made on the other box", func(t *testing.T) {
		body, h, v := jsonBody(`{"path":"/made-on-2"}`)
		if r := w2.must(t, "POST", "/api/v1/media/folders", key, body, h, v); r.status != http.StatusCreated {
			t.Fatalf("create folder on writer2: %d %s", r.status, r.body)
		}
		mp, ct := multipartUpload(t, pngFile(t, "into.png", 300, 200), "image/png", "/made-on-2")
		if r := w1.must(t, "POST", "/api/v1/media", key, mp, "Content-Type", ct); r.status != http.StatusCreated {
			t.Errorf("upload on writer1 into the folder writer2 made: %d %s, want 201", r.status, r.body)
		}
	})
	t.Run("PATCH and DELETE an item uploaded on the other box", func(t *testing.T) {
		it := upload(t, w2, key, pngFile(t, "fresh.png", 300, 200), "image/png", "")
		body, h, v := jsonBody(`{"alt":"patched on writer1"}`)
		if r := w1.must(t, "PATCH", "/api/v1/media/"+it.ID, key, body, h, v); r.status != http.StatusOK {
			t.Errorf("PATCH on writer1 of an item uploaded on writer2: %d %s, want 200", r.status, r.body)
		}
		it2 := upload(t, w2, key, pngFile(t, "doomed.png", 300, 200), "image/png", "")
		if r := w1.must(t, "DELETE", "/api/v1/media/"+it2.ID, key, nil); r.status != http.StatusOK {
			t.Errorf("DELETE on writer1 of an item uploaded on writer2: %d %s, want 200", r.status, r.body)
		}
	})
	t.Run("If-Match with the ETag the other box answered", func(t *testing.T) {
		body, h, v := jsonBody(`{"alt":"first, on writer1"}`)
		r := w1.must(t, "PATCH", "/api/v1/media/"+known.ID, key, body, h, v)
		if r.status != http.StatusOK {
			t.Fatalf("PATCH on writer1: %d %s", r.status, r.body)
		}
		etag := r.header.Get("ETag")
		body, h, v = jsonBody(`{"alt":"second, on writer2"}`)
		if r := w2.must(t, "PATCH", "/api/v1/media/"+known.ID, key, body, h, v, "If-Match", etag); r.status != http.StatusOK {
			t.Errorf("PATCH on writer2 with If-Match %s (the current version, from writer1): %d %s, want 200", etag, r.status, r.body)
		}
	})
	t.Run("delete a folder the other box just uploaded into", func(t *testing.T) {
		body, h, v := jsonBody(`{"path":"/busy"}`)
		if r := w2.must(t, "POST", "/api/v1/media/folders", key, body, h, v); r.status != http.StatusCreated {
			t.Fatalf("create folder on writer2: %d %s", r.status, r.body)
		}
		it := upload(t, w2, key, pngFile(t, "busy.png", 300, 200), "image/png", "/busy")
		body, h, v = jsonBody(`{"path":"/busy"}`)
		if r := w1.must(t, "DELETE", "/api/v1/media/folders", key, body, h, v); r.status != http.StatusConflict {
			t.Errorf("DELETE on writer1 of the folder /busy that writer2 uploaded %s into: %d %s, want 409", it.ID, r.status, r.body)
		}
	})
}
