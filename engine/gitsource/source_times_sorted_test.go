package gitsource

import (
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio-cms/folio/content/chunks"
)

// TestCache_TimesReadInPathOrder: a cache file keeps the recent times in
// path order, and a restart reads them into two sorted slices, not a
// map; every look-up (in order, out of order, through a cursor or not, a
// miss) and every iteration answers what the map did, and a push's
// times over them too.
func TestCache_TimesReadInPathOrder(t *testing.T) {
	const key, site, n = "key", "/site.git", 3000
	at := map[string]time.Time{}
	when := time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC)
	for i := range n {
		at[fmt.Sprintf("content/posts/p%05d.md", i*2)] = when.Add(time.Duration(i%97) * time.Hour)
	}
	data, _ := encodeCache(key, site, nil, []pathTimes{{commit: plumbing.Hash{9}, times: newTimeMap(at)}})
	name := filepath.Join(t.TempDir(), "parsed.cache")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Source{cfg: SourceConfig{CacheKey: key}, log: slog.New(slog.DiscardHandler), gitDir: site, cache: name, docs: newDocCache()}
	if err := s.loadCache(); err != nil {
		t.Fatal(err)
	}
	if len(s.docs.times) != 1 {
		t.Fatalf("%d recent times read", len(s.docs.times))
	}
	tm := s.docs.times[0].times
	if tm.sorted == nil || tm.base != nil {
		t.Fatal("the times in path order were read into a map")
	}
	if tm.len() != n || !maps.Equal(maps.Collect(tm.all()), at) {
		t.Fatal("the times read differ from those written")
	}
	paths := slices.Sorted(maps.Keys(at))
	rng := rand.New(rand.NewPCG(1, 2))
	shuffled := slices.Clone(paths)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	// in order with gaps and misses, then out of order
	asked := []string{"content/posts/a.md"}
	for i, p := range paths {
		if i%5 != 0 {
			asked = append(asked, p)
		}
		if i%7 == 0 {
			asked = append(asked, p+"x") // a miss between two paths
		}
	}
	asked = append(asked, shuffled...)
	asked = append(asked, "zzz")
	cur := tm.cursor()
	for _, p := range asked {
		want, in := at[p]
		if got := cur.timeOf(p); !got.Equal(want) {
			t.Fatalf("cursor: %s: %v, want %v", p, got, want)
		}
		if got, ok := tm.get(p); ok != in || !got.Equal(want) {
			t.Fatalf("get: %s: %v %v, want %v %v", p, got, ok, want, in)
		}
	}
	// a push over them: set, added, deleted
	changed := map[string]bool{paths[10]: true, paths[20]: true, "content/posts/new.md": true}
	later := when.Add(1000 * time.Hour)
	delete(at, paths[20])
	at[paths[10]], at["content/posts/new.md"] = later, later
	var files []gitFile
	for _, p := range slices.Sorted(maps.Keys(at)) {
		files = append(files, gitFile{path: p})
	}
	pushed, ok := patchTimes(tm, changed, chunks.Of(files), later)
	if !ok || pushed.sorted != tm.sorted {
		t.Fatal("the push's times are not made over the sorted slices")
	}
	if !maps.Equal(maps.Collect(pushed.all()), at) {
		t.Fatal("the push's times differ")
	}
	cur = pushed.cursor()
	for _, p := range append(paths, "content/posts/new.md") {
		want, in := at[p]
		if got, ok := cur.getSecs(p); ok != in || (in && got != secs(want)) {
			t.Fatalf("push's cursor: %s: %v %v, want %v %v", p, got, ok, want, in)
		}
	}
	// written again in path order from a map over the slices
	// (merged with the slices, not sorted again: a path set, one added
	// before every other, one after, one deleted)
	var written []string
	for p, ts := range pushed.inPathOrder() {
		written = append(written, p)
		if want, in := at[p]; !in || ts != secs(want) {
			t.Fatalf("written: %s at %d, want %v %v", p, ts, want, in)
		}
	}
	if !slices.IsSorted(written) || len(written) != len(at) {
		t.Fatal("a push's times are not written in path order")
	}
	last := pushed.with([]string{"content/posts/zz.md"}, []string{paths[0]}, later)
	delete(at, paths[0])
	at["content/posts/zz.md"] = later
	written = written[:0]
	for p, ts := range last.inPathOrder() {
		written = append(written, p)
		if want, in := at[p]; !in || ts != secs(want) {
			t.Fatalf("written again: %s at %d, want %v %v", p, ts, want, in)
		}
	}
	if !slices.IsSorted(written) || len(written) != len(at) {
		t.Fatal("a second push's times are not written in path order")
	}
}

// TestDecodeTimes_OutOfOrderIsAMap: a cache file whose times are not in
// path order (written before they were) is read into a map, each path
// with its time.
func TestDecodeTimes_OutOfOrderIsAMap(t *testing.T) {
	e := newCacheEncoder(nil)
	e.Uvarint(1)
	e.B = append(e.B, make([]byte, 20)...)
	want := map[string]time.Time{"b.md": time.Unix(2e9, 0).UTC(), "a.md": time.Unix(1e9, 0).UTC(), "c.md": time.Unix(3e9, 0).UTC()}
	e.Uvarint(3)
	for _, p := range []string{"b.md", "a.md", "c.md"} {
		e.Str(p)
		bin, _ := want[p].MarshalBinary()
		e.Str(string(bin))
	}
	times, err := decodeTimes(newCacheDecoder(e.B))
	if err != nil {
		t.Fatal(err)
	}
	tm := times[0].times
	if tm.sorted != nil || !maps.Equal(maps.Collect(tm.all()), want) {
		t.Fatalf("out of order: sorted %v, times %v", tm.sorted != nil, maps.Collect(tm.all()))
	}
	if got := tm.cursor().timeOf("a.md"); !got.Equal(want["a.md"]) {
		t.Fatalf("a.md: %v", got)
	}
}
