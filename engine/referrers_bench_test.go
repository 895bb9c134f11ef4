package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/chunks"
	"github.com/folio-cms/folio/engine/gitsource"
)

// BenchmarkRefIndex measures the reverse-reference index of a load of a
// 10k-item site with a model (each item refers to an author and a media
// item): Build reads every document (a first load, or a push that changed
// many); Patch is a push of one changed item, the index patched from the
// last one. Snapshot is newSnapshot for the same push, what a load cost
// before the index, for scale.
func BenchmarkRefIndex(b *testing.B) {
	files := benchModelFiles(b, 10000, true)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	as := new(content.Assembler)
	ms := new(modelState)
	site, _ := as.Assemble(files)
	site, _, _ = ms.applyModel(site, chunks.Of(files), nil, "c")
	prev := newSnapshot("main", &gitsource.Tree{Commit: "a"}, site, nil, now, nil)
	prev.Model = ms.model
	prev.refs.Store(buildRefIndex(prev))
	b.Run("Build", func(b *testing.B) {
		for b.Loop() {
			buildRefIndex(prev)
		}
	})
	// One push: the last post changed.
	cur := append([]content.File(nil), files...)
	i := len(cur) - 1
	for !strings.HasPrefix(cur[i].Path, "content/posts/") {
		i--
	}
	doc, err := content.Parse(cur[i].Path, []byte(benchItem(i, 1, []string{"news", "guides", "notes", "releases"})))
	if err != nil {
		b.Fatal(err)
	}
	cur[i].Doc = doc
	next, _ := as.Assemble(cur)
	next, _, _ = ms.applyModel(next, chunks.Of(cur), prev, "d")
	b.Run("Snapshot", func(b *testing.B) {
		for b.Loop() {
			newSnapshot("main", &gitsource.Tree{Commit: "b"}, next, nil, now, prev)
		}
	})
	s := newSnapshot("main", &gitsource.Tree{Commit: "b"}, next, nil, now, prev)
	s.Model = ms.model
	b.Run("Patch", func(b *testing.B) {
		for b.Loop() {
			if x := patchRefIndex(s, prev); x == nil {
				b.Fatal("not patched")
			}
		}
	})
}
