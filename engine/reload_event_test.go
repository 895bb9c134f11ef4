package engine

import (
	"context"
	"sync"
	"testing"
)

// TestEngine_OnReload: the first load and every new commit are reported
// with their branch, commit and duration; a branch that cannot be resolved
// is a "resolve" failure; a Reload that finds nothing new reports nothing.
func TestEngine_OnReload(t *testing.T) {
	r := newSrcBareSite(t)
	first := r.Commit(srcDay(0), map[string]string{"pages/index.md": "---\ntitle: Index\n---\nHi\n"})
	r.Push(false)
	var (
		mu     sync.Mutex
		events []ReloadEvent
	)
	e, err := Open(context.Background(), Config{Site: r.Site(), CacheDir: t.TempDir(), DraftBranch: "preview",
		OnReload: func(ev ReloadEvent) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	second := r.Commit(srcDay(1), map[string]string{"pages/index.md": "---\ntitle: Index 2\n---\nHi\n"})
	r.Push(false)
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var loads []string
	resolveFailures := 0
	for _, ev := range events {
		switch {
		case ev.Stage == "load" && ev.Err == nil && ev.Branch == "main":
			loads = append(loads, ev.Commit)
		case ev.Stage == "resolve" && ev.Err != nil && ev.Branch == "preview":
			resolveFailures++
		default:
			t.Errorf("unexpected event %+v", ev)
		}
	}
	if len(loads) != 2 || loads[0] != first || loads[1] != second {
		t.Errorf("loads %v, want [%s %s]", loads, first, second)
	}
	if resolveFailures != 3 {
		t.Errorf("%d resolve failures of the missing draft branch, want 3 (one per Reload)", resolveFailures)
	}
}
