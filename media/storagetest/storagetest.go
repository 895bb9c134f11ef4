// Package storagetest is the conformance suite every media.Storage adapter
// runs from its tests, so that the media library can rely on one contract
// whatever holds its bytes.
package storagetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/folio-cms/folio/media"
)

// LargeSize is the size of the object of the streaming subtest: big enough to
// cross several multipart parts and to show unbounded buffering.
const LargeSize = 20 << 20

// Run runs the conformance suite. newStorage returns an empty storage; it is
// called once per subtest and must arrange its own cleanup with t.Cleanup.
func Run(t *testing.T, newStorage func(t *testing.T) media.Storage) {
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, newStorage(t)) })
	t.Run("Overwrite", func(t *testing.T) { testOverwrite(t, newStorage(t)) })
	t.Run("Missing", func(t *testing.T) { testMissing(t, newStorage(t)) })
	t.Run("DeleteMissing", func(t *testing.T) { testDeleteMissing(t, newStorage(t)) })
	t.Run("PrefixIsNotObject", func(t *testing.T) { testPrefixIsNotObject(t, newStorage(t)) })
	t.Run("BadKeys", func(t *testing.T) { testBadKeys(t, newStorage(t)) })
	t.Run("Empty", func(t *testing.T) { testEmpty(t, newStorage(t)) })
	t.Run("LargeStreamed", func(t *testing.T) { testLarge(t, newStorage(t), -1) })
	t.Run("LargeSized", func(t *testing.T) { testLarge(t, newStorage(t), LargeSize) })
	t.Run("ConcurrentPuts", func(t *testing.T) { testConcurrentPuts(t, newStorage(t)) })
	t.Run("FailedReader", func(t *testing.T) { testFailedReader(t, newStorage(t)) })
	t.Run("SizeMismatch", func(t *testing.T) { testSizeMismatch(t, newStorage(t)) })
	t.Run("CanceledContext", func(t *testing.T) { testCanceled(t, newStorage(t)) })
	t.Run("URL", func(t *testing.T) { testURL(t, newStorage(t)) })
}

// MustPut stores data under key and fails the test otherwise.
func MustPut(tb testing.TB, s media.Storage, key string, data []byte) {
	tb.Helper()
	if err := s.Put(context.Background(), key, bytes.NewReader(data), int64(len(data)), "application/octet-stream"); err != nil {
		tb.Fatalf("Put(%q): %v", key, err)
	}
}

