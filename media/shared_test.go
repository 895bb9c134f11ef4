package media_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
	"github.com/folio-cms/folio/media/s3/s3test"
)

// bucket is one storage with its state store that several "boxes"
// (libraries with their own empty media roots) share: an S3 bucket, or a
// directory on local disk (several libraries of one machine, or one
// library that is its only box).
type bucket struct {
	store media.Storage
	state media.StateStore
}

func newS3Bucket(tb testing.TB) *bucket {
	tb.Helper()
	cfg, _ := s3test.Start(tb)
	st, state := s3test.Open(tb, cfg)
	return &bucket{store: st, state: state}
}

func newLocalBucket(tb testing.TB) *bucket {
	tb.Helper()
	dir := tb.TempDir()
	st, err := local.New(filepath.Join(dir, "files"))
	if err != nil {
		tb.Fatal(err)
	}
	state, err := local.OpenState(filepath.Join(dir, "state"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		st.Close()
		state.Close()
	})
	return &bucket{store: st, state: state}
}

// eachStore runs fn on local disk and on S3: the shared protocol is one
// whatever holds the state.
func eachStore(t *testing.T, fn func(t *testing.T, newBucket func(testing.TB) *bucket)) {
	t.Run("local", func(t *testing.T) { fn(t, newLocalBucket) })
	t.Run("s3", func(t *testing.T) { fn(t, newS3Bucket) })
}

