package gitsource

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/folio-cms/folio/content/chunks"
)

// TestPatchTimes_OverParent checks that a push's attribution, the parent's
// with the changed paths given the push's time, holds what a map of every
// path holds (paths set, added, deleted, across more pushes than a
// timeMap keeps over its base), and that it is made over the parent's map,
// not a copy of it.
func TestPatchTimes_OverParent(t *testing.T) {
	want := map[string]time.Time{}
	var files []gitFile
	for i := range 3000 {
		p := fmt.Sprintf("content/posts/p%05d.md", i*2)
		want[p] = time.Unix(int64(1e9+i), 0).UTC()
	}
	sorted := func() []gitFile {
		files = files[:0]
		for _, p := range slices.Sorted(maps.Keys(want)) {
			files = append(files, gitFile{path: p})
		}
		return files
	}
	known := newTimeMap(maps.Clone(want))
	rng := rand.New(rand.NewPCG(3, 4))
	shared := 0
	for push := range 3000 {
		when := time.Unix(int64(2e9+push), 0).UTC()
		changed := map[string]bool{}
		for range 1 + rng.IntN(3) {
			p := fmt.Sprintf("content/posts/p%05d.md", rng.IntN(6000))
			changed[p] = true
			if rng.IntN(3) == 0 {
				delete(want, p)
			} else {
				want[p] = when
			}
		}
		changed["content/posts/not-a-file"] = true // a folder, or not relevant
		got, ok := patchTimes(known, changed, chunks.Of(sorted()), when)
		if !ok {
			t.Fatalf("push %d: not patched", push)
		}
		if got.len() != len(want) {
			t.Fatalf("push %d: %d paths, want %d", push, got.len(), len(want))
		}
		if push%100 == 0 || push > 2990 {
			if all := maps.Collect(got.all()); !maps.Equal(all, want) {
				t.Fatalf("push %d: the times differ from a map of every path", push)
			}
			for p, w := range want {
				if g, ok := got.get(p); !ok || !g.Equal(w) {
					t.Fatalf("push %d: %s: %v %v, want %v", push, p, g, ok, w)
				}
			}
		}
		for p := range changed {
			w, in := want[p]
			if g, ok := got.get(p); ok != in || !g.Equal(w) {
				t.Fatalf("push %d: %s: %v %v, want %v %v", push, p, g, ok, w, in)
			}
		}
		if _, ok := got.get("content/posts/not-a-file"); ok {
			t.Fatalf("push %d: a path that is no file has a time", push)
		}
		if reflect.ValueOf(got.base).UnsafePointer() == reflect.ValueOf(known.base).UnsafePointer() {
			shared++
		}
		known = got
	}
	if shared < 2900 {
		t.Fatalf("%d of 3000 pushes shared the parent's map", shared)
	}
	// A path the parent did not have, not in the files: not patched.
	if _, ok := patchTimes(known, map[string]bool{}, chunks.Of(append(sorted(), gitFile{path: strings.Repeat("z", 3)})), time.Now()); ok {
		t.Fatal("an unchanged file the parent has no time for was patched")
	}
}

// TestAttribute_PushAllocatesItsChange checks that the attribution of a
// one-file push whose parent's is known allocates in proportion to the
// change, not a map of every path (a million at 1M).
func TestAttribute_PushAllocatesItsChange(t *testing.T) {
	r := newSrcBareSite(t)
	files := map[string]string{}
	for i := range 4000 {
		files[fmt.Sprintf("content/posts/p%04d.md", i)] = fmt.Sprintf("---\ntitle: P%d\n---\n", i)
	}
	r.Commit(srcDay(0), files)
	r.Push(false)
	src := openSrc(t, r.Site(), t.TempDir(), &srcTestParser{})
	srcLoad(t, src, "main")
	last := src.last.files
	r.Commit(srcDay(1), map[string]string{"content/posts/p0100.md": "---\ntitle: edited\n---\n"})
	r.Push(false)
	st := openObjectStorage(r.Site(), cache.NewObjectLRU(cache.MiByte))
	defer st.Close()
	c, err := object.GetCommit(st, plumbing.NewHash(srcGit(t, r.Dir, "rev-parse", "HEAD")))
	if err != nil {
		t.Fatal(err)
	}
	tc := &treeEntries{st: st, m: map[plumbing.Hash][]object.TreeEntry{}}
	if _, err := object.GetCommit(st, c.ParentHashes[0]); err != nil { // the store's pack index read
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	times, walked, _, err := src.attribute(context.Background(), tc, c, last, []string{"content/posts/p0100.md"})
	runtime.ReadMemStats(&after)
	if err != nil || walked != 1 {
		t.Fatalf("walked %d, %v", walked, err)
	}
	if got, _ := times.get("content/posts/p0100.md"); !got.Equal(c.Committer.When.UTC()) || times.len() != 4000 {
		t.Fatalf("the changed file's time %v, %d paths", got, times.len())
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Fatalf("%d bytes allocated for one changed file of 4000", n)
	}
}

// encodeTimes is a cache file's recent times: one commit's, each path's
// time as MarshalBinary writes it.
func encodeTimes(at map[string]time.Time) []byte {
	e := newCacheEncoder(nil)
	e.Uvarint(1)
	e.B = append(e.B, make([]byte, 20)...)
	e.Uvarint(uint64(len(at)))
	for p, t := range at {
		e.Str(p)
		bin, _ := t.MarshalBinary()
		e.Str(string(bin))
	}
	return e.B
}

// TestTimeMap_SecondsAPath: the recent times a restart decodes keep each
// path's time as seconds (8 bytes in the map, no pointer), not a
// time.Time (24 bytes): the bytes a decoded map of 8000 paths keeps per
// path. They read as written, and a time a commit cannot have (not whole
// seconds, not UTC) makes the file corrupt, not a time served otherwise.
func TestTimeMap_SecondsAPath(t *testing.T) {
	const n = 8000
	at := map[string]time.Time{}
	for i := range n {
		at[fmt.Sprintf("content/posts/p%05d.md", i)] = time.Unix(int64(1.7e9+i*97), 0).UTC()
	}
	data := encodeTimes(at)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	times, err := decodeTimes(newCacheDecoder(data))
	runtime.GC()
	runtime.ReadMemStats(&after)
	if err != nil || len(times) != 1 || times[0].times.len() != n {
		t.Fatalf("decoded %d, %v", len(times), err)
	}
	kept := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
	t.Logf("%.0f bytes per path", kept)
	if kept > 50 {
		t.Fatalf("the decoded times keep %.0f bytes per path, want at most 50 (79 with a time.Time each)", kept)
	}
	tm := times[0].times
	for p, want := range at {
		if got, ok := tm.get(p); !ok || got != want {
			t.Fatalf("%s: %v, want %v", p, got, want)
		}
	}
	for p, got := range tm.all() {
		if got != at[p] {
			t.Fatalf("all: %s: %v, want %v", p, got, at[p])
		}
	}
	runtime.KeepAlive(times)
	for _, odd := range []time.Time{time.Unix(1.7e9, 5).UTC(), time.Unix(1.7e9, 0).In(time.FixedZone("x", 3600))} {
		if _, err := decodeTimes(newCacheDecoder(encodeTimes(map[string]time.Time{"content/posts/a.md": odd}))); err == nil {
			t.Errorf("time %v decoded", odd)
		}
	}
}
