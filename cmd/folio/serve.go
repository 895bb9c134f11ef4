package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/write"
	"github.com/folio-cms/folio/server"
	"github.com/folio-cms/folio/server/notify"
)

type serveFlags struct {
	site, branch, draftBranch, addr, keys, cacheDir string
	root                                            string
	poll, fetchTimeout                              time.Duration
	webhookSecret                                   string
	gitAuth                                         gitAuthFlags
	rateIP, rateKey                                 float64
	trustedProxies                                  string
	corsOrigins                                     string
	decapDir                                        string
	logLevel, logFormat                             string
	metricsAddr                                     string
	readOnly                                        bool
	search                                          bool
	shareParseCache                                 bool
	media                                           mediaFlags
	notify                                          urlList
	notifySecret                                    string
	urlSecret                                       string
	transformConcurrency                            int
	transformQueueTimeout                           time.Duration
	allowMissingKeys                                bool
	refs, previewSecret                             string
	refCacheMB                                      int
	bodyTimeout                                     time.Duration
	bodyMinRate                                     int64
	maxConns, maxConnsPerClient, ipv6Prefix         int
	writeBranches, writeAuthorEmail                 string
	signin                                          signinFlags
	signinCfg                                       server.SigninConfig
}

// urlList is a repeatable flag; one value (or the environment variable)
// may also hold several, comma-separated.
type urlList []string

func (l *urlList) String() string { return strings.Join(*l, ",") }

func (l *urlList) Set(v string) error {
	for _, u := range strings.Split(v, ",") {
		if u = strings.TrimSpace(u); u == "" {
			continue
		}
		if err := notify.ValidURL(u); err != nil {
			return err
		}
		*l = append(*l, u)
	}
	return nil
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseServeFlags(args, stderr)
	if err != nil {
		return err
	}
	return f.run(ctx, stdout, stderr)
}

