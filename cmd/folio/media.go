package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/folio-cms/folio/engine/search"
	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/grant"
	"github.com/folio-cms/folio/media/local"
	"github.com/folio-cms/folio/media/s3"
	"github.com/folio-cms/folio/server"
)

// mediaFlags configure the media library and its storage.
type mediaFlags struct {
	dir       string
	storage   string
	maxUpload int64
	// publicURL is the absolute base of /uploads/ URLs on local storage.
	publicURL string
	s3        s3.Config
	// presignTTL is how long a presigned upload grant lasts (s3 only).
	presignTTL time.Duration
	// statePrefix is where, in the bucket, the library keeps its state
	// (s3 only); poll is how often it looks for other boxes' writes.
	statePrefix string
	poll        time.Duration
	// readOnly opens the library read-only and writes nothing to the
	// media root (serve --read-only; not a flag of its own here, so that
	// `media import` has no such option).
	readOnly bool
	// onDerive is told each image's derivative time (metrics); nil for
	// none.
	onDerive func(time.Duration, error)
}

func (f *mediaFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dir, "media", "media", "the media root: files and the library's state (<media>/.state) on local storage; with s3 only temporary files (a cache: may be empty)")
	fs.StringVar(&f.storage, "storage", "local", "where media files live: local or s3")
	fs.StringVar(&f.publicURL, "public-url", "", "with --storage local: the absolute base of media URLs (e.g. https://folio.example.com), so that pages on other origins can load /uploads/ files (default: site-relative /uploads/...)")
	fs.Int64Var(&f.maxUpload, "max-upload", 0, "largest file in bytes (default 50 MB on local storage, 500 MB on s3)")
	fs.StringVar(&f.s3.Endpoint, "s3-endpoint", "", "S3-compatible endpoint URL (with --storage s3)")
	fs.StringVar(&f.s3.Bucket, "s3-bucket", "", "bucket name")
	fs.StringVar(&f.s3.Region, "s3-region", "us-east-1", "bucket region")
	fs.StringVar(&f.s3.Prefix, "s3-prefix", "site", "the site's key prefix in the bucket")
	fs.StringVar(&f.s3.PublicURL, "s3-public-url", "", "base URL files are served from (default: the endpoint and bucket)")
	fs.DurationVar(&f.presignTTL, "presign-ttl", server.DefaultPresignTTL, "how long a presigned upload grant lasts (with --storage s3)")
	fs.StringVar(&f.statePrefix, "s3-state-prefix", "", "where in the bucket the media library keeps its state: sidecars, folders, grants, change log (default folio-state/<s3-prefix>; must lie outside the public --s3-prefix)")
	fs.DurationVar(&f.poll, "media-poll", media.DefaultPollInterval, "how often a box looks for the media writes of other boxes (with --storage s3, and on a --read-only box)")
}

// mediaStack is the opened library with its search index.
type mediaStack struct {
	Library    *media.Library
	Search     *search.MediaSearch
	PublicRoot string // the folder /uploads/ serves; "" on cloud storage
	Storage    media.Storage
	// Grants holds the presigned-upload grants; nil on local storage,
	// which cannot presign, and on a read-only box, which refuses to.
	Grants     *grant.Store
	PresignTTL time.Duration
	// Origins are where media URLs point when not at this box (the
	// --public-url or S3 public URL origin), for the admin pages' CSP.
	Origins []string
	// State is the bucket's state area (s3 only).
	State *s3.State
	// libState is where the library keeps its state: State on s3,
	// <root>/.state on local storage.
	libState media.StateStore
	// migrateFrom is the <root>/.state of a library that was on local
	// storage, to move into the bucket (s3 only).
	migrateFrom media.StateStore
	close       []func() error
}

func (m *mediaStack) Close() error {
	var errs []error
	for i := len(m.close) - 1; i >= 0; i-- {
		errs = append(errs, m.close[i]())
	}
	return errors.Join(errs...)
}

