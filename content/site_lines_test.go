package content

import (
	"encoding/binary"
	"maps"
	"runtime"
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

// TestParseLinesPacked: a parsed document keeps its lines of keys packed
// (a first start holds every document it parsed: the map of each was
// 260 bytes a document at 100k), and answers as the map did.
func TestParseLinesPacked(t *testing.T) {
	src := "---\ntitle: Hi\ndate: 2024-01-02\ntags:\n  - a\n  - b\nnested:\n  deep: 1\n---\nbody\n"
	doc, err := Parse("content/posts/a.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"title": 2, "date": 3, "tags": 4, "/tags/0": 5, "/tags/1": 6, "nested": 7, "/nested/deep": 8}
	if doc.Lines != nil || doc.PackedLines() == nil || doc.LazyLines() != nil {
		t.Fatalf("lines kept as a map %v (packed %q)", doc.Lines, doc.PackedLines())
	}
	if enc := doc.PackedLines(); len(enc) > 64 || cap(enc) != len(enc) {
		t.Errorf("the packed lines are %d bytes (%d allocated), want at most 64, no spare", len(enc), cap(enc))
	}
	// what packing costs: the holder and the bytes, nothing spare
	docs := make([]*Doc, 200)
	for i := range docs {
		docs[i] = &Doc{Lines: maps.Clone(want)}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, d := range docs {
		d.packLines()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / uint64(len(docs)); per > 48+64 {
		t.Errorf("packing the lines allocated %d bytes a document, want at most %d", per, 48+64)
	}
	for _, l := range []int{0, 1, 63, 64, -64, -65, 1 << 20, -1 << 40} {
		if got, want := uvarintLen(zigzag(int64(l))), len(binary.AppendVarint(nil, int64(l))); got != want {
			t.Errorf("length of %d: %d, want %d", l, got, want)
		}
	}
	if got := doc.KeyLines(); !maps.Equal(got, want) {
		t.Errorf("KeyLines = %v, want %v", got, want)
	}
	if doc.LineOf("tags", "1") != 6 || doc.LineOf("nested", "deep", "x") != 8 {
		t.Errorf("LineOf reads %d, %d", doc.LineOf("tags", "1"), doc.LineOf("nested", "deep", "x"))
	}
	for _, bad := range [][]byte{nil, {5}, {1, 9, 'a'}, {1, 1, 'a'}} {
		if m := unpackLines(bad); m != nil && len(bad) > 0 && bad[0] != 0 {
			t.Errorf("unpackLines(%q) = %v, want nil", bad, m)
		}
	}
}
