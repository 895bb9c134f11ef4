package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/internal/objkey"
)

var _ media.Stager = (*State)(nil)

// stagingDir is where presigned uploads land in the state area, outside
// the site's public prefix: an object there is never served, whatever
// the bucket policy makes public.
const stagingDir = "staging/"

func (st *State) stagedKey(staged string) (string, error) {
	if !strings.HasPrefix(staged, stagingDir) {
		return "", fmt.Errorf("s3 state: %q is not a staging key", staged)
	}
	if err := objkey.Check(staged); err != nil {
		return "", err
	}
	return st.prefix + staged, nil
}

// PresignStaged grants one PUT of exactly size bytes of contentType at
// the staging key staged, as Storage.PresignPut does for a public key.
func (st *State) PresignStaged(ctx context.Context, staged, contentType string, size int64, expires time.Duration) (string, map[string]string, error) {
	full, err := st.stagedKey(staged)
	if err != nil {
		return "", nil, err
	}
	return st.s.presignPut(ctx, "s3 state", staged, full, contentType, size, expires)
}

// StatStaged returns the size and tag of a staged object.
func (st *State) StatStaged(ctx context.Context, staged string) (int64, string, error) {
	full, err := st.stagedKey(staged)
	if err != nil {
		return 0, "", err
	}
	info, err := st.s.client.StatObject(ctx, st.s.cfg.Bucket, full, minio.StatObjectOptions{})
	if err != nil {
		return 0, "", st.wrap(ctx, "stat", staged, err)
	}
	return info.Size, strings.Trim(info.ETag, `"`), nil
}

// OpenStaged reads the version etag of a staged object (If-Match).
func (st *State) OpenStaged(ctx context.Context, staged, etag string) (io.ReadCloser, error) {
	full, err := st.stagedKey(staged)
	if err != nil {
		return nil, err
	}
	if etag == "" {
		return nil, errors.New("s3 state: open staged: an etag is required")
	}
	opts := minio.GetObjectOptions{}
	if err := opts.SetMatchETag(etag); err != nil {
		return nil, err
	}
	obj, err := st.s.client.GetObject(ctx, st.s.cfg.Bucket, full, opts)
	if err != nil {
		return nil, st.wrap(ctx, "open", staged, err)
	}
	if _, err := obj.Stat(); err != nil {
		obj.Close()
		return nil, st.wrap(ctx, "open", staged, err)
	}
	return obj, nil
}

// Promote copies the version etag of a staged object to the storage's key,
// server side (x-amz-copy-source-if-match), replacing its metadata so that
// it is served as contentType whatever the upload claimed.
func (st *State) Promote(ctx context.Context, staged, etag, key, contentType string) error {
	full, err := st.stagedKey(staged)
	if err != nil {
		return err
	}
	if err := objkey.Check(key); err != nil {
		return err
	}
	if etag == "" {
		return errors.New("s3 state: promote: an etag is required")
	}
	src := minio.CopySrcOptions{Bucket: st.s.cfg.Bucket, Object: full, MatchETag: etag}
	dst := minio.CopyDestOptions{
		Bucket: st.s.cfg.Bucket, Object: st.s.FullKey(key),
		ReplaceMetadata: true, UserMetadata: map[string]string{"Content-Type": contentType},
	}
	if _, err := st.s.client.CopyObject(ctx, dst, src); err != nil {
		return st.wrap(ctx, "promote", staged, err)
	}
	return nil
}

// DeleteStaged removes a staged object.
func (st *State) DeleteStaged(ctx context.Context, staged string) error {
	if _, err := st.stagedKey(staged); err != nil {
		return err
	}
	return st.Delete(ctx, staged)
}
