package server

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// uploadTypes are the Content-Types of what /uploads/ serves, by extension.
// Anything else is not served: the library stores nothing else.
var uploadTypes = map[string]string{
	".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".gif": "image/gif",
	".webp": "image/webp", ".svg": "image/svg+xml", ".pdf": "application/pdf",
	".mp4": "video/mp4", ".m4v": "video/mp4", ".webm": "video/webm",
}

// svgPolicy sandboxes SVG opened directly: no script, no external loads.
const svgPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"

// serveUpload serves originals and derivatives of local storage with Range
// support and a year-long immutable lifetime (a stored key never changes
// content). Sidecars, dotfiles and directories are never served. A query
// asking for an image variant (w, h, fit, fm, q, preset, v, s) is served by
// serveVariant, on any storage.
func (s *mediaHandlers) serveUpload(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	key := strings.TrimPrefix(p.ByName("key"), "/")
	if s.media != nil && isVariantRequest(r.URL.Query()) {
		return s.serveVariant(w, r, key)
	}
	if s.mediaRoot == "" {
		return notFound("media is on cloud storage: use the item's url")
	}
	ctype, ok := uploadTypes[strings.ToLower(path.Ext(key))]
	if !ok || !validUploadKey(key) || strings.Contains(key, "-variants/") {
		// Variants are served through their original's URL only
		// (serveVariant), which knows whether they are current.
		return notFound("no such file")
	}
	root, err := os.OpenRoot(s.mediaRoot)
	if errors.Is(err, fs.ErrNotExist) {
		// a read-only box's media root no writer has made yet
		return notFound("no such file")
	}
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := root.Open(key)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || isPathError(err) {
		return notFound("no such file")
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return notFound("no such file")
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", cacheImmutable)
	if ctype == "image/svg+xml" {
		h.Set("Content-Security-Policy", svgPolicy)
	}
	h.Set("ETag", `"`+fi.ModTime().UTC().Format("20060102150405.000000000")+"-"+strconv.FormatInt(fi.Size(), 10)+`"`)
	// The surrogate key names the item the file belongs to, so that a CDN
	// that purges "media:<id>" on a delete drops the files too.
	if s.media != nil {
		if id, ok := s.media.OwnerOf(key); ok {
			mediaKeyHdr(id).set(h)
			// ServeContent answers a bad Range or precondition itself:
			// such an error names no keys.
			w = keysOnSuccess{w}
		}
	}
	http.ServeContent(w, r, "", fi.ModTime(), f)
	return nil
}

// keysOnSuccess drops the surrogate keys from a response that turns out
// to be an error.
type keysOnSuccess struct{ http.ResponseWriter }

func (k keysOnSuccess) WriteHeader(code int) {
	if code >= 400 {
		h := k.Header()
		h.Del("Surrogate-Key")
		h.Del("Cache-Tag")
	}
	k.ResponseWriter.WriteHeader(code)
}

// ReadFrom keeps sendfile for the body.
func (k keysOnSuccess) ReadFrom(src io.Reader) (int64, error) {
	if rf, ok := k.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(k.ResponseWriter, src)
}

// Unwrap lets http.ResponseController reach the connection.
func (k keysOnSuccess) Unwrap() http.ResponseWriter { return k.ResponseWriter }

// validUploadKey refuses empty, dot and dotfile segments (sidecars live
// under .meta/), backslashes and control characters.
func validUploadKey(key string) bool {
	if key == "" || len(key) > 1024 {
		return false
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || strings.HasPrefix(seg, ".") {
			return false
		}
	}
	for _, c := range key {
		if c < 0x20 || c == 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

func isPathError(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe)
}