// parseServeFlags reads and checks the flags of `folio serve` (and their
// FOLIO_* environment variables); usage goes to stderr.
func parseServeFlags(args []string, stderr io.Writer) (*serveFlags, error) {
	f := &serveFlags{}
	// The cores the runtime found (the CPUs, or a container's limit), before
	// raiseProcs adds Ps for the collector: what CPU-bound work is sized by.
	cores := runtime.GOMAXPROCS(0)
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.site, "site", "", "the content repository: a local path (bare or with a work tree) or a remote URL")
	f.gitAuth.register(fs)
	fs.StringVar(&f.root, "root", "", "the folder of the repository the site is in (a theme's exampleSite, a template's site): its Hugo config, content, model and Decap config are read below it, as hugo -s does, and writes commit below it; default: the root: of the repository's folio.yaml, else the repository's root")
	fs.StringVar(&f.branch, "branch", "", "the published branch (default: the repository's default branch: a remote's HEAD, a local repository's checked-out branch; main when it names none)")
	fs.StringVar(&f.draftBranch, "draft-branch", "", "a branch served to draft=true requests (default: the published branch, drafts included)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "the address to listen on")
	fs.StringVar(&f.keys, "keys", "keys.yaml", "the API keys file (see 'folio keys')")
	fs.StringVar(&f.cacheDir, "cache-dir", defaultCacheDir(), "where remote clones and the parsed-content cache live")
	fs.DurationVar(&f.poll, "poll", time.Minute, "how often to fetch a remote site; 0 disables polling")
	fs.DurationVar(&f.fetchTimeout, "fetch-timeout", engine.DefaultFetchTimeout, "how long one fetch of a remote site may take before it fails (the last good snapshot keeps serving)")
	fs.StringVar(&f.webhookSecret, "webhook-secret", "", "the secret of POST /api/v1/hooks/git; empty disables the webhook")
	fs.Float64Var(&f.rateIP, "rate-ip", 50, "requests a second per client IP (bursts of twice that); 0 disables")
	fs.Float64Var(&f.rateKey, "rate-key", 100, "requests a second per API key (bursts of twice that); 0 disables")
	fs.StringVar(&f.trustedProxies, "trusted-proxies", "", "comma-separated CIDRs of the CDN or proxies in front: their X-Forwarded-For names the client for --rate-ip")
	fs.StringVar(&f.corsOrigins, "cors-origins", "", "comma-separated origins (scheme://host[:port]) whose pages may call the keyed routes from a browser; none by default (the public routes answer any origin)")
	fs.StringVar(&f.decapDir, "decap-dir", "", "a local copy of the decap-cms package's dist/ folder, served at /admin/content/decap/ and loaded by the Decap CMS editor instead of folio.yaml's decap.url")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&f.logFormat, "log-format", "json", "json or text (slog's key=value lines)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics (e.g. 127.0.0.1:9090); empty: off")
	fs.BoolVar(&f.search, "search", true, "keep a search index of the content for GET /api/v1/search (false saves its memory; the search routes then answer 404)")
	fs.BoolVar(&f.shareParseCache, "share-parse-cache", true, "with --storage s3: publish the parse cache to the bucket's state area after a cold start, and fetch it on a start with none in --cache-dir (a fresh box starts warm); false: neither")
	fs.StringVar(&f.writeBranches, "write-branches", "cms/*", "comma-separated patterns of the branches a key with content:write may name in ?branch= (besides the draft branch, or the published branch when there is none)")
	fs.StringVar(&f.writeAuthorEmail, "write-author-email", "editor@folio.invalid", "the e-mail of the author of the write API's and Decap's commits for a key without one of its own (folio keys create --email); the author's name is the key's")
	fs.BoolVar(&f.readOnly, "read-only", false, "serve reads only: every write route answers 405 READ_ONLY and nothing is written to the media root (for boxes behind a CDN; writes go to a box without it)")
	fs.Var(&f.notify, "notify", "a URL to POST the changed surrogate keys to after every content swap and media write (repeatable, or comma-separated)")
	fs.StringVar(&f.notifySecret, "notify-secret", "", "signs --notify bodies: X-Folio-Signature: sha256=<hex HMAC-SHA256 of the body>")
	fs.StringVar(&f.urlSecret, "url-secret", "", "signs image variant URLs of sizes that are not imagePresets of folio.yaml: s=<hex HMAC-SHA256 of the path and query>; empty: presets only")
	fs.IntVar(&f.transformConcurrency, "transform-concurrency", cores, "images decoded at once: variants (/uploads/<key>?w=…) and the derivatives of uploads")
	fs.DurationVar(&f.transformQueueTimeout, "transform-queue-timeout", 5*time.Second, "how long an image variant or upload waits for a transform slot before 503 BUSY")
	fs.BoolVar(&f.allowMissingKeys, "allow-missing-keys", false, "serve the keyed routes (401 to every key) while the --keys file does not exist; without it they answer 503 NO_KEYS_FILE until the file is created")
	fs.StringVar(&f.refs, "refs", "", "comma-separated patterns of the branches and tags ?ref= may serve ('release/*', 'heads/cms/*', 'tags/v*'; 'commits' allows commit hashes); empty: all")
	fs.StringVar(&f.previewSecret, "preview-secret", "", "signs preview links (POST /api/v1/previews, ?preview=<token>); rotating it revokes every link; empty: preview links off")
	fs.IntVar(&f.refCacheMB, "ref-cache-mb", 256, "the estimated memory of the snapshots of other refs (?ref=) kept at once, in MiB")
	fs.DurationVar(&f.bodyTimeout, "body-timeout", server.DefaultBodyTimeout, "how long a client has to send a request body, plus a second per --body-min-rate bytes sent; a slower body is cut off with 408")
	fs.Int64Var(&f.bodyMinRate, "body-min-rate", server.DefaultBodyMinRate, "the slowest rate, in bytes a second, at which a large request body keeps extending its deadline")
	fs.IntVar(&f.maxConns, "max-conns", -1, "connections open at once; beyond it new ones wait in the listen backlog (default: 3/4 of the open-file limit, at most 16384; 0: no bound). See docs/deploy.md on the file limit")
	fs.IntVar(&f.maxConnsPerClient, "max-conns-per-client", 256, "connections open at once from one client address (an IPv6 client by its --ipv6-prefix), --trusted-proxies excepted; beyond it they get 503; 0: no bound")
	fs.IntVar(&f.ipv6Prefix, "ipv6-prefix", server.DefaultIPv6Prefix, "the prefix length by which IPv6 clients are counted for --rate-ip and --max-conns-per-client (64: one subscriber's network; 128: each address)")
	f.media.register(fs)
	f.signin.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	var err error
	if f.signinCfg, err = f.signin.config(f.addr); err != nil {
		return nil, err
	}
	if f.ipv6Prefix < 1 || f.ipv6Prefix > 128 {
		return nil, fmt.Errorf("--ipv6-prefix must be between 1 and 128")
	}
	if f.bodyTimeout <= 0 || f.bodyMinRate <= 0 {
		return nil, fmt.Errorf("--body-timeout and --body-min-rate must be positive")
	}
	if f.maxConns < 0 {
		f.maxConns = defaultMaxConns()
	}
	if f.transformConcurrency < 1 {
		return nil, fmt.Errorf("--transform-concurrency must be at least 1")
	}
	if f.transformQueueTimeout <= 0 {
		return nil, fmt.Errorf("--transform-queue-timeout must be positive")
	}
	if f.refCacheMB < 1 {
		return nil, fmt.Errorf("--ref-cache-mb must be at least 1")
	}
	for _, p := range splitList(f.refs) {
		if p != "commits" && engine.CheckRefName(strings.ReplaceAll(p, "*", "x")) != nil {
			return nil, fmt.Errorf("--refs: %q is not a ref pattern", p)
		}
	}
	f.media.readOnly = f.readOnly
	if f.site == "" {
		return nil, fmt.Errorf("serve: --site is required")
	}
	if _, err := content.CleanRoot(f.root); err != nil {
		return nil, fmt.Errorf("--root: %w", err)
	}
	return f, nil
}