// open opens the library: the media root (mediaRoot), the storage and,
// on s3, the bucket's state area and the presign grants (openLocal,
// openS3), then the library with its search index (openLibrary), and
// reserves the keys of the grants still pending (reservePending). On an
// error everything opened so far is closed again.
func (f *mediaFlags) open(ctx context.Context, logger *slog.Logger) (_ *mediaStack, err error) {
	root, err := f.mediaRoot(logger)
	if err != nil {
		return nil, err
	}
	m := &mediaStack{}
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	var maxUpload int64
	switch f.storage {
	case "local":
		maxUpload, err = f.openLocal(logger, m, root)
	case "s3":
		maxUpload, err = f.openS3(ctx, logger, m, root)
	default:
		err = fmt.Errorf("--storage must be local or s3, not %q", f.storage)
	}
	if err != nil {
		return nil, err
	}
	if f.maxUpload != 0 {
		maxUpload = f.maxUpload
	}
	if err := f.openLibrary(ctx, logger, m, root, maxUpload); err != nil {
		return nil, err
	}
	if err := m.reservePending(ctx, logger); err != nil {
		return nil, err
	}
	return m, nil
}

// mediaRoot checks or creates the media root and returns its absolute
// path. A read-only box writes nothing to the media root: when it does
// not exist yet it serves an empty library, says so, and picks the
// library up once a writer has made it (a content-only replica need not
// care about media). With s3 storage the media root is only a cache of temporary files,
// created when missing, read-only or not: the bucket holds the library.
func (f *mediaFlags) mediaRoot(logger *slog.Logger) (string, error) {
	if f.readOnly && f.storage != "s3" {
		fi, err := os.Stat(f.dir)
		if errors.Is(err, os.ErrNotExist) {
			abs, _ := filepath.Abs(f.dir)
			logger.Warn("--read-only: the media root does not exist; serving an empty media library until a writer makes it (a read-only box creates nothing)", "media", abs)
			return abs, nil
		}
		if err != nil {
			return "", err
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("--media %s is not a directory", f.dir)
		}
	} else if _, err := os.Stat(f.dir); errors.Is(err, os.ErrNotExist) {
		// Said, not done silently: a forgotten --media otherwise fills
		// ./media of whatever directory folio was started in.
		if err := os.MkdirAll(f.dir, 0o755); err != nil {
			return "", err
		}
		abs, _ := filepath.Abs(f.dir)
		logger.Warn("created the media root, which did not exist (set --media to choose where media lives)", "media", abs)
	} else if err != nil {
		return "", err
	}
	return filepath.Abs(f.dir)
}

// searchState is where the search index is published and fetched: the
// bucket's state area on s3, none on local storage (the cache directory
// keeps it there). A read-only box fetches and publishes nothing.
func (m *mediaStack) searchState(readOnly bool) media.StateStore {
	switch {
	case m.State == nil:
		return nil
	case readOnly:
		return search.FetchOnly{StateStore: m.State}
	}
	return m.State
}

// parseCacheState is where the parse cache is published and fetched:
// where the search index is (searchState), unless share is off.
func (m *mediaStack) parseCacheState(readOnly, share bool) media.StateStore {
	if !share {
		return nil
	}
	return m.searchState(readOnly)
}

// openLocal opens local storage under root, served at /uploads/, and
// returns its default upload limit.
func (f *mediaFlags) openLocal(logger *slog.Logger, m *mediaStack, root string) (maxUpload int64, err error) {
	st, err := local.Open(local.Config{Root: root, PublicURL: f.publicURL, ReadOnly: f.readOnly})
	if err != nil {
		return 0, err
	}
	m.Storage, m.PublicRoot = st, root
	m.Origins = originOf(f.publicURL)
	m.close = append(m.close, st.Close)
	state, err := f.openLocalState(logger, root)
	if err != nil {
		return 0, err
	}
	m.libState = state
	m.close = append(m.close, state.Close)
	return media.DefaultMaxUploadLocal, nil
}

// openLocalState opens the library's state on local storage,
// <root>/.state. A read-only box creates nothing: until a writer has
// made the state (and moved an old-format root into it) it serves an
// empty library, and it picks the state up at its next poll once a
// writer starts.
func (f *mediaFlags) openLocalState(logger *slog.Logger, root string) (*local.State, error) {
	dir := filepath.Join(root, local.StateDir)
	if !f.readOnly {
		return local.OpenState(dir)
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		logger.Warn("--read-only: the media root has no library state yet; serving an empty media library until a writer starts on it (folio serve without --read-only, or folio media import)",
			"media", root, "state", local.StateDir)
	}
	return local.OpenStateReadOnly(dir)
}

