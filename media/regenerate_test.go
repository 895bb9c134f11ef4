package media_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

func TestLibrary_Regenerate(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		e := newEnv(t)
		var changes []*media.Item
		var mu sync.Mutex
		e.cfg.OnChange = func(it *media.Item, deleted bool) {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, it)
		}
		l := e.open(t)
		it := mustCreate(t, l, "photo.png", pngBytes(t, 500, 300), "")
		if len(it.Sizes) != 2 {
			t.Fatalf("sizes at create: %+v", it.Sizes)
		}
		oldKeys := sizeKeys(it)

		got, err := l.Regenerate(ctx, it.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != it.Version+1 {
			t.Errorf("version %d, want %d", got.Version, it.Version+1)
		}
		if got.Placeholder == "" || got.DominantColor == "" {
			t.Errorf("placeholder %q, color %q", got.Placeholder, got.DominantColor)
		}
		if len(got.Sizes) != len(it.Sizes) {
			t.Fatalf("sizes %+v, want %d", got.Sizes, len(it.Sizes))
		}
		for i, s := range got.Sizes {
			if slices.Contains(oldKeys, s.Key) {
				t.Errorf("derivative %d kept its key %s", i, s.Key)
			}
			if s.Width != it.Sizes[i].Width || s.URL != "/uploads/"+s.Key {
				t.Errorf("derivative %d: %+v, was %+v", i, s, it.Sizes[i])
			}
			if !fileExists(t, keyPath(e.root, s.Key)) {
				t.Errorf("new derivative %s missing", s.Key)
			}
		}
		for _, k := range oldKeys {
			if fileExists(t, keyPath(e.root, k)) {
				t.Errorf("old derivative %s still there", k)
			}
		}
		if !fileExists(t, keyPath(e.root, it.Key)) {
			t.Error("original gone")
		}
		if g, _ := l.Get(it.ID); g.Version != got.Version || g.Sizes[0].Key != got.Sizes[0].Key {
			t.Errorf("index: %+v", g)
		}
		mu.Lock()
		last := changes[len(changes)-1]
		mu.Unlock()
		if last.ID != it.ID || last.Version != got.Version {
			t.Errorf("OnChange last told %+v", last)
		}

		// Again: names this item used before are never used again.
		again, err := l.Regenerate(ctx, it.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range again.Sizes {
			if slices.Contains(oldKeys, s.Key) || slices.Contains(sizeKeys(got), s.Key) {
				t.Errorf("second regeneration reused %s", s.Key)
			}
		}

		// What is on disk is what a fresh start reads, and its sweep
		// keeps every file the item names.
		e.close(t, l)
		l2 := e.open(t)
		g, _ := l2.Get(it.ID)
		if g.Version != again.Version || !slices.Equal(sizeKeys(g), sizeKeys(again)) {
			t.Fatalf("after reopen: %+v, want %+v", g, again)
		}
		for _, k := range sizeKeys(g) {
			if !fileExists(t, keyPath(e.root, k)) {
				t.Errorf("derivative %s missing after reopen", k)
			}
		}
	})

	t.Run("CorruptSidecarKeepsFiles", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		it := mustCreate(t, l, "photo.png", pngBytes(t, 500, 300), "")
		other := mustCreate(t, l, "photo-x.png", pngBytes(t, 10, 10), "")
		got, err := l.Regenerate(ctx, it.ID)
		if err != nil {
			t.Fatal(err)
		}
		e.close(t, l)
		writeFile(t, stateItem(e.root, it.ID), []byte("{{{"))
		os.RemoveAll(filepath.Join(e.root, local.StateDir, "checkpoints"))
		orphan := keyPath(e.root, "2026/03/orphan-150.webp")
		e.withState(t, func(state *local.State) {
			leftover(t, e.store, state, "orphanorphanorph", "2026/03/orphan-150.webp", []byte("webp"))
		})
		e.open(t)
		for _, k := range append([]string{it.Key, other.Key}, sizeKeys(got)...) {
			if !fileExists(t, keyPath(e.root, k)) {
				t.Errorf("%s of a corrupt sidecar deleted", k)
			}
		}
		if fileExists(t, orphan) {
			t.Error("orphan kept")
		}
	})

	t.Run("NotAnImage", func(t *testing.T) {
		e := newEnv(t)
		l := e.open(t)
		it := mustCreate(t, l, "doc.pdf", pdfBytes, "")
		got, err := l.Regenerate(ctx, it.ID)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprintf("%+v", *got) != fmt.Sprintf("%+v", *it) {
			t.Errorf("PDF changed:\n%+v\n%+v", got, it)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		l := newEnv(t).open(t)
		if _, err := l.Regenerate(ctx, "abcdefghijklmnop"); !errors.Is(err, media.ErrNotFound) {
			t.Errorf("got %v, want ErrNotFound", err)
		}
	})

	t.Run("ErrReadOnly", func(t *testing.T) {
		e := newEnv(t)
		w := e.open(t)
		it := mustCreate(t, w, "photo.png", pngBytes(t, 500, 300), "")
		e.close(t, w)
		e.cfg.ReadOnly = true
		l := e.open(t)
		if _, err := l.Regenerate(ctx, it.ID); !errors.Is(err, media.ErrReadOnly) {
			t.Fatalf("got %v, want ErrReadOnly", err)
		}
		for _, k := range sizeKeys(it) {
			if !fileExists(t, keyPath(e.root, k)) {
				t.Errorf("derivative %s gone", k)
			}
		}
	})

	t.Run("ConcurrentPatch", func(t *testing.T) {
		l := newEnv(t).open(t)
		it := mustCreate(t, l, "photo.png", pngBytes(t, 500, 300), "")
		var wg sync.WaitGroup
		var perr, rerr error
		wg.Go(func() { _, perr = l.Patch(ctx, it.ID, media.Patch{Alt: ptr("kept")}) })
		wg.Go(func() { _, rerr = l.Regenerate(ctx, it.ID) })
		wg.Wait()
		if err := errors.Join(perr, rerr); err != nil {
			t.Fatal(err)
		}
		got, _ := l.Get(it.ID)
		if got.Alt != "kept" || got.Version != 3 || slices.Contains(sizeKeys(it), got.Sizes[0].Key) {
			t.Fatalf("a change was lost: %+v", got)
		}
	})
}

