package gitsource

import (
	"fmt"
	"testing"
)

// TestDocCache_SweepLooksAtWhatPushesLeft checks that the parse cache's
// sweep after patched Loads drops the documents pushes replaced and
// keeps every one the list holds, without marking those at each sweep
// (a pass over every document: 22 ms of a push at 1M files).
func TestDocCache_SweepLooksAtWhatPushesLeft(t *testing.T) {
	r := newSrcBareSite(t)
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("content/posts/p%02d.md", i)] = fmt.Sprintf("---\ntitle: P%d\n---\n", i)
	}
	r.Commit(srcDay(0), files)
	r.Push(false)
	src := openSrc(t, r.Site(), t.TempDir(), &srcTestParser{})
	first := srcLoad(t, src, "main")
	firstGen := src.docs.gen
	const pushes = 3 * (docKeepLoads + docSweepLoads)
	for i := range pushes {
		r.Commit(srcDay(1+i), map[string]string{"content/posts/p00.md": fmt.Sprintf("---\ntitle: edit %d\n---\n", i)})
		r.Push(false)
		if tree := srcLoad(t, src, "main"); tree.Base == "" {
			t.Fatalf("push %d: not patched", i)
		}
	}
	c := src.docs
	c.mu.Lock()
	defer c.mu.Unlock()
	// 49 documents the list held all along, p00's last version, and the
	// versions of p00 not dropped yet
	if n := c.docs.len(); n < 50 || n > 50+docKeepLoads+docSweepLoads {
		t.Fatalf("%d documents cached after %d pushes of one file of 50", n, pushes)
	}
	for i, f := range first.Files.All() {
		if i == 0 {
			continue
		}
		e := c.docs.get(newDocKey(src.last.files.At(i).blob, f.Path))
		if e == nil || e.doc != f.Doc {
			t.Fatalf("%s: dropped from the cache", f.Path)
		}
		if e.used != firstGen {
			t.Fatalf("%s: marked used at Load %d, not only at the first (%d): a pass over every document", f.Path, e.used, firstGen)
		}
	}
	if len(c.loose) > docKeepLoads+docSweepLoads {
		t.Fatalf("%d loose documents", len(c.loose))
	}
}
