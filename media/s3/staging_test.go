package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/s3/s3test"
)

// TestStaging: a presigned PUT lands in the staging area (not under the
// site's prefix), is read and promoted by its tag, and a version replaced
// after it was checked is neither read nor promoted: the copy is of the
// version the confirm checked, or nothing.
func TestStaging(t *testing.T) {
	cfg, _ := s3test.Start(t)
	store, st := s3test.Open(t, cfg)
	ctx := context.Background()
	const staged = "staging/tok/a.png"
	putURL := func(body string) {
		t.Helper()
		u, h, err := st.PresignStaged(ctx, staged, "image/png", int64(len(body)), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(u, "/"+cfg.Bucket+"/"+cfg.Prefix+"/") {
			t.Fatalf("staging URL %s is under the public prefix", u)
		}
		req, _ := http.NewRequest(http.MethodPut, u, strings.NewReader(body))
		req.Header.Set("Content-Type", h["Content-Type"])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("PUT = %d", resp.StatusCode)
		}
	}
	putURL("first")
	size, tag, err := st.StatStaged(ctx, staged)
	if err != nil || size != 5 || tag == "" {
		t.Fatalf("stat: %d %q %v", size, tag, err)
	}
	putURL("other")
	if _, err := st.OpenStaged(ctx, staged, tag); !errors.Is(err, media.ErrPrecondition) {
		t.Fatalf("open of a replaced version: %v, want ErrPrecondition", err)
	}
	if err := st.Promote(ctx, staged, tag, "2026/01/a.png", "image/png"); !errors.Is(err, media.ErrPrecondition) {
		t.Fatalf("promote of a replaced version: %v, want ErrPrecondition", err)
	}
	if _, err := store.Stat(ctx, "2026/01/a.png"); !errors.Is(err, media.ErrNotExist) {
		t.Fatalf("a refused promote left an object: %v", err)
	}
	_, tag, _ = st.StatStaged(ctx, staged)
	rc, err := st.OpenStaged(ctx, staged, tag)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if string(got) != "other" {
		t.Fatalf("read %q", got)
	}
	if err := st.Promote(ctx, staged, tag, "2026/01/a.png", "image/png"); err != nil {
		t.Fatal(err)
	}
	rc, err = store.Open(ctx, "2026/01/a.png")
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, []byte("other")) {
		t.Fatalf("promoted %q", got)
	}
	if err := st.DeleteStaged(ctx, staged); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.StatStaged(ctx, staged); !errors.Is(err, media.ErrNotExist) {
		t.Fatalf("after delete: %v", err)
	}
	for _, bad := range []string{"a.png", "grants/x.yaml", "staging/../grants/x"} {
		if _, _, err := st.PresignStaged(ctx, bad, "image/png", 1, time.Minute); err == nil {
			t.Errorf("presigned %q outside staging", bad)
		}
	}
}
