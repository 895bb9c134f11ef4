// Package server is folio's HTTP interface: one route table, handlers that
// return errors, API keys and scopes, rate limits, CORS and caching headers.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"

	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/search"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/grant"
	"github.com/folio-cms/folio/server/notify"
	"github.com/folio-cms/folio/server/signin"
	"github.com/folio-cms/folio/server/transport"
)

// Config wires a Server.
type Config struct {
	Engine *engine.Engine
	Keys   *KeyStore
	// Media is the media library; MediaSearch its search index.
	Media       *media.Library
	MediaSearch *search.MediaSearch
	// MediaRoot is the folder /uploads/ serves from (local storage); ""
	// when media lives on cloud storage.
	MediaRoot string
	// Grants records presigned uploads for the confirm step; nil turns the
	// presign flow off. PresignTTL is how long a grant lasts (default 15
	// minutes).
	Grants     *grant.Store
	PresignTTL time.Duration

	// Notifier is told the surrogate keys of every media write made
	// through this server; nil tells no one. (Content swaps reach it
	// through engine.Config.OnSwap: see NotifySwaps.)
	Notifier *notify.Notifier

	WebhookSecret string // "" disables POST /api/v1/hooks/git
	// ReadOnly refuses every write route with 405 READ_ONLY (see
	// route.writes); GET routes, /uploads/ and the webhook keep working.
	// The media library should be opened read-only too.
	ReadOnly bool
	RateIP   RateLimit
	RateKey  RateLimit
	// TrustedProxies are the CDN edges or proxies whose X-Forwarded-For
	// names the client for the per-IP rate limit; none by default.
	TrustedProxies Proxies
	// Metrics, when set, counts requests by route, method and status;
	// nil counts nothing (see NewMetrics).
	Metrics *Metrics
	Logger  *slog.Logger
	Now     func() time.Time

	// CORSOrigins may call the keyed routes from a browser (the public
	// surface answers any origin); none by default.
	CORSOrigins Origins
	// URLSecret signs image variant URLs of sizes that are not presets
	// (SignVariantPath); "" allows presets only.
	URLSecret string
	// PreviewSecret signs preview links (POST /api/v1/previews,
	// ?preview=); "" turns them off.
	PreviewSecret string
	// TransformConcurrency bounds the image variants made at once
	// (default GOMAXPROCS); a request waits at most TransformQueueTimeout
	// (default 5 s) for a slot, then gets 503 BUSY.
	TransformConcurrency  int
	TransformQueueTimeout time.Duration

	// BodyTimeout is how long a client has to send a request body, plus a
	// second for every BodyMinRate bytes sent (defaults
	// DefaultBodyTimeout, DefaultBodyMinRate); a slower body is cut off
	// with 408 and its connection closed.
	BodyTimeout time.Duration
	BodyMinRate int64
	// MaxConns bounds the connections open at once (0: no bound; folio serve's
	// default is defaultMaxConns in cmd/folio): beyond it, new ones wait in the listen backlog.
	// MaxConnsPerClient bounds those of one client address (an IPv6
	// client by its IPv6Prefix), trusted proxies excepted (0: no bound):
	// beyond it, a new connection gets 503 and is closed.
	MaxConns          int
	MaxConnsPerClient int
	// IPv6Prefix is the prefix length by which IPv6 clients are counted
	// for the per-IP rate limit and MaxConnsPerClient (default 64: one
	// subscriber's network; 128 counts each address).
	IPv6Prefix int

	// AllowMissingKeys serves keyed routes (401 to every key) while the
	// keys file does not exist; without it they answer 503 NO_KEYS_FILE.
	AllowMissingKeys bool

	// Decap configures the Decap CMS editor and its RPC.
	Decap DecapConfig

	// Signin turns on editors' sign-in with a provider (signin.go).
	Signin SigninConfig

	// Writer commits the write API's documents (engine/write); nil: the
	// write routes answer 405.
	Writer *write.Writer

	// MediaOrigins are the origins media files are served from when not
	// this one (the S3 or --public-url base), for the admin pages'
	// Content-Security-Policy img-src.
	MediaOrigins []string

	// maxUploadFiles bounds the files of one upload request (0: the
	// contract's maxUploadFiles); tests lower it (SetMaxUploadFiles in
	// export_test.go) to prove the bound without storing 1000 files.
	maxUploadFiles int
}