// MustRead returns the whole object at key and fails the test otherwise.
func MustRead(tb testing.TB, s media.Storage, key string) []byte {
	tb.Helper()
	rc, err := s.Open(context.Background(), key)
	if err != nil {
		tb.Fatalf("Open(%q): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		tb.Fatalf("read %q: %v", key, err)
	}
	return b
}

// AssertMissing fails the test unless Stat and Open both say ErrNotExist.
func AssertMissing(tb testing.TB, s media.Storage, key string) {
	tb.Helper()
	ctx := context.Background()
	if n, err := s.Stat(ctx, key); !errors.Is(err, media.ErrNotExist) {
		tb.Errorf("Stat(%q) = %d, %v; want ErrNotExist", key, n, err)
	}
	rc, err := s.Open(ctx, key)
	if err == nil {
		rc.Close()
	}
	if !errors.Is(err, media.ErrNotExist) {
		tb.Errorf("Open(%q) err = %v; want ErrNotExist", key, err)
	}
}

func testRoundTrip(t *testing.T, s media.Storage) {
	ctx := context.Background()
	key := "2026/11/photo.jpg"
	data := []byte("not really a jpeg, but bytes all the same\x00\xff")
	if err := s.Put(ctx, key, bytes.NewReader(data), int64(len(data)), "image/jpeg"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	n, err := s.Stat(ctx, key)
	if err != nil {
		t.Fatalf("Stat: %v", err)
	}
	if got, want := n, int64(len(data)); got != want {
		t.Errorf("Stat size = %d, want %d", got, want)
	}
	if got := MustRead(t, s, key); !bytes.Equal(got, data) {
		t.Errorf("Open read %q, want %q", got, data)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	AssertMissing(t, s, key)
}

func testOverwrite(t *testing.T, s media.Storage) {
	key := "2026/11/over.txt"
	MustPut(t, s, key, []byte("the first, longer version"))
	MustPut(t, s, key, []byte("second"))
	if got, want := string(MustRead(t, s, key)), "second"; got != want {
		t.Errorf("after overwrite read %q, want %q", got, want)
	}
	n, err := s.Stat(context.Background(), key)
	if err != nil || n != 6 {
		t.Errorf("Stat = %d, %v; want 6, nil", n, err)
	}
}

func testMissing(t *testing.T, s media.Storage) {
	AssertMissing(t, s, "2026/11/nothing.jpg")
	MustPut(t, s, "2026/11/file.jpg", []byte("x"))
	// A key "below" an object: on a file system that goes through a file.
	AssertMissing(t, s, "2026/11/file.jpg/below")
	AssertMissing(t, s, "2026/11/file.jpg.webp")
	AssertMissing(t, s, "2026/11/file")
}

func testDeleteMissing(t *testing.T, s media.Storage) {
	ctx := context.Background()
	if err := s.Delete(ctx, "2026/11/never-was.jpg"); err != nil {
		t.Errorf("Delete(missing) = %v, want nil", err)
	}
	MustPut(t, s, "k/once.txt", []byte("x"))
	for i := range 2 {
		if err := s.Delete(ctx, "k/once.txt"); err != nil {
			t.Errorf("Delete #%d = %v, want nil", i+1, err)
		}
	}
	AssertMissing(t, s, "k/once.txt")
}

// A key prefix that only groups other objects (a directory on disk) is not
// an object: it cannot be read, and deleting it touches nothing.
func testPrefixIsNotObject(t *testing.T, s media.Storage) {
	ctx := context.Background()
	MustPut(t, s, "p/q/r.txt", []byte("r"))
	MustPut(t, s, "p/q/s.txt", []byte("s"))
	AssertMissing(t, s, "p/q")
	AssertMissing(t, s, "p")
	if err := s.Delete(ctx, "p/q"); err != nil {
		t.Errorf("Delete(prefix) = %v, want nil", err)
	}
	if err := s.Delete(ctx, "p/q/r.txt"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if got := string(MustRead(t, s, "p/q/s.txt")); got != "s" {
		t.Errorf("sibling read %q after delete, want %q", got, "s")
	}
	AssertMissing(t, s, "p/q/r.txt")
}

// BadKeys are keys every adapter must refuse, for every operation.
var BadKeys = []struct{ Name, Key string }{
	{"empty", ""},
	{"absolute", "/2026/11/a.jpg"},
	{"root", "/"},
	{"trailing slash", "2026/11/"},
	{"double slash", "2026//a.jpg"},
	{"dot", "."},
	{"dot segment", "2026/./a.jpg"},
	{"dotdot", ".."},
	{"dotdot prefix", "../a.jpg"},
	{"dotdot inside", "2026/../../a.jpg"},
	{"dotdot last", "2026/11/.."},
	{"dotfile", ".htaccess"},
	{"sidecar", "2026/11/.meta/a.jpg.yaml"},
	{"dot dir", "2026/.git/config"},
	{"backslash", "2026\\11\\a.jpg"},
	{"backslash dotdot", "..\\a.jpg"},
	{"NUL", "2026/11/a\x00.jpg"},
	{"newline", "2026/11/a\n.jpg"},
	{"tab", "2026/11/a\t.jpg"},
	{"DEL", "2026/11/a\x7f.jpg"},
	{"C1 control", "2026/11/a\u0085.jpg"},
	{"invalid UTF-8", "2026/11/a\xff.jpg"},
	{"too long", strings.Repeat("a", 2000)},
}

func testBadKeys(t *testing.T, s media.Storage) {
	ctx := context.Background()
	for _, tc := range BadKeys {
		t.Run(tc.Name, func(t *testing.T) {
			err := s.Put(ctx, tc.Key, strings.NewReader("x"), 1, "text/plain")
			checkRefused(t, "Put", err)
			rc, err := s.Open(ctx, tc.Key)
			if err == nil {
				rc.Close()
			}
			checkRefused(t, "Open", err)
			_, err = s.Stat(ctx, tc.Key)
			checkRefused(t, "Stat", err)
			checkRefused(t, "Delete", s.Delete(ctx, tc.Key))
		})
	}
}

// checkRefused wants an error that is neither "missing" (which would let a
// caller treat the key as free) nor "unavailable" (which would be a 503).
func checkRefused(t *testing.T, op string, err error) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s: no error, want the key refused", op)
	case errors.Is(err, media.ErrNotExist), errors.Is(err, media.ErrUnavailable):
		t.Errorf("%s: %v; want a refusal, not ErrNotExist/ErrUnavailable", op, err)
	}
}

func testEmpty(t *testing.T, s media.Storage) {
	for _, size := range []int64{0, -1} {
		key := fmt.Sprintf("empty/size%d", size)
		if err := s.Put(context.Background(), key, strings.NewReader(""), size, "text/plain"); err != nil {
			t.Fatalf("Put(size %d): %v", size, err)
		}
		if n, err := s.Stat(context.Background(), key); err != nil || n != 0 {
			t.Errorf("Stat = %d, %v; want 0, nil", n, err)
		}
		if got := MustRead(t, s, key); len(got) != 0 {
			t.Errorf("read %d bytes, want 0", len(got))
		}
	}
}

// generator returns a reader of n pseudo-random bytes fixed by seed, which
// is never held in memory whole.
func generator(seed uint64, n int64) io.Reader {
	var s [32]byte
	s[0] = byte(seed)
	s[1] = byte(seed >> 8)
	return io.LimitReader(rand.NewChaCha8(s), n)
}

func hashOf(t *testing.T, r io.Reader) ([]byte, int64) {
	t.Helper()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		t.Fatalf("hash: %v", err)
	}
	return h.Sum(nil), n
}

func testLarge(t *testing.T, s media.Storage, size int64) {
	ctx := context.Background()
	key := "big/large.bin"
	want, _ := hashOf(t, generator(7, LargeSize))
	if err := s.Put(ctx, key, generator(7, LargeSize), size, "application/octet-stream"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	n, err := s.Stat(ctx, key)
	if err != nil || n != LargeSize {
		t.Fatalf("Stat = %d, %v; want %d", n, err, LargeSize)
	}
	rc, err := s.Open(ctx, key)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer rc.Close()
	got, n := hashOf(t, rc)
	if n != LargeSize || !bytes.Equal(got, want) {
		t.Errorf("read back %d bytes with sha256 %x, want %d bytes with %x", n, got, LargeSize, want)
	}
}

func testConcurrentPuts(t *testing.T, s media.Storage) {
	const workers = 8
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for i := range workers {
		wg.Go(func() {
			// Same directory for all: creating it races too.
			key := fmt.Sprintf("2026/12/c%d.bin", i)
			data := bytes.Repeat([]byte{byte('a' + i)}, 64<<10+i)
			errs[i] = s.Put(context.Background(), key, bytes.NewReader(data), int64(len(data)), "application/octet-stream")
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Put #%d: %v", i, err)
			continue
		}
		got := MustRead(t, s, fmt.Sprintf("2026/12/c%d.bin", i))
		if want := bytes.Repeat([]byte{byte('a' + i)}, 64<<10+i); !bytes.Equal(got, want) {
			t.Errorf("object %d: read %d bytes, want %d bytes of %q", i, len(got), len(want), rune('a'+i))
		}
	}
}

// failingReader yields n bytes, then fails.
type failingReader struct {
	r   io.Reader
	err error
}

var errBroken = errors.New("storagetest: reader broke")

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func brokenAfter(n int64) io.Reader {
	return &failingReader{r: generator(3, n), err: errBroken}
}

func testFailedReader(t *testing.T, s media.Storage) {
	ctx := context.Background()
	// Sizes below and above a multipart part.
	for _, n := range []int64{1 << 20, 17 << 20} {
		for _, size := range []int64{-1, n * 2} {
			key := fmt.Sprintf("broken/%d-%d.bin", n, size)
			err := s.Put(ctx, key, brokenAfter(n), size, "application/octet-stream")
			// The reader's own error, so that a broken upload is told apart
			// from a broken storage.
			if !errors.Is(err, errBroken) || errors.Is(err, media.ErrUnavailable) {
				t.Errorf("Put(%d bytes then error, size %d) = %v, want the reader's error", n, size, err)
			}
			AssertMissing(t, s, key)
		}
	}
	// A failed overwrite keeps the old object.
	key := "broken/kept.txt"
	MustPut(t, s, key, []byte("old"))
	if err := s.Put(ctx, key, brokenAfter(1<<20), -1, "text/plain"); err == nil {
		t.Fatalf("overwrite with a broken reader = nil, want error")
	}
	if got := string(MustRead(t, s, key)); got != "old" {
		t.Errorf("after failed overwrite read %d bytes, want %q", len(got), "old")
	}
}

// A body that is not of its announced size is refused whole: cutting a
// longer one short would store a truncated file without anyone noticing.
func testSizeMismatch(t *testing.T, s media.Storage) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		body string
		size int64
	}{
		{"short", "12345", 10},
		{"long", "1234567890", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "mismatch/" + tc.name
			err := s.Put(ctx, key, strings.NewReader(tc.body), tc.size, "text/plain")
			if err == nil || errors.Is(err, media.ErrUnavailable) {
				t.Errorf("Put(%d bytes, size %d) = %v, want an error, not ErrUnavailable", len(tc.body), tc.size, err)
			}
			AssertMissing(t, s, key)
		})
	}
}

