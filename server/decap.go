package server

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/server/decap"
	"github.com/folio-cms/folio/server/signin"
	"github.com/julienschmidt/httprouter"
)

// DefaultDecapVersion is the decap-cms version /admin/content/ loads when
// folio.yaml pins none (the one the tests run, Makefile node-tools).
const DefaultDecapVersion = "3.16.3"

// DecapConfig configures the Decap CMS editor (/admin/content/) and its
// RPC (POST /api/v1/decap).
type DecapConfig struct {
	// Dir is a local copy of the decap-cms package's dist/ folder, served
	// at /admin/content/decap/ and loaded by the page instead of
	// folio.yaml's decap.url.
	Dir string
	// AuthorEmail is the e-mail of the commits made for a key without
	// one of its own (the name is the key's display name, else its id);
	// "" : the Writer's (write.Config.AuthorEmail). The Writer's
	// committer commits.
	AuthorEmail string
	// MediaListed and MediaThumbBytes bound the list Decap's getMedia
	// answers (decap.DefaultMediaListed, decap.DefaultMediaThumbBytes);
	// 0: the defaults.
	MediaListed, MediaThumbBytes int
}

const decapPath = "/api/v1/decap"

// decapHandlers serve the Decap CMS editor: its RPC (POST
// /api/v1/decap) and its pages under /admin/content/.
type decapHandlers struct {
	svc          *decap.Service // nil without an engine
	engine       *engine.Engine // for folio.yaml's decap.url
	media        *media.Library // nil: no media
	dir          string         // DecapConfig.Dir
	corsOrigins  Origins
	mediaOrigins []string
	heavyWrites  heavyGate
	log          *slog.Logger
}

// newDecapService builds the Decap RPC's service when the server is
// built; nil without an engine (a server that serves no content).
func newDecapService(cfg Config) *decap.Service {
	if cfg.Engine == nil {
		return nil
	}
	repo := write.OpenRepo(cfg.Engine.GitDir()).Under(cfg.Engine.SiteRoot)
	if cfg.Writer != nil {
		repo = cfg.Writer.Repo()
	}
	return &decap.Service{Engine: cfg.Engine, Writer: cfg.Writer, Media: cfg.Media, Email: cfg.Decap.AuthorEmail, Repo: repo,
		MediaListed: cfg.Decap.MediaListed, MediaThumbBytes: cfg.Decap.MediaThumbBytes, Logger: cfg.Logger}
}

// errNoDecap answers the editor's routes on a server without content.
var errNoDecap = notFound("the content editor is off on this box (no content is served)")

// decapRPC answers Decap CMS's proxy backend (docs/decap.md).
func (s *decapHandlers) decapRPC(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if s.svc == nil {
		return errNoDecap
	}
	if err := s.sameOrigin(r); err != nil {
		return err
	}
	// The body is read as a stream (decap.Service.CallStream): an
	// upload's base64 goes to a temporary file, never whole into memory;
	// a key without media:write may send no upload's worth of bytes.
	k := keyFrom(r.Context())
	limit := int64(decap.TextLimit)
	if s.media != nil && k.Has(ScopeMediaWrite) {
		limit += s.media.MaxUploadBytes()/3*4 + 4
	}
	body := decapBody{r: http.MaxBytesReader(w, r.Body, limit), limit: limit}
	// A body of long entries is decoded under the heavy write gate, as
	// the write API's big bodies are (writebody.go).
	done := func() {}
	heavy := func() error {
		d, err := s.heavyWrites.enter(r.Context())
		if err != nil {
			return err
		}
		done = d
		return nil
	}
	who := decap.Caller{Name: k.AuthorName(), Email: k.Email, Can: k.Has}
	if p := principalFrom(r.Context()); p != nil { // signin.go
		who.Name, who.Email, who.MayEdit, who.MayPublish = p.Name, p.Email, p.MayEdit, p.MayPublish
	}
	res, err := s.svc.CallStream(r.Context(), who, body, heavy)
	defer func() { done() }()
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", cacheNoStore)
	if st, ok := res.(decap.Streamer); ok {
		// A long list (getMedia), written as it is read.
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		if err := st.Stream(r.Context(), w); err != nil {
			// Cut off: the client must not take a partial list whole.
			s.log.Warn("decap: the answer was cut off", "err", err)
			panic(http.ErrAbortHandler)
		}
		return nil
	}
	return writeJSON(w, http.StatusOK, res)
}

// decapBody is an RPC body under its limit: past it, a TooLarge error.
type decapBody struct {
	r     io.Reader
	limit int64
}

func (b decapBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		err = errorf(fault.TooLarge, "RPC body over %d bytes (%d besides an upload's base64, and only with media:write)", b.limit, decap.TextLimit)
	}
	return n, err
}

