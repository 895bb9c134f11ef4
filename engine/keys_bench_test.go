package engine

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/engine/gitsource"
)

// BenchmarkChangedKeys diffs two snapshots of a 100k-item site that differ
// by one item, as a one-file push leaves them (unchanged documents are the
// same pointers).
func BenchmarkChangedKeys(b *testing.B) {
	const n = 100_000
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	site := &content.Site{Items: map[string][]*content.Item{}, Config: content.Config{Types: map[string]content.TypeConfig{}}}
	for i := 0; i < n; i++ {
		typ := fmt.Sprintf("t%d", i%10)
		site.Items[typ] = append(site.Items[typ], &content.Item{ID: fmt.Sprintf("id%d", i), Type: typ, Slug: fmt.Sprintf("s%d", i), Title: "x", PublishedAt: now})
	}
	old := newSnapshot("main", &gitsource.Tree{Commit: "a"}, site, nil, now, nil)
	next := &content.Site{Items: map[string][]*content.Item{}, Config: site.Config}
	for typ, items := range site.Items {
		next.Items[typ] = slices.Clone(items)
	}
	changed := *next.Items["t3"][7]
	changed.Title = "y"
	next.Items["t3"][7] = &changed
	cur := newSnapshot("main", &gitsource.Tree{Commit: "b"}, next, nil, now, old)
	want := []string{ItemKey("t3", changed.ID), TypeKey("t3")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got := ChangedKeys(old, cur); !slices.Equal(got, want) {
			b.Fatalf("keys %v, want %v", got, want)
		}
	}
}