// box opens a library on the bucket with a fresh, empty media root. Its
// poll interval is long: the tests call Sync to catch up when they mean to.
func (b *bucket) box(tb testing.TB, readOnly bool) *media.Library {
	tb.Helper()
	l, err := media.Open(context.Background(), media.Config{
		Root: tb.TempDir(), Storage: b.store, State: b.state, ReadOnly: readOnly,
		PollInterval: time.Hour, MaxUploadBytes: media.DefaultMaxUploadCloud,
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	return l
}

func mustSync(tb testing.TB, ls ...*media.Library) {
	tb.Helper()
	for _, l := range ls {
		if err := l.Sync(context.Background()); err != nil {
			tb.Fatal(err)
		}
	}
}

// snapshot is what a box answers: every item (URLs included) and folder.
func snapshot(l *media.Library) string {
	items, _ := l.List(media.Query{Limit: 1 << 20})
	return fmt.Sprintf("%+v\n%v", deref(items), l.Folders())
}

func deref(items []*media.Item) []media.Item {
	out := make([]media.Item, len(items))
	for i, it := range items {
		out[i] = *it
		out[i].CreatedAt = it.CreatedAt.UTC()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func TestShared_WritesOnOneBoxReachTheOthers(t *testing.T) {
	eachStore(t, func(t *testing.T, newBucket func(testing.TB) *bucket) {
		b := newBucket(t)
		ctx := context.Background()
		w1, w2, ro := b.box(t, false), b.box(t, false), b.box(t, true)

		if err := w1.CreateFolder("/blog/2026"); err != nil {
			t.Fatal(err)
		}
		a := mustCreate(t, w1, "a.png", pngBytes(t, 500, 300), "/blog/2026")
		c := mustCreate(t, w2, "c.pdf", pdfBytes, "")
		mustSync(t, w1, w2, ro)
		if got, ok := ro.Get(a.ID); !ok || len(got.Sizes) != 2 || got.Folder != "/blog/2026" {
			t.Fatalf("read-only box: item %+v, %v", got, ok)
		}
		if _, ok := w1.Get(c.ID); !ok {
			t.Fatal("box 1 does not see box 2's upload")
		}

		if _, err := w2.Patch(ctx, a.ID, media.Patch{Alt: ptr("a cat"), FocalX: ptr(20.0)}); err != nil {
			t.Fatal(err)
		}
		if err := w1.Delete(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		if err := w2.CreateFolder("/empty"); err != nil {
			t.Fatal(err)
		}
		mustSync(t, w1, w2, ro)
		if got, _ := ro.Get(a.ID); got.Alt != "a cat" || got.FocalX != 20 || got.Version != 2 {
			t.Fatalf("after patch on box 2, read-only box has %+v", got)
		}
		if _, ok := ro.Get(c.ID); ok {
			t.Fatal("deleted item still on the read-only box")
		}
		if _, err := b.store.Stat(ctx, c.Key); !errors.Is(err, media.ErrNotExist) {
			t.Fatalf("deleted item's file: %v", err)
		}
		want := snapshot(w1)
		for i, l := range []*media.Library{w2, ro} {
			if got := snapshot(l); got != want {
				t.Fatalf("box %d differs:\n%s\nwant\n%s", i+2, got, want)
			}
		}

		// A new box with an empty disk, before and after a checkpoint.
		if got := snapshot(b.box(t, true)); got != want {
			t.Fatalf("fresh box (no checkpoint):\n%s\nwant\n%s", got, want)
		}
		if err := w1.Checkpoint(ctx); err != nil {
			t.Fatal(err)
		}
		mustCreate(t, w2, "after.png", pngBytes(t, 20, 20), "/empty")
		mustSync(t, w1)
		want = snapshot(w1)
		if got := snapshot(b.box(t, true)); got != want {
			t.Fatalf("fresh box (checkpoint and log):\n%s\nwant\n%s", got, want)
		}
	})
}

// The search index of every box follows the others' writes: OnChange is
// called for what the log brings.
func TestShared_OnChangeFollowsOtherBoxes(t *testing.T) {
	eachStore(t, func(t *testing.T, newBucket func(testing.TB) *bucket) {
		b := newBucket(t)
		w := b.box(t, false)
		var mu sync.Mutex
		seen := map[string]bool{}
		ro, err := media.Open(context.Background(), media.Config{
			Root: t.TempDir(), Storage: b.store, State: b.state, ReadOnly: true, PollInterval: 20 * time.Millisecond,
			OnChange: func(it *media.Item, deleted bool) {
				mu.Lock()
				defer mu.Unlock()
				seen[it.ID] = !deleted
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		it := mustCreate(t, w, "x.png", pngBytes(t, 10, 10), "")
		waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return seen[it.ID] })
		if err := w.Delete(context.Background(), it.ID); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); v, ok := seen[it.ID]; return ok && !v })
	})
}

func waitFor(tb testing.TB, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatal("condition not met within 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Two boxes PATCH one item from the same version at once: one wins, the
// other is told the item changed; neither change is lost silently. Without
// IfVersion both apply, one after the other.
func TestShared_ConcurrentPatches(t *testing.T) {
	eachStore(t, func(t *testing.T, newBucket func(testing.TB) *bucket) {
		b := newBucket(t)
		ctx := context.Background()
		w1, w2 := b.box(t, false), b.box(t, false)
		it := mustCreate(t, w1, "p.png", pngBytes(t, 10, 10), "")
		mustSync(t, w2)

		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, l := range []*media.Library{w1, w2} {
			wg.Go(func() {
				_, errs[i] = l.Patch(ctx, it.ID, media.Patch{Alt: ptr(fmt.Sprint("box ", i)), IfVersion: 1})
			})
		}
		wg.Wait()
		ok, conflict := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, media.ErrConflict):
				conflict++
			default:
				t.Fatal(err)
			}
		}
		if ok != 1 || conflict != 1 {
			t.Fatalf("with IfVersion: %d succeeded, %d conflicted (%v), want 1 and 1", ok, conflict, errs)
		}

		for i, l := range []*media.Library{w1, w2} {
			wg.Go(func() {
				if i == 0 {
					_, errs[i] = l.Patch(ctx, it.ID, media.Patch{Title: ptr("title from box 1")})
				} else {
					_, errs[i] = l.Patch(ctx, it.ID, media.Patch{Description: ptr("description from box 2")})
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		mustSync(t, w1, w2)
		for _, l := range []*media.Library{w1, w2} {
			got, _ := l.Get(it.ID)
			if got.Title != "title from box 1" || got.Description != "description from box 2" || got.Version != 4 {
				data, _, _ := b.state.Get(ctx, "items/"+it.ID+".yaml")
				t.Fatalf("a change was lost: %+v\nbucket: %s", got, data)
			}
		}
	})
}

// Two boxes upload files of one name at the same instant: two items with
// distinct keys, each file whole.
func TestShared_ConcurrentUploadsOfOneName(t *testing.T) {
	eachStore(t, func(t *testing.T, newBucket func(testing.TB) *bucket) {
		b := newBucket(t)
		ctx := context.Background()
		w1, w2 := b.box(t, false), b.box(t, false)
		bodies := [][]byte{pngBytes(t, 400, 300), pngBytes(t, 401, 300)}
		items := make([]*media.Item, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, l := range []*media.Library{w1, w2} {
			wg.Go(func() {
				items[i], errs[i] = l.Create(ctx, media.UploadInput{Filename: "photo.png", Body: bytes.NewReader(bodies[i])})
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if items[0].Key == items[1].Key {
			t.Fatalf("both uploads got key %s", items[0].Key)
		}
		for i, it := range items {
			if got := readAll(t, b.store, it.Key); !bytes.Equal(got, bodies[i]) {
				t.Fatalf("upload %d: stored file is not its body", i)
			}
			for _, s := range it.Sizes {
				for _, o := range items[1-i].Sizes {
					if s.Key == o.Key {
						t.Fatalf("derivative key %s shared", s.Key)
					}
				}
			}
		}
		mustSync(t, w1, w2)
		if w1.Len() != 2 || w2.Len() != 2 {
			t.Fatalf("boxes hold %d and %d items, want 2", w1.Len(), w2.Len())
		}
	})
}

// Folder races end as on one box: one create wins, the other is told it
// exists; a delete racing a create of a subfolder never leaves a folder
// that is both there and missing.
func TestShared_FolderRaces(t *testing.T) {
	eachStore(t, func(t *testing.T, newBucket func(testing.TB) *bucket) {
		b := newBucket(t)
		w1, w2 := b.box(t, false), b.box(t, false)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, l := range []*media.Library{w1, w2} {
			wg.Go(func() { errs[i] = l.CreateFolder("/race") })
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) || !errors.Is(errors.Join(errs...), media.ErrFolderExists) {
			t.Fatalf("concurrent creates: %v", errs)
		}
		wg.Go(func() { errs[0] = w1.DeleteFolder("/race") })
		wg.Go(func() { errs[1] = w2.CreateFolder("/race/sub") })
		wg.Wait()
		mustSync(t, w1, w2)
		if !reflect.DeepEqual(w1.Folders(), w2.Folders()) {
			t.Fatalf("boxes disagree: %v vs %v", w1.Folders(), w2.Folders())
		}
		switch {
		case errs[0] == nil && errs[1] == nil:
			// Delete first, then the create made /race again as a parent.
		case errs[0] == nil && errors.Is(errs[1], media.ErrFolderNotFound):
		case errors.Is(errs[0], media.ErrFolderNotEmpty) && errs[1] == nil:
		default:
			t.Fatalf("delete vs create of a subfolder: %v", errs)
		}
		if err := w1.CreateFolder(""); err == nil {
			t.Fatal("empty folder path accepted")
		}
	})
}

// A library written by the previous release (sidecars and folders on the
// media root, files in the bucket) moves into the bucket when opened
// shared, with nothing lost, once: opening again changes nothing.
func TestShared_MigratesALocalLibrary(t *testing.T) {
	eachStore(t, func(t *testing.T, newBucket func(testing.TB) *bucket) {
		b := newBucket(t)
		ctx := context.Background()
		root := t.TempDir()
		old := sampleOldLibrary()
		old.write(t, root, b.store)

		open := func(root string) *media.Library {
			l, err := media.Open(ctx, media.Config{Root: root, Storage: b.store, State: b.state, PollInterval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return l
		}
		migrated := open(root)
		old.check(t, migrated)
		want := snapshot(migrated)
		if got := snapshot(b.box(t, true)); got != want {
			t.Fatalf("fresh box after migration:\n%s\nwant\n%s", got, want)
		}
		// Again, with the marker gone: create-if-absent changes nothing.
		if err := os.Remove(filepath.Join(root, ".migrated-to-bucket")); err != nil {
			t.Fatal(err)
		}
		if got := snapshot(open(root)); got != want {
			t.Fatalf("after a second migration:\n%s\nwant\n%s", got, want)
		}
	})
}

// A writer that died between its sidecar and its log entry: the other
// boxes find the change at their next reconcile.
func TestShared_ReconcileFindsWhatTheLogMissed(t *testing.T) {
	eachStore(t, func(t *testing.T, newBucket func(testing.TB) *bucket) {
		b := newBucket(t)
		ctx := context.Background()
		w, ro := b.box(t, false), b.box(t, true)
		a := mustCreate(t, w, "a.png", pngBytes(t, 10, 10), "")
		c := mustCreate(t, w, "c.png", pngBytes(t, 10, 10), "")
		mustSync(t, ro)

		data, tag, err := b.state.Get(ctx, "items/"+a.ID+".yaml")
		if err != nil {
			t.Fatal(err)
		}
		edited := bytes.Replace(data, []byte("alt: \"\""), []byte("alt: edited behind the log"), 1)
		edited = bytes.Replace(edited, []byte("version: 1"), []byte("version: 2"), 1)
		if _, err := b.state.Replace(ctx, "items/"+a.ID+".yaml", edited, tag); err != nil {
			t.Fatal(err)
		}
		if err := b.state.Delete(ctx, "items/"+c.ID+".yaml"); err != nil {
			t.Fatal(err)
		}
		mustSync(t, ro)
		if got, _ := ro.Get(a.ID); got.Alt != "" {
			t.Fatalf("the log carried a change it never had: %q", got.Alt)
		}
		ro.Housekeep(ctx)
		if got, _ := ro.Get(a.ID); got.Alt != "edited behind the log" || got.Version != 2 {
			t.Fatalf("after reconcile: %+v", got)
		}
		if _, ok := ro.Get(c.ID); ok {
			t.Fatal("an item whose sidecar is gone survived reconcile")
		}
	})
}

// An upload cut off after its claims and files but before its sidecar
// leaves a claim and an object; the sweep of a writer removes both once
// the claim is old, and leaves the claims of items and live grants alone.
func TestShared_SweepRemovesLeftovers(t *testing.T) {
	eachStore(t, func(t *testing.T, newBucket func(testing.TB) *bucket) {
		b := newBucket(t)
		ctx := context.Background()
		w := b.box(t, false)
		kept := mustCreate(t, w, "kept.png", pngBytes(t, 500, 300), "")
		grantKey, err := w.PresignKey(ctx, "later.png", "image/png", 10, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		orphan := "2026/01/orphan.png"
		if err := b.store.Put(ctx, orphan, bytes.NewReader(pngBytes(t, 5, 5)), -1, "image/png"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.state.Create(ctx, "claims/"+orphan, media.ClaimBody("zzzzzzzzzzzzzzzz", orphan)); err != nil {
			t.Fatal(err)
		}

		later, err := media.Open(ctx, media.Config{
			Root: t.TempDir(), Storage: b.store, State: b.state, PollInterval: time.Hour,
			Now: func() time.Time { return time.Now().Add(2 * time.Hour) },
		})
		if err != nil {
			t.Fatal(err)
		}
		defer later.Close()
		later.Housekeep(ctx)
		if _, err := b.store.Stat(ctx, orphan); !errors.Is(err, media.ErrNotExist) {
			t.Fatalf("orphan object: %v", err)
		}
		if _, _, err := b.state.Get(ctx, "claims/"+orphan); !errors.Is(err, media.ErrNotExist) {
			t.Fatalf("orphan claim: %v", err)
		}
		for _, k := range append([]string{kept.Key, grantKey}, sizeKeys(kept)...) {
			if _, _, err := b.state.Get(ctx, "claims/"+k); err != nil {
				t.Errorf("claim of %s: %v", k, err)
			}
		}
		if _, err := b.store.Stat(ctx, kept.Key); err != nil {
			t.Fatalf("kept item's file: %v", err)
		}
	})
}

func sizeKeys(it *media.Item) []string {
	var out []string
	for _, s := range it.Sizes {
		out = append(out, s.Key)
	}
	return out
}

// flakyState fails the creation of log entries while down is set, as a
// bucket answering 503 SlowDown does.
type flakyState struct {
	media.StateStore
	mu   sync.Mutex
	down bool
}

func (f *flakyState) Create(ctx context.Context, key string, data []byte) (string, error) {
	f.mu.Lock()
	down := f.down
	f.mu.Unlock()
	if down && len(key) > 4 && key[:4] == "log/" {
		return "", fmt.Errorf("%w: log append refused (test)", media.ErrUnavailable)
	}
	return f.StateStore.Create(ctx, key, data)
}

func (f *flakyState) set(down bool) { f.mu.Lock(); f.down = down; f.mu.Unlock() }

// TestShared_LogAppendRetried: an upload acknowledged while its log entry
// could not be written (make chaos: 503 SlowDown) reaches the other boxes
// once the bucket answers again, not at the next reconcile 10 minutes on.
func TestShared_LogAppendRetried(t *testing.T) {
	eachStore(t, func(t *testing.T, newBucket func(testing.TB) *bucket) {
		b := newBucket(t)
		flaky := &flakyState{StateStore: b.state}
		w, err := media.Open(context.Background(), media.Config{
			Root: t.TempDir(), Storage: b.store, State: flaky, PollInterval: time.Hour, MaxUploadBytes: media.DefaultMaxUploadCloud,
		})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		ro := b.box(t, true)
		flaky.set(true)
		a := mustCreate(t, w, "a.png", pngBytes(t, 10, 10), "")
		mustSync(t, ro)
		if _, ok := ro.Get(a.ID); ok {
			t.Fatal("the other box saw an item whose log entry was refused")
		}
		flaky.set(false)
		waitFor(t, func() bool {
			mustSync(t, ro)
			_, ok := ro.Get(a.ID)
			return ok
		})
	})
}

// TestShared_OpenCleansTmp: the temporary files an interrupted upload left
// in the media root's .tmp (kill -9 mid-upload) are removed when a writer
// opens it again, on S3 as on local disk; a read-only box leaves them
// (issue 23, finding 7).
func TestShared_OpenCleansTmp(t *testing.T) {
	eachStore(t, func(t *testing.T, newBucket func(testing.TB) *bucket) {
		b := newBucket(t)
		root := t.TempDir()
		tmp := filepath.Join(root, ".tmp")
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			t.Fatal(err)
		}
		leftovers := []string{"upload-123", "adopt-456", "regenerate-789"}
		for _, name := range leftovers {
			if err := os.WriteFile(filepath.Join(tmp, name), bytes.Repeat([]byte{1}, 4096), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		open := func(readOnly bool) {
			l, err := media.Open(context.Background(), media.Config{
				Root: root, Storage: b.store, State: b.state, ReadOnly: readOnly, PollInterval: time.Hour,
			})
			if err != nil {
				t.Fatal(err)
			}
			l.Close()
		}
		open(true)
		if ents, _ := os.ReadDir(tmp); len(ents) != len(leftovers) {
			t.Fatalf("a read-only box touched .tmp: %d files left", len(ents))
		}
		open(false)
		ents, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			t.Errorf("left in .tmp after a writer's open: %s", e.Name())
		}
	})
}
