package s3_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/s3"
	"github.com/folio-cms/folio/media/s3/s3test"
)

func newState(tb testing.TB) *s3.State {
	tb.Helper()
	cfg, _ := s3test.Start(tb)
	_, state := s3test.Open(tb, cfg)
	return state
}

// The conditional writes the shared library relies on, against a real S3
// server: create-if-absent, replace-if-unchanged, ordered listing.
func TestState_ConditionalWrites(t *testing.T) {
	st := newState(t)
	ctx := context.Background()
	e1, err := st.Create(ctx, "a/x", []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(ctx, "a/x", []byte("two")); !errors.Is(err, media.ErrPrecondition) {
		t.Fatalf("second create: %v, want ErrPrecondition", err)
	}
	e2, err := st.Replace(ctx, "a/x", []byte("two"), e1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Replace(ctx, "a/x", []byte("three"), e1); !errors.Is(err, media.ErrPrecondition) {
		t.Fatalf("stale replace: %v, want ErrPrecondition", err)
	}
	data, etag, err := st.Get(ctx, "a/x")
	if err != nil || string(data) != "two" || etag != e2 {
		t.Fatalf("get = %q %q %v, want two %q", data, etag, err, e2)
	}
	if _, err := st.Replace(ctx, "a/missing", []byte("x"), e2); !errors.Is(err, media.ErrPrecondition) && !errors.Is(err, media.ErrNotExist) {
		t.Fatalf("replace of a missing key: %v", err)
	}
	for i := range 5 {
		if _, err := st.Create(ctx, fmt.Sprintf("log/%03d", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	if err := st.List(ctx, "log/", "log/001", func(o media.StateObject) error { keys = append(keys, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(keys) != "[log/002 log/003 log/004]" {
		t.Fatalf("list after log/001 = %v", keys)
	}
	if err := st.Delete(ctx, "a/x"); err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(ctx, "a/x"); err != nil {
		t.Fatalf("delete of a missing key: %v", err)
	}
	if _, _, err := st.Get(ctx, "a/x"); !errors.Is(err, media.ErrNotExist) {
		t.Fatalf("get after delete: %v", err)
	}
}

// Of many concurrent creates of one key exactly one wins; of many
// replaces from one version exactly one wins.
func TestState_RacesHaveOneWinner(t *testing.T) {
	st := newState(t)
	ctx := context.Background()
	race := func(op func(i int) error) (won int) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range 8 {
			wg.Go(func() {
				err := op(i)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					won++
				case !errors.Is(err, media.ErrPrecondition):
					t.Errorf("racer %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		return won
	}
	if n := race(func(i int) error { _, err := st.Create(ctx, "k", []byte{byte(i)}); return err }); n != 1 {
		t.Fatalf("%d creates won, want 1", n)
	}
	_, etag, err := st.Get(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	if n := race(func(i int) error { _, err := st.Replace(ctx, "k", []byte{byte(10 + i)}, etag); return err }); n != 1 {
		t.Fatalf("%d replaces won, want 1", n)
	}
}

func TestState_PrefixMustBePrivate(t *testing.T) {
	cfg, _ := s3test.Start(t)
	st, err := s3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{cfg.Prefix, cfg.Prefix + "/state", "", "a/../b"} {
		if _, err := st.State(p); err == nil {
			t.Errorf("state prefix %q accepted", p)
		}
	}
}
