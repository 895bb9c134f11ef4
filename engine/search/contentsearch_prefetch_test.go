package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/media/s3/s3test"
)

// showAll is a view that shows every document.
type showAll struct{}

func (showAll) Shows(any) bool { return true }

// prefetchSnapshot is a site of n notes in lang, the word "glacier" in
// every one.
func prefetchSnapshot(commit, lang string, n int) *Snapshot {
	site := &content.Site{Items: map[string][]*content.Item{}}
	site.Config.Language = lang
	for i := range n {
		site.Items["notes"] = append(site.Items["notes"], &content.Item{ID: fmt.Sprint(i), Slug: fmt.Sprint(i), Type: "notes",
			Title: fmt.Sprintf("Note %d", i), Data: map[string]any{"body": "a glacier walk"}})
	}
	return &Snapshot{Seq: 1, Commit: commit, Site: site}
}

type quietLog struct{ t testing.TB }

func (l quietLog) Warn(msg string, args ...any) { l.t.Logf("warn: %s %v", msg, args) }

// searchIDs searches word in ci as of s.
func searchIDs(t *testing.T, ci *ContentIndex, s *Snapshot, word string) []string {
	t.Helper()
	res, err := ci.Search(context.Background(), SearchQuery{Text: word, Limit: 5000}, s, showAll{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestContentIndex_PrefetchBeforeFirstSnapshot: a fresh box's index
// fetches the bucket's snapshot as soon as it is made, before the
// engine has a snapshot to give it (it parses the site meanwhile), and
// answers from it once the snapshot comes (the snapshot's segments
// merged into one by the box that published it), and keeps it as its
// store's copy when it holds its commit; a box whose site is in
// another language than the newest snapshot's does not use that one:
// it builds, and answers as a build does.
func TestContentIndex_PrefetchBeforeFirstSnapshot(t *testing.T) {
	_, state := s3test.Open(t, s3test.NewServer(t).NewBucket(t))
	n := 2*buildBatch + 10 // three batches: three segments
	snap := prefetchSnapshot("c1", "en", n)

	a := NewContentIndex(quietLog{t}, time.Now, t.TempDir(), state)
	a.Follow(snap)
	built := searchIDs(t, a, snap, "glacier")
	for deadline := time.Now().Add(30 * time.Second); a.Published() < 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("box A did not publish its index")
		}
	}
	a.Close()
	if len(built) != n {
		t.Fatalf("built index: %d hits", len(built))
	}

	// Box B is told of no snapshot: its index is fetched all the same.
	dir := t.TempDir()
	b := NewContentIndex(quietLog{t}, time.Now, dir, state)
	defer b.Close()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		idx, _ := filepath.Glob(filepath.Join(dir, "idx-*", "index_meta.json"))
		tmp, _ := filepath.Glob(filepath.Join(dir, "fetch-*"))
		if len(idx) == 1 && len(tmp) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("box B fetched nothing before it had a snapshot")
		}
	}
	// Published merged: one segment to open, none to merge.
	if segs, _ := filepath.Glob(filepath.Join(dir, "idx-*", "store", "*.zap")); len(segs) != 1 {
		t.Errorf("the snapshot holds %d segments, want 1: %v", len(segs), segs)
	}
	fetchedDir, _ := filepath.Glob(filepath.Join(dir, "idx-*"))
	b.Follow(snap)
	if got := searchIDs(t, b, snap, "glacier"); !slices.Equal(got, built) {
		t.Errorf("prefetched index answers %v, a build %v", got, built)
	}
	b.Close()
	if !b.Fetched() {
		t.Error("box B built instead of using the prefetched index")
	}
	// Of B's commit and unchanged: kept as it was fetched, not copied
	// again at stop, and what B's restart opens.
	if left, _ := filepath.Glob(filepath.Join(dir, "idx-*")); !slices.Equal(left, fetchedDir) {
		t.Errorf("box B's store holds %v after its stop, want the fetched %v", left, fetchedDir)
	}
	b2 := NewContentIndex(quietLog{t}, time.Now, dir, state)
	b2.Follow(snap)
	if got := searchIDs(t, b2, snap, "glacier"); !slices.Equal(got, built) {
		t.Errorf("restarted box answers %v, a build %v", got, built)
	}
	b2.Close()
	if !b2.Restored() || b2.Fetched() {
		t.Errorf("restarted box B: restored %v, fetched %v; want the kept copy", b2.Restored(), b2.Fetched())
	}

	// Box C's site is in German: the English snapshot is not used.
	de := prefetchSnapshot("c1", "de", n)
	cdir := t.TempDir()
	c := NewContentIndex(quietLog{t}, time.Now, cdir, FetchOnly{state})
	c.Follow(de)
	if got := searchIDs(t, c, de, "glacier"); len(got) != n {
		t.Errorf("German box: %d hits, want %d", len(got), n)
	}
	c.Close()
	if c.Fetched() {
		t.Error("box C used a snapshot of another language")
	}
	if left, _ := filepath.Glob(filepath.Join(cdir, "idx-*")); len(left) > 1 {
		t.Errorf("box C left %v", left)
	}
	if _, err := os.Stat(filepath.Join(cdir, "lock")); err != nil {
		t.Error(err)
	}
}
