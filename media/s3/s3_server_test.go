package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/s3"
	"github.com/folio-cms/folio/media/s3/s3test"
	"github.com/folio-cms/folio/media/storagetest"
)

// rawClient reads what the server really holds, behind the adapter's back.
func rawClient(tb testing.TB, cfg s3.Config) *minio.Client {
	tb.Helper()
	c, err := minio.New(strings.TrimPrefix(cfg.Endpoint, "http://"), &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Region: cfg.Region,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestStorage_Put(t *testing.T) {
	srv := s3test.NewServer(t)
	cfg := srv.NewBucket(t)
	s := mustNew(t, cfg)
	ctx := context.Background()

	t.Run("ObjectUnderPrefixWithContentType", func(t *testing.T) {
		if err := s.Put(ctx, "2026/11/a.png", strings.NewReader("png"), 3, "image/png"); err != nil {
			t.Fatal(err)
		}
		info, err := rawClient(t, cfg).StatObject(ctx, cfg.Bucket, "site/2026/11/a.png", minio.StatObjectOptions{})
		if err != nil {
			t.Fatalf("raw stat of site/2026/11/a.png: %v", err)
		}
		if got, want := info.ContentType, "image/png"; got != want {
			t.Errorf("ContentType = %q, want %q", got, want)
		}
		// versitygw's posix backend: <dir>/<bucket>/<object key>.
		b, err := os.ReadFile(filepath.Join(srv.Dir(), cfg.Bucket, "site", "2026", "11", "a.png"))
		if err != nil || string(b) != "png" {
			t.Errorf("file on the server = %q, %v", b, err)
		}
	})
	t.Run("StreamedContentType", func(t *testing.T) {
		// Above the read-ahead, so it goes up as a multipart upload.
		data := bytes.Repeat([]byte("w"), 3<<20)
		if err := s.Put(ctx, "2026/11/a.webp", io.MultiReader(bytes.NewReader(data)), -1, "image/webp"); err != nil {
			t.Fatal(err)
		}
		info, err := rawClient(t, cfg).StatObject(ctx, cfg.Bucket, "site/2026/11/a.webp", minio.StatObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if info.ContentType != "image/webp" || info.Size != int64(len(data)) {
			t.Errorf("stat = %q, %d; want image/webp, %d", info.ContentType, info.Size, len(data))
		}
	})
	t.Run("ErrNoSuchBucket", func(t *testing.T) {
		other := cfg
		other.Bucket = "not-there"
		s := mustNew(t, other)
		err := s.Put(ctx, "a.txt", strings.NewReader("x"), 1, "text/plain")
		if err == nil || errors.Is(err, media.ErrNotExist) || errors.Is(err, media.ErrUnavailable) {
			t.Errorf("Put into a missing bucket = %v, want a plain error", err)
		}
	})
	t.Run("ErrWrongSecret", func(t *testing.T) {
		other := cfg
		other.SecretKey = "wrong"
		s := mustNew(t, other)
		if _, err := s.Stat(ctx, "2026/11/a.png"); err == nil || errors.Is(err, media.ErrNotExist) {
			t.Errorf("Stat with a wrong secret = %v, want a plain error", err)
		}
	})
}

func TestStorage_PresignPut(t *testing.T) {
	srv := s3test.NewServer(t)
	cfg := srv.NewBucket(t)
	s := mustNew(t, cfg)
	ctx := context.Background()
	body := []byte("<svg xmlns='http://www.w3.org/2000/svg'/>")
	size := int64(len(body))

	// put sends body to a presigned URL with the given headers, as a browser
	// would: Content-Length comes from the body.
	put := func(t *testing.T, u string, headers map[string]string, body []byte) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPut, u, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range headers {
			if k != "Content-Length" {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	grant := func(t *testing.T, key string) (string, map[string]string) {
		t.Helper()
		u, h, err := s.PresignPut(ctx, key, "image/svg+xml", size, 15*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return u, h
	}

	t.Run("OK", func(t *testing.T) {
		u, h := grant(t, "2026/11/ok.svg")
		if !strings.HasPrefix(u, cfg.Endpoint+"/"+cfg.Bucket+"/site/2026/11/ok.svg?") {
			t.Errorf("upload URL = %q", u)
		}
		if h["Content-Type"] != "image/svg+xml" || h["Content-Length"] != strconv.FormatInt(size, 10) {
			t.Errorf("headers = %v, want Content-Type and Content-Length", h)
		}
		if got := put(t, u, h, body); got != http.StatusOK {
			t.Fatalf("PUT = %d, want 200\n%s", got, srv.Log())
		}
		if got := storagetest.MustRead(t, s, "2026/11/ok.svg"); !bytes.Equal(got, body) {
			t.Errorf("stored %q, want %q", got, body)
		}
		info, err := rawClient(t, cfg).StatObject(ctx, cfg.Bucket, s.FullKey("2026/11/ok.svg"), minio.StatObjectOptions{})
		if err != nil || info.ContentType != "image/svg+xml" {
			t.Errorf("stored content type = %q, %v", info.ContentType, err)
		}
	})
	t.Run("ErrOtherContentType", func(t *testing.T) {
		u, h := grant(t, "2026/11/ct.svg")
		h["Content-Type"] = "text/html"
		if got := put(t, u, h, body); got != http.StatusForbidden {
			t.Errorf("PUT with another content type = %d, want 403", got)
		}
		storagetest.AssertMissing(t, s, "2026/11/ct.svg")
	})
	t.Run("ErrNoContentType", func(t *testing.T) {
		u, h := grant(t, "2026/11/noct.svg")
		delete(h, "Content-Type")
		if got := put(t, u, h, body); got != http.StatusForbidden {
			t.Errorf("PUT without content type = %d, want 403", got)
		}
		storagetest.AssertMissing(t, s, "2026/11/noct.svg")
	})
	t.Run("ErrLonger", func(t *testing.T) {
		u, h := grant(t, "2026/11/long.svg")
		if got := put(t, u, h, append(body, ' ')); got != http.StatusForbidden {
			t.Errorf("PUT of %d bytes on a %d-byte grant = %d, want 403", size+1, size, got)
		}
		storagetest.AssertMissing(t, s, "2026/11/long.svg")
	})
	t.Run("ErrShorter", func(t *testing.T) {
		u, h := grant(t, "2026/11/short.svg")
		if got := put(t, u, h, body[:10]); got != http.StatusForbidden {
			t.Errorf("PUT of 10 bytes on a %d-byte grant = %d, want 403", size, got)
		}
		storagetest.AssertMissing(t, s, "2026/11/short.svg")
	})
	t.Run("ErrOtherKey", func(t *testing.T) {
		u, h := grant(t, "2026/11/granted.svg")
		u = strings.Replace(u, "granted.svg", "other.svg", 1)
		if got := put(t, u, h, body); got != http.StatusForbidden {
			t.Errorf("PUT to another key = %d, want 403", got)
		}
		storagetest.AssertMissing(t, s, "2026/11/other.svg")
	})
	t.Run("ErrBadArguments", func(t *testing.T) {
		for _, tc := range []struct {
			name, key, ct string
			size          int64
			exp           time.Duration
		}{
			{"BadKey", "../x.svg", "image/svg+xml", 1, time.Minute},
			{"SidecarKey", "2026/11/.meta/x.yaml", "text/yaml", 1, time.Minute},
			{"NoContentType", "a.svg", "", 1, time.Minute},
			{"HeaderInjection", "a.svg", "image/svg+xml\r\nX-Amz-Acl: public-read", 1, time.Minute},
			{"NegativeSize", "a.svg", "image/svg+xml", -1, time.Minute},
			{"NoExpiry", "a.svg", "image/svg+xml", 1, 0},
			{"LongExpiry", "a.svg", "image/svg+xml", 1, 8 * 24 * time.Hour},
		} {
			if _, _, err := s.PresignPut(ctx, tc.key, tc.ct, tc.size, tc.exp); err == nil {
				t.Errorf("%s: PresignPut = nil error", tc.name)
			}
		}
	})
}

// TestStorage_Unavailable stops the server under the storage: every call
// says ErrUnavailable, and all works again once the server is back.
func TestStorage_Unavailable(t *testing.T) {
	srv := s3test.NewServer(t)
	cfg := srv.NewBucket(t)
	cfg.MaxRetries = 1
	s := mustNew(t, cfg)
	ctx := context.Background()
	storagetest.MustPut(t, s, "2026/11/kept.txt", []byte("kept"))

	srv.Stop()
	unavailable := func(op string, err error) {
		t.Helper()
		if !errors.Is(err, media.ErrUnavailable) {
			t.Errorf("%s with the server down = %v, want ErrUnavailable", op, err)
		}
	}
	unavailable("Put", s.Put(ctx, "2026/11/new.txt", strings.NewReader("new"), 3, "text/plain"))
	unavailable("Put streamed", s.Put(ctx, "2026/11/new.txt", strings.NewReader("new"), -1, "text/plain"))
	unavailable("Put large", s.Put(ctx, "2026/11/new.txt", bytes.NewReader(make([]byte, 17<<20)), -1, "text/plain"))
	_, err := s.Open(ctx, "2026/11/kept.txt")
	unavailable("Open", err)
	_, err = s.Stat(ctx, "2026/11/kept.txt")
	unavailable("Stat", err)
	unavailable("Delete", s.Delete(ctx, "2026/11/kept.txt"))
	// Signing is local: a grant can be made while the server is down.
	if _, _, err := s.PresignPut(ctx, "2026/11/p.txt", "text/plain", 1, time.Minute); err != nil {
		t.Errorf("PresignPut with the server down = %v, want nil", err)
	}

	srv.Start()
	if got := string(storagetest.MustRead(t, s, "2026/11/kept.txt")); got != "kept" {
		t.Errorf("after restart read %q, want %q", got, "kept")
	}
	storagetest.MustPut(t, s, "2026/11/new.txt", []byte("new"))
	if err := s.Delete(ctx, "2026/11/new.txt"); err != nil {
		t.Errorf("Delete after restart: %v", err)
	}
}

// TestStorage_UnavailableAtStart: New does not need the server, and the
// storage works once it appears.
func TestStorage_UnavailableAtStart(t *testing.T) {
	srv := s3test.NewServer(t)
	cfg := srv.NewBucket(t)
	srv.Stop()
	cfg.MaxRetries = 1
	s := mustNew(t, cfg)
	if _, err := s.Stat(context.Background(), "a.txt"); !errors.Is(err, media.ErrUnavailable) {
		t.Errorf("Stat = %v, want ErrUnavailable", err)
	}
	srv.Start()
	storagetest.MustPut(t, s, "a.txt", []byte("a"))
}

func TestStorage_CanceledIsNotUnavailable(t *testing.T) {
	srv := s3test.NewServer(t)
	s := mustNew(t, srv.NewBucket(t))
	srv.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Stat(ctx, "a.txt"); !errors.Is(err, context.Canceled) || errors.Is(err, media.ErrUnavailable) {
		t.Errorf("Stat with a canceled context = %v, want context.Canceled only", err)
	}
}

// A failed multipart upload must not leave its parts behind: S3 keeps (and
// bills) incomplete uploads until they are aborted.
func TestStorage_FailedPutLeavesNoUpload(t *testing.T) {
	srv := s3test.NewServer(t)
	cfg := srv.NewBucket(t)
	s := mustNew(t, cfg)
	big := func() io.Reader { return bytes.NewReader(make([]byte, s3.PartSize+1<<20)) }

	t.Run("BrokenReader", func(t *testing.T) {
		r := io.MultiReader(big(), errReader{errors.New("broken")})
		if err := s.Put(context.Background(), "a/broken.bin", r, -1, "application/octet-stream"); err == nil {
			t.Fatal("Put = nil error")
		}
		assertNoUploads(t, cfg)
	})
	t.Run("Canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		r := io.MultiReader(big(), readFunc(func([]byte) (int, error) {
			cancel()
			return 0, nil
		}), big())
		if err := s.Put(ctx, "a/canceled.bin", r, -1, "application/octet-stream"); err == nil {
			t.Fatal("Put = nil error")
		}
		assertNoUploads(t, cfg)
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }

func assertNoUploads(t *testing.T, cfg s3.Config) {
	t.Helper()
	for u := range rawClient(t, cfg).ListIncompleteUploads(context.Background(), cfg.Bucket, "", true) {
		if u.Err != nil {
			t.Fatal(u.Err)
		}
		t.Errorf("incomplete upload left: %s (%s)", u.Key, u.UploadID)
	}
}

// BenchmarkPut_Streamed measures a 64 MiB Put of unknown size: memory per
// Put should stay near one part (PartSize) plus the read-ahead.
func BenchmarkPut_Streamed(b *testing.B) {
	srv := s3test.NewServer(b)
	s := mustNew(b, srv.NewBucket(b))
	const size = 64 << 20
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		r := io.LimitReader(zeros{}, size)
		if err := s.Put(context.Background(), "bench/big.bin", r, -1, "application/octet-stream"); err != nil {
			b.Fatal(err)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