func testCanceled(t *testing.T, s media.Storage) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	key := "canceled/a.txt"
	if err := s.Put(ctx, key, strings.NewReader("x"), 1, "text/plain"); !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a canceled context = %v, want context.Canceled", err)
	}
	AssertMissing(t, s, key)

	// Canceled in the middle of the body.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	r := io.MultiReader(generator(1, 1<<20), readFunc(func([]byte) (int, error) {
		cancel()
		return 0, nil
	}), generator(2, 1<<20))
	if err := s.Put(ctx, key, r, -1, "text/plain"); !errors.Is(err, context.Canceled) || errors.Is(err, media.ErrUnavailable) {
		t.Errorf("Put canceled mid-body = %v, want context.Canceled", err)
	}
	AssertMissing(t, s, key)
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }

func testURL(t *testing.T, s media.Storage) {
	for _, tc := range []struct{ key, escaped string }{
		{"2026/11/photo.jpg", "2026/11/photo.jpg"},
		{"2026/11/my photo #1?.jpg", "2026/11/my%20photo%20%231%3F.jpg"},
		{"2026/11/100%.png", "2026/11/100%25.png"},
		{"2026/11/été.png", "2026/11/%C3%A9t%C3%A9.png"},
	} {
		raw := s.URL(tc.key)
		u, err := url.Parse(raw)
		if err != nil {
			t.Errorf("URL(%q) = %q, does not parse: %v", tc.key, raw, err)
			continue
		}
		local := strings.HasPrefix(raw, "/uploads/")
		cloud := (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
		if !local && !cloud {
			t.Errorf("URL(%q) = %q, want /uploads/... or an absolute http(s) URL", tc.key, raw)
		}
		if !strings.HasSuffix(u.Path, "/"+tc.key) {
			t.Errorf("URL(%q) = %q, path %q does not end in the key", tc.key, raw, u.Path)
		}
		if !strings.HasSuffix(u.EscapedPath(), "/"+tc.escaped) {
			t.Errorf("URL(%q) = %q, want it to end in %q", tc.key, raw, tc.escaped)
		}
		if u.RawQuery != "" || u.Fragment != "" {
			t.Errorf("URL(%q) = %q has a query or fragment", tc.key, raw)
		}
	}
}
