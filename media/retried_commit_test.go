package media_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// retriedCreates is a state store whose creates of sidecars are sent
// twice, as an S3 client resends a request whose answer a connection
// reset lost: the first attempt creates the object, the second finds it
// there (412).
type retriedCreates struct{ *local.State }

func (r retriedCreates) Create(ctx context.Context, key string, data []byte) (string, error) {
	if strings.HasPrefix(key, "items/") {
		if _, err := r.State.Create(ctx, key, data); err != nil {
			return "", err
		}
	}
	return r.State.Create(ctx, key, data)
}

// An upload whose sidecar create was retried after its answer was lost is
// committed, not refused: before, it answered an internal error while its
// sidecar stood in the bucket, an item no box listed.
func TestCreate_SidecarCreateRetried(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	state, err := local.OpenState(filepath.Join(root, local.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	defer state.Close()
	l, err := media.Open(ctx, media.Config{Root: root, Storage: st, State: retriedCreates{state}, PollInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	it := mustCreate(t, l, "a.pdf", pdfBytes, "")
	if got, ok := l.Get(it.ID); !ok || got.Key != it.Key {
		t.Fatalf("the item after a retried sidecar create: %+v, %v", got, ok)
	}
}
