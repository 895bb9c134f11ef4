package media_test

import (
	"context"
	"errors"
	"testing"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// racingStore is a real local state store whose first conditional create
// of a key is refused as if another box's write of it were in flight
// (the object not readable yet): what a bucket answered in
// TestEngine_ParseCacheTwoPublishers once.
type racingStore struct {
	*local.State
	refuse int
}

func (s *racingStore) Create(ctx context.Context, key string, data []byte) (string, error) {
	if s.refuse > 0 {
		s.refuse--
		return "", media.ErrPrecondition
	}
	return s.State.Create(ctx, key, data)
}

// TestCreateOnce_RefusedThenMissing: a create refused for an object that
// is then not there is tried again, not reported as the object missing.
func TestCreateOnce_RefusedThenMissing(t *testing.T) {
	st, err := local.OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	rs := &racingStore{State: st, refuse: 2}
	if err := media.CreateOnce(ctx, rs, "snap/a", []byte("one"), func([]byte) bool { return true }); err != nil {
		t.Fatalf("CreateOnce after two refused creates: %v", err)
	}
	if got, _, err := st.Get(ctx, "snap/a"); err != nil || string(got) != "one" {
		t.Fatalf("the object: %q, %v", got, err)
	}
	// refused every time: the missing object is the answer, in bounded tries
	rs.refuse = 100
	if err := media.CreateOnce(ctx, rs, "snap/b", []byte("two"), func([]byte) bool { return true }); !errors.Is(err, media.ErrNotExist) {
		t.Fatalf("CreateOnce refused every time: %v, want ErrNotExist", err)
	}
	if rs.refuse != 95 {
		t.Fatalf("%d creates tried, want 5", 100-rs.refuse)
	}
}
