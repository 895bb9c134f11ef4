package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/folio-cms/folio/engine"
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
	s3        s3.Config
	// presignTTL is how long a presigned upload grant lasts (s3 only).
	presignTTL time.Duration
}

func (f *mediaFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dir, "media", "media", "the media root: sidecar metadata, and the files themselves on local storage")
	fs.StringVar(&f.storage, "storage", "local", "where media files live: local or s3")
	fs.Int64Var(&f.maxUpload, "max-upload", 0, "largest file in bytes (default 50 MB on local storage, 500 MB on s3)")
	fs.StringVar(&f.s3.Endpoint, "s3-endpoint", "", "S3-compatible endpoint URL (with --storage s3)")
	fs.StringVar(&f.s3.Bucket, "s3-bucket", "", "bucket name")
	fs.StringVar(&f.s3.Region, "s3-region", "us-east-1", "bucket region")
	fs.StringVar(&f.s3.Prefix, "s3-prefix", "site", "the site's key prefix in the bucket")
	fs.StringVar(&f.s3.PublicURL, "s3-public-url", "", "base URL files are served from (default: the endpoint and bucket)")
	fs.DurationVar(&f.presignTTL, "presign-ttl", server.DefaultPresignTTL, "how long a presigned upload grant lasts (with --storage s3)")
}

// mediaStack is the opened library with its search index.
type mediaStack struct {
	Library    *media.Library
	Search     *engine.MediaSearch
	PublicRoot string // the folder /uploads/ serves; "" on cloud storage
	// Uploads names the item of each file under PublicRoot; nil on cloud
	// storage.
	Uploads *server.UploadIndex
	Storage media.Storage
	// Grants holds the presigned-upload grants; nil on local storage,
	// which cannot presign.
	Grants     *grant.Store
	PresignTTL time.Duration
	close      []func() error
}

func (m *mediaStack) Close() error {
	var errs []error
	for i := len(m.close) - 1; i >= 0; i-- {
		errs = append(errs, m.close[i]())
	}
	return errors.Join(errs...)
}

func (f *mediaFlags) open(ctx context.Context, logger *slog.Logger) (*mediaStack, error) {
	if err := os.MkdirAll(f.dir, 0o755); err != nil {
		return nil, err
	}
	root, err := filepath.Abs(f.dir)
	if err != nil {
		return nil, err
	}
	m := &mediaStack{}
	maxUpload := f.maxUpload
	switch f.storage {
	case "local":
		st, err := local.New(root)
		if err != nil {
			return nil, err
		}
		m.Storage, m.PublicRoot = st, root
		m.close = append(m.close, st.Close)
		if maxUpload == 0 {
			maxUpload = media.DefaultMaxUploadLocal
		}
	case "s3":
		cfg := f.s3
		cfg.AccessKey, cfg.SecretKey = os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
		st, err := s3.New(cfg)
		if err != nil {
			return nil, err
		}
		m.Storage = st
		if maxUpload == 0 {
			maxUpload = media.DefaultMaxUploadCloud
		}
		if f.presignTTL <= 0 {
			return nil, errors.New("--presign-ttl must be positive")
		}
		// The grants file sits beside the sidecars on the media root, so
		// grants survive a restart like the items do.
		grants, err := grant.Open(grant.Config{Path: filepath.Join(root, ".grants.yaml")})
		if err != nil {
			return nil, err
		}
		m.Grants, m.PresignTTL = grants, f.presignTTL
	default:
		return nil, fmt.Errorf("--storage must be local or s3, not %q", f.storage)
	}
	search, err := engine.NewMediaSearch()
	if err != nil {
		m.Close()
		return nil, err
	}
	m.Search = search
	m.close = append(m.close, search.Close)
	follow := search.Follow
	if m.PublicRoot != "" {
		m.Uploads = server.NewUploadIndex()
		follow = func(it *media.Item, deleted bool) {
			search.Follow(it, deleted)
			m.Uploads.Follow(it, deleted)
		}
	}
	lib, err := media.Open(ctx, media.Config{
		Root: root, Storage: m.Storage, MaxUploadBytes: maxUpload, Logger: logger,
		OnChange: follow,
	})
	if err != nil {
		m.Close()
		return nil, err
	}
	m.Library = lib
	m.close = append(m.close, lib.Close)
	if m.Grants != nil {
		// Reservations live in memory: hold the keys of the grants still
		// pending, or a plain upload could take a name a client is about
		// to PUT to.
		for _, g := range m.Grants.Unconfirmed() {
			if err := lib.Reserve(g.Key, g.ExpiresAt); err != nil {
				logger.Warn("presign grant not reserved", "key", g.Key, "err", err)
			}
		}
	}
	return m, nil
}

// runMedia: `folio media import --media DIR [--folder PATH] [--alt TEXT] FILE...`
// adds files to a local library as an upload would.
func runMedia(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "import" {
		return errors.New("media: want import")
	}
	var f mediaFlags
	fs := flag.NewFlagSet("media import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	folder := fs.String("folder", "/", "the folder to put the files in")
	alt := fs.String("alt", "", "alt text for images")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	logger, _ := newLogger(stderr, "warn")
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
	failed := 0
	for _, name := range fs.Args() {
		file, err := os.Open(name)
		if err != nil {
			return err
		}
		it, err := m.Library.Create(ctx, media.UploadInput{Filename: filepath.Base(name), Body: file, Folder: *folder, Alt: *alt})
		file.Close()
		if err != nil {
			failed++
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			continue
		}
		fmt.Fprintf(stdout, "%s\t%s\t%s\n", it.ID, it.MimeType, it.URL)
	}
	if failed > 0 {
		return exitError(1)
	}
	return nil
}