// Server serves the API.
type Server struct {
	engine     *engine.Engine
	writer     *write.Writer
	keys       *KeyStore
	media      *media.Library
	hookSecret string
	readOnly   bool
	// readRoutes are the method and path of every route a read-only box
	// serves, for its Allow headers.
	readRoutes []route
	ipLimit    *transport.Limiter
	proxies    Proxies
	keyLimit   *transport.Limiter
	metrics    *Metrics
	log        *slog.Logger
	now        func() time.Time
	handler    http.Handler

	// keyedRoutes are the method and path of every route that needs a
	// key, for CORS preflights from the --cors-origins.
	keyedRoutes []route
	corsOrigins Origins
	admin       *adminHandlers

	bodyTimeout time.Duration
	bodyMinRate int64
	maxConns    int
	maxPerConn  int
	v6Prefix    int
	allowNoKeys bool

	signin *signin.Service // nil: sign-in is off
	auth   *signinHandlers
	decap  *decapHandlers
	write  *writeHandlers
	// content answers the content routes.
	content *contentHandlers
	// mediaAPI answers the media routes and /uploads/.
	mediaAPI *mediaHandlers
	// heavyWrites gates the decoding of big write bodies (writebody.go).
	heavyWrites heavyGate
}

// New builds the server and its route table.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{
		engine:     cfg.Engine,
		writer:     cfg.Writer,
		keys:       cfg.Keys,
		media:      cfg.Media,
		hookSecret: cfg.WebhookSecret,
		readOnly:   cfg.ReadOnly,
		ipLimit:    transport.NewLimiter(cfg.RateIP, cfg.Now),
		proxies:    cfg.TrustedProxies,
		keyLimit:   transport.NewLimiter(cfg.RateKey, cfg.Now),
		metrics:    cfg.Metrics,
		log:        cfg.Logger,
		now:        cfg.Now,

		corsOrigins: cfg.CORSOrigins,

		heavyWrites: make(heavyGate, heavyWriteSlots),
	}
	s.decap = &decapHandlers{svc: newDecapService(cfg), engine: cfg.Engine, media: cfg.Media, dir: cfg.Decap.Dir,
		corsOrigins: cfg.CORSOrigins, mediaOrigins: cfg.MediaOrigins, heavyWrites: s.heavyWrites, log: cfg.Logger}
	s.content = &contentHandlers{engine: cfg.Engine, media: cfg.Media, previewSecret: cfg.PreviewSecret,
		refBuilds: transport.NewLimiter(defaultRefBuilds, cfg.Now), openapiDoc: sync.OnceValue(newOpenAPIBody), now: cfg.Now}
	s.write = &writeHandlers{engine: cfg.Engine, writer: cfg.Writer, heavyWrites: s.heavyWrites, now: cfg.Now}
	s.admin = &adminHandlers{files: newAdminFiles(cfg.MediaOrigins), decap: s.decap}
	s.signin = s.newSignin(cfg.Signin)
	s.auth = &signinHandlers{svc: s.signin}
	s.bodyTimeout, s.bodyMinRate = cfg.BodyTimeout, cfg.BodyMinRate
	if s.bodyTimeout <= 0 {
		s.bodyTimeout = DefaultBodyTimeout
	}
	if s.bodyMinRate <= 0 {
		s.bodyMinRate = DefaultBodyMinRate
	}
	s.allowNoKeys = cfg.AllowMissingKeys
	s.maxConns, s.maxPerConn = cfg.MaxConns, cfg.MaxConnsPerClient
	s.v6Prefix = cfg.IPv6Prefix
	if s.v6Prefix <= 0 || s.v6Prefix > 128 {
		s.v6Prefix = DefaultIPv6Prefix
	}
	n := cfg.TransformConcurrency
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	transforms := newTransformer(n, cfg.TransformQueueTimeout, cfg.URLSecret)
	if cfg.Media != nil && !cfg.ReadOnly {
		// Uploads decode in the same bounded queue as variants.
		cfg.Media.SetDeriveGate(transforms.gate)
	}
	s.mediaAPI = &mediaHandlers{engine: cfg.Engine, media: cfg.Media, search: cfg.MediaSearch, mediaRoot: cfg.MediaRoot,
		grants: cfg.Grants, presignTTL: cfg.PresignTTL, notifier: cfg.Notifier, transforms: transforms,
		log: cfg.Logger, now: cfg.Now, maxFiles: cfg.maxUploadFiles}
	if s.mediaAPI.maxFiles <= 0 {
		s.mediaAPI.maxFiles = maxUploadFiles
	}
	if cfg.Keys != nil {
		cfg.Keys.SetLogger(cfg.Logger)
		cfg.Metrics.watchKeys(cfg.Keys)
	}
	s.handler = s.routes()
	return s
}

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 { // a body, or one of unknown length (-1)
		transport.Guard(w, r, s.bodyTimeout, s.bodyMinRate)
	}
	s.handler.ServeHTTP(w, r)
}

// HTTPServer returns an http.Server for s with the timeouts set. Request
// bodies have deadlines of their own (see transport.Guard).
func (s *Server) HTTPServer(addr string) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ConnContext:       transport.ConnContext,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// Serve serves on ln until ctx is done, then shuts down gracefully.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := s.HTTPServer(ln.Addr().String())
	errc := make(chan error, 1)
	go func() {
		errc <- hs.Serve(transport.CoalescingListener{Listener: transport.LimitConns(ln, s.maxConns, s.maxPerConn, s.proxies, s.v6Prefix)})
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