// A regeneration on one box and patches on another, at the same time,
// both land; the other box sees the new derivatives.
func TestShared_Regenerate(t *testing.T) {
	eachStore(t, func(t *testing.T, newBucket func(testing.TB) *bucket) {
		b := newBucket(t)
		ctx := context.Background()
		w1, w2 := b.box(t, false), b.box(t, false)
		it := mustCreate(t, w1, "p.png", pngBytes(t, 500, 300), "")
		mustSync(t, w2)

		var wg sync.WaitGroup
		var perr, rerr error
		var regen *media.Item
		wg.Go(func() {
			for i := range 3 {
				if _, err := w2.Patch(ctx, it.ID, media.Patch{Alt: ptr(fmt.Sprint("alt ", i))}); err != nil {
					perr = err
					return
				}
			}
		})
		wg.Go(func() { regen, rerr = w1.Regenerate(ctx, it.ID) })
		wg.Wait()
		if err := errors.Join(perr, rerr); err != nil {
			t.Fatal(err)
		}
		mustSync(t, w1, w2)
		for _, l := range []*media.Library{w1, w2} {
			got, _ := l.Get(it.ID)
			if got.Alt != "alt 2" || got.Version != 5 || !slices.Equal(sizeKeys(got), sizeKeys(regen)) || got.Placeholder == "" {
				data, _, _ := b.state.Get(ctx, "items/"+it.ID+".yaml")
				t.Fatalf("a change was lost: %+v\nbucket: %s", got, data)
			}
		}
		for _, k := range sizeKeys(regen) {
			if slices.Contains(sizeKeys(it), k) {
				t.Errorf("derivative kept its key %s", k)
			}
			if _, err := b.store.Stat(ctx, k); err != nil {
				t.Errorf("new derivative %s: %v", k, err)
			}
			if _, _, err := b.state.Get(ctx, "claims/"+k); err != nil {
				t.Errorf("claim of %s: %v", k, err)
			}
		}
		for _, k := range sizeKeys(it) {
			if _, err := b.store.Stat(ctx, k); !errors.Is(err, media.ErrNotExist) {
				t.Errorf("old derivative %s: %v, want gone", k, err)
			}
			if _, _, err := b.state.Get(ctx, "claims/"+k); !errors.Is(err, media.ErrNotExist) {
				t.Errorf("claim of old derivative %s: %v, want released", k, err)
			}
		}

		// A read-only box refuses.
		ro := b.box(t, true)
		if _, err := ro.Regenerate(ctx, it.ID); !errors.Is(err, media.ErrReadOnly) {
			t.Errorf("read-only box: %v", err)
		}
	})
}

// TestRegenerate_Leftovers runs Regenerate over a storage that is not
// under the media root, and checks that the next start removes what a
// crash before or after its commit would leave: new objects its sidecar
// does not name, or old ones it no longer names, each with its claim.
func TestRegenerate_Leftovers(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	st, err := local.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e.cfg.Storage = st
	l := e.open(t)
	it := mustCreate(t, l, "photo.png", pngBytes(t, 500, 300), "")
	got, err := l.Regenerate(ctx, it.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range sizeKeys(it) {
		if _, err := st.Stat(ctx, k); !errors.Is(err, media.ErrNotExist) {
			t.Errorf("old derivative %s: %v", k, err)
		}
	}
	e.close(t, l)

	crashed := []string{"2026/03/photo-9-150.webp", "2026/03/photo-9-400.webp"}
	e.withState(t, func(state *local.State) {
		for _, k := range append(slices.Clone(crashed), sizeKeys(it)...) {
			leftover(t, st, state, it.ID, k, []byte("webp"))
		}
	})

	l2 := e.open(t)
	for _, k := range append(crashed, sizeKeys(it)...) {
		if _, err := st.Stat(ctx, k); !errors.Is(err, media.ErrNotExist) {
			t.Errorf("%s survived: %v", k, err)
		}
	}
	for _, k := range append([]string{it.Key}, sizeKeys(got)...) {
		if _, err := st.Stat(ctx, k); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	if g, _ := l2.Get(it.ID); !slices.Equal(sizeKeys(g), sizeKeys(got)) {
		t.Errorf("item after reopen: %+v", g)
	}
}
