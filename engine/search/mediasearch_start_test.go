package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// startLibrary writes n sidecars into a fresh media root and opens the
// library on it, as `folio serve` does: its OnChange is the (held)
// index's Follow. It returns the ids written, sorted.
func startLibrary(t *testing.T, m *MediaSearch, n int) (*media.Library, []string) {
	t.Helper()
	root := t.TempDir()
	items := filepath.Join(root, local.StateDir, "items")
	if err := os.MkdirAll(items, 0o755); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, n)
	for i := range n {
		// ValidID wants base32 letters.
		id := []byte(fmt.Sprintf("%016d", i))
		for j, c := range id {
			id[j] = "abcdefghij"[c-'0']
		}
		name := fmt.Sprintf("harbour-%06d.jpg", i)
		it := media.Item{ID: string(id), Filename: name, MimeType: "image/jpeg", Size: 1234, Width: 40, Height: 30,
			Alt: fmt.Sprintf("boats in the harbour, shot %d", i), Folder: "/", Key: "2026/11/" + name, Version: 1,
			CreatedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)}
		data, err := yaml.Marshal(&it)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(items, it.ID+".yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, it.ID)
	}
	store, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	state, err := local.OpenState(filepath.Join(root, local.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	l, err := media.Open(context.Background(), media.Config{Root: root, Storage: store, State: state, OnChange: m.Follow})
	if err != nil {
		state.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(); state.Close() })
	sort.Strings(ids)
	return l, ids
}

// heldIndex is a new index held, as the start holds it.
func heldIndex(t *testing.T) *MediaSearch {
	t.Helper()
	m, err := NewMediaSearch()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	m.Hold()
	return m
}

// indexed is how many items the index holds.
func indexed(m *MediaSearch) int {
	m.idxMu.RLock()
	defer m.idxMu.RUnlock()
	return m.idx.live
}

// TestMediaSearchStartBuildsNoIndex: a library opened on a held index has
// every item queued and none indexed when Open returns (the start's
// readiness path), and nothing is indexed after until Release or a
// search; after Release the index is built in the background.
func TestMediaSearchStartBuildsNoIndex(t *testing.T) {
	m := heldIndex(t)
	l, ids := startLibrary(t, m, 3000)
	if l.Len() != len(ids) {
		t.Fatalf("library has %d items, want %d", l.Len(), len(ids))
	}
	m.mu.Lock()
	queued := m.queued
	m.mu.Unlock()
	if queued != uint64(len(ids)) {
		t.Errorf("%d changes queued at the start, want %d", queued, len(ids))
	}
	// Held: nothing woke the worker, so nothing can have been indexed,
	// whenever this runs.
	if n := indexed(m); n != 0 || m.Ready() {
		t.Fatalf("%d items indexed during the start (ready %v), want none", n, m.Ready())
	}
	// Release: the worker builds the index on its own, no search needed.
	m.mu.Lock()
	progress := m.progress
	m.mu.Unlock()
	m.Release()
	select {
	case <-progress:
	case <-time.After(time.Minute):
		t.Fatal("no build after Release")
	}
	if n := indexed(m); n != len(ids) {
		t.Errorf("%d items indexed after Release, want %d", n, len(ids))
	}
}

// TestMediaSearchRightAfterStartSeesEveryItem: a search right after the
// start, before the build, answers with every match, never a part of the
// library; so do searches racing the background build after Release.
func TestMediaSearchRightAfterStartSeesEveryItem(t *testing.T) {
	m := heldIndex(t)
	_, ids := startLibrary(t, m, 5000)
	// At most a minute: a search that waited for a build nobody starts
	// fails here instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, total, err := m.Find(ctx, MediaQuery{Text: "harbour boats", All: true})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	if total != len(ids) || !slices.Equal(got, ids) {
		t.Fatalf("search right after the start: %d hits (%d ids), want %d", total, len(got), len(ids))
	}
	if _, total := mustFind(t, m, MediaQuery{Text: "shot 4999", Limit: 1}); total != 1 {
		t.Errorf("the last item: %d hits, want 1", total)
	}

	// Another start, released at once: searches racing the build are
	// whole too.
	m2 := heldIndex(t)
	_, ids2 := startLibrary(t, m2, 5000)
	m2.Release()
	for range 3 {
		if _, total := mustFind(t, m2, MediaQuery{Text: "harbour", Limit: 10}); total != len(ids2) {
			t.Fatalf("search racing the build: %d hits, want %d", total, len(ids2))
		}
	}
}

// TestMediaSearchHeldFollowsAfterTheBuild: once a search has had the
// queue applied, later writes queued while still held are seen by the
// next search.
func TestMediaSearchHeldFollowsAfterTheBuild(t *testing.T) {
	m := heldIndex(t)
	m.Follow(&media.Item{ID: "a", Filename: "kayak.jpg"}, false)
	if _, total := mustFind(t, m, MediaQuery{Text: "kayak", Limit: 1}); total != 1 {
		t.Fatalf("%d hits, want 1", total)
	}
	m.Follow(&media.Item{ID: "b", Filename: "kayak-2.jpg"}, false)
	m.Follow(&media.Item{ID: "a"}, true)
	if ids, total := mustFind(t, m, MediaQuery{Text: "kayak", Limit: 10}); total != 1 || ids[0] != "b" {
		t.Fatalf("after a write and a delete: %v (%d hits), want [b]", ids, total)
	}
}
