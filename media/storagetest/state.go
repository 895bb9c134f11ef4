package storagetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/folio-cms/folio/media"
)

// RunState runs the conformance suite of a media.StateStore: the
// create-if-absent, replace-if-unchanged and ordered listing that the
// shared library relies on. newState returns an empty store; it is called
// once per subtest and must arrange its own cleanup with t.Cleanup.
func RunState(t *testing.T, newState func(t *testing.T) media.StateStore) {
	t.Run("ConditionalWrites", func(t *testing.T) { testStateConditional(t, newState(t)) })
	t.Run("RacesHaveOneWinner", func(t *testing.T) { testStateRaces(t, newState(t)) })
	t.Run("ListOrder", func(t *testing.T) { testStateListOrder(t, newState(t)) })
	t.Run("TagChangesOnEveryWrite", func(t *testing.T) { testStateTags(t, newState(t)) })
	t.Run("OpenStreams", func(t *testing.T) { testStateOpen(t, newState(t)) })
}

// A store that reads objects as streams (media.StateOpener) reads what
// Get reads, and a missing object is ErrNotExist.
func testStateOpen(t *testing.T, st media.StateStore) {
	op, ok := st.(media.StateOpener)
	if !ok {
		t.Skip("not a media.StateOpener")
	}
	ctx := context.Background()
	if _, err := st.Create(ctx, "big/x", []byte("some bytes")); err != nil {
		t.Fatal(err)
	}
	rc, err := op.Open(ctx, "big/x")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(data) != "some bytes" {
		t.Fatalf("open: %q %v", data, err)
	}
	if _, err := op.Open(ctx, "big/missing"); !errors.Is(err, media.ErrNotExist) {
		t.Fatalf("open of a missing key: %v, want ErrNotExist", err)
	}
}

func testStateConditional(t *testing.T, st media.StateStore) {
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
func testStateRaces(t *testing.T, st media.StateStore) {
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

// A listing is in key order across "directories", and its tags are
// those Get gives.
func testStateListOrder(t *testing.T, st media.StateStore) {
	ctx := context.Background()
	keys := []string{"c/a-c", "c/a/b", "c/a", "c/b", "cz", "d/x"}
	tags := map[string]string{}
	for _, k := range keys {
		if k == "c/a" {
			continue // a key and a prefix at once is not asked of a store
		}
		tag, err := st.Create(ctx, k, []byte(k))
		if err != nil {
			t.Fatal(err)
		}
		tags[k] = tag
	}
	var got []string
	err := st.List(ctx, "c", "", func(o media.StateObject) error {
		got = append(got, o.Key)
		if o.ETag != tags[o.Key] {
			t.Errorf("listed tag of %s = %q, created %q", o.Key, o.ETag, tags[o.Key])
		}
		if o.LastModified.IsZero() {
			t.Errorf("%s listed without a time", o.Key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[c/a-c c/a/b c/b cz]" {
		t.Fatalf("list c = %v", got)
	}
	got = nil
	stop := errors.New("stop")
	err = st.List(ctx, "c/", "c/a-c", func(o media.StateObject) error {
		got = append(got, o.Key)
		return stop
	})
	if !errors.Is(err, stop) || fmt.Sprint(got) != "[c/a/b]" {
		t.Fatalf("list c/ after c/a-c, stopped = %v %v", got, err)
	}
}

// The same bytes written again still make a new version for a
// compare-and-swap (a tag may repeat only for equal content), and a key
// deleted and created again refuses a replace from its old life unless
// the content is equal.
func testStateTags(t *testing.T, st media.StateStore) {
	ctx := context.Background()
	old, err := st.Create(ctx, "k", []byte("v1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(ctx, "k", []byte("v2")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Replace(ctx, "k", []byte("v3"), old); !errors.Is(err, media.ErrPrecondition) {
		t.Fatalf("replace with a tag of a deleted version: %v, want ErrPrecondition", err)
	}
	for i := range 50 {
		_, tag, err := st.Get(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		data := fmt.Appendf(nil, "v%02d", i)
		next, err := st.Replace(ctx, "k", data, tag)
		if err != nil {
			t.Fatalf("replace %d: %v", i, err)
		}
		if next == tag {
			t.Fatalf("replace %d kept the tag %q", i, tag)
		}
	}
}