// run serves until ctx is done.
func (f *serveFlags) run(ctx context.Context, stdout, stderr io.Writer) error {
	logger, err := newLogger(stderr, f.logLevel, f.logFormat)
	if err != nil {
		return err
	}
	proxies, err := server.ParseProxies(f.trustedProxies)
	if err != nil {
		return err
	}
	origins, err := server.ParseOrigins(f.corsOrigins)
	if err != nil {
		return fmt.Errorf("--cors-origins: %w", err)
	}

	// The notifier stops with ctx; its deliveries never hold up a
	// request or a reload.
	nctx, stopNotify := context.WithCancel(ctx)
	notifier, err := notify.New(nctx, notify.Config{URLs: f.notify, Secret: f.notifySecret, Logger: logger})
	if err != nil {
		stopNotify()
		return err
	}
	defer func() { stopNotify(); notifier.Wait() }()
	// Metrics have a registry of their own; the engine and the media
	// library report through callbacks and know nothing of Prometheus.
	var metrics *server.Metrics
	var onReload func(engine.ReloadEvent)
	if f.metricsAddr != "" {
		metrics = server.NewMetrics()
		onReload = metrics.ObserveReload
		f.media.onDerive = metrics.ObserveDerive
	}
	// The library first: the engine reads references written as its
	// absolute URLs (MediaBases).
	lib, err := f.media.open(ctx, logger)
	if err != nil {
		return err
	}
	defer lib.Close()
	gitAuth, err := f.gitAuth.options()
	if err != nil {
		return err
	}
	eng, err := engine.Open(ctx, engine.Config{
		MediaBases: server.MediaBases(lib.Library.Storage()),
		Site:       f.site, Root: f.root, GitAuth: gitAuth, Branch: f.branch, DraftBranch: f.draftBranch,
		CacheDir: f.cacheDir, Poll: f.poll, FetchTimeout: f.fetchTimeout, Logger: logger,
		OnSwap: server.NotifySwaps(notifier), OnSchedule: server.NotifySchedule(notifier), OnReload: onReload, Search: f.search,
		Refs: splitList(f.refs), RefCacheBytes: int64(f.refCacheMB) << 20,
		SearchState:     lib.searchState(f.readOnly),
		ParseCacheState: lib.parseCacheState(f.readOnly, f.shareParseCache),
	})
	if err != nil {
		return err
	}
	defer eng.Close()
	keys, err := server.OpenKeys(f.keys)
	if err != nil {
		return err
	}
	if keys.Missing() {
		abs, _ := filepath.Abs(f.keys)
		if f.allowMissingKeys {
			logger.Warn("the keys file does not exist: every keyed route answers 401 until it is created (folio keys create --keys FILE)", "keys", abs)
		} else {
			logger.Warn("the keys file does not exist: keyed routes answer 503 NO_KEYS_FILE until it is created (folio keys create --keys FILE); public routes are served", "keys", abs)
		}
	}
	var writer *write.Writer
	_, noGit := exec.LookPath("git")
	if !f.readOnly && noGit != nil {
		logger.Warn("no git command on PATH: the content write API is off (its routes answer 405); install git to take writes", "err", noGit)
	}
	siteRoot := eng.SiteRoot()
	if !f.readOnly && noGit == nil {
		writer = write.New(write.Config{
			GitDir: eng.GitDir(), Remote: eng.RemoteSite(), SiteRoot: eng.SiteRoot, GitEnv: eng.GitEnv(), Redact: eng.Redact, RefLock: eng.RefLock(), Branch: eng.Branch(), DraftBranch: eng.DraftBranch(),
			WriteBranches: splitList(f.writeBranches), AuthorEmail: f.writeAuthorEmail,
			JournalDir: f.cacheDir, Logger: logger, Snapshot: eng.SnapshotOf,
			Written: func(ctx context.Context, branch, commit string) {
				if branch == eng.Branch() || branch == eng.DraftBranch() {
					if err := eng.Reload(ctx); err != nil {
						logger.Warn("reload after a write", "err", err)
					}
				}
			},
		})
		if rec, err := writer.Recover(ctx); err != nil {
			logger.Error("write: the push the last run left under way could not be looked at", "err", err)
		} else if rec != nil && rec.State == "pushed" {
			if err := eng.Reload(ctx); err != nil {
				logger.Warn("reload after a recovered write", "err", err)
			}
		}
	}
	srv := server.New(server.Config{
		Writer:         writer,
		Engine:         eng,
		Keys:           keys,
		Media:          lib.Library,
		MediaSearch:    lib.Search,
		MediaRoot:      lib.PublicRoot,
		Grants:         lib.Grants,
		PresignTTL:     lib.PresignTTL,
		WebhookSecret:  f.webhookSecret,
		ReadOnly:       f.readOnly,
		RateIP:         server.RateLimit{PerSecond: f.rateIP, Burst: int(2 * f.rateIP)},
		RateKey:        server.RateLimit{PerSecond: f.rateKey, Burst: int(2 * f.rateKey)},
		TrustedProxies: proxies,
		CORSOrigins:    origins,
		MediaOrigins:   lib.Origins,
		Decap:          server.DecapConfig{Dir: f.decapDir, AuthorEmail: f.writeAuthorEmail},
		URLSecret:      f.urlSecret,
		PreviewSecret:  f.previewSecret,
		Signin:         f.signinCfg,

		TransformConcurrency:  f.transformConcurrency,
		TransformQueueTimeout: f.transformQueueTimeout,
		AllowMissingKeys:      f.allowMissingKeys,
		BodyTimeout:           f.bodyTimeout,
		BodyMinRate:           f.bodyMinRate,
		MaxConns:              f.maxConns,
		MaxConnsPerClient:     f.maxConnsPerClient,
		IPv6Prefix:            f.ipv6Prefix,
		Notifier:              notifier,
		Metrics:               metrics,
		Logger:                logger,
	})
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	if metrics != nil {
		metrics.WatchEngine(eng, nil)
		metrics.WatchMedia(lib.Library)
		mln, err := net.Listen("tcp", f.metricsAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		logger.Info("serving metrics", "addr", "http://"+mln.Addr().String()+"/metrics")
		fmt.Fprintf(stdout, "folio metrics http://%s/metrics\n", mln.Addr())
		go func() {
			if err := serveMetrics(ctx, mln, metrics, logger); err != nil {
				logger.Error("metrics server stopped", "err", err)
			}
		}()
	}
	// Raised once loaded: the start-up's parallel parsing and indexing was
	// 10–15% slower with more Ps than cores (docs/performance.md).
	if before, after := raiseProcs(os.Getenv("GOMAXPROCS")); after != before {
		defer runtime.GOMAXPROCS(before)
		logger.Info("GOMAXPROCS raised so that the garbage collector marks on a P of its own (set GOMAXPROCS to choose)", "cpus", before, "gomaxprocs", after)
	}
	st := eng.Status()
	logger.Info("serving", "addr", "http://"+ln.Addr().String(), "site", eng.Site(), "root", siteRoot, "branch", eng.Branch(), "commit", st.Commit, "problems", len(st.Problems), "readOnly", f.readOnly,
		"maxConns", f.maxConns, "maxConnsPerClient", f.maxConnsPerClient, "openFileLimit", openFileLimit())
	fmt.Fprintf(stdout, "folio serving http://%s\n", ln.Addr())
	defer lib.releaseSearch()()

	go func() {
		if err := eng.Run(ctx); err != nil {
			logger.Error("engine stopped", "err", err)
		}
	}()
	return srv.Serve(ctx, ln)
}

func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		return nil, fmt.Errorf("bad --log-level %q", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("bad --log-format %q: json or text", format)
}

// serveMetrics serves GET /metrics on ln until ctx is done. It is a
// listener of its own, so that metrics can stay on a private address
// while the API faces the CDN.
func serveMetrics(ctx context.Context, ln net.Listener, m *server.Metrics, logger *slog.Logger) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	// Go's profiles, on the same private listener: a CPU or heap profile
	// of a live box is how a slow request or a growing heap is explained.
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func defaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "folio")
	}
	return filepath.Join(os.TempDir(), "folio-cache")
}

// splitList splits a comma-separated flag value, dropping empty entries.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
