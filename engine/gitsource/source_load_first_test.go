package gitsource

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/folio-cms/folio/content"
)

// lookupFirst over more files than one run, on one core and on two:
// every file's content.File and entry, each miss under its key in file
// order (two files of one blob share a key), the hits counted, and the
// entries found marked used.
func TestLookupFirst_Runs(t *testing.T) {
	const n = 5*lookupFirstRun + 123
	files := make([]gitFile, n)
	cached := map[docKey]*docEntry{}
	for i := range files {
		b := plumbing.Hash{byte(i), byte(i >> 8), byte(i >> 16)}
		if i%1000 == 999 {
			b = plumbing.Hash{0xff, byte(i % 3)} // a blob three files of each run share, not cached
		}
		files[i] = gitFile{path: fmt.Sprintf("content/posts/p%06d.md", i), blob: b, mode: filemode.Regular}
		if i%7 != 0 && i%1000 != 999 {
			cached[newDocKey(b, files[i].path)] = &docEntry{}
		}
	}
	get := func(k docKey) *docEntry { return cached[k] }
	for _, procs := range []int{1, 2} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for _, e := range cached {
				e.used = 0
			}
			out := make([]content.File, n)
			entries := make([]*docEntry, n)
			misses := map[docKey][]int{}
			hits := lookupFirst(get, 9, files, newTimeMapSecs(map[string]int64{}), out, entries, misses)
			want := map[docKey][]int{}
			wantHits := 0
			for i, f := range files {
				k := newDocKey(f.blob, f.path)
				if out[i].Path != f.path || out[i].Blob != blobName(f.blob) {
					t.Fatalf("%d Ps: file %d is %q %q", procs, i, out[i].Path, out[i].Blob)
				}
				if e := cached[k]; e != nil {
					wantHits++
					if entries[i] != e || e.used != 9 {
						t.Fatalf("%d Ps: file %d: entry %p used %d, want %p used 9", procs, i, entries[i], e.used, e)
					}
					continue
				}
				if entries[i] != nil {
					t.Fatalf("%d Ps: file %d has an entry, not cached", procs, i)
				}
				want[k] = append(want[k], i)
			}
			if hits != wantHits || len(misses) != len(want) {
				t.Fatalf("%d Ps: %d hits, %d keys missed; want %d, %d", procs, hits, len(misses), wantHits, len(want))
			}
			for k, idx := range want {
				if !slices.Equal(misses[k], idx) {
					t.Fatalf("%d Ps: misses of %v: %v, want %v (file order)", procs, k, misses[k], idx)
				}
			}
		}()
	}
}
