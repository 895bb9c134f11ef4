package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/folio-cms/folio/content"
)

// TestCheckList_PatchSharesChunks checks that a reload's checks patched
// from the last ones (patchList) are, in order, what the changed paths'
// checks put in place of theirs make, over random pushes (paths changed,
// added before the first and after the last, deleted, a chunk emptied
// and one grown past twice its size), and that a push of one file shares
// every chunk but one with the last list instead of copying them.
func TestCheckList_PatchSharesChunks(t *testing.T) {
	path := func(i int) string { return fmt.Sprintf("content/posts/p%06d.md", i) }
	want := map[string]*content.Doc{}
	var flat []docCheck
	for i := range 10000 {
		d := &content.Doc{}
		want[path(i*10+5)] = d
		flat = append(flat, docCheck{path: path(i*10 + 5), doc: d})
	}
	list := newCheckList(flat)
	rng := rand.New(rand.NewPCG(5, 6))
	shared := 0
	for push := range 300 {
		changed := map[string]bool{}
		switch push {
		case 100: // a chunk emptied
			for i := 0; i < 2000; i++ {
				changed[path(20000+i*10+5)] = true
				delete(want, path(20000+i*10+5))
			}
		case 200: // a chunk grown past twice its size
			for i := 0; i < 3000; i++ {
				p := path(60000 + i*3 + 1)
				changed[p] = true
				want[p] = &content.Doc{}
			}
		default:
			for range 1 + rng.IntN(3) {
				p := path(rng.IntN(110000) - 1000 + 1000*rng.IntN(2))
				changed[p] = true
				if rng.IntN(3) == 0 {
					delete(want, p)
				} else {
					want[p] = &content.Doc{}
				}
			}
		}
		paths := slices.Sorted(func(yield func(string) bool) {
			for p := range changed {
				if !yield(p) {
					return
				}
			}
		})
		got, made := patchList(list, paths, func(p string) (docCheck, bool) {
			d, ok := want[p]
			return docCheck{path: p, doc: d}, ok
		})
		var seq []string
		for c := range got.all() {
			if want[c.path] != c.doc {
				t.Fatalf("push %d: %s has another document", push, c.path)
			}
			seq = append(seq, c.path)
		}
		if !slices.Equal(seq, slices.Sorted(func(yield func(string) bool) {
			for p := range want {
				if !yield(p) {
					return
				}
			}
		})) || got.len() != len(want) {
			t.Fatalf("push %d: %d checks (len %d), want %d, in path order", push, len(seq), got.len(), len(want))
		}
		for i, c := range made {
			if !changed[c.path] || i > 0 && made[i-1].path >= c.path {
				t.Fatalf("push %d: made %s", push, c.path)
			}
		}
		for _, ch := range got.chunks {
			if len(ch) == 0 || len(ch) > 2*checkChunk {
				t.Fatalf("push %d: a chunk of %d", push, len(ch))
			}
		}
		if len(paths) == 1 {
			kept := 0
			for _, ch := range got.chunks {
				for _, old := range list.chunks {
					if &ch[0] == &old[0] && len(ch) == len(old) {
						kept++
					}
				}
			}
			if kept >= len(list.chunks)-1 {
				shared++
			}
		}
		list = got
	}
	if shared < 50 {
		t.Fatalf("%d one-file pushes shared the last list's unchanged chunks", shared)
	}
}
