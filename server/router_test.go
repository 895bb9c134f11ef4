package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/julienschmidt/httprouter"
)

// TestFoldStaticSiblings: static routes beside a parameter route (which
// httprouter cannot register) are served through it, by the parameter's
// value; other values reach the parameter route; a method only a static
// route answers is 405 for the other values.
func TestFoldStaticSiblings(t *testing.T) {
	t.Parallel()
	say := func(s string) httprouter.Handle {
		return func(w http.ResponseWriter, _ *http.Request, p httprouter.Params) {
			io.WriteString(w, s+p.ByName("id"))
		}
	}
	fixed := func(s string) httprouter.Handle {
		return func(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) { io.WriteString(w, s) }
	}
	routes := []routeHandle{
		{"GET", "/media/:id", say("item ")},
		{"PATCH", "/media/:id", say("patch ")},
		{"GET", "/media/folders", fixed("folders")},
		{"POST", "/media/presign", fixed("presign")},
		{"GET", "/pages/*slug", fixed("page")},
	}
	notAllowed := func(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
	folded := foldStaticSiblings(routes, notAllowed)
	if len(folded) != 4 { // GET, PATCH and POST of /media/:id, GET /pages/*slug
		t.Fatalf("%d routes: %+v", len(folded), folded)
	}
	rt := httprouter.New()
	for _, h := range folded {
		rt.Handle(h.method, h.path, h.h) // panics if a static sibling were left
	}
	srv := httptest.NewServer(rt)
	defer srv.Close()
	for _, tc := range []struct{ method, path, want string }{
		{"GET", "/media/abc", "item abc"},
		{"GET", "/media/folders", "folders"},
		{"PATCH", "/media/folders", "patch folders"}, // PATCH has no static sibling
		{"POST", "/media/presign", "presign"},
		{"POST", "/media/abc", "405"},
		{"GET", "/pages/a/b", "page"},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got := string(body)
		if resp.StatusCode == http.StatusMethodNotAllowed {
			got = "405"
		}
		if got != tc.want {
			t.Errorf("%s %s = %q, want %q", tc.method, tc.path, got, tc.want)
		}
	}
}