// openS3 opens the bucket, its state area and, on a writer, the presign
// grants, and returns the default upload limit of cloud storage.
func (f *mediaFlags) openS3(ctx context.Context, logger *slog.Logger, m *mediaStack, root string) (maxUpload int64, err error) {
	if f.publicURL != "" {
		return 0, errors.New("--public-url is for local storage; with --storage s3 use --s3-public-url")
	}
	cfg := f.s3
	cfg.AccessKey, cfg.SecretKey = os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	st, err := s3.New(cfg)
	if err != nil {
		return 0, err
	}
	m.Storage = st
	m.Origins = originOf(st.Config().PublicURL)
	prefix := f.statePrefix
	if prefix == "" {
		prefix = s3.DefaultStatePrefix(st.Config().Prefix)
	}
	if m.State, err = st.State(prefix); err != nil {
		return 0, err
	}
	m.libState = m.State
	if f.presignTTL <= 0 {
		return 0, errors.New("--presign-ttl must be positive")
	}
	// No grants on a read-only box: presign and confirm are refused
	// anyway.
	if !f.readOnly {
		// A library this media root held on local storage moves into the
		// bucket at the first start (media.Config.MigrateFrom).
		if fi, err := os.Stat(filepath.Join(root, local.StateDir)); err == nil && fi.IsDir() {
			from, err := local.OpenStateReadOnly(filepath.Join(root, local.StateDir))
			if err != nil {
				return 0, err
			}
			m.migrateFrom = from
			m.close = append(m.close, from.Close)
		}
		if err := f.openGrants(ctx, logger, m, root); err != nil {
			return 0, err
		}
	}
	return media.DefaultMaxUploadCloud, nil
}

// openGrants opens the presign grants in the bucket's state area, so that
// a grant given by one box is confirmed at any other; a grants file that
// an earlier release kept on the media root moves there first.
func (f *mediaFlags) openGrants(ctx context.Context, logger *slog.Logger, m *mediaStack, root string) error {
	n, err := grant.Migrate(ctx, filepath.Join(root, ".grants.yaml"), m.State)
	if err != nil {
		return err
	}
	if n > 0 {
		logger.Info("presign grants moved into the bucket", "grants", n)
	}
	grants, err := grant.Open(ctx, grant.Config{State: m.State})
	if err != nil {
		return err
	}
	m.Grants, m.PresignTTL = grants, f.presignTTL
	m.close = append(m.close, every(grantPruneEvery, func(ctx context.Context) {
		if err := grants.Prune(ctx); err != nil {
			logger.Warn("pruning presign grants failed", "err", err)
		}
	}))
	return nil
}

// openLibrary opens the media search index and the library, which feeds
// it.
func (f *mediaFlags) openLibrary(ctx context.Context, logger *slog.Logger, m *mediaStack, root string, maxUpload int64) error {
	idx, err := search.NewMediaSearch()
	if err != nil {
		return err
	}
	m.Search = idx
	m.close = append(m.close, idx.Close)
	// The library feeds the index every item as it loads; the index is
	// built after the box is ready (releaseSearch), not during the start.
	// A search before that waits for the build, never sees part of it.
	idx.Hold()
	cfg := media.Config{
		Root: root, Storage: m.Storage, MaxUploadBytes: maxUpload, Logger: logger,
		OnChange: idx.Follow, ReadOnly: f.readOnly, PollInterval: f.poll, OnDerive: f.onDerive,
		State: m.libState, MigrateFrom: m.migrateFrom,
	}
	lib, err := media.Open(ctx, cfg)
	if err != nil {
		return err
	}
	m.Library = lib
	m.close = append(m.close, lib.Close)
	return nil
}

// searchQuiet is how long after the box serves the media search index
// is first built, unless a search asks for it before: the build (tens of
// milliseconds of CPU at 10k items) then does not compete with the first
// requests of a start (docs/performance.md, issue 34).
const searchQuiet = time.Second

// releaseSearch has the media search index built searchQuiet from now,
// in the background; the returned stop cancels that if it has not come.
func (m *mediaStack) releaseSearch() (stop func() bool) {
	return time.AfterFunc(searchQuiet, m.Search.Release).Stop
}

