package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStartBackgroundWaitsForRun: the history index's first build and the
// parse cache's first write begin firstHistoryDelay / firstSaveDelay after
// the engine is first Run (the server answering), not after Open returns:
// a start of a million files was still reaching its first answer when
// they began. Both then follow once it runs.
func TestStartBackgroundWaitsForRun(t *testing.T) {
	r := newSrcBareSite(t)
	r.Commit(srcDay(0), map[string]string{"content/posts/a.md": "---\ntitle: A\n---\nbody\n"})
	r.Push(false)
	cache := t.TempDir()
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	written := func() bool {
		n := 0
		filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return nil
		})
		return n > 0
	}
	time.Sleep(max(firstHistoryDelay, firstSaveDelay) + time.Second)
	if c := e.HistoryStats().Commit; c != "" {
		t.Errorf("the history index was built before Run (at %s)", c)
	}
	if written() {
		t.Error("the parse cache was written before Run")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	want := e.Published().Commit
	deadline := time.Now().Add(max(firstHistoryDelay, firstSaveDelay) + 20*time.Second)
	for e.HistoryStats().Commit != want || !written() {
		if time.Now().After(deadline) {
			t.Fatalf("after Run: history at %q (want %s), cache written %v", e.HistoryStats().Commit, want, written())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