// sameOrigin refuses a browser call from another origin than this box's
// or a --cors-origins one (a page elsewhere holding a key must not make
// commits); calls without Origin (not from a browser) pass.
func (s *decapHandlers) sameOrigin(r *http.Request) error {
	o := r.Header.Get("Origin")
	if o == "" {
		return nil
	}
	u, err := url.Parse(o)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && (strings.EqualFold(u.Host, r.Host) || s.corsOrigins[strings.ToLower(o)]) {
		return nil
	}
	return errorf(fault.Forbidden, "Origin %q may not call %s: only this folio's own pages (and --cors-origins) may", o, decapPath)
}

// decapURL is where the editor page loads decap-cms.js from.
func (s *decapHandlers) decapURL() string {
	if s.dir != "" {
		return "/admin/content/decap/decap-cms.js"
	}
	snap := s.engine.Published()
	if snap == nil || snap.Site.Config.Decap == nil || snap.Site.Config.Decap.URL == "" {
		return ""
	}
	dc := snap.Site.Config.Decap
	v := dc.Version
	if v == "" {
		v = DefaultDecapVersion
	}
	return strings.ReplaceAll(dc.URL, "{version}", v)
}

// decapPage serves /admin/content/: the editor page, its script, the
// generated config.yml and the local copy of Decap (--decap-dir).
func (s *decapHandlers) decapPage(w http.ResponseWriter, r *http.Request, name string) error {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	du := s.decapURL()
	h.Set("Content-Security-Policy", s.decapCSP(du))
	switch name {
	case "", "index.html":
		page := strings.Replace(string(decap.IndexHTML), "{{DECAP_URL}}", htmlAttr(du), 1)
		return writeBody(w, r, "text/html; charset=utf-8", []byte(page))
	case "editor.js":
		return writeBody(w, r, "text/javascript; charset=utf-8", decap.EditorJS)
	case "editor.css":
		return writeBody(w, r, "text/css; charset=utf-8", decap.EditorCSS)
	case "config.yml":
		// As openapi.json: the private types' collections only for a
		// key with content:read (the editor page sends the key).
		k := keyFrom(r.Context())
		full := k != nil && k.Has(ScopeContentRead)
		h.Add("Vary", "Authorization")
		if full {
			h.Set("Cache-Control", "private, no-cache")
		}
		if s.svc == nil {
			return errNoDecap
		}
		b, err := s.svc.ConfigYAML(r.Context(), decapPath, full)
		if err != nil {
			return err
		}
		if p := principalFrom(r.Context()); p != nil { // signin.go: per role
			if b, err = signin.DecapConfig(b, p); err != nil {
				return err
			}
			h.Set("Vary", "Cookie")
			h.Set("Cache-Control", "private, no-cache")
		}
		return writeBody(w, r, "text/yaml; charset=utf-8", b)
	}
	if rest, ok := strings.CutPrefix(name, "decap/"); ok && s.dir != "" {
		return s.decapFile(w, r, rest)
	}
	return notFound("no such file of the content editor")
}

// decapFile serves a file of the local copy of Decap.
func (s *decapHandlers) decapFile(w http.ResponseWriter, r *http.Request, rest string) error {
	clean := path.Clean("/" + rest)
	if clean != "/"+rest || strings.Contains(rest, "..") || !(strings.HasSuffix(rest, ".js") || strings.HasSuffix(rest, ".css") || strings.HasSuffix(rest, ".map")) {
		return notFound("no such file of the content editor")
	}
	f, err := os.Open(filepath.Join(s.dir, filepath.FromSlash(clean)))
	if err != nil {
		return notFound("no such file of the content editor")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.IsDir() {
		return notFound("no such file of the content editor")
	}
	ctype := "text/javascript; charset=utf-8"
	if strings.HasSuffix(rest, ".css") {
		ctype = "text/css; charset=utf-8"
	} else if strings.HasSuffix(rest, ".map") {
		ctype = "application/json"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("ETag", fmt.Sprintf(`"%x-%x"`, fi.ModTime().UnixNano(), fi.Size()))
	http.ServeContent(w, r, "", fi.ModTime(), f)
	return nil
}

// decapCSP lets the editor page run Decap: its script origin, the inline
// styles and the eval its bundle uses, blob: and data: previews, media
// origins for images.
func (s *decapHandlers) decapCSP(decapURL string) string {
	src := "'self'"
	if u, err := url.Parse(decapURL); err == nil && u.Host != "" {
		src += " " + u.Scheme + "://" + u.Host
	}
	img := "'self' data: blob:"
	for _, o := range s.mediaOrigins {
		if o != "" {
			img += " " + o
		}
	}
	return "default-src 'self'; script-src " + src + " 'unsafe-eval'; style-src " + src + " 'unsafe-inline'; img-src " + img +
		"; font-src " + src + " data:; connect-src 'self' blob: data:; frame-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
}

// writeBody writes a page of the editor with its ETag (304 when the
// client has it).
func writeBody(w http.ResponseWriter, r *http.Request, ctype string, b []byte) error {
	sum := sha256.Sum256(b)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
	w.Header().Set("ETag", etag)
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	_, err := w.Write(b)
	return err
}

// htmlAttr escapes s for a double-quoted HTML attribute.
func htmlAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;").Replace(s)
}
