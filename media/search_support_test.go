package media_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/folio-cms/folio/media"
)

// TestLibrary_ListHits checks ListHits against List with IDs: the same
// page and total for every sort, order, filter and page, including ties
// (equal sizes, names differing only in case), unknown and repeated ids.
func TestLibrary_ListHits(t *testing.T) {
	e := newEnv(t)
	l := e.open(t)
	for _, f := range []string{"/a", "/b"} {
		if err := l.CreateFolder(f); err != nil {
			t.Fatal(err)
		}
	}
	folders := []string{"", "/a", "/b"}
	var all []string
	for i := range 40 {
		var it *media.Item
		switch i % 4 {
		case 0:
			it = mustCreate(t, l, fmt.Sprintf("Shot-%d.png", i%7), pngBytes(t, 2+i%5, 3), folders[i%3])
		case 1:
			it = mustCreate(t, l, fmt.Sprintf("shot-%d.pdf", i%5), pdfBytes, folders[(i/4)%3])
		case 2:
			it = mustCreate(t, l, fmt.Sprintf("clip-%d.mp4", i), mp4Bytes, folders[(i/3)%3])
		default:
			it = mustCreate(t, l, fmt.Sprintf("SHOT-%d.gif", i%3), gifBytes(t, 1, 1), folders[i%3])
		}
		all = append(all, it.ID)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 30 {
		ids := slices.Clone(all)
		r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		ids = ids[:r.IntN(len(ids)+1)]
		if round%3 == 0 {
			ids = append(ids, "nosuchitem", all[0], all[0])
		}
		for _, sort := range []string{media.SortCreatedAt, media.SortFilename, media.SortSize} {
			for _, desc := range []bool{false, true} {
				for _, folder := range []string{"", "/", "/a", "/b/"} {
					for _, typ := range []string{"", "image", "document", "video"} {
						for _, pg := range [][2]int{{0, 0}, {0, 1}, {0, 5}, {3, 4}, {10, 100}, {50, 5}} {
							q := media.Query{Sort: sort, Desc: desc, Folder: folder, Type: typ, Offset: pg[0], Limit: pg[1]}
							got, gotTotal := l.ListHits(ids, q)
							q.IDs = ids
							want, wantTotal := l.List(q)
							if gotTotal != wantTotal || listNames(got) != listNames(want) || !sameIDs(got, want) {
								t.Fatalf("%+v: ListHits %s (%d), List %s (%d)", q, listNames(got), gotTotal, listNames(want), wantTotal)
							}
						}
					}
				}
			}
		}
	}
}

func sameIDs(a, b []*media.Item) bool {
	return slices.EqualFunc(a, b, func(x, y *media.Item) bool { return x.ID == y.ID && x.URL == y.URL })
}
