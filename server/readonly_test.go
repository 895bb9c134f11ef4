package server_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/fixtures/testkit"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/server"
)

// readOnlyLib opens the test's media library read-only.
func readOnlyLib(c *media.Config) { c.ReadOnly = true }

// readOnlyServer makes the server itself read-only.
func readOnlyServer(_ *engine.Config, c *server.Config) { c.ReadOnly = true }

// concretePath fills a route pattern's parameters: :id with id, any other
// parameter with "x".
func concretePath(pattern, id string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		switch {
		case s == ":id":
			segs[i] = id
		case strings.HasPrefix(s, ":"), strings.HasPrefix(s, "*"):
			segs[i] = "x"
		}
	}
	return strings.Join(segs, "/")
}

// writtenRoot is a media root that a normal (writing) server filled: a
// folder, an image with derivatives and a PDF. It returns the root and the
// image's item.
func writtenRoot(t *testing.T, site string) (string, mItem) {
	t.Helper()
	root := t.TempDir()
	var img mItem
	t.Run("writer", func(t *testing.T) {
		ms := startMediaServer(t, site, root)
		ms.createFolder(t, "/kept")
		img = ms.uploadOK(t, fieldPart("alt", "Glacier view"), filePart("lake.png", pngBytes(t, 900, 600)))[0]
		ms.uploadOK(t, fieldPart("folder", "/kept"), filePart("guide.pdf", fixture(t, "gear-care-guide.pdf")))
	})
	if t.Failed() {
		t.FailNow()
	}
	// What a writer leaves besides the media (its temporary folder and
	// index cache) goes, as on a root copied without them: a library
	// opened for writing would make them again, so the checks that the
	// root stays unchanged catch a box that writes. The names are the
	// media package's; if they change this only weakens those checks.
	for _, name := range []string{".tmp", ".index.cache"} {
		if err := os.RemoveAll(filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root, img
}

// TestReadOnly: a read-only server on a media root that a writing server
// filled refuses every write route of the table (iterated, so a route
// added later is covered) with 405 READ_ONLY, with or without a key, before
// the key is checked; it serves every GET, /uploads/ and the webhook; an
// unknown route is still 404 and an unknown method still 405
// METHOD_NOT_ALLOWED; and the media root is left exactly as it was.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, mediaSite)
	root, img := writtenRoot(t, repo.bare)
	before := testkit.Tree(t, root)

	const secret = "hook-secret"
	ts := startServer(t, "file://"+repo.bare, withLocalMedia(t, root, readOnlyLib), readOnlyServer,
		func(e *engine.Config, s *server.Config) { e.Poll = 0; s.WebhookSecret = secret })
	all := ts.key(t, "all", server.ScopeContentRead, server.ScopeMediaRead, server.ScopeMediaWrite, server.ScopeMediaDelete)
	table := ts.Handler.(*server.Server).Table()

	t.Run("writes refused", func(t *testing.T) {
		writes := 0
		for _, rte := range table {
			if !rte.Writes {
				continue
			}
			writes++
			url := ts.URL + concretePath(rte.Path, img.ID)
			for _, key := range []string{"", all, "folio_not-a-key"} {
				r := do(t, rte.Method, url, key, strings.NewReader(`{"path":"/new","alt":"x"}`), "Content-Type", "application/json")
				if r.Status != http.StatusMethodNotAllowed {
					t.Errorf("%s %s (key %t): %d %s, want 405 READ_ONLY", rte.Method, rte.Path, key != "", r.Status, r.Body)
					continue
				}
				wantError(t, r, http.StatusMethodNotAllowed, server.CodeReadOnly)
				if msg := string(r.Body); !strings.Contains(msg, "read-only") || !strings.Contains(msg, "without --read-only") {
					t.Errorf("%s %s: message does not say where writes go: %s", rte.Method, rte.Path, msg)
				}
				if _, ok := r.Header["Allow"]; !ok {
					t.Errorf("%s %s: 405 without Allow", rte.Method, rte.Path)
				}
				if strings.Contains(r.Header.Get("Allow"), rte.Method) {
					t.Errorf("%s %s: Allow %q names the refused method", rte.Method, rte.Path, r.Header.Get("Allow"))
				}
			}
		}
		// POST, PATCH, DELETE of media, folders (2), presign, confirm.
		if writes < 7 {
			t.Fatalf("only %d write routes in the table: %+v", writes, table)
		}
		// The upload route shares its path with the list.
		r := do(t, http.MethodPost, ts.URL+"/api/v1/media", all, nil)
		if got := r.Header.Get("Allow"); got != "GET, HEAD, OPTIONS" {
			t.Errorf("Allow on POST /api/v1/media = %q, want GET, HEAD, OPTIONS", got)
		}
		// OPTIONS lists only what the box serves.
		if r := do(t, http.MethodOptions, ts.URL+"/api/v1/media/"+img.ID, "", nil); r.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("OPTIONS /api/v1/media/{id}: %d Allow %q", r.Status, r.Header.Get("Allow"))
		}
	})

	t.Run("unknown routes and methods", func(t *testing.T) {
		wantError(t, do(t, http.MethodPost, ts.URL+"/api/v1/nothing", all, nil), http.StatusNotFound, server.CodeNotFound)
		wantError(t, get(t, ts.URL+"/nothing", ""), http.StatusNotFound, server.CodeNotFound)
		r := do(t, http.MethodPut, ts.URL+"/api/v1/media", all, nil)
		wantError(t, r, http.StatusMethodNotAllowed, server.CodeMethodNotAllowed)
		if got := r.Header.Get("Allow"); got != "GET, HEAD, OPTIONS" {
			t.Errorf("Allow on PUT /api/v1/media = %q, want GET, HEAD, OPTIONS", got)
		}
	})

	t.Run("reads served", func(t *testing.T) {
		for _, rte := range table {
			if rte.Writes || rte.Method != http.MethodGet {
				continue
			}
			r := get(t, ts.URL+concretePath(rte.Path, img.ID), all)
			if r.Status == http.StatusMethodNotAllowed || r.Status >= 500 {
				t.Errorf("GET %s: %d %s", rte.Path, r.Status, r.Body)
			}
		}
		l := decode[listRes](t, get(t, ts.URL+"/api/v1/media?sort=filename&order=asc", all))
		if got := strings.Join(ids(l.Data), ","); got != "guide.pdf,lake.png" {
			t.Fatalf("items on the read-only box: %s", got)
		}
		if !strings.Contains(strings.Join(l.Folders, ","), "/kept") {
			t.Errorf("folders: %v", l.Folders)
		}
		if l := decode[listRes](t, get(t, ts.URL+"/api/v1/media?search=glacier", all)); l.Total != 1 {
			t.Errorf("search on the read-only box: %d hits", l.Total)
		}
		got := decode[mItem](t, get(t, ts.URL+"/api/v1/public/media/"+img.ID, ""))
		if got.URL != img.URL || len(got.Sizes) == 0 {
			t.Fatalf("public item: %+v", got)
		}
		for _, u := range append([]string{got.URL}, got.Sizes[0].URL) {
			if r := get(t, ts.URL+u, ""); r.Status != http.StatusOK || len(r.Body) == 0 {
				t.Errorf("GET %s: %d", u, r.Status)
			}
		}
	})

	t.Run("status", func(t *testing.T) {
		st := get(t, ts.URL+"/api/v1/status", all).json(t)
		if st["readOnly"] != true {
			t.Errorf("status readOnly = %v, want true", st["readOnly"])
		}
		if st["commit"] == "" || st["branch"] != "main" || st["problems"] == nil {
			t.Errorf("status lost the engine's fields: %v", st)
		}
	})

	t.Run("webhook fetches", func(t *testing.T) {
		repo.commit("edit", map[string]string{"pages/home.md": "---\ntitle: Hooked\nisHomepage: true\n---\n"})
		body := `{"ref":"refs/heads/main"}`
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(body))
		r := do(t, http.MethodPost, ts.URL+"/api/v1/hooks/git", "", strings.NewReader(body),
			"Content-Type", "application/json", "X-Hub-Signature-256", "sha256="+hex.EncodeToString(m.Sum(nil)))
		if r.Status != http.StatusAccepted {
			t.Fatalf("webhook on a read-only box: %d %s", r.Status, r.Body)
		}
		eventually(t, "the webhook-triggered fetch", func() bool {
			return get(t, ts.URL+"/api/v1/pages/home", all).json(t)["title"] == "Hooked"
		})
	})

	if d := testkit.DiffTrees(before, testkit.Tree(t, root)); len(d) > 0 {
		t.Errorf("the read-only box changed the media root: %v", d)
	}
}

