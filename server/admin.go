package server

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// adminFS is the admin web UI: plain HTML, CSS and JavaScript modules,
// served as they are (no build step).
//
//go:embed admin
var adminFS embed.FS

// adminTypes are the Content-Types of the admin files, by extension.
var adminTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".ico":  "image/x-icon",
}

// adminFile is one file of the admin UI with its headers, computed once.
type adminFile struct {
	body        []byte
	contentType string
	etag        string
}

// adminFiles is the admin UI as the server serves it.
type adminFiles struct {
	files map[string]adminFile // by path below admin/, "index.html"…
	csp   string
}

// newAdminFiles reads the embedded files and builds the pages'
// Content-Security-Policy: nothing inline, nothing from elsewhere but
// images from the media origins (S3, --public-url).
func newAdminFiles(mediaOrigins []string) *adminFiles {
	a := &adminFiles{files: map[string]adminFile{}}
	err := fs.WalkDir(adminFS, "admin", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ctype, ok := adminTypes[path.Ext(p)]
		if !ok {
			return nil
		}
		b, err := adminFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		a.files[strings.TrimPrefix(p, "admin/")] = adminFile{body: b, contentType: ctype,
			etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
		return nil
	})
	if err != nil {
		// The files are compiled in: this cannot fail at run time.
		panic(err)
	}
	img := "'self' data: blob:"
	for _, o := range mediaOrigins {
		if o != "" && !strings.Contains(img, " "+o) {
			img += " " + o
		}
	}
	a.csp = "default-src 'self'; img-src " + img + "; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
	return a
}

// adminHandlers serve the admin UI (/admin/) and, under
// /admin/content/, the Decap editor's pages.
type adminHandlers struct {
	files *adminFiles
	decap *decapHandlers
}

// adminRedirect sends /admin to /admin/, where relative URLs resolve.
func (s *adminHandlers) adminRedirect(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	http.Redirect(w, r, "/admin/", http.StatusMovedPermanently)
	return nil
}

// adminFile serves the admin UI. The files need no key (they hold no
// data; every call they make sends the key the user pastes) and are
// revalidated on every load (no-cache with a strong ETag), so that a new
// binary is picked up at once; a 304 costs a round trip, not the body.
func (s *adminHandlers) adminFile(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	name := strings.TrimPrefix(p.ByName("file"), "/")
	if name == "content" {
		http.Redirect(w, r, "/admin/content/", http.StatusMovedPermanently)
		return nil
	}
	if rest, ok := strings.CutPrefix(name, "content/"); ok {
		return s.decap.decapPage(w, r, rest)
	}
	if name == "" {
		name = "index.html"
	}
	f, ok := s.files.files[name]
	if !ok {
		return notFound("no such admin file")
	}
	h := w.Header()
	h.Set("Content-Security-Policy", s.files.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", f.etag)
	if etagMatches(r.Header.Get("If-None-Match"), f.etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", f.contentType)
	h.Set("Content-Length", strconv.Itoa(len(f.body)))
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	_, err := w.Write(f.body)
	return err
}
