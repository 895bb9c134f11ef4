package server_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// TestReloadAtomic pushes commits that retitle every post at once while
// readers list them: one response must never mix two commits.
func TestReloadAtomic(t *testing.T) {
	t.Parallel()
	const posts, commits = 30, 8
	gen := func(g int) map[string]string {
		files := map[string]string{}
		for i := 0; i < posts; i++ {
			files[fmt.Sprintf("content/posts/p%02d.md", i)] = fmt.Sprintf("---\ntitle: gen %d\ndate: 2026-01-01\n---\nBody %d.\n", g, i)
		}
		return files
	}
	repo := newRepo(t, gen(0))
	ts := startServer(t, repo.bare)
	key := ts.reader(t)

	var stop atomic.Bool
	var wg sync.WaitGroup
	var checked atomic.Int64
	errs := make(chan error, 4)
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				res := get(t, ts.URL+"/api/v1/content/posts?limit=100", key)
				var list struct {
					Items []struct{ Title string }
					Total int
				}
				if err := json.Unmarshal(res.Body, &list); err != nil || res.Status != 200 {
					errs <- fmt.Errorf("status %d: %v", res.Status, err)
					return
				}
				if list.Total != posts || len(list.Items) != posts {
					errs <- fmt.Errorf("total %d, items %d, want %d", list.Total, len(list.Items), posts)
					return
				}
				for _, it := range list.Items {
					if it.Title != list.Items[0].Title {
						errs <- fmt.Errorf("mixed snapshot: %q and %q in one list", list.Items[0].Title, it.Title)
						return
					}
				}
				checked.Add(1)
			}
		}()
	}
	for g := 1; g <= commits; g++ {
		repo.commit(fmt.Sprint("gen ", g), gen(g))
	}
	want := fmt.Sprint("gen ", commits)
	eventually(t, "the last commit", func() bool {
		return get(t, ts.URL+"/api/v1/content/posts/p00", key).json(t)["title"] == want
	})
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if checked.Load() == 0 {
		t.Fatal("no list was checked")
	}
}