// reservePending holds the keys of the grants still pending in the
// library: reservations live in memory, and without them a plain upload
// could take a name a client is about to PUT to.
func (m *mediaStack) reservePending(ctx context.Context, logger *slog.Logger) error {
	if m.Grants == nil {
		return nil
	}
	pending, err := m.Grants.Unconfirmed(ctx)
	if err != nil {
		return err
	}
	for _, g := range pending {
		if err := m.Library.Reserve(g.Key, g.ExpiresAt); err != nil {
			logger.Warn("presign grant not reserved", "key", g.Key, "err", err)
		}
	}
	return nil
}

// grantPruneEvery is how often a writer forgets the grants past their
// retention.
const grantPruneEvery = 10 * time.Minute

// every runs fn every d in the background until the returned stop.
func every(d time.Duration, fn func(ctx context.Context)) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				fn(ctx)
			}
		}
	}()
	return func() error {
		cancel()
		<-done
		return nil
	}
}

// runMedia runs `folio media import`, `migrate` and `regenerate`.
func runMedia(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) > 0 && args[0] == "import":
		return runMediaImport(ctx, args[1:], stdout, stderr)
	case len(args) > 0 && args[0] == "migrate":
		return runMediaMigrate(ctx, args[1:], stdout, stderr)
	case len(args) > 0 && args[0] == "regenerate":
		return runMediaRegenerate(ctx, args[1:], stdout, stderr)
	case len(args) > 0 && args[0] == "sign":
		return runMediaSign(args[1:], stdout, stderr)
	}
	return errors.New("media: want import, migrate, regenerate or sign")
}

// runMediaSign: `folio media sign --url-secret SECRET URL…` prints each
// image variant URL (`/uploads/<key>?w=…&h=…`, or an absolute URL) with
// its `s=` signature, as `folio serve --url-secret SECRET` checks it.
func runMediaSign(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("media sign", flag.ContinueOnError)
	fs.SetOutput(stderr)
	secret := fs.String("url-secret", "", "the secret given to folio serve --url-secret (or FOLIO_URL_SECRET)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := flagsFromEnv(fs); err != nil {
		return err
	}
	if *secret == "" {
		return errors.New("media sign: give --url-secret (or FOLIO_URL_SECRET)")
	}
	if fs.NArg() == 0 {
		return errors.New("media sign: give one or more variant URLs, e.g. '/uploads/2026/11/a.jpg?w=300&h=300&fit=cover'")
	}
	for _, raw := range fs.Args() {
		u, err := url.Parse(raw)
		if err != nil || !strings.HasPrefix(u.Path, "/uploads/") || u.RawQuery == "" {
			return fmt.Errorf("media sign: %q is not a variant URL (/uploads/<key>?w=…)", raw)
		}
		q := u.Query()
		q.Del("s")
		q.Set("s", server.SignVariantPath(*secret, u.EscapedPath(), q))
		u.RawQuery = q.Encode()
		fmt.Fprintln(stdout, u.String())
	}
	return nil
}

// runMediaMigrate: `folio media migrate --media DIR --storage s3 --s3-...`
// moves a library that an earlier release kept on the media root (sidecars,
// folders, presign grants) into the bucket, as `folio serve` does when it
// starts on it, and writes a checkpoint so that new boxes start fast. It
// is idempotent.
func runMediaMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f mediaFlags
	fs := flag.NewFlagSet("media migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.storage != "s3" {
		return errors.New("media migrate: moves a library into a bucket: give --storage s3 and the --s3-* flags")
	}
	logger, _ := newLogger(stderr, "info", "json")
	m, err := f.open(ctx, logger)
	if err != nil {
		return err
	}
	defer m.Close()
	rep, err := m.Library.MigrateLocal(ctx)
	if err != nil {
		return err
	}
	if err := m.Library.Sync(ctx); err != nil {
		return err
	}
	if err := m.Library.Checkpoint(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "media root: %d items; %d files copied into the bucket, %d there already (size and SHA-256 checked)\n",
		rep.Items, rep.Copied, rep.Present)
	for _, sk := range rep.Skipped {
		fmt.Fprintf(stdout, "skipped %s (%s): %s\n", sk.ID, sk.Key, sk.Reason)
	}
	fmt.Fprintf(stdout, "%d media items and %d folders in the bucket under %s\n", m.Library.Len(), len(m.Library.Folders())-1, m.State.Prefix())
	if n := len(rep.Skipped); n > 0 {
		return fmt.Errorf("media migrate: %d items skipped (listed above); resolve them and run it again: what was copied stays", n)
	}
	return nil
}

