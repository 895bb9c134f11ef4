// Package s3 is the media Storage on S3-compatible object storage (AWS S3,
// MinIO, versitygw, R2...), over minio-go. Objects live at
// <prefix>/<key> in one bucket and are served from absolute public URLs.
package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/internal/objkey"
)

var (
	_ media.Storage   = (*Storage)(nil)
	_ media.Presigner = (*Storage)(nil)
)

const (
	// PartSize is the multipart part size, and so the memory one streaming
	// Put holds: minio-go buffers one part at a time. 16 MiB parts allow
	// objects up to 160 GB (10,000 parts).
	PartSize = 16 << 20
	// smallObject is how much of a body of unknown size is read ahead: a
	// body that ends within it goes up in one PUT instead of three
	// multipart requests.
	smallObject = 1 << 20
	// MaxPresignExpiry is the longest validity S3 allows a presigned URL.
	MaxPresignExpiry = 7 * 24 * time.Hour
	// DefaultMaxRetries keeps a request to a dead endpoint from retrying
	// for long: the caller gets ErrUnavailable within a few seconds.
	DefaultMaxRetries = 3
)

// Config locates the bucket and the site's place in it.
type Config struct {
	// Endpoint is the S3 API base URL, http or https, without a path:
	// "https://s3.eu-west-1.amazonaws.com", "http://127.0.0.1:7070".
	Endpoint string
	Bucket   string
	// Region defaults to us-east-1. Setting it saves a bucket-location
	// request before the first signature.
	Region string
	// Prefix is the site's folder in the bucket, e.g. "mysite"; it may have
	// several segments and may be empty. Leading and trailing slashes are
	// ignored.
	Prefix string
	// PublicURL is the base of the URLs objects are served at (a CDN, a
	// bucket website); default Endpoint + "/" + Bucket.
	PublicURL string
	AccessKey string
	SecretKey string
	// MaxRetries is the number of attempts per request; default
	// DefaultMaxRetries.
	MaxRetries int
}

// Validate checks the configuration and fills in defaults.
func (c *Config) Validate() error {
	u, err := parseBase(c.Endpoint)
	if err != nil {
		return fmt.Errorf("s3 storage: endpoint: %w", err)
	}
	c.Endpoint = u.String()
	if err := s3utils.CheckValidBucketNameStrict(c.Bucket); err != nil {
		return fmt.Errorf("s3 storage: bucket %q: %w", c.Bucket, err)
	}
	if c.Region == "" {
		c.Region = "us-east-1"
	}
	c.Prefix = strings.Trim(c.Prefix, "/")
	if c.Prefix != "" {
		if err := objkey.Check(c.Prefix); err != nil {
			return fmt.Errorf("s3 storage: prefix: %w", err)
		}
	}
	if c.PublicURL == "" {
		c.PublicURL = c.Endpoint + "/" + c.Bucket
	}
	p, err := parseBase(c.PublicURL)
	if err != nil {
		return fmt.Errorf("s3 storage: public URL: %w", err)
	}
	c.PublicURL = p.String()
	if c.AccessKey == "" || c.SecretKey == "" {
		return errors.New("s3 storage: access key and secret key are required")
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = DefaultMaxRetries
	}
	if c.MaxRetries < 0 {
		return fmt.Errorf("s3 storage: negative max retries %d", c.MaxRetries)
	}
	return nil
}

// parseBase parses an absolute http(s) URL with no query or fragment and
// drops a trailing slash.
func parseBase(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%q is not an http or https URL", raw)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%q: want scheme://host[:port][/path] only", raw)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	return u, nil
}

// Storage stores objects in one bucket behind a key prefix.
type Storage struct {
	cfg    Config
	client *minio.Client
	// urlBase is PublicURL plus the escaped prefix and a slash.
	urlBase string
}

// New checks cfg and makes a client. It does not contact the endpoint: a
// storage that is down at start-up becomes usable when it comes back.
func New(cfg Config) (*Storage, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	u, _ := url.Parse(cfg.Endpoint)
	if u.Path != "" {
		return nil, fmt.Errorf("s3 storage: endpoint %q: a path is not supported", cfg.Endpoint)
	}
	client, err := minio.New(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:       u.Scheme == "https",
		Region:       cfg.Region,
		BucketLookup: minio.BucketLookupAuto,
		MaxRetries:   cfg.MaxRetries,
	})
	if err != nil {
		return nil, fmt.Errorf("s3 storage: %w", err)
	}
	base := cfg.PublicURL + "/"
	if cfg.Prefix != "" {
		base += escapePath(cfg.Prefix) + "/"
	}
	return &Storage{cfg: cfg, client: client, urlBase: base}, nil
}

// Config is the validated configuration, defaults filled in.
func (s *Storage) Config() Config { return s.cfg }

// FullKey is the object's key in the bucket.
func (s *Storage) FullKey(key string) string {
	if s.cfg.Prefix == "" {
		return key
	}
	return s.cfg.Prefix + "/" + key
}

