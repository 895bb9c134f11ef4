package media

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/folio-cms/folio/media/replica"
)

// ErrPrecondition is returned by a StateStore write whose condition failed:
// the object exists (Create) or has changed since it was read (Replace).
var ErrPrecondition = errors.New("media: state object changed concurrently")

// StateStore is a private area of an object store, beside the media files
// but never under their public prefix, where a library keeps its state
// when several boxes share one bucket: sidecars, the folder list, key
// claims, the change log and its checkpoints, presign grants. Every write
// that could race another box's is a compare-and-swap (S3 conditional
// writes). Keys are slash-separated and relative to the area.
type StateStore interface {
	// Get reads an object and the tag of this version of it;
	// ErrNotExist when missing.
	Get(ctx context.Context, key string) (data []byte, etag string, err error)
	// Create writes an object that must not exist yet (If-None-Match: *);
	// ErrPrecondition when it does.
	Create(ctx context.Context, key string, data []byte) (etag string, err error)
	// Replace writes an object whose current version is etag (If-Match);
	// ErrPrecondition when it changed, ErrNotExist or ErrPrecondition when
	// it is gone.
	Replace(ctx context.Context, key string, data []byte, etag string) (newEtag string, err error)
	// Delete removes an object; a missing one is not an error.
	Delete(ctx context.Context, key string) error
	// List calls fn for every object under prefix whose key sorts after
	// startAfter ("" for all), in key order, until fn returns an error.
	List(ctx context.Context, prefix, startAfter string, fn func(StateObject) error) error
}

// CreateOnce writes obj at key unless an object sound accepts is there
// already (another box wrote the same thing first); one it does not
// accept (truncated, damaged) is replaced, unless another box replaced
// it meanwhile. For objects named by what they hold (a published
// snapshot of one commit), where any sound copy is as good as obj. A
// create refused for an object that is then not there (another box's
// write of it still under way, or failed: a bucket may refuse a
// conditional create while another is in flight) is tried again.
func CreateOnce(ctx context.Context, st StateStore, key string, obj []byte, sound func(old []byte) bool) error {
	var old []byte
	var etag string
	for attempt := 0; ; attempt++ {
		_, err := st.Create(ctx, key, obj)
		if !errors.Is(err, ErrPrecondition) {
			return err
		}
		old, etag, err = st.Get(ctx, key)
		if err == nil {
			break
		}
		if !errors.Is(err, ErrNotExist) || attempt == 4 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 20 * time.Millisecond):
		}
	}
	if sound(old) {
		return nil
	}
	_, err := st.Replace(ctx, key, obj, etag)
	if errors.Is(err, ErrPrecondition) {
		return nil // another box replaced it meanwhile
	}
	return err
}

// StateOpener is a StateStore that also reads an object as a stream,
// for an object too large to hold in memory (a search index snapshot:
// hundreds of MB at 100k documents). ErrNotExist when missing.
type StateOpener interface {
	Open(ctx context.Context, key string) (io.ReadCloser, error)
}

// PreparedCreator is a StateStore that can make an object's bytes durable
// ahead of its create (media/local.State: a synced temporary file), so
// that an upload syncs its sidecar's bytes beside the sync of its
// original's folder and then only makes the sidecar's name.
type PreparedCreator interface {
	PrepareCreate(data []byte) (PreparedObject, error)
	// CreatePrepared is Create of the prepared bytes; the prepared
	// object is used up, whatever the outcome.
	CreatePrepared(ctx context.Context, key string, p PreparedObject) (etag string, err error)
}

// PreparedObject is bytes PrepareCreate made durable; Discard drops them
// if CreatePrepared did not take them.
type PreparedObject interface{ Discard() }

// UnsyncedPreparer is a PreparedCreator that can write an object's bytes
// ahead of its create without syncing them (media/local.State), so that
// an upload writes all the files and names of its first round before it
// syncs any: on ext4, a sync that begins while another file is still
// being written is served by a second commit of the journal, after the
// first.
type UnsyncedPreparer interface {
	PreparedCreator
	// PrepareCreateUnsynced writes data as PrepareCreate does, without
	// the sync.
	PrepareCreateUnsynced(data []byte) (PreparedObject, error)
	// SyncPrepared makes the bytes of p durable; CreatePrepared refuses
	// bytes PrepareCreateUnsynced wrote until it has.
	SyncPrepared(p PreparedObject) error
}

// StateObject is one entry of a StateStore listing.
type StateObject = replica.Object