// runMediaImport: `folio media import --media DIR [--folder PATH] [--alt TEXT] FILE...`
// adds files to a library as an upload would. On a terminal it shows a
// progress bar; elsewhere a line per file (id, type, URL). A file that
// fails is reported on stderr and the others go on; the exit status is 1
// if any failed.
func runMediaImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f mediaFlags
	fs := flag.NewFlagSet("media import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	folder := fs.String("folder", "/", "the folder to put the files in")
	alt := fs.String("alt", "", "alt text for images")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger, _ := newLogger(stderr, "warn", "json")
	m, err := f.open(ctx, logger)
	if err != nil {
		return err
	}
	defer m.Close()
	if *folder != "/" {
		if err := m.Library.CreateFolder(*folder); err != nil && !errors.Is(err, media.ErrFolderExists) {
			return err
		}
	}
	names := fs.Args()
	sizes := make([]int64, len(names))
	var total int64
	for i, name := range names {
		if fi, err := os.Stat(name); err == nil {
			sizes[i] = fi.Size()
			total += fi.Size()
		}
	}
	p := newProgress(stdout, stderr, "import", len(names), total)
	defer p.finish()
	failed := 0
	var done int64
	for i, name := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		it, err := importFile(ctx, m.Library, p, name, media.UploadInput{Filename: filepath.Base(name), Folder: *folder, Alt: *alt})
		done += sizes[i]
		if err != nil {
			failed++
			p.fail(name, err, done)
			continue
		}
		p.item(fmt.Sprintf("%s\t%s\t%s", it.ID, it.MimeType, it.URL), done)
	}
	if failed > 0 {
		return exitError(1)
	}
	return nil
}

func importFile(ctx context.Context, lib *media.Library, p *progress, name string, in media.UploadInput) (*media.Item, error) {
	file, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	in.Body = p.reader(file)
	return lib.Create(ctx, in)
}

// runMediaRegenerate: `folio media regenerate [--folder PATH] [media flags]`
// renders the WebP derivatives, placeholder and dominant color of every
// image (in PATH and the folders under it) again, under new keys, after a
// change of widths or quality. Output as for import: a bar on a terminal,
// else a line per image (id, type, number of derivatives); a summary on
// stderr; exit status 1 if any failed.
func runMediaRegenerate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f mediaFlags
	fs := flag.NewFlagSet("media regenerate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	folder := fs.String("folder", "/", "regenerate the images in this folder and the folders under it")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	within, err := media.CleanFolder(*folder)
	if err != nil {
		return fmt.Errorf("--folder: %w", err)
	}
	logger, _ := newLogger(stderr, "warn", "json")
	m, err := f.open(ctx, logger)
	if err != nil {
		return err
	}
	defer m.Close()
	all, _ := m.Library.List(media.Query{Type: "image"})
	var items []*media.Item
	var total int64
	for _, it := range all {
		if within == media.RootFolder || it.Folder == within || strings.HasPrefix(it.Folder, within+"/") {
			items = append(items, it)
			total += it.Size
		}
	}
	p := newProgress(stdout, stderr, "regenerate", len(items), total)
	failed, changed, derivs := 0, 0, 0
	var done int64
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			p.finish()
			return err
		}
		got, err := m.Library.Regenerate(ctx, it.ID)
		done += it.Size
		if err != nil {
			failed++
			p.fail(it.ID+" ("+it.Filename+")", err, done)
			continue
		}
		state := "unchanged"
		if got.Version != it.Version {
			changed++
			derivs += len(got.Sizes)
			state = fmt.Sprintf("%d derivatives", len(got.Sizes))
		}
		p.item(fmt.Sprintf("%s\t%s\t%s", got.ID, got.MimeType, state), done)
	}
	p.finish()
	fmt.Fprintf(stderr, "regenerated %d of %d images (%d derivatives), %d failed\n", changed, len(items), derivs, failed)
	if failed > 0 {
		return exitError(1)
	}
	return nil
}

// originOf is the origin (scheme://host[:port]) of an absolute URL, as a
// list of none or one.
func originOf(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil
	}
	return []string{u.Scheme + "://" + u.Host}
}
