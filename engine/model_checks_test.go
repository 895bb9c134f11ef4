package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/chunks"
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

// TestDocChecks_ShareScopes: the checks a load keeps for the next one (a
// check of every document) are 48 bytes each, their type and locale in a
// scope shared by the checks of a type (80 bytes each with them in every
// check), and read as the document's type.
func TestDocChecks_ShareScopes(t *testing.T) {
	if n := unsafe.Sizeof(docCheck{}); n > 48 {
		t.Fatalf("a docCheck is %d bytes, want at most 48", n)
	}
	files := []content.File{}
	add := func(p, src string) {
		doc, err := content.Parse(p, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, content.File{Path: p, Doc: doc})
	}
	add("folio.yaml", "types:\n  posts:\n    fields: {title: {kind: string, required: true}}\n  docs:\n    fields: {title: {kind: string, required: true}}\n")
	for i := range 300 {
		typ := []string{"posts", "docs"}[i%2]
		add(fmt.Sprintf("content/%s/p%03d.md", typ, i), fmt.Sprintf("---\ntitle: T%d\n---\n", i))
	}
	add("pages/about.md", "---\ntitle: About\n---\n")
	slices.SortFunc(files, func(a, b content.File) int { return strings.Compare(a.Path, b.Path) })
	site, probs := new(content.Assembler).Assemble(files)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	ms := new(modelState)
	if _, probs, _ := ms.applyModel(site, chunks.Of(files), nil, "c"); len(probs) > 0 {
		t.Fatal(probs)
	}
	scopes := map[*checkScope]bool{}
	n := 0
	for c := range ms.lastChecks.all() {
		n++
		scopes[c.checkScope] = true
		if want, _, _ := strings.Cut(strings.TrimPrefix(c.path, "content/"), "/"); c.typ != want || c.loc != "" || c.proj {
			t.Fatalf("%s: scope %+v, want type %s", c.path, *c.checkScope, want)
		}
	}
	if n != 300 || len(scopes) != 2 {
		t.Fatalf("%d checks, %d scopes; want 300 and 2", n, len(scopes))
	}
}