// URL is the absolute public address of the object.
func (s *Storage) URL(key string) string {
	return s.urlBase + escapePath(key)
}

func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return strings.Join(segs, "/")
}

// Put uploads the object. S3 makes an object visible only when its PUT or
// its multipart upload completes, so a failed Put leaves the old object (or
// none); minio-go aborts a failed multipart upload.
func (s *Storage) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if err := objkey.Check(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	opts := minio.PutObjectOptions{ContentType: contentType, PartSize: PartSize}
	src := &body{ctx: ctx, r: r, left: size}
	var rd io.Reader = src
	if size >= 0 {
		if size < PartSize {
			// minio-go refuses a part size larger than the object.
			opts.PartSize = 0
		}
	} else {
		head := make([]byte, smallObject)
		n, err := io.ReadFull(src, head)
		switch err {
		case io.EOF, io.ErrUnexpectedEOF:
			rd, size = bytes.NewReader(head[:n]), int64(n)
			opts.PartSize = 0
		case nil:
			rd = io.MultiReader(bytes.NewReader(head), src)
		default:
			return fmt.Errorf("s3 storage: put %q: %w", key, err)
		}
	}
	_, err := s.client.PutObject(ctx, s.cfg.Bucket, s.FullKey(key), rd, size, opts)
	if err != nil {
		if src.err != nil {
			// The body failed, not the storage: that is the caller's error
			// (a broken upload), not ErrUnavailable.
			return fmt.Errorf("s3 storage: put %q: %w", key, src.err)
		}
		return s.wrap(ctx, "put", key, err)
	}
	return nil
}

// Open reads an object. minio-go opens lazily; the Stat makes the request
// now, so that a missing object is reported here and not at the first Read.
func (s *Storage) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := objkey.Check(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	obj, err := s.client.GetObject(ctx, s.cfg.Bucket, s.FullKey(key), minio.GetObjectOptions{})
	if err != nil {
		return nil, s.wrap(ctx, "open", key, err)
	}
	if _, err := obj.Stat(); err != nil {
		obj.Close()
		return nil, s.wrap(ctx, "open", key, err)
	}
	return &object{Object: obj, s: s, ctx: ctx, key: key}, nil
}

// object is an open object whose read errors are classified like every
// other error of the storage: the body is fetched on the first Read, so a
// bucket that throttles (503 SlowDown) or drops the connection then is
// ErrUnavailable (503), not an unknown error (500).
type object struct {
	*minio.Object
	s   *Storage
	ctx context.Context
	key string
}

func (o *object) Read(p []byte) (int, error) {
	n, err := o.Object.Read(p)
	return n, o.readErr(err)
}

func (o *object) ReadAt(p []byte, off int64) (int, error) {
	n, err := o.Object.ReadAt(p, off)
	return n, o.readErr(err)
}

func (o *object) readErr(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return o.s.wrap(o.ctx, "read", o.key, err)
}

// Stat returns the size of an object.
func (s *Storage) Stat(ctx context.Context, key string) (int64, error) {
	if err := objkey.Check(key); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	info, err := s.client.StatObject(ctx, s.cfg.Bucket, s.FullKey(key), minio.StatObjectOptions{})
	if err != nil {
		return 0, s.wrap(ctx, "stat", key, err)
	}
	return info.Size, nil
}

// Delete removes an object; S3 answers a delete of a missing key with
// success already.
func (s *Storage) Delete(ctx context.Context, key string) error {
	if err := objkey.Check(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err := s.client.RemoveObject(ctx, s.cfg.Bucket, s.FullKey(key), minio.RemoveObjectOptions{})
	if err != nil {
		err = s.wrap(ctx, "delete", key, err)
		if errors.Is(err, media.ErrNotExist) {
			return nil
		}
		return err
	}
	return nil
}

// DeletePrefix deletes every object under prefix (ending in "/"), listed
// and removed in batches (media.PrefixDeleter).
func (s *Storage) DeletePrefix(ctx context.Context, prefix string) error {
	dir, ok := strings.CutSuffix(prefix, "/")
	if !ok {
		return fmt.Errorf("s3 storage: delete prefix %q: must end in /", prefix)
	}
	if err := objkey.Check(dir); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	objs := make(chan minio.ObjectInfo)
	var listErr error
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		defer close(objs)
		for obj := range s.client.ListObjects(ctx, s.cfg.Bucket, minio.ListObjectsOptions{Prefix: s.FullKey(prefix), Recursive: true}) {
			if obj.Err != nil {
				listErr = obj.Err
				return
			}
			select {
			case objs <- obj:
			case <-ctx.Done():
				return
			}
		}
	}()
	var firstErr error
	for r := range s.client.RemoveObjects(ctx, s.cfg.Bucket, objs, minio.RemoveObjectsOptions{}) {
		if r.Err != nil && firstErr == nil {
			firstErr = r.Err
		}
	}
	cancel() // stops a listing the removal gave up on
	<-listed
	if listErr != nil && firstErr == nil {
		return s.wrap(ctx, "list", prefix, listErr)
	}
	if firstErr != nil {
		return s.wrap(ctx, "delete", prefix, firstErr)
	}
	return nil
}