// TestStatusNotReadOnly: a normal server says readOnly false.
func TestStatusNotReadOnly(t *testing.T) {
	t.Parallel()
	ts := startServer(t, newRepo(t, mediaSite).bare)
	st := get(t, ts.URL+"/api/v1/status", ts.reader(t)).json(t)
	if v, ok := st["readOnly"]; !ok || v != false {
		t.Errorf("status readOnly = %v (present %t), want false", v, ok)
	}
}

// TestReadOnlyLibraryError: a server that is not read-only but serves a
// read-only library answers the library's refusals with the same 405
// READ_ONLY, never a 500.
func TestReadOnlyLibraryError(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, mediaSite)
	root, img := writtenRoot(t, repo.bare)
	ms := startMediaServer(t, repo.bare, root, readOnlyLib)
	wantError(t, ms.patch(t, ms.write, img.ID, `{"alt":"x"}`), http.StatusMethodNotAllowed, server.CodeReadOnly)
	wantError(t, do(t, http.MethodDelete, ms.URL+"/api/v1/media/"+img.ID, ms.del, nil), http.StatusMethodNotAllowed, server.CodeReadOnly)
	wantError(t, ms.upload(t, ms.write, filePart("b.png", pngBytes(t, 20, 20))), http.StatusMethodNotAllowed, server.CodeReadOnly)
	wantError(t, do(t, http.MethodPost, ms.URL+"/api/v1/media/folders", ms.write, strings.NewReader(`{"path":"/y"}`)), http.StatusMethodNotAllowed, server.CodeReadOnly)
}
