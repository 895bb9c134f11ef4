package engine

import (
	"context"
	"github.com/folio-cms/folio/engine/internal/gittest"
	"testing"
	"time"
)

// The pushes of package gitsource's incremental-load tests
// (source_incremental_test.go there), served by an engine.

// TestEngine_IncrementalReloadMatchesCold is gitsource's
// TestSource_IncrementalLoadMatchesCold with real content:
// every resource the reloaded engine serves is byte for byte what an
// engine opened cold on that commit serves.
func TestEngine_IncrementalReloadMatchesCold(t *testing.T) {
	r := newSrcBareSite(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	cfg := func() Config {
		return Config{Site: r.Site(), CacheDir: t.TempDir(), Now: func() time.Time { return now }}
	}
	initial, steps := gittest.IncrementalSteps()
	day := 0
	r.Commit(srcDay(day), initial)
	r.Push(false)
	e, err := Open(context.Background(), cfg())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, st := range steps {
		st.Apply(t, r, &day)
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		cold, err := Open(context.Background(), cfg())
		if err != nil {
			t.Fatal(err)
		}
		if e.Published().Commit != cold.Published().Commit {
			t.Fatalf("%s: reloaded to %s, cold engine at %s", st.Name, e.Published().Commit, cold.Published().Commit)
		}
		for _, draft := range []bool{false, true} {
			if got, want := viewDump(t, e, draft), viewDump(t, cold, draft); got != want {
				t.Fatalf("%s draft=%v: reloaded engine serves\n%s\ncold engine serves\n%s", st.Name, draft, got, want)
			}
		}
		cold.Close()
	}
}