// PresignPut grants one PUT of exactly size bytes of contentType. Both
// Content-Type and Content-Length are signed headers, so the storage refuses
// an upload that differs in either (a browser sends Content-Length itself).
func (s *Storage) PresignPut(ctx context.Context, key, contentType string, size int64, expires time.Duration) (string, map[string]string, error) {
	if err := objkey.Check(key); err != nil {
		return "", nil, err
	}
	return s.presignPut(ctx, "s3 storage", key, s.FullKey(key), contentType, size, expires)
}

// presignPut grants one PUT of exactly size bytes of contentType at the
// object full (key names it in errors; who starts them): Content-Type and
// Content-Length are signed headers.
func (s *Storage) presignPut(ctx context.Context, who, key, full, contentType string, size int64, expires time.Duration) (string, map[string]string, error) {
	if contentType == "" || strings.ContainsAny(contentType, "\r\n") {
		return "", nil, fmt.Errorf("%s: presign %q: invalid content type %q", who, key, contentType)
	}
	if size < 0 {
		return "", nil, fmt.Errorf("%s: presign %q: negative size %d", who, key, size)
	}
	if expires < time.Second || expires > MaxPresignExpiry {
		return "", nil, fmt.Errorf("%s: presign %q: expiry %v not within 1s and %v", who, key, expires, MaxPresignExpiry)
	}
	headers := map[string]string{
		"Content-Type":   contentType,
		"Content-Length": strconv.FormatInt(size, 10),
	}
	h := make(http.Header, len(headers))
	for k, v := range headers {
		h.Set(k, v)
	}
	u, err := s.client.PresignHeader(ctx, http.MethodPut, s.cfg.Bucket, full, expires, nil, h)
	if err != nil {
		return "", nil, s.wrap(ctx, "presign", key, err)
	}
	return u.String(), headers, nil
}

// wrap maps a minio-go error onto the media error contract: a missing
// object is ErrNotExist; a network failure or a 5xx is ErrUnavailable;
// the caller's own cancellation stays a context error.
func (s *Storage) wrap(ctx context.Context, op, key string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("s3 storage: %s %q: %w", op, key, ctxErr)
	}
	resp := minio.ToErrorResponse(err)
	switch {
	case resp.Code == minio.NoSuchKey:
		return fmt.Errorf("s3 storage: %s %q: %w", op, key, media.ErrNotExist)
	case resp.StatusCode >= 500 || isNetErr(err):
		return fmt.Errorf("%w: s3 %s %q: %w", media.ErrUnavailable, op, key, err)
	}
	return fmt.Errorf("s3 storage: %s %q: %w", op, key, err)
}

func isNetErr(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE)
}

// errSize is returned when a body does not have its announced size.
var errSize = errors.New("body size differs from the announced size")

// body is the reader an upload reads from. It stops when the context ends;
// with a known size (left >= 0) it yields exactly that many bytes and fails
// otherwise, before the last byte goes out: minio-go stops reading at the
// announced size, so a longer body would otherwise be stored cut short
// without an error. It keeps its first error, so that Put can tell a failed
// body from a failed storage.
type body struct {
	ctx  context.Context
	r    io.Reader
	left int64
	done bool
	err  error
}

func (b *body) fail(err error) (int, error) {
	b.err = err
	return 0, err
}

func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.done {
		return 0, io.EOF
	}
	if err := b.ctx.Err(); err != nil {
		return b.fail(err)
	}
	if b.left < 0 {
		n, err := b.r.Read(p)
		if err != nil && err != io.EOF {
			b.err = err
		}
		return n, err
	}
	n := 0
	if b.left > 0 {
		if int64(len(p)) > b.left {
			p = p[:b.left]
		}
		var err error
		n, err = b.r.Read(p)
		b.left -= int64(n)
		if err != nil && err != io.EOF {
			b.err = err
			return n, err
		}
		if b.left > 0 {
			if err == io.EOF {
				b.err = fmt.Errorf("%w: %d bytes missing", errSize, b.left)
				return n, b.err
			}
			return n, nil
		}
	}
	// All announced bytes are in; the body must end here.
	var one [1]byte
	for range 100 {
		m, err := b.r.Read(one[:])
		if m > 0 {
			return b.fail(fmt.Errorf("%w: more bytes than announced", errSize))
		}
		if err == io.EOF {
			b.done = true
			return n, io.EOF
		}
		if err != nil {
			return b.fail(err)
		}
	}
	return b.fail(io.ErrNoProgress)
}
