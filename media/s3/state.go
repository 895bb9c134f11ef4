package s3

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/internal/objkey"
)

var _ media.StateStore = (*State)(nil)

// State is the library's private state area in the bucket, under its own
// prefix beside the site's public one (Config.StatePrefix), written with
// S3 conditional writes (If-None-Match: * to create, If-Match to replace),
// which AWS S3, MinIO, R2 and versitygw support.
type State struct {
	s      *Storage
	prefix string // with a trailing slash
	// md5Tags is set once a read's tag was its content's MD5: from then
	// on a read whose tag is not is taken for torn (see Get).
	md5Tags atomic.Bool
}

// DefaultStatePrefix is where the state of a site with prefix p lives:
// "folio-state/<p>", outside "<p>/", so that making the site's prefix
// publicly readable never exposes grants or unpublished metadata.
func DefaultStatePrefix(p string) string {
	p = strings.Trim(p, "/")
	if p == "" {
		return "folio-state"
	}
	return "folio-state/" + p
}

// State returns the state area at prefix (see DefaultStatePrefix). It
// must not lie under the site's prefix.
func (s *Storage) State(prefix string) (*State, error) {
	prefix = strings.Trim(prefix, "/")
	if err := objkey.Check(prefix); err != nil {
		return nil, fmt.Errorf("s3 storage: state prefix: %w", err)
	}
	if site := s.cfg.Prefix; site == "" || prefix == site || strings.HasPrefix(prefix, site+"/") {
		return nil, fmt.Errorf("s3 storage: the state prefix %q must lie outside the site's public prefix %q", prefix, site)
	}
	return &State{s: s, prefix: prefix + "/"}, nil
}

// Prefix is the state area's prefix in the bucket, with a trailing slash.
func (st *State) Prefix() string { return st.prefix }

// maxStateObject bounds what Get reads: checkpoints of large libraries are
// the biggest state objects (about 300 bytes an item, compressed).
const maxStateObject = 1 << 30

// Get reads an object. Content and tag come from one response, and when
// the tags of this storage are the content's MD5 (what S3, MinIO, R2 and
// versitygw give an object written in one PUT, as every state object is)
// they are checked against each other: a server that reads the file and
// its tag apart (versitygw's posix backend does, for some milliseconds
// after a replace) can pair old bytes with the new tag, and a compare-
// and-swap on that pair would lose the newer write. Such a read is made
// again, with a growing pause, until it is consistent.
func (st *State) Get(ctx context.Context, key string) ([]byte, string, error) {
	pause := time.Millisecond
	for range 12 {
		data, etag, err := st.get(ctx, key)
		switch {
		case errors.Is(err, media.ErrPrecondition):
			// changed between two reads of one GET: read again
		case err != nil:
			return nil, "", err
		case md5Hex(data) == etag:
			st.md5Tags.Store(true)
			return data, etag, nil
		case !st.md5Tags.Load():
			// Tags that are not MD5s (SSE-KMS) cannot be checked.
			return data, etag, nil
		}
		select {
		case <-ctx.Done():
			return nil, "", ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 200*time.Millisecond)
	}
	return nil, "", fmt.Errorf("%w: s3 state: get %q: content and ETag keep disagreeing", media.ErrUnavailable, key)
}

// Open reads an object as a stream (media.StateOpener). Its bytes are
// not checked against the ETag, as Get's are: the caller checks them
// (a search snapshot has its length and SHA-256 in its first line).
func (st *State) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	obj, err := st.s.client.GetObject(ctx, st.s.cfg.Bucket, st.prefix+key, minio.GetObjectOptions{})
	if err != nil {
		return nil, st.wrap(ctx, "get", key, err)
	}
	// Stat makes the request, so that a missing object is an error here
	if _, err := obj.Stat(); err != nil {
		obj.Close()
		return nil, st.wrap(ctx, "get", key, err)
	}
	return obj, nil
}

func (st *State) get(ctx context.Context, key string) ([]byte, string, error) {
	obj, err := st.s.client.GetObject(ctx, st.s.cfg.Bucket, st.prefix+key, minio.GetObjectOptions{})
	if err != nil {
		return nil, "", st.wrap(ctx, "get", key, err)
	}
	defer obj.Close()
	// Reading first makes one request; Stat then answers from it.
	data, err := io.ReadAll(io.LimitReader(obj, maxStateObject+1))
	if err != nil {
		return nil, "", st.wrap(ctx, "get", key, err)
	}
	if len(data) > maxStateObject {
		return nil, "", fmt.Errorf("s3 state: %q is over %d bytes", key, maxStateObject)
	}
	info, err := obj.Stat()
	if err != nil {
		return nil, "", st.wrap(ctx, "get", key, err)
	}
	return data, strings.Trim(info.ETag, `"`), nil
}

func md5Hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

func (st *State) Create(ctx context.Context, key string, data []byte) (string, error) {
	opts := minio.PutObjectOptions{ContentType: "application/octet-stream"}
	opts.SetMatchETagExcept("*")
	return st.put(ctx, key, data, opts)
}

func (st *State) Replace(ctx context.Context, key string, data []byte, etag string) (string, error) {
	if etag == "" || etag == "*" {
		return "", fmt.Errorf("s3 state: replace %q: an etag is required", key)
	}
	opts := minio.PutObjectOptions{ContentType: "application/octet-stream"}
	opts.SetMatchETag(etag)
	return st.put(ctx, key, data, opts)
}

func (st *State) put(ctx context.Context, key string, data []byte, opts minio.PutObjectOptions) (string, error) {
	info, err := st.s.client.PutObject(ctx, st.s.cfg.Bucket, st.prefix+key, bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		return "", st.wrap(ctx, "put", key, err)
	}
	return info.ETag, nil
}

func (st *State) Delete(ctx context.Context, key string) error {
	err := st.s.client.RemoveObject(ctx, st.s.cfg.Bucket, st.prefix+key, minio.RemoveObjectOptions{})
	if err != nil {
		if err = st.wrap(ctx, "delete", key, err); errors.Is(err, media.ErrNotExist) {
			return nil
		}
		return err
	}
	return nil
}

func (st *State) List(ctx context.Context, prefix, startAfter string, fn func(media.StateObject) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := minio.ListObjectsOptions{Prefix: st.prefix + prefix, Recursive: true}
	if startAfter != "" {
		opts.StartAfter = st.prefix + startAfter
	}
	for obj := range st.s.client.ListObjects(ctx, st.s.cfg.Bucket, opts) {
		if obj.Err != nil {
			return st.wrap(ctx, "list", prefix, obj.Err)
		}
		o := media.StateObject{Key: strings.TrimPrefix(obj.Key, st.prefix), ETag: obj.ETag, LastModified: obj.LastModified}
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

// wrap maps conditional-write failures to media.ErrPrecondition (412, and
// the 409 AWS answers when two conditional writes of a key overlap) and
// the rest as Storage.wrap does.
func (st *State) wrap(ctx context.Context, op, key string, err error) error {
	resp := minio.ToErrorResponse(err)
	if ctx.Err() == nil && (resp.StatusCode == http.StatusPreconditionFailed || resp.Code == "PreconditionFailed" ||
		resp.StatusCode == http.StatusConflict && resp.Code == "ConditionalRequestConflict") {
		return fmt.Errorf("s3 state: %s %q: %w", op, key, media.ErrPrecondition)
	}
	return st.s.wrap(ctx, op, "state:"+key, err)
}
