package gitsource

import (
	"context"
	"fmt"
	"runtime/debug"
	"testing"
)

// TestSource_FirstLoadPacesCollector: the first Load of a site with at
// least PaceStartMin documents to parse holds the start's pacing of the
// collector (a memory limit) from half-way through its parse until
// EndStartPacing, which puts the limit back; a later Load, a smaller
// first Load, and a source with PaceStartMin below 0 do not hold it.
func TestSource_FirstLoadPacesCollector(t *testing.T) {
	repo := newSrcBareSite(t)
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("content/posts/p%02d.md", i)] = fmt.Sprintf("---\ntitle: Post %d\n---\nBody %d\n", i, i)
	}
	repo.Commit(srcDay(0), files)
	repo.Push(false)

	limit := debug.SetMemoryLimit(-1)
	open := func(min int) *Source {
		src, err := OpenSource(context.Background(), SourceConfig{Site: repo.Bare, Relevant: srcRelevant, CacheKey: "test", PaceStartMin: min, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { src.Close() })
		return src
	}
	src := open(40)
	srcLoad(t, src, "main")
	if !src.PacingStart() || debug.SetMemoryLimit(-1) == limit {
		t.Fatalf("after the first Load of 40 documents: pacing %v, memory limit %d (was %d)", src.PacingStart(), debug.SetMemoryLimit(-1), limit)
	}
	src.EndStartPacing()
	if src.PacingStart() || debug.SetMemoryLimit(-1) != limit {
		t.Fatalf("after EndStartPacing: pacing %v, memory limit %d, want %d", src.PacingStart(), debug.SetMemoryLimit(-1), limit)
	}
	src.EndStartPacing() // once only

	repo.Commit(srcDay(1), map[string]string{"content/posts/p00.md": "---\ntitle: Changed\n---\n"})
	repo.Push(false)
	srcLoad(t, src, "main")
	if src.PacingStart() {
		t.Fatal("a second Load holds the start's pacing")
	}
	for _, min := range []int{41, -1} {
		s := open(min)
		srcLoad(t, s, "main")
		if s.PacingStart() {
			t.Fatalf("PaceStartMin %d: a first Load of 40 documents holds the start's pacing", min)
		}
	}
	// Close ends a pacing the engine never ended.
	s := open(10)
	srcLoad(t, s, "main")
	if !s.PacingStart() {
		t.Fatal("PaceStartMin 10: not held")
	}
	s.Close()
	if s.PacingStart() || debug.SetMemoryLimit(-1) != limit {
		t.Fatalf("after Close: pacing %v, memory limit %d, want %d", s.PacingStart(), debug.SetMemoryLimit(-1), limit)
	}
}
