package content

import (
	"maps"
	"sync"
	"testing"
	"unsafe"
)

// TestLazyLinesSmall: the lines of keys a cache keeps encoded cost every
// document read from it a lazyLines (100k of them at a 100k-file
// restart): no sync.Once and map beside the decoded map's pointer, and
// first uses at once all get the same lines.
func TestLazyLinesSmall(t *testing.T) {
	if n := unsafe.Sizeof(lazyLines{}); n > 40 {
		t.Fatalf("lazyLines is %d bytes, want at most 40", n)
	}
	want := map[string]int{"title": 2, "/tags/0": 4}
	calls := 0
	var mu sync.Mutex
	d := &Doc{}
	d.SetLazyLines([]byte("enc"), func(enc []byte) map[string]int {
		mu.Lock()
		calls++
		mu.Unlock()
		return maps.Clone(want)
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := d.KeyLines(); !maps.Equal(got, want) {
				t.Errorf("KeyLines = %v, want %v", got, want)
			}
		})
	}
	wg.Wait()
	first := d.KeyLines()
	first["x"] = 1 // the one kept: every later use sees it
	if d.KeyLines()["x"] != 1 || calls > 8 {
		t.Fatalf("the decoded lines are not kept (%d decodes)", calls)
	}
}
